// Cirrus's PostgreSQL schema `cirrus`: migrated at every start under an
// advisory lock (instances starting together migrate one after the other).
// The fixed tables are the catalogue (`cirrus.tables`: API name → internal
// SQL identifier and columns) and the consumer's progress; the indexed
// tables themselves (`cirrus.c_<n>`) are created by the indexer as contracts
// appear, never named after anything a user wrote.
import pg from 'pg';

const MIGRATION_LOCK = 0x63697272; // "cirr"

// Append only: an applied migration is never edited; a change is a new entry.
const MIGRATIONS: string[] = [
  `CREATE TABLE cirrus.progress (
     consumer text PRIMARY KEY,
     last_seq bigint NOT NULL
   );
   CREATE SEQUENCE cirrus.table_ids;
   -- every indexed table: the API name clients write, the SQL table holding it,
   -- its columns as [apiName, sqlName, type, origin] in select-* order
   CREATE TABLE cirrus.tables (
     api_name text PRIMARY KEY,
     sql_name text NOT NULL UNIQUE,
     kind text NOT NULL CHECK (kind IN ('contract', 'history', 'event')),
     contract text NOT NULL,
     columns jsonb NOT NULL,
     created_seq bigint NOT NULL
   );
   -- every indexed contract account and its table (a selfdestruct's state
   -- change may not name the contract any more)
   CREATE TABLE cirrus.contracts (
     address text NOT NULL,
     chain_id text NOT NULL,
     contract text NOT NULL,
     PRIMARY KEY (address, chain_id)
   );`,
];

export type Db = pg.Pool;
export type Client = pg.PoolClient;

export function createPool(databaseUrl: string): Db {
  return new pg.Pool({ connectionString: databaseUrl, max: 10, connectionTimeoutMillis: 5_000, application_name: 'cirrus' });
}

export async function migrate(pool: Db): Promise<void> {
  await inTransaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query('CREATE SCHEMA IF NOT EXISTS cirrus');
    await client.query('CREATE TABLE IF NOT EXISTS cirrus.migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
    const { rows } = await client.query<{ version: number | null }>('SELECT max(version) AS version FROM cirrus.migrations');
    for (let version = (rows[0].version ?? 0) + 1; version <= MIGRATIONS.length; version++) {
      await client.query(MIGRATIONS[version - 1]);
      await client.query('INSERT INTO cirrus.migrations (version) VALUES ($1)', [version]);
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
