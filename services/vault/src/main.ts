// The vault as a process: configuration from the environment, an existing
// NATS and PostgreSQL (the launcher starts embedded ones and passes their
// URLs), and a clean stop on SIGTERM/SIGINT.
import { collectWhenIdle, createLogger, failStart, loadServiceConfig } from '@platform/common';
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
collectWhenIdle(logger, config.idleCollectionMb);

let stopping = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    // a second signal while stopping means "now"
    if (stopping) process.exit(1);
    stopping = true;
    logger.info({ signal }, 'stopping');
    vault.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'stop failed');
        process.exit(1);
      },
    );
  });
}
