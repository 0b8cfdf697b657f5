// The chains service as a process: configuration from the environment, an
// existing NATS and PostgreSQL (the launcher passes their URLs).
import { collectWhenIdle, createLogger, failStart, loadServiceConfig, stopOnSignals } from '@platform/common';
import { startChainsService } from './index.js';

const config = loadServiceConfig('chains', process.env, ['natsUrl', 'natsCredentials', 'databaseUrl'], {
  natsUrl: 'the URL of the NATS server with JetStream',
  databaseUrl: 'the URL of the PostgreSQL database holding the chains schema',
});
const logger = createLogger('chains', config.logLevel);
try {
  const service = await startChainsService({ config, logger, natsUrl: config.natsUrl, natsCredentials: { user: 'chains', seed: config.natsCredentials }, databaseUrl: config.databaseUrl, rebuild: process.argv.includes('--rebuild') });
  stopOnSignals(logger, () => service.stop());
  collectWhenIdle(logger, config.idleCollectionMb);
} catch (err) {
  logger.fatal({ err }, 'the chains service could not start');
  failStart('chains', `could not start: ${err instanceof Error ? err.message : String(err)}`);
}
