// The master key that encrypts users' private keys. With VAULT_PASSWORD it is
// derived with scrypt (salt and parameters in the vault's meta table, created
// once, so every instance derives the same key); without it, a random key is
// generated once into the data dir. A check value sealed with the key at the
// vault's first start lets a later start tell a wrong key at once, instead of
// failing at the first signature.
import { randomBytes, scrypt as scryptCallback, type ScryptOptions } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { open, seal } from './envelope.js';

/** The vault's key/value settings, read and written inside the start-up lock. */
export interface MetaStore {
  get(key: string): Promise<string | null>;
  set(key: string, value: string): Promise<void>;
}

/** A start-up refusal: the key at hand is not the vault's. The message says what to do. */
export class MasterKeyError extends Error {
  override readonly name = 'MasterKeyError';
}

interface KdfParams {
  alg: 'scrypt';
  N: number;
  r: number;
  p: number;
  salt: string;
}

type KeySource = 'password' | 'file';

// about 100 ms and 32 MiB per derivation: paid once per start, not per request
const NEW_KDF = { alg: 'scrypt', N: 2 ** 15, r: 8, p: 1 } as const;
const CHECK_PLAINTEXT = Buffer.from('platform vault key check v1', 'utf8');
const CHECK_AAD = 'vault:key-check';

export function masterKeyPath(dataDir: string): string {
  return resolve(dataDir, 'vault', 'master.key');
}

/**
 * The master key of a new password, with a new salt, and what the meta
 * table must then hold: re-encrypting the users' keys with it is the
 * caller's, in the same transaction.
 */
export async function newPasswordKey(meta: MetaStore, password: string): Promise<Buffer> {
  const kdf: KdfParams = { ...NEW_KDF, salt: randomBytes(16).toString('hex') };
  const key = await deriveKey(password, kdf);
  await meta.set('kdf', JSON.stringify(kdf));
  await meta.set('key_check', seal(key, CHECK_PLAINTEXT, CHECK_AAD).toString('hex'));
  return key;
}

/** Whether `password` is the one the vault's keys are encrypted with now. */
export async function isCurrentPassword(meta: MetaStore, password: string): Promise<boolean> {
  const kdfText = await meta.get('kdf');
  const check = await meta.get('key_check');
  if (kdfText === null || check === null) return false;
  const opened = open(await deriveKey(password, JSON.parse(kdfText) as KdfParams), Buffer.from(check, 'hex'), CHECK_AAD);
  return opened !== null && opened.equals(CHECK_PLAINTEXT);
}

export async function resolveMasterKey(meta: MetaStore, options: { password: string | null; dataDir: string }): Promise<Buffer> {
  const source: KeySource = options.password !== null ? 'password' : 'file';
  const storedSource = (await meta.get('key_source')) as KeySource | null;
  const check = await meta.get('key_check');
  const path = masterKeyPath(options.dataDir);

  if (storedSource !== null && storedSource !== source) {
    throw new MasterKeyError(
      storedSource === 'password'
        ? "the vault's keys are encrypted with a password: set VAULT_PASSWORD to the password the vault was created with"
        : `the vault's keys are encrypted with the generated key ${path}: unset VAULT_PASSWORD (changing to a password is not supported)`,
    );
  }

  let key: Buffer;
  if (source === 'password') {
    let kdfText = await meta.get('kdf');
    if (kdfText === null) {
      kdfText = JSON.stringify({ ...NEW_KDF, salt: randomBytes(16).toString('hex') } satisfies KdfParams);
      await meta.set('kdf', kdfText);
    }
    key = await deriveKey(options.password!, JSON.parse(kdfText) as KdfParams);
  } else {
    // a vault that already has keys must not silently get a fresh, useless key file
    key = readOrCreateKeyFile(path, check === null);
  }

  if (check === null) {
    await meta.set('key_check', seal(key, CHECK_PLAINTEXT, CHECK_AAD).toString('hex'));
    await meta.set('key_source', source);
    return key;
  }
  const opened = open(key, Buffer.from(check, 'hex'), CHECK_AAD);
  if (opened === null || !opened.equals(CHECK_PLAINTEXT)) {
    throw new MasterKeyError(
      source === 'password'
        ? 'VAULT_PASSWORD is not the password this vault was created with: start with the right one'
        : `the key in ${path} does not decrypt this vault's keys: start with the data dir the vault was created with`,
    );
  }
  return key;
}

function deriveKey(password: string, kdf: KdfParams): Promise<Buffer> {
  if (kdf.alg !== 'scrypt') throw new MasterKeyError(`the vault's key derivation "${String(kdf.alg)}" is not supported by this version`);
  const options: ScryptOptions = { N: kdf.N, r: kdf.r, p: kdf.p, maxmem: 256 * kdf.N * kdf.r };
  return new Promise((resolvePromise, reject) => {
    scryptCallback(password.normalize('NFC'), Buffer.from(kdf.salt, 'hex'), 32, options, (err, derived) => (err ? reject(err) : resolvePromise(derived)));
  });
}

function readOrCreateKeyFile(path: string, mayCreate: boolean): Buffer {
  if (!existsSync(path)) {
    if (!mayCreate) {
      throw new MasterKeyError(`the vault's master key ${path} is missing: start with the data dir the vault was created with`);
    }
    createKeyFile(path);
  }
  const text = readFileSync(path, 'utf8').trim();
  if (!/^[0-9a-f]{64}$/.test(text)) throw new MasterKeyError(`${path} is not a vault master key (expected 64 hex digits)`);
  return Buffer.from(text, 'hex');
}

/**
 * Written to a private temporary file, then linked into place: link fails if
 * the file exists, so two instances starting on one data dir at once agree on
 * one key, and nobody ever reads a half-written file.
 */
function createKeyFile(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = join(dirname(path), `.master.key.${process.pid}.${randomBytes(4).toString('hex')}`);
  writeFileSync(temporary, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  try {
    linkSync(temporary, path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    unlinkSync(temporary);
  }
}
