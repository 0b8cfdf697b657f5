// The chains service's PostgreSQL schema `chains`, migrated at start under an
// advisory lock (instances starting together migrate one after the other).
import pg from 'pg';

const MIGRATION_LOCK = 0x63686e73; // "chns"

// Append only: an applied migration is never edited; a change is a new entry.
const MIGRATIONS: string[] = [
  `-- one row per private chain: its genesis exactly as published (the text its ID hashes is derived from it)
   CREATE TABLE chains.chains (
     chain_id text PRIMARY KEY,
     genesis jsonb NOT NULL,
     code_hash text NOT NULL,
     created_at bigint NOT NULL,
     -- the last block whose governance events are applied (-1: none): a redelivered block changes nothing
     applied_height bigint NOT NULL DEFAULT -1
   );
   CREATE INDEX ON chains.chains (created_at, chain_id);
   -- who may see a chain now: '' stands for "any" in org_unit and common_name
   CREATE TABLE chains.members (
     chain_id text NOT NULL REFERENCES chains.chains ON DELETE CASCADE,
     org_name text NOT NULL,
     org_unit text NOT NULL DEFAULT '',
     common_name text NOT NULL DEFAULT '',
     access boolean NOT NULL,
     PRIMARY KEY (chain_id, org_name, org_unit, common_name)
   );
   CREATE INDEX ON chains.members (org_name) WHERE access;`,
];

export type Db = pg.Pool;
export type Client = pg.PoolClient;

export function createPool(databaseUrl: string): Db {
  return new pg.Pool({ connectionString: databaseUrl, max: 5, connectionTimeoutMillis: 5_000, application_name: 'chains' });
}

export async function migrate(pool: Db): Promise<void> {
  await inTransaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query('CREATE SCHEMA IF NOT EXISTS chains');
    await client.query('CREATE TABLE IF NOT EXISTS chains.migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
    const { rows } = await client.query<{ version: number | null }>('SELECT max(version) AS version FROM chains.migrations');
    for (let version = (rows[0].version ?? 0) + 1; version <= MIGRATIONS.length; version++) {
      await client.query(MIGRATIONS[version - 1]);
      await client.query('INSERT INTO chains.migrations (version) VALUES ($1)', [version]);
    }
  });
}

/** Runs `work` in one database transaction: committed when it returns, rolled back when it throws. */
export async function inTransaction<T>(pool: Db, work: (client: Client) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}
