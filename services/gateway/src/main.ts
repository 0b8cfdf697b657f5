// The gateway process: configuration from the environment, NATS, and the
// HTTP server on HOST:PORT until SIGTERM.
import { createLogger, loadConfig, stopOnSignals } from '@platform/common';
import { createTokenVerifier } from '@platform/auth';
import { connectBus } from '@platform/bus';
import { buildGateway } from './app.js';

const config = loadConfig(process.env);
const logger = createLogger('gateway', config.logLevel);
if (!config.natsUrl || !config.oauthDiscoveryUrl) {
  logger.fatal(`${config.natsUrl ? 'OAUTH_DISCOVERY_URL' : 'NATS_URL'} must be set (npm start sets it)`);
  process.exit(1);
}
const nc = await connectBus({ url: config.natsUrl, name: 'gateway', logger });
const verifier = createTokenVerifier({
  discoveryUrl: config.oauthDiscoveryUrl,
  audience: config.oauthAudience,
  usernameClaims: config.oauthUsernameClaims,
  orgClaim: config.oauthOrgClaim,
});
const app = await buildGateway({ config, logger, nc, verifier });
await app.listen({ host: config.host, port: config.port });

stopOnSignals(logger, async () => {
  await app.close();
  await nc.drain();
});
