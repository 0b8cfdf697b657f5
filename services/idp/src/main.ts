// The development identity provider as a process: started by `npm start` when
// OAUTH_DISCOVERY_URL is unset; listens on HOST:IDP_PORT until SIGTERM/SIGINT.
import { collectWhenIdle, createLogger, failStart, loadServiceConfig, stopOnSignals } from '@platform/common';
import { startIdp } from './index.js';

const config = loadServiceConfig('idp', process.env, []);
const logger = createLogger('idp', config.logLevel);
try {
  // the gateway's dashboard signs in here and comes back to itself, on loopback and on its own HOST
  const gatewayHosts = new Set(['127.0.0.1', 'localhost', ...(['0.0.0.0', '::'].includes(config.host) ? [] : [config.host.includes(':') ? `[${config.host}]` : config.host])]);
  const dashboardRedirectUris = [...gatewayHosts].map((host) => `http://${host}:${config.port}/dashboard`);
  const idp = await startIdp({ port: config.idpPort, host: config.host, dataDir: config.dataDir, logger, dashboardRedirectUris });
  logger.info({ issuer: idp.issuer, discoveryUrl: idp.discoveryUrl }, 'identity provider listening');
  stopOnSignals(logger, () => idp.stop());
  collectWhenIdle(logger, config.idleCollectionMb);
} catch (err) {
  logger.fatal({ err }, 'the identity provider could not start');
  failStart('idp', `could not start: ${err instanceof Error ? err.message : String(err)}`);
}
