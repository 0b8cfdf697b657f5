// The indexer's durable consumer of `exec.>`. The read model stores the last
// stream sequence it applied, in the same transaction as the data, so a crash
// never leaves half a block and a redelivered message changes nothing. Blocks
// are applied in stream order, none skipped: messages are received ahead
// (EXEC_MAX_IN_FLIGHT unacknowledged), and those that follow the stored
// position without a gap are applied together — one transaction, one write
// batch, one commit — so a model catching up pays the per-block costs once
// per batch. With several instances, one may receive a message before the
// earlier one another instance holds: it waits until that one is applied.
import type { JetStreamClient } from '@nats-io/jetstream';
import { consumeExecBatches, type ExecItem } from '@platform/bus';
import type { Logger } from '@platform/common';
import { inTransaction, type Client, type Db } from './db.js';
import { applyExecResults, type IndexOptions } from './indexer.js';
import { CatalogueCache } from './tables.js';

/** contract accounts remembered between blocks; beyond this the cache starts over */
const MAX_CACHED_CONTRACTS = 500_000;

export const CIRRUS_CONSUMER = 'cirrus';
/**
 * A crashed instance's messages hold every later block until its ack wait
 * runs out, so the wait is short (as the transaction service's) and a slow
 * apply keeps it alive with a heartbeat.
 */
export const EXEC_ACK_WAIT_MS = 5_000;
export const EXEC_HEARTBEAT_MS = 1_500;
/** messages received ahead, unacknowledged: the most blocks one transaction applies */
export const EXEC_MAX_IN_FLIGHT = 16;
/** the most receipts one transaction applies (a larger block goes alone) */
const MAX_BATCH_RECEIPTS = 4_000;

/** The stored position, locked until commit: instances apply one after the other. */
async function lockProgress(client: Client): Promise<number> {
  const { rows } = await client.query<{ last_seq: string }>('SELECT last_seq FROM cirrus.progress WHERE consumer = $1 FOR UPDATE', [CIRRUS_CONSUMER]);
  return Number(rows[0].last_seq);
}

/** The indexer of one process: its catalogue cache, valid while the stored progress is what it left. */
export class Indexer {
  private readonly cache = new CatalogueCache();
  private lastSeq = -1;

  constructor(
    private readonly pool: Db,
    private readonly logger: Logger,
    private readonly options: IndexOptions,
    /**
     * the sequence before the stream's first message when the indexer
     * started: what precedes it is gone from the stream (an operator purged
     * it), so a position behind it counts as there, not as a gap
     */
    private readonly streamFloor = 0,
  ) {}

  /**
   * Applies the items that follow the stored position without a gap (a
   * non-ExecResult among them counts as applied, with nothing to write);
   * answers the sequences done with: those and any applied before.
   */
  async apply(items: ExecItem[]): Promise<number[]> {
    try {
      return await inTransaction(this.pool, async (client) => {
        let stored = await lockProgress(client);
        if (stored < this.streamFloor) {
          this.logger.warn({ applied: stored, streamStartsAfter: this.streamFloor }, 'the stream no longer holds the results after the applied position; indexing resumes from its first message');
          stored = this.streamFloor;
        }
        const before = items.filter((i) => i.seq <= stored).map((i) => i.seq);
        const run: ExecItem[] = [];
        for (const item of items) if (item.seq === stored + run.length + 1) run.push(item);
        if (run.length === 0) return before;
        // another instance applied blocks since: what this one knew may be stale
        if (stored !== this.lastSeq || this.cache.contracts.size > MAX_CACHED_CONTRACTS) this.cache.clear();
        const blocks = run.flatMap((item) => (item.exec ? [{ seq: item.seq, exec: item.exec }] : []));
        await applyExecResults(client, blocks, (fields, message) => this.logger.warn(fields, message), this.options, this.cache);
        const last = run[run.length - 1].seq;
        await client.query('UPDATE cirrus.progress SET last_seq = $2 WHERE consumer = $1', [CIRRUS_CONSUMER, last]);
        this.lastSeq = last;
        return [...before, ...run.map((i) => i.seq)];
      });
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
  /** the EXEC stream's first sequence (0 when it is empty) */
  streamFirstSeq: number;
}): Promise<{ stop(): Promise<void> }> {
  const { js, pool, logger } = options;
  await pool.query('INSERT INTO cirrus.progress (consumer, last_seq) VALUES ($1, 0) ON CONFLICT DO NOTHING', [CIRRUS_CONSUMER]);
  const indexer = new Indexer(pool, logger, options.index, Math.max(0, options.streamFirstSeq - 1));
  return consumeExecBatches({
    js,
    durable: CIRRUS_CONSUMER,
    logger,
    heartbeatMs: options.heartbeatMs ?? EXEC_HEARTBEAT_MS,
    work: 'indexing execution results',
    maxBatch: EXEC_MAX_IN_FLIGHT,
    maxReceipts: MAX_BATCH_RECEIPTS,
    apply: (items) => indexer.apply(items),
    ...(options.onApplied ? { afterAck: options.onApplied } : {}),
  });
}
