// The service's PostgreSQL schema `tx`, migrated at every start under an
// advisory lock (instances starting together migrate one after the other,
// the later ones finding nothing to do), and the connection helpers.
import type pg from 'pg';
import { createPool as createPgPool, inTransaction as inPgTransaction, migrateSchema, query as pgQuery, type Client, type Db } from '@platform/pg';

export type { Client, Db } from '@platform/pg';

/** Arbitrary but fixed: every instance of the service takes the same lock. */
export const MIGRATION_LOCK = 0x7478; // "tx"

// Append only: an applied migration is never edited; a change is a new entry.
export const MIGRATIONS: readonly string[] = [
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
  // the outbox apart from the transactions: marking a transaction published
  // was an update of its whole row (body and all, and its three indexes,
  // since the partial index made no update HOT); now it is the delete of a
  // narrow row. A row in tx.outbox: admitted, not yet known to be published.
  `CREATE TABLE tx.outbox (
     hash text PRIMARY KEY,
     seq bigint NOT NULL
   );
   INSERT INTO tx.outbox (hash, seq) SELECT hash, seq FROM tx.transactions WHERE NOT published;
   DROP INDEX tx.transactions_outbox;
   ALTER TABLE tx.transactions DROP COLUMN published;
   CREATE OR REPLACE FUNCTION tx.admit_raw(senders text[], chains text[], nonces bigint[], hashes text[], origins text[], usernames text[], bodies text[])
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
         WITH stored AS (
           INSERT INTO tx.transactions (hash, chain_id, sender, nonce, origin, username, body)
           VALUES (hashes[i], chains[i], senders[i], nonces[i], origins[i], usernames[i], bodies[i])
           RETURNING hash, seq
         )
         INSERT INTO tx.outbox (hash, seq) SELECT hash, seq FROM stored;
       END IF;
       admitted := admitted || (taken = 1);
     END LOOP;
     RETURN admitted;
   END $$;`,
  // vault-signed transactions of one account on one chain, signed with the
  // nonces from \`first\` on: stored (with their outbox rows) only if \`first\`
  // is still the account's next nonce, all or none. A request signs first and
  // takes its nonces in this one statement, instead of holding the account's
  // row locked in a transaction around the vault's signing.
  `CREATE FUNCTION tx.admit_signed(sender text, chain text, first bigint, hashes text[], usernames text[], bodies text[])
   RETURNS boolean LANGUAGE plpgsql AS $$
   DECLARE
     taken integer;
   BEGIN
     IF first = 0 THEN
       INSERT INTO tx.accounts AS a (address, chain_id, next_nonce) VALUES (sender, chain, cardinality(hashes))
         ON CONFLICT (address, chain_id) DO UPDATE SET next_nonce = EXCLUDED.next_nonce WHERE a.next_nonce = 0;
     ELSE
       UPDATE tx.accounts SET next_nonce = next_nonce + cardinality(hashes) WHERE address = sender AND chain_id = chain AND next_nonce = first;
     END IF;
     GET DIAGNOSTICS taken = ROW_COUNT;
     IF taken = 0 THEN
       RETURN false;
     END IF;
     WITH stored AS (
       INSERT INTO tx.transactions (hash, chain_id, sender, nonce, origin, username, body)
       SELECT h, chain, sender, first + n - 1, 'vault', u, b FROM unnest(hashes, usernames, bodies) WITH ORDINALITY AS x(h, u, b, n) ORDER BY n
       RETURNING hash, seq
     )
     INSERT INTO tx.outbox (hash, seq) SELECT hash, seq FROM stored;
     RETURN true;
   END $$;`,
  // Cheaper writes per transaction (each measured on its own, one client,
  // batches of 20 over 64 accounts: 113 → 95 µs per raw admission):
  // - admit_raw decides each transaction's nonce in order, as before, but
  //   stores the admitted ones with one statement after the loop: a statement
  //   per transaction cost an executor start each;
  // - seq needs no unique index: it is an identity, and nothing looks a
  //   transaction up by it (the outbox keeps its own copy to order by);
  // - results are json, kept as the text recorded (the same text the
  //   tx.done notice carried, keys in their order), not parsed into jsonb:
  //   nothing queries inside them, and jsonb's parse was about a third of
  //   recording a result.
  `CREATE OR REPLACE FUNCTION tx.admit_raw(senders text[], chains text[], nonces bigint[], hashes text[], origins text[], usernames text[], bodies text[])
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
       admitted := admitted || (taken = 1);
     END LOOP;
     WITH stored AS (
       INSERT INTO tx.transactions (hash, chain_id, sender, nonce, origin, username, body)
       SELECT h, c, s, n, o, u, b FROM unnest(hashes, chains, senders, nonces, origins, usernames, bodies, admitted) WITH ORDINALITY AS x(h, c, s, n, o, u, b, ok, i)
        WHERE ok ORDER BY i
       RETURNING hash, seq
     )
     INSERT INTO tx.outbox (hash, seq) SELECT hash, seq FROM stored;
     RETURN admitted;
   END $$;
   ALTER TABLE tx.transactions DROP CONSTRAINT transactions_seq_key;
   ALTER TABLE tx.results ALTER COLUMN tx_result TYPE json USING tx_result::json, ALTER COLUMN data TYPE json USING data::json;`,
];

/** what a connection failure says: the client should retry (503) */
const OWNER = 'the transaction service';

export function createPool(databaseUrl: string, options: { max?: number; asyncCommit?: boolean } = {}): Db {
  return createPgPool(databaseUrl, {
    applicationName: 'transaction',
    max: options.max ?? 20,
    // for writes whose loss in a crash costs nothing but a repeat (see Outbox): no wait for the WAL flush
    ...(options.asyncCommit ? { synchronousCommit: false } : {}),
  });
}

/** Migrates the schema and runs `prepare` (start-time set-up that must not race another instance) under the lock. */
export async function migrate(pool: Db, prepare: (client: Client) => Promise<void> = async () => {}): Promise<void> {
  await inTransaction(pool, async (client) => {
    await migrateSchema(client, { schema: 'tx', lock: MIGRATION_LOCK, migrations: MIGRATIONS });
    await prepare(client);
  });
}

/** Runs `work` in one database transaction: committed when it returns, rolled back when it throws; a database that is down is a 503. */
export function inTransaction<T>(pool: Db, work: (client: Client) => Promise<T>): Promise<T> {
  return inPgTransaction(pool, work, OWNER);
}

/** `prepared`: the statement's name, to prepare it once per connection (libs/pg) */
export function query<R extends pg.QueryResultRow>(pool: Db, text: string, values: unknown[] = [], prepared?: string): Promise<pg.QueryResult<R>> {
  return pgQuery<R>(pool, text, values, OWNER, prepared);
}
