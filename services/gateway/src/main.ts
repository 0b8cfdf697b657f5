// The gateway process: configuration from the environment, NATS, and the
// HTTP server on HOST:PORT until SIGTERM.
import { collectWhenIdle, createLogger, failStart, loadServiceConfig, stopOnSignals } from '@platform/common';
import { tokenVerifierOf } from '@platform/auth';
import { connectBus } from '@platform/bus';
import { buildGateway } from './app.js';

const config = loadServiceConfig('gateway', process.env, ['natsUrl', 'natsCredentials', 'oauthDiscoveryUrl'], {
  natsUrl: 'the URL of the NATS server the services answer on',
  oauthDiscoveryUrl: "the identity provider's discovery document, whose tokens the gateway accepts (npm start sets it)",
});
const logger = createLogger('gateway', config.logLevel);
try {
  const nc = await connectBus({ url: config.natsUrl, name: 'gateway', credentials: { user: 'gateway', seed: config.natsCredentials }, logger });
  const verifier = tokenVerifierOf(config);
  const app = await buildGateway({ config, logger, nc, verifier });
  await app.listen({ host: config.host, port: config.port });
  stopOnSignals(logger, async () => {
    await app.close();
    await nc.drain();
  });
  collectWhenIdle(logger, config.idleCollectionMb);
} catch (err) {
  logger.fatal({ err }, 'the gateway could not start');
  failStart('gateway', `could not start: ${err instanceof Error ? err.message : String(err)}`);
}
