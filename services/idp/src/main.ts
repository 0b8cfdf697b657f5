// The development identity provider as a process: started by `npm start` when
// OAUTH_DISCOVERY_URL is unset; listens on HOST:IDP_PORT until SIGTERM/SIGINT.
import { createLogger, failStart, loadServiceConfig, stopOnSignals } from '@platform/common';
import { startIdp } from './index.js';

const config = loadServiceConfig('idp', process.env, []);
const logger = createLogger('idp', config.logLevel);
try {
  const idp = await startIdp({ port: config.idpPort, host: config.host, dataDir: config.dataDir, logger });
  logger.info({ issuer: idp.issuer, discoveryUrl: idp.discoveryUrl }, 'identity provider listening');
  stopOnSignals(logger, () => idp.stop());
} catch (err) {
  logger.fatal({ err }, 'the identity provider could not start');
  failStart('idp', `could not start: ${err instanceof Error ? err.message : String(err)}`);
}
