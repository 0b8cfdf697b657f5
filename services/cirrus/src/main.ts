// Cirrus as a process: configuration from the environment, an existing NATS
// and PostgreSQL (the launcher passes their URLs), a clean stop on SIGTERM/SIGINT.
import { collectWhenIdle, createLogger, failStart, loadServiceConfig, stopOnSignals } from '@platform/common';
import { startCirrus } from './index.js';

const config = loadServiceConfig('cirrus', process.env, ['natsUrl', 'natsCredentials', 'databaseUrl'], {
  natsUrl: 'the URL of the NATS server cirrus consumes from and answers on',
  databaseUrl: 'the URL of the PostgreSQL database holding the cirrus schema',
});
const logger = createLogger('cirrus', config.logLevel);
try {
  // `--reindex`: drop the read model and rebuild it from the stream (no other instance running)
  const reindex = process.argv.includes('--reindex');
  const cirrus = await startCirrus({ config, logger, natsUrl: config.natsUrl, natsCredentials: { user: 'cirrus', seed: config.natsCredentials }, databaseUrl: config.databaseUrl, readRole: config.cirrusReadRole, reindex });
  stopOnSignals(logger, () => cirrus.stop());
  collectWhenIdle(logger, config.idleCollectionMb);
} catch (err) {
  logger.fatal({ err }, 'cirrus could not start');
  failStart('cirrus', `could not start: ${err instanceof Error ? err.message : String(err)}`);
}
