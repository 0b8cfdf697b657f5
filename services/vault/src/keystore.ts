// Users' keys: creation, lookup, signing, listing. Every input is validated
// here, so the NATS endpoints and the HTTP routes cannot differ in what they
// accept. Decrypted keys are cached by username: signing is on the path of
// every transaction, and a key never changes once created (one key per user,
// never replaced), so a cached key cannot go stale even with several vault
// instances on one database.
import type pg from 'pg';
import { PlatformError, type Logger } from '@platform/common';
import type { KeyRecord, SignatureRecord, UserRecord } from '@platform/bus';
import { bytesToHex, generateKeyPair, hexToBytes, publicKeyFromPrivateKey, sign } from '@platform/crypto';
import { findUser, insertUser, listUsers, type UserRow } from './db.js';
import { openUserKey, sealUserKey } from './user-key.js';
import { Lru } from './lru.js';
import * as validate from './validate.js';

interface UnlockedKey {
  record: KeyRecord;
  privateKey: Uint8Array;
}

export interface KeyStoreOptions {
  pool: pg.Pool;
  masterKey: Buffer;
  logger: Logger;
  /** decrypted keys kept in memory; default 10 000 (about 2 MB) */
  cacheSize?: number;
}


export class KeyStore {
  private readonly cache: Lru<string, UnlockedKey>;
  /** loads in progress, so that a burst of first signatures by one user reads and decrypts once */
  private readonly loading = new Map<string, Promise<UnlockedKey | null>>();

  constructor(private readonly options: KeyStoreOptions) {
    this.cache = new Lru(options.cacheSize ?? 10_000);
  }

  /** USER_EXISTS when the user has a key: of concurrent creations exactly one wins. */
  async create(usernameInput: unknown): Promise<KeyRecord> {
    const username = validate.username(usernameInput);
    const pair = generateKeyPair();
    const record: KeyRecord = { username, address: pair.address, pubkey: bytesToHex(pair.publicKey) };
    const inserted = await insertUser(this.options.pool, { ...record, encrypted_key: sealUserKey(this.options.masterKey, pair.privateKey, pair.address) });
    if (!inserted) throw new PlatformError('USER_EXISTS', `User ${username} already exists`);
    this.cache.set(username, { record, privateKey: pair.privateKey });
    this.options.logger.info({ username, address: record.address }, 'key created');
    return record;
  }

  /** USER_NOT_FOUND when the user has no key yet. */
  async get(usernameInput: unknown): Promise<KeyRecord> {
    return (await this.unlocked(validate.username(usernameInput))).record;
  }

  async sign(usernameInput: unknown, msgHashInput: unknown): Promise<SignatureRecord> {
    const username = validate.username(usernameInput);
    const hash = hexToBytes(validate.msgHash(msgHashInput));
    const { privateKey } = await this.unlocked(username);
    const signature = sign(hash, privateKey);
    return { r: bytesToHex(signature.r), s: bytesToHex(signature.s), v: signature.v };
  }

  async users(request: Record<string, unknown>): Promise<UserRecord[]> {
    return listUsers(this.options.pool, validate.usersQuery(request));
  }

  /** Forgets the decrypted keys (at stop). */
  clear(): void {
    this.cache.clear();
  }

  private async unlocked(username: string): Promise<UnlockedKey> {
    let key = this.cache.get(username);
    if (key === undefined) {
      let pending = this.loading.get(username);
      if (pending === undefined) {
        pending = this.load(username).finally(() => this.loading.delete(username));
        this.loading.set(username, pending);
      }
      const loaded = await pending;
      if (loaded === null) throw new PlatformError('USER_NOT_FOUND', `User ${username} not found: create a key with POST /platform/v2.3/key`);
      key = loaded;
    }
    return key;
  }

  private async load(username: string): Promise<UnlockedKey | null> {
    const row = await findUser(this.options.pool, username);
    if (row === null) return null; // not cached: the key may be created a moment later
    const key = { record: { username: row.username, address: row.address, pubkey: row.pubkey }, privateKey: this.decrypt(row) };
    this.cache.set(username, key);
    return key;
  }

  private decrypt(row: UserRow): Uint8Array {
    const opened = openUserKey(this.options.masterKey, row.encrypted_key, row.address);
    // the master key was checked at start, so a row that does not open, or opens
    // to another key than its public key, was altered in the database
    if (opened === null || !opensTo(opened, row.pubkey)) {
      this.options.logger.error({ username: row.username, address: row.address }, "a user's stored key does not match its row: the database was altered");
      throw new PlatformError('INTERNAL', "the user's key cannot be used");
    }
    return new Uint8Array(opened);
  }
}

function opensTo(privateKey: Uint8Array, pubkey: string): boolean {
  try {
    return bytesToHex(publicKeyFromPrivateKey(privateKey)) === pubkey;
  } catch {
    return false; // not a valid secp256k1 private key at all
  }
}
