// The indexer's durable consumer of `exec.>`: each ExecResult (one block) is
// applied in ONE database transaction that also stores the stream sequence
// applied, so a crash never leaves half a block and a redelivered message
// (sequence ≤ the stored one) changes nothing. One unacknowledged message at
// a time keeps stream order, even with several instances.
import type { JetStreamClient } from '@nats-io/jetstream';
import { consumeExecResults } from '@platform/bus';
import type { ExecResult, Logger } from '@platform/common';
import { inTransaction, type Client, type Db } from './db.js';
import { applyExecResult, type IndexOptions } from './indexer.js';
import { CatalogueCache } from './tables.js';

/** contract accounts remembered between blocks; beyond this the cache starts over */
const MAX_CACHED_CONTRACTS = 500_000;

export const CIRRUS_CONSUMER = 'cirrus';
/**
 * One message at a time: a crashed instance's message holds every later
 * block until its ack wait runs out, so the wait is short (as the transaction
 * service's) and a slow apply keeps it alive with a heartbeat.
 */
export const EXEC_ACK_WAIT_MS = 5_000;
export const EXEC_HEARTBEAT_MS = 1_500;

/**
 * Moves the stored progress to `seq` (the row stays locked until commit, so
 * instances apply one after the other); answers the sequence it held, or
 * null when `seq` was applied before.
 */
async function advanceProgress(client: Client, seq: number): Promise<number | null> {
  const { rows } = await client.query<{ last_seq: string }>(
    `UPDATE cirrus.progress p SET last_seq = $2 FROM (SELECT last_seq FROM cirrus.progress WHERE consumer = $1 FOR UPDATE) old
     WHERE p.consumer = $1 AND old.last_seq < $2 RETURNING old.last_seq`,
    [CIRRUS_CONSUMER, seq],
  );
  return rows[0] ? Number(rows[0].last_seq) : null;
}

/** The indexer of one process: its catalogue cache, valid while the stored progress is what it left. */
export class Indexer {
  private readonly cache = new CatalogueCache();
  private lastSeq = -1;

  constructor(
    private readonly pool: Db,
    private readonly logger: Logger,
    private readonly options: IndexOptions,
  ) {}

  /** Applies the ExecResult at stream sequence `seq`; false when that sequence was applied before. */
  async apply(seq: number, exec: ExecResult): Promise<boolean> {
    try {
      const applied = await inTransaction(this.pool, async (client) => {
        const previous = await advanceProgress(client, seq);
        if (previous === null) return false;
        // another instance applied blocks since: what this one knew may be stale
        if (previous !== this.lastSeq || this.cache.contracts.size > MAX_CACHED_CONTRACTS) this.cache.clear();
        await applyExecResult(client, seq, exec, (fields, message) => this.logger.warn({ ...fields, seq }, message), this.options, this.cache);
        return true;
      });
      if (applied) this.lastSeq = seq;
      return applied;
    } catch (err) {
      this.cache.clear();
      this.lastSeq = -1;
      throw err;
    }
  }
}

/** The last stream sequence applied (0: none). */
export async function appliedSequence(pool: Db): Promise<number> {
  const { rows } = await pool.query<{ last_seq: string }>('SELECT last_seq FROM cirrus.progress WHERE consumer = $1', [CIRRUS_CONSUMER]);
  return rows[0] ? Number(rows[0].last_seq) : 0;
}

export async function startIndexer(options: {
  js: JetStreamClient;
  pool: Db;
  logger: Logger;
  index: IndexOptions;
  heartbeatMs?: number;
  onApplied?: (seq: number) => void;
}): Promise<{ stop(): Promise<void> }> {
  const { js, pool, logger } = options;
  await pool.query('INSERT INTO cirrus.progress (consumer, last_seq) VALUES ($1, 0) ON CONFLICT DO NOTHING', [CIRRUS_CONSUMER]);
  const indexer = new Indexer(pool, logger, options.index);
  return consumeExecResults({
    js,
    durable: CIRRUS_CONSUMER,
    logger,
    heartbeatMs: options.heartbeatMs ?? EXEC_HEARTBEAT_MS,
    work: 'indexing an execution result',
    apply: (seq, exec) => indexer.apply(seq, exec),
    ...(options.onApplied ? { afterAck: options.onApplied } : {}),
  });
}
