// The vault as a process: configuration from the environment, an existing
// NATS and PostgreSQL (the launcher starts embedded ones and passes their
// URLs), and a clean stop on SIGTERM/SIGINT or when the launcher is gone.
import { collectWhenIdle, createLogger, failStart, loadServiceConfig, stopOnSignals } from '@platform/common';
import { MasterKeyError, startVault } from './index.js';

function fail(message: string): never {
  return failStart('vault', message);
}
const config = loadServiceConfig('vault', process.env, ['natsUrl', 'natsCredentials', 'databaseUrl'], {
  natsUrl: 'the URL of the NATS server the vault answers on',
  databaseUrl: 'the URL of the PostgreSQL database holding the vault schema',
});

const logger = createLogger('vault', config.logLevel);
let vault: Awaited<ReturnType<typeof startVault>>;
try {
  vault = await startVault({ config, logger, natsUrl: config.natsUrl, natsCredentials: { user: 'vault', seed: config.natsCredentials }, databaseUrl: config.databaseUrl });
} catch (err) {
  if (err instanceof MasterKeyError) fail(err.message);
  logger.fatal({ err }, 'the vault could not start');
  fail(`could not start: ${err instanceof Error ? err.message : String(err)}`);
}
// as every service: a stop with a deadline, and a stop when the launcher's channel closes (a launcher
// killed outright would otherwise leave the vault running, its keys loaded and its HTTP port taken)
stopOnSignals(logger, () => vault.stop());
collectWhenIdle(logger, config.idleCollectionMb);
