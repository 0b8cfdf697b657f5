// The outbox (ARCHITECTURE.md "Invariants"): an admitted transaction is
// committed to PostgreSQL unpublished, then published to `tx.admitted.<chain>`
// with msgID = its hash, then marked published. A crash in between leaves the
// row unpublished; it is published again, with the same msgID and the same
// bytes, at the next start or by the sweeper. JetStream drops a duplicate
// within its window, and the block service refuses a hash it has executed.
//
// Because losing a mark costs only a repeated publish, marks are written in
// batches (those that arrive while one is written go together in the next)
// on a connection that does not wait for the WAL flush: the client's answer
// waits for the stream's acknowledgement, not for the mark.
import type { JetStreamClient } from '@nats-io/jetstream';
import { SUBJECTS } from '@platform/bus';
import type { Logger } from '@platform/common';
import type { Db } from './db.js';
import { markPublished, unpublished } from './store.js';

export interface OutboxMessage {
  hash: string;
  chainId: string;
  /** the Transaction's JSON text, exactly as stored */
  body: string;
}

/** Test seams that break the invariants' preconditions on purpose. */
export interface Faults {
  /** called after the admission commit, before publishing: throw to simulate a crash there */
  beforePublish?: (hashes: string[]) => void;
  /** called after an exec result's commit and notices, before its ack: a throw ends the consumer unacknowledged, as a crash would */
  beforeExecAck?: (seq: number) => void;
}

const SWEEP_BATCH = 500;

export class Outbox {
  private sweeping = false;
  private unmarked: string[] = [];
  private marking: Promise<void> | null = null;

  constructor(
    private readonly js: JetStreamClient,
    private readonly pool: Db,
    /** a pool without synchronous commit, for the marks */
    private readonly markPool: Db,
    private readonly logger: Logger,
    private readonly faults: Faults = {},
  ) {}

  /**
   * Publishes in the given order (one connection keeps it); answers how many
   * the stream acknowledged. A failure is logged, not thrown: the
   * transactions are already durable and a sweep publishes them.
   */
  async publish(messages: OutboxMessage[]): Promise<number> {
    if (messages.length === 0) return 0;
    const hashes = messages.map((m) => m.hash);
    try {
      this.faults.beforePublish?.(hashes);
    } catch (err) {
      this.logger.warn({ err, unpublished: hashes.length }, 'publishing admitted transactions failed; a sweep retries');
      return 0;
    }
    const results = await Promise.allSettled(messages.map((m) => this.js.publish(SUBJECTS.tx.admitted(m.chainId), m.body, { msgID: m.hash })));
    const acked = hashes.filter((_, i) => results[i].status === 'fulfilled');
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) this.logger.warn({ err: failed.reason, unpublished: hashes.length - acked.length }, 'publishing admitted transactions failed; a sweep retries');
    this.unmarked.push(...acked);
    this.marking ??= this.writeMarks();
    return acked.length;
  }

  /** Resolves when every mark asked for so far is written (or has failed, to be redone by a sweep). */
  async marksWritten(): Promise<void> {
    while (this.marking) await this.marking;
  }

  private async writeMarks(): Promise<void> {
    try {
      while (this.unmarked.length > 0) {
        const batch = this.unmarked.splice(0);
        await markPublished(this.markPool, batch).catch((err: unknown) =>
          // published but not marked: a later sweep publishes again, which the stream deduplicates
          this.logger.warn({ err, count: batch.length }, 'marking transactions published failed'),
        );
      }
    } finally {
      this.marking = null;
    }
  }

  /** Publishes every unpublished row admitted at least `olderThanMs` ago, oldest first; answers how many. */
  async sweep(olderThanMs = 0): Promise<number> {
    if (this.sweeping) return 0;
    this.sweeping = true;
    let total = 0;
    try {
      for (;;) {
        const rows = await unpublished(this.pool, SWEEP_BATCH, olderThanMs);
        if (rows.length === 0) return total;
        const done = await this.publish(rows.map((row) => ({ hash: row.hash, chainId: row.chain_id, body: row.body })));
        await this.marksWritten();
        total += done;
        // the stream or the database is failing: stop here, the next sweep starts again from the oldest
        if (done < rows.length) return total;
      }
    } finally {
      this.sweeping = false;
    }
  }

  /** Sweeps every `intervalMs`, leaving alone rows younger than that (their request is still publishing them). */
  startSweeper(intervalMs: number, extra: () => Promise<void> = async () => {}): () => void {
    const timer = setInterval(() => {
      void this.sweep(intervalMs)
        .then(extra)
        .catch((err: unknown) => this.logger.warn({ err }, 'outbox sweep failed'));
    }, intervalMs);
    timer.unref();
    return () => clearInterval(timer);
  }
}
