// The transaction service as a process: configuration from the environment,
// an existing NATS and PostgreSQL (the launcher starts embedded ones and
// passes their URLs), and a clean stop on SIGTERM/SIGINT.
import { ConfigError, createLogger, loadConfig, stopOnSignals, type NodeConfig } from '@platform/common';
import { startTransactionService } from './index.js';

function fail(message: string): never {
  process.stderr.write(`transaction: ${message}\n`);
  process.exit(1);
}

let config: NodeConfig;
try {
  config = loadConfig(process.env);
} catch (err) {
  fail(err instanceof ConfigError ? err.message : String(err));
}
if (config.natsUrl === null) fail('NATS_URL is required: the URL of the NATS server the service answers on');
if (config.databaseUrl === null) fail('DATABASE_URL is required: the URL of the PostgreSQL database holding the tx schema');

const logger = createLogger('transaction', config.logLevel);
try {
  const service = await startTransactionService({ config, logger, natsUrl: config.natsUrl, databaseUrl: config.databaseUrl });
  stopOnSignals(logger, () => service.stop());
} catch (err) {
  logger.fatal({ err }, 'the transaction service could not start');
  fail(`could not start: ${err instanceof Error ? err.message : String(err)}`);
}
