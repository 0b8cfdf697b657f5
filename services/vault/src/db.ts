// The vault's PostgreSQL schema `vault`: migrations, run at every start under
// an advisory lock (two instances starting at once migrate one after the
// other, the second finding nothing to do), and the queries of the key store.
import type pg from 'pg';
import { createPool as createPgPool, inTransaction, migrateSchema, query as pgQuery } from '@platform/pg';
import { isCurrentPassword, newPasswordKey, resolveMasterKey, type MetaStore } from './master-key.js';
import { resealUserKey } from './user-key.js';

/** Arbitrary but fixed: every vault instance of a database takes the same lock. */
const MIGRATION_LOCK = 0x7661756c74; // "vault"

// Append only: an applied migration is never edited, a change is a new entry.
const MIGRATIONS: string[] = [
  `CREATE TABLE vault.meta (
     key text PRIMARY KEY,
     value text NOT NULL
   );
   CREATE TABLE vault.users (
     username text PRIMARY KEY CHECK (length(username) BETWEEN 1 AND 255),
     address text NOT NULL UNIQUE CHECK (address ~ '^[0-9a-f]{40}$'),
     pubkey text NOT NULL CHECK (pubkey ~ '^04[0-9a-f]{128}$'),
     encrypted_key bytea NOT NULL,
     created_at timestamptz NOT NULL DEFAULT now()
   );
   CREATE INDEX users_created_at ON vault.users (created_at, username);`,
];

export interface UserRow {
  username: string;
  address: string;
  pubkey: string;
  encrypted_key: Buffer;
}

export function createPool(databaseUrl: string): pg.Pool {
  return createPgPool(databaseUrl, { applicationName: 'vault', max: 10 });
}

/**
 * Migrates the schema and resolves the master key (refusing a wrong one),
 * atomically under the lock. With `newPassword`, every user's key is
 * re-encrypted under it in the same transaction, and the new key is the one
 * answered; a start that finds the rotation done already (VAULT_PASSWORD
 * still the old one, VAULT_NEW_PASSWORD the vault's) runs with the new one.
 */
export async function prepareDatabase(
  pool: pg.Pool,
  options: { password: string | null; newPassword?: string | null; dataDir: string },
): Promise<{ key: Buffer; rotated: boolean }> {
  return inTransaction(pool, async (client) => {
    await migrateSchema(client, { schema: 'vault', lock: MIGRATION_LOCK, migrations: MIGRATIONS });
    const meta = metaStore(client);
    const { newPassword } = options;
    if (!newPassword) return { key: await resolveMasterKey(meta, options), rotated: false };
    if (await isCurrentPassword(meta, newPassword)) return { key: await resolveMasterKey(meta, { ...options, password: newPassword }), rotated: false };
    const oldKey = await resolveMasterKey(meta, options);
    const newKey = await newPasswordKey(meta, newPassword);
    const { rows } = await client.query<{ username: string; address: string; encrypted_key: Buffer }>('SELECT username, address, encrypted_key FROM vault.users FOR UPDATE');
    for (const row of rows) {
      await client.query('UPDATE vault.users SET encrypted_key = $2 WHERE username = $1', [row.username, resealUserKey(row.encrypted_key, row.address, oldKey, newKey)]);
    }
    return { key: newKey, rotated: true };
  });
}

function metaStore(client: pg.PoolClient): MetaStore {
  return {
    async get(key) {
      const { rows } = await client.query<{ value: string }>('SELECT value FROM vault.meta WHERE key = $1', [key]);
      return rows[0]?.value ?? null;
    },
    async set(key, value) {
      await client.query('INSERT INTO vault.meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value', [key, value]);
    },
  };
}

/** False when the user already has a key: the row of whoever inserted first stays. */
export async function insertUser(pool: pg.Pool, row: UserRow): Promise<boolean> {
  const result = await query(
    pool,
    // the conflict target is the username only: an address collision is an error, not "user exists"
    'INSERT INTO vault.users (username, address, pubkey, encrypted_key) VALUES ($1, $2, $3, $4) ON CONFLICT (username) DO NOTHING',
    [row.username, row.address, row.pubkey, row.encrypted_key],
  );
  return result.rowCount === 1;
}

export async function findUser(pool: pg.Pool, username: string): Promise<UserRow | null> {
  const result = await query<UserRow>(pool, 'SELECT username, address, pubkey, encrypted_key FROM vault.users WHERE username = $1', [username]);
  return result.rows[0] ?? null;
}

export async function listUsers(pool: pg.Pool, filter: { address: string | null; limit: number; offset: number }): Promise<Array<{ username: string; address: string }>> {
  const result = await query<{ username: string; address: string }>(
    pool,
    // creation order, so that paging is stable while users are added
    `SELECT username, address FROM vault.users
      WHERE ($1::text IS NULL OR address = $1)
      ORDER BY created_at, username
      LIMIT $2 OFFSET $3`,
    [filter.address, filter.limit, filter.offset],
  );
  return result.rows;
}

export async function ping(pool: pg.Pool): Promise<void> {
  await query(pool, 'SELECT 1', []);
}

function query<R extends pg.QueryResultRow>(pool: pg.Pool, text: string, values: unknown[]): Promise<pg.QueryResult<R>> {
  return pgQuery<R>(pool, text, values, 'the vault');
}
