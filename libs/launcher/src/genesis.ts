// The main chain's genesis for a new single-node network, and the faucet key
// it funds. The launcher is the only writer of `<DATA_DIR>/genesis.json`
// (the block service reads it, and refuses to start without it): the genesis
// must fund the faucet's account, and only whoever holds the faucet key knows
// which account that is. Both files are written once and never changed: the
// block store remembers the genesis's hash and refuses another one.
//
// - `<DATA_DIR>/faucet.key`: the faucet's secp256k1 private key, 64 hex,
//   mode 0600; the transaction service signs the faucet's transfers with it
//   (FAUCET_KEY_FILE).
// - `<DATA_DIR>/genesis.json`: the `Genesis` of the main chain, with the
//   faucet's account holding FAUCET_GENESIS_BALANCE. It is funded whether or
//   not gas is enabled: a node started later with GAS_ENABLED=true keeps its
//   genesis, and a balance changes nothing while gas is disabled.
import { randomBytes } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DEFAULT_PROTOCOL, MAIN_CHAIN, type Genesis } from '@platform/common';
import { bytesToHex, generateKeyPair, hexToBytes, keyPairFromPrivateKey } from '@platform/crypto';

/** 10^18 tokens of 18 decimals: 5 × 10^14 faucet calls of 2000 tokens, far below 2^256. */
export const FAUCET_GENESIS_BALANCE = 10n ** 36n;

export interface MainChainFiles {
  genesisPath: string;
  /** the faucet key's file; null when the genesis predates it (the transaction service then keeps its own key) */
  faucetKeyFile: string | null;
  /** the faucet's address, when its key file exists */
  faucetAddress: string | null;
  /** whether the genesis gives the faucet's account a balance (else the faucet's transfers fail with gas enabled) */
  faucetFunded: boolean;
  /** true when this call wrote the genesis */
  created: boolean;
}

/**
 * Makes sure `<dataDir>` holds the main chain's genesis: an existing one is
 * kept as it is; otherwise the faucet key is generated (unless one is there)
 * and a new genesis funding it is written.
 */
export function ensureMainGenesis(dataDir: string): MainChainFiles {
  const genesisPath = join(dataDir, 'genesis.json');
  const keyPath = join(dataDir, 'faucet.key');
  let created = false;
  if (!existsSync(genesisPath)) {
    const faucet = readOrCreateKey(keyPath);
    created = writeOnce(genesisPath, `${JSON.stringify(newMainGenesis([{ address: faucet, balance: FAUCET_GENESIS_BALANCE.toString() }]), null, 2)}\n`);
  }
  // a genesis written by an older launcher (or copied from another node) may come without a faucet key
  const faucetAddress = existsSync(keyPath) ? readKey(keyPath) : null;
  const genesis = JSON.parse(readFileSync(genesisPath, 'utf8')) as Partial<Genesis>;
  const faucetFunded = faucetAddress !== null && (genesis.accounts ?? []).some((a) => a.address === faucetAddress && BigInt(a.balance) > 0n);
  return { genesisPath, faucetKeyFile: faucetAddress === null ? null : keyPath, faucetAddress, faucetFunded, created };
}

/** A new main chain: the default protocol, the given balances, no contracts yet. */
export function newMainGenesis(accounts: Genesis['accounts'] = []): Genesis {
  return {
    format: 1,
    chainId: MAIN_CHAIN,
    label: 'main',
    timestamp: Math.floor(Date.now() / 1000),
    parentChain: null,
    // two networks started in the same second must not share a genesis hash
    nonce: bytesToHex(randomBytes(32)),
    protocol: DEFAULT_PROTOCOL,
    trustedRoots: [],
    accounts,
    contracts: [],
    members: [],
    creator: null,
  };
}

/** The faucet's address from its key file; a file that is not a key stops the start, naming the file. */
function readKey(path: string): string {
  const text = readFileSync(path, 'utf8').trim().replace(/^0x/i, '');
  if (!/^[0-9a-fA-F]{64}$/.test(text)) throw new Error(`${path} must hold the faucet's private key as 64 hex digits`);
  return keyPairFromPrivateKey(hexToBytes(text)).address;
}

function readOrCreateKey(path: string): string {
  if (!existsSync(path)) writeOnce(path, `${bytesToHex(generateKeyPair().privateKey)}\n`, 0o600);
  return readKey(path);
}

/**
 * Writes a file only if it does not exist, atomically (a temporary file
 * linked into place), so that two processes starting at once agree on one
 * content. True when this call wrote it.
 */
function writeOnce(path: string, content: string, mode = 0o644): boolean {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, content, { mode });
  try {
    linkSync(tmp, path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return false;
  } finally {
    unlinkSync(tmp);
  }
}
