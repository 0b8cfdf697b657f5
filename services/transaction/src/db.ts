// The service's PostgreSQL schema `tx`, migrated at every start under an
// advisory lock (instances starting together migrate one after the other,
// the later ones finding nothing to do), and the connection helpers.
import pg from 'pg';
import { PlatformError } from '@platform/common';

/** Arbitrary but fixed: every instance of the service takes the same lock. */
const MIGRATION_LOCK = 0x7478; // "tx"

// Append only: an applied migration is never edited; a change is a new entry.
const MIGRATIONS: string[] = [
  `CREATE TABLE tx.meta (
     key text PRIMARY KEY,
     value text NOT NULL
   );
   -- the next nonce of each account on each chain: pending transactions included
   CREATE TABLE tx.accounts (
     address text NOT NULL,
     chain_id text NOT NULL,
     next_nonce bigint NOT NULL CHECK (next_nonce >= 0),
     PRIMARY KEY (address, chain_id)
   );
   -- every admitted transaction: the Pending record and, while not published, the outbox
   CREATE TABLE tx.transactions (
     hash text PRIMARY KEY,
     seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
     chain_id text NOT NULL,
     sender text NOT NULL,
     nonce bigint NOT NULL,
     origin text NOT NULL,
     username text,
     body text NOT NULL,
     published boolean NOT NULL DEFAULT false,
     admitted_at timestamptz NOT NULL DEFAULT now(),
     UNIQUE (sender, chain_id, nonce)
   );
   CREATE INDEX transactions_outbox ON tx.transactions (seq) WHERE NOT published;
   -- final results, from this node's execution (exec.*); never overwritten
   CREATE TABLE tx.results (
     hash text PRIMARY KEY,
     chain_id text NOT NULL,
     status text NOT NULL CHECK (status IN ('Success', 'Failure')),
     block_number bigint NOT NULL,
     tx_result jsonb NOT NULL,
     data jsonb,
     exec_seq bigint NOT NULL,
     recorded_at timestamptz NOT NULL DEFAULT now()
   );
   -- the last exec stream sequence applied, per durable consumer
   CREATE TABLE tx.exec_progress (
     consumer text PRIMARY KEY,
     last_seq bigint NOT NULL
   );
   CREATE TABLE tx.idempotency (
     username text NOT NULL,
     key text NOT NULL,
     request_digest text NOT NULL,
     hashes jsonb NOT NULL,
     created_at timestamptz NOT NULL DEFAULT now(),
     PRIMARY KEY (username, key)
   );
   CREATE INDEX idempotency_created_at ON tx.idempotency (created_at);`,
  // raw admissions of a batch in one statement, in order (RawAdmissions): each
  // takes its nonce only if it is the account's next one — an unknown
  // account's next is 0 — and is stored only if it took it; one round trip
  // per batch instead of one per transaction
  `CREATE FUNCTION tx.admit_raw(senders text[], chains text[], nonces bigint[], hashes text[], origins text[], usernames text[], bodies text[])
   RETURNS boolean[] LANGUAGE plpgsql AS $$
   DECLARE
     admitted boolean[] := '{}';
     taken integer;
   BEGIN
     FOR i IN 1 .. coalesce(array_length(hashes, 1), 0) LOOP
       IF nonces[i] = 0 THEN
         INSERT INTO tx.accounts AS a (address, chain_id, next_nonce) VALUES (senders[i], chains[i], 1)
           ON CONFLICT (address, chain_id) DO UPDATE SET next_nonce = a.next_nonce + 1 WHERE a.next_nonce = 0;
       ELSE
         UPDATE tx.accounts SET next_nonce = next_nonce + 1 WHERE address = senders[i] AND chain_id = chains[i] AND next_nonce = nonces[i];
       END IF;
       GET DIAGNOSTICS taken = ROW_COUNT;
       IF taken = 1 THEN
         INSERT INTO tx.transactions (hash, chain_id, sender, nonce, origin, username, body)
           VALUES (hashes[i], chains[i], senders[i], nonces[i], origins[i], usernames[i], bodies[i]);
       END IF;
       admitted := admitted || (taken = 1);
     END LOOP;
     RETURN admitted;
   END $$;`,
];

export type Db = pg.Pool;

export function createPool(databaseUrl: string, options: { max?: number; asyncCommit?: boolean } = {}): Db {
  return new pg.Pool({
    connectionString: databaseUrl,
    max: options.max ?? 20,
    // a bounded wait for a connection, so that requests fail with 503 when the database is down instead of hanging
    connectionTimeoutMillis: 5_000,
    application_name: 'transaction',
    // for writes whose loss in a crash costs nothing but a repeat (see Outbox): no wait for the WAL flush
    ...(options.asyncCommit ? { options: '-c synchronous_commit=off' } : {}),
  });
}

/** Migrates the schema and runs `prepare` (start-time set-up that must not race another instance) under the lock. */
export async function migrate(pool: Db, prepare: (client: pg.PoolClient) => Promise<void> = async () => {}): Promise<void> {
  await inTransaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query('CREATE SCHEMA IF NOT EXISTS tx');
    await client.query('CREATE TABLE IF NOT EXISTS tx.migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
    const { rows } = await client.query<{ version: number | null }>('SELECT max(version) AS version FROM tx.migrations');
    for (let version = (rows[0].version ?? 0) + 1; version <= MIGRATIONS.length; version++) {
      await client.query(MIGRATIONS[version - 1]);
      await client.query('INSERT INTO tx.migrations (version) VALUES ($1)', [version]);
    }
    await prepare(client);
  });
}

/** Runs `work` in one database transaction: committed when it returns, rolled back when it throws. */
export async function inTransaction<T>(pool: Db, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await connect(pool);
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw unavailableOr(err);
  } finally {
    client.release();
  }
}

export async function query<R extends pg.QueryResultRow>(pool: Db, text: string, values: unknown[] = []): Promise<pg.QueryResult<R>> {
  try {
    return await pool.query<R>(text, values);
  } catch (err) {
    throw unavailableOr(err);
  }
}

async function connect(pool: Db): Promise<pg.PoolClient> {
  try {
    return await pool.connect();
  } catch (err) {
    throw unavailableOr(err);
  }
}

/** Connection failures (as opposed to a bad query) are 503: the client should retry. */
function unavailableOr(err: unknown): unknown {
  if (err instanceof PlatformError) return err;
  const e = err as { code?: unknown; message?: unknown };
  const code = typeof e?.code === 'string' ? e.code : '';
  const down =
    code.startsWith('08') ||
    ['57P01', '57P02', '57P03', '53300', 'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EPIPE'].includes(code) ||
    /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(String(e?.message ?? ''));
  return down ? new PlatformError('UNAVAILABLE', "the transaction service's database is not available; try again shortly", undefined, { cause: err }) : err;
}
