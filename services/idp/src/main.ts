// The development identity provider as a process: started by `npm start` when
// OAUTH_DISCOVERY_URL is unset; listens on HOST:IDP_PORT until SIGTERM/SIGINT.
import { createLogger, loadConfig, stopOnSignals } from '@platform/common';
import { startIdp } from './index.js';

const config = loadConfig(process.env);
const logger = createLogger('idp', config.logLevel);
const idp = await startIdp({ port: config.idpPort, host: config.host, dataDir: config.dataDir, logger });
logger.info({ issuer: idp.issuer, discoveryUrl: idp.discoveryUrl }, 'identity provider listening');

stopOnSignals(logger, () => idp.stop());
