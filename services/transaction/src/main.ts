// The transaction service as a process: configuration from the environment,
// an existing NATS and PostgreSQL (the launcher starts embedded ones and
// passes their URLs), the faucet's key from FAUCET_KEY_FILE (the launcher
// writes it with the genesis that funds it), and a clean stop on SIGTERM/SIGINT.
import { readFileSync } from 'node:fs';
import { collectWhenIdle, createLogger, failStart, loadServiceConfig, stopOnSignals } from '@platform/common';
import { hexToBytes } from '@platform/crypto';
import { startTransactionService } from './index.js';

function fail(message: string): never {
  return failStart('transaction', message);
}
const config = loadServiceConfig('transaction', process.env, ['natsUrl', 'natsCredentials', 'databaseUrl'], {
  natsUrl: 'the URL of the NATS server the service answers on',
  databaseUrl: 'the URL of the PostgreSQL database holding the tx schema',
});

/** FAUCET_KEY_FILE: a file holding the faucet's private key as 64 hex digits; unset, the key stored in the tx schema. */
function faucetKey(path: string | undefined): Uint8Array | undefined {
  if (path === undefined || path.trim() === '') return undefined;
  let text: string;
  try {
    text = readFileSync(path, 'utf8').trim().replace(/^0x/i, '');
  } catch (err) {
    fail(`FAUCET_KEY_FILE: cannot read ${path}: ${err instanceof Error ? err.message : String(err)}`);
  }
  // the key itself never goes into the message
  if (!/^[0-9a-fA-F]{64}$/.test(text)) fail(`FAUCET_KEY_FILE: ${path} must hold a secp256k1 private key as 64 hex digits`);
  return hexToBytes(text);
}

const faucetPrivateKey = faucetKey(process.env.FAUCET_KEY_FILE);
const logger = createLogger('transaction', config.logLevel);
try {
  const service = await startTransactionService({
    config,
    logger,
    natsUrl: config.natsUrl,
    natsCredentials: { user: 'transaction', seed: config.natsCredentials },
    databaseUrl: config.databaseUrl,
    ...(faucetPrivateKey ? { faucetPrivateKey } : {}),
    // `--rebuild` (the launcher's, on this process's first start only): the node's results are published again
    rebuild: process.argv.includes('--rebuild'),
  });
  stopOnSignals(logger, () => service.stop());
  collectWhenIdle(logger, config.idleCollectionMb);
} catch (err) {
  logger.fatal({ err }, 'the transaction service could not start');
  fail(`could not start: ${err instanceof Error ? err.message : String(err)}`);
}
