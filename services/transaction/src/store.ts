// Every SQL statement of the service. Writes that belong together take the
// caller's client, so that they share its database transaction; multi-row
// writes go through unnest() so a batch of a hundred is one statement; the
// JSON texts of a batch (bodies, results) travel as one JSON list (jsonList).
import type pg from 'pg';
import { jsonList, jsonTexts } from '@platform/pg';
import type { Transaction, TxResult, TxResultData, TxResultDetail } from '@platform/common';
import { query, type Db } from './db.js';

type Client = pg.PoolClient;

/**
 * Reserves `count` consecutive nonces of (address, chain) and returns the
 * first. The account row stays locked until the caller's transaction ends, so
 * concurrent requests of one account queue here, and a rollback gives the
 * nonces back: none is ever used twice or skipped.
 */
export async function reserveNonces(client: Client, address: string, chainId: string, count: number): Promise<number> {
  const { rows } = await client.query<{ first: string }>(
    `INSERT INTO tx.accounts AS a (address, chain_id, next_nonce) VALUES ($1, $2, $3::bigint)
     ON CONFLICT (address, chain_id) DO UPDATE SET next_nonce = a.next_nonce + EXCLUDED.next_nonce
     RETURNING a.next_nonce - $3::bigint AS first`,
    [address, chainId, count],
  );
  return Number(rows[0].first);
}

/**
 * Admits raw transactions in one statement, in order (`tx.admit_raw`): each
 * takes its nonce only if it is the account's next one, and is stored only if
 * it took it. Under a concurrent taker of the same nonce, the row lock makes
 * the later one wait and then find the nonce gone. Answers, per transaction,
 * whether it was admitted.
 */
export async function admitRaw(pool: Db, items: Array<{ tx: Transaction; body: string }>): Promise<boolean[]> {
  const { rows } = await query<{ admitted: boolean[] }>(pool, `SELECT tx.admit_raw($1, $2, $3, $4, $5, $6, ${jsonTexts('$7')}) AS admitted`, [
    items.map((i) => i.tx.from),
    items.map((i) => i.tx.chainId),
    items.map((i) => i.tx.nonce),
    items.map((i) => i.tx.hash),
    items.map((i) => i.tx.origin),
    items.map((i) => i.tx.submitter?.username ?? null),
    jsonList(items.map((i) => i.body)),
  ]);
  return rows[0].admitted;
}

/**
 * Vault-signed transactions of one account on one chain, nonces from
 * `first` on, stored with their outbox rows in one statement
 * (`tx.admit_signed`) if `first` is still the account's next nonce: false
 * when another admission took it meanwhile (nothing is stored then).
 */
export async function admitSigned(pool: Db, first: number, transactions: Transaction[], bodies: string[]): Promise<boolean> {
  const { from, chainId } = transactions[0];
  const { rows } = await query<{ admitted: boolean }>(pool, `SELECT tx.admit_signed($1, $2, $3, $4, $5, ${jsonTexts('$6')}) AS admitted`, [
    from,
    chainId,
    first,
    transactions.map((t) => t.hash),
    transactions.map((t) => t.submitter?.username ?? null),
    jsonList(bodies),
  ]);
  return rows[0].admitted;
}

export async function nextNonce(pool: Db, address: string, chainId: string): Promise<number> {
  const { rows } = await query<{ next_nonce: string }>(pool, 'SELECT next_nonce FROM tx.accounts WHERE address = $1 AND chain_id = $2', [address, chainId]);
  return rows.length === 0 ? 0 : Number(rows[0].next_nonce);
}

/** The admitted transactions, unpublished: their Pending record and their outbox row in one. */
export async function insertAdmitted(client: Client, transactions: Transaction[], bodies: string[]): Promise<void> {
  await client.query(
    `WITH stored AS (
       INSERT INTO tx.transactions (hash, chain_id, sender, nonce, origin, username, body)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::text[], $6::text[], ${jsonTexts('$7')})
       RETURNING hash, seq
     )
     INSERT INTO tx.outbox (hash, seq) SELECT hash, seq FROM stored`,
    [
      transactions.map((t) => t.hash),
      transactions.map((t) => t.chainId),
      transactions.map((t) => t.from),
      transactions.map((t) => t.nonce),
      transactions.map((t) => t.origin),
      transactions.map((t) => t.submitter?.username ?? null),
      jsonList(bodies),
    ],
  );
}

export async function markPublished(pool: Db, hashes: string[]): Promise<void> {
  await query(pool, 'DELETE FROM tx.outbox WHERE hash = ANY($1::text[])', [hashes]);
}

export interface OutboxRow {
  hash: string;
  chain_id: string;
  body: string;
}

/** Unpublished transactions in admission order; `olderThanMs` leaves alone those a request is still publishing. */
export async function unpublished(pool: Db, limit: number, olderThanMs = 0): Promise<OutboxRow[]> {
  const { rows } = await query<OutboxRow>(
    pool,
    `SELECT t.hash, t.chain_id, t.body FROM tx.outbox o JOIN tx.transactions t USING (hash)
      WHERE t.admitted_at <= now() - make_interval(secs => $2::double precision / 1000)
      ORDER BY o.seq LIMIT $1`,
    [limit, olderThanMs],
  );
  return rows;
}

// ---------------------------------------------------------------------------
// Idempotency keys

export async function findIdempotent(pool: Db, username: string, key: string): Promise<{ digest: string; hashes: string[] } | null> {
  const { rows } = await query<{ request_digest: string; hashes: string[] }>(pool, 'SELECT request_digest, hashes FROM tx.idempotency WHERE username = $1 AND key = $2', [username, key]);
  return rows.length === 0 ? null : { digest: rows[0].request_digest, hashes: rows[0].hashes };
}

/**
 * Claims the key inside the caller's transaction. A concurrent claim of the
 * same key waits here for the first to end; if that one committed, this one
 * gets its record and must give up.
 */
export async function claimIdempotencyKey(client: Client, username: string, key: string, digest: string): Promise<{ claimed: true } | { claimed: false; digest: string; hashes: string[] }> {
  const inserted = await client.query(
    `INSERT INTO tx.idempotency (username, key, request_digest, hashes) VALUES ($1, $2, $3, '[]'::jsonb) ON CONFLICT DO NOTHING`,
    [username, key, digest],
  );
  if (inserted.rowCount === 1) return { claimed: true };
  const { rows } = await client.query<{ request_digest: string; hashes: string[] }>('SELECT request_digest, hashes FROM tx.idempotency WHERE username = $1 AND key = $2', [username, key]);
  return { claimed: false, digest: rows[0].request_digest, hashes: rows[0].hashes };
}

export async function recordIdempotentHashes(client: Client, username: string, key: string, hashes: string[]): Promise<void> {
  await client.query('UPDATE tx.idempotency SET hashes = $3::jsonb WHERE username = $1 AND key = $2', [username, key, JSON.stringify(hashes)]);
}

/** Keys are kept for a day: long enough for any client's retries. */
export async function expireIdempotencyKeys(pool: Db): Promise<void> {
  await query(pool, `DELETE FROM tx.idempotency WHERE created_at < now() - interval '1 day'`);
}

// ---------------------------------------------------------------------------
// Results

/** A hash's result as stored, with what decides who may read it. */
export interface StoredResult {
  /** null for a hash neither admitted here nor executed here */
  result: TxResult | null;
  /** '' for the main chain (and for an unknown hash) */
  chainId: string;
  /** the submitting user, when admitted here */
  username: string | null;
}

/**
 * The results of the hashes, in their order, each with its chain and
 * submitter (one statement). Each hash is looked up by its key: the LIMITs
 * keep the planner from joining the asked hashes with whole tables (a hash
 * join over a scan of every transaction, whose cost grew with the node's
 * history: 16 asks of 1,000 hashes read the whole table 16 times).
 */
export async function readStoredResults(pool: Db, hashes: string[]): Promise<StoredResult[]> {
  const { rows } = await query<{ hash: string; status: 'Success' | 'Failure' | null; tx_result: TxResultDetail | null; data: TxResultData | null; admitted: boolean; chain_id: string; username: string | null }>(
    pool,
    `SELECT h.hash, r.status, r.tx_result, r.data, t.hash IS NOT NULL AS admitted, coalesce(t.chain_id, r.chain_id, '') AS chain_id, t.username
       FROM unnest($1::text[]) WITH ORDINALITY AS h(hash, i)
       LEFT JOIN LATERAL (SELECT status, tx_result, data, chain_id FROM tx.results WHERE hash = h.hash LIMIT 1) r ON true
       LEFT JOIN LATERAL (SELECT hash, chain_id, username FROM tx.transactions WHERE hash = h.hash LIMIT 1) t ON true
      ORDER BY h.i`,
    [hashes],
  );
  return rows.map((row) => {
    const result: TxResult | null =
      row.status !== null ? { status: row.status, hash: row.hash, txResult: row.tx_result, data: row.data } : row.admitted ? { status: 'Pending', hash: row.hash, txResult: null, data: null } : null;
    return { result, chainId: row.chain_id, username: row.username };
  });
}

/** The TxResults of the hashes, in their order; null for a hash neither admitted here nor executed here. */
export async function readResults(pool: Db, hashes: string[]): Promise<Array<TxResult | null>> {
  return (await readStoredResults(pool, hashes)).map((stored) => stored.result);
}

/**
 * The admitted transactions among `hashes`, as they were published (a body
 * never changes once stored). Raw transactions' bodies are left out: their
 * results carry no data (spec "Raw (self-signed) transaction body"), and
 * reading and parsing every body of a block was a tenth of the service's
 * work under raw load.
 */
export async function admittedBodies(pool: Db, hashes: string[]): Promise<Map<string, Transaction>> {
  const { rows } = await query<{ hash: string; body: string }>(pool, `SELECT hash, body FROM tx.transactions WHERE hash = ANY($1::text[]) AND origin <> 'raw'`, [hashes]);
  return new Map(rows.map((row) => [row.hash, JSON.parse(row.body) as Transaction]));
}

export interface FinalResult {
  hash: string;
  chainId: string;
  blockNumber: number;
  result: TxResult;
}

/**
 * Forgets every final result and the position in the results stream (the
 * node's `--rebuild`, docs/network.md "Rebuilding a node from the network"):
 * the block service executes every chain again and publishes its results on
 * a results stream declared anew, whose sequences start again at 1, and they
 * are recorded then. A result is otherwise never overwritten, so one from a
 * block the network replaced would stay. The admitted transactions stay,
 * and read as pending until then.
 */
export async function forgetFinalResults(client: Client): Promise<number> {
  const { rowCount } = await client.query('DELETE FROM tx.results');
  await client.query('DELETE FROM tx.exec_progress');
  return rowCount ?? 0;
}

/**
 * One statement, one commit: moves the consumer's progress to `execSeq` if
 * it is behind it and at `after` or beyond (the sequence of the stream's
 * message before this one: the store holds everything up to it), and only
 * then inserts the final results — a hash that already has one keeps it.
 * Two instances recording one sequence at once: the progress row's lock
 * makes the later one find it applied. Answers whether the progress moved,
 * the hashes actually inserted, and `behind`: the stored progress when it is
 * below `after` (commits lost by the database; the caller records the
 * messages between first), else null.
 */
export async function recordResults(pool: Db, consumer: string, results: FinalResult[], execSeq: number, after = 0): Promise<{ advanced: boolean; inserted: Set<string>; behind: number | null }> {
  const { rows } = await query<{ advanced: boolean; inserted: string[]; prior: string | null }>(
    pool,
    `WITH prior AS (
       SELECT last_seq FROM tx.exec_progress WHERE consumer = $8
     ), progress AS (
       INSERT INTO tx.exec_progress AS p (consumer, last_seq) VALUES ($8, $7)
       ON CONFLICT (consumer) DO UPDATE SET last_seq = EXCLUDED.last_seq WHERE p.last_seq < EXCLUDED.last_seq AND p.last_seq >= $9
       RETURNING 1
     ), inserted AS (
       INSERT INTO tx.results (hash, chain_id, status, block_number, tx_result, data, exec_seq)
       SELECT h, c, s, b, r, CASE WHEN json_typeof(d) = 'null' THEN NULL ELSE d END, $7
         FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[]) WITH ORDINALITY AS u(h, c, s, b, i)
         JOIN json_array_elements($5::json) WITH ORDINALITY AS tr(r, i) USING (i)
         JOIN json_array_elements($6::json) WITH ORDINALITY AS td(d, i) USING (i)
        WHERE EXISTS (SELECT 1 FROM progress)
       ON CONFLICT (hash) DO NOTHING
       RETURNING hash
     )
     SELECT EXISTS (SELECT 1 FROM progress) AS advanced, ARRAY(SELECT hash FROM inserted) AS inserted, (SELECT last_seq FROM prior) AS prior`,
    [
      results.map((r) => r.hash),
      results.map((r) => r.chainId),
      results.map((r) => r.result.status),
      results.map((r) => r.blockNumber),
      jsonList(results.map((r) => JSON.stringify(r.result.txResult))),
      jsonList(results.map((r) => (r.result.data === null ? null : JSON.stringify(r.result.data)))),
      execSeq,
      consumer,
      after,
    ],
    // once per block, on a pool of its own: parsed and planned once per connection
    'tx-record-results',
  );
  const { advanced, inserted, prior } = rows[0];
  const stored = prior === null ? null : Number(prior);
  return { advanced, inserted: new Set(inserted), behind: !advanced && stored !== null && stored < after ? stored : null };
}

/** The last exec stream sequence recorded for `consumer`; null before its first. */
export async function recordedSequence(pool: Db, consumer: string): Promise<number | null> {
  const { rows } = await query<{ last_seq: string }>(pool, 'SELECT last_seq FROM tx.exec_progress WHERE consumer = $1', [consumer]);
  return rows.length === 0 ? null : Number(rows[0].last_seq);
}

// ---------------------------------------------------------------------------
// Meta

export async function metaValue(client: Client, key: string, create: () => string): Promise<string> {
  await client.query('INSERT INTO tx.meta (key, value) VALUES ($1, $2) ON CONFLICT DO NOTHING', [key, create()]);
  const { rows } = await client.query<{ value: string }>('SELECT value FROM tx.meta WHERE key = $1', [key]);
  return rows[0].value;
}
