// The outbox (docs/architecture.md "Invariants"): an admitted transaction is
// committed to PostgreSQL unpublished, then published to `tx.admitted.<chain>`
// with msgID = its hash, then marked published. A crash in between leaves the
// row unpublished; it is published again, with the same msgID and the same
// bytes, at the next start or by the sweeper. JetStream drops a duplicate
// within its window, and the block service refuses a hash it has executed.
//
// Transactions published together go as one message per chain (a JSON list
// of their bodies, at most max_payload): a JetStream message costs the server
// a store, an acknowledgement, a delivery and the consumer's acknowledgement,
// more than admitting the transaction cost. A message of one transaction is
// its body alone, msgID = its hash; a list's msgID names its hashes, so a
// retry of the same list is dropped by the stream, and a transaction that
// comes again in another list is refused by the block service, which keeps
// the executed hashes.
//
// Because losing a mark costs only a repeated publish, marks are written in
// batches (those that arrive while one is written go together in the next)
// on a connection that does not wait for the WAL flush: the client's answer
// waits for the stream's acknowledgement, not for the mark.
import { createHash } from 'node:crypto';
import type { JetStreamClient } from '@nats-io/jetstream';
import { SUBJECTS, publishUntilAnswered } from '@platform/bus';
import { PlatformError, type Logger } from '@platform/common';
import type { ChainSealer } from './chain-seal.js';
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

/** A private chain's message that could not be sealed (its key not to be had from the block service now): retried by a sweep. */
class NotSealed extends Error {
  override readonly name = 'NotSealed';
  constructor(chainId: string, cause: unknown) {
    super(`chain ${chainId}: its key could not be had to seal its transactions`, { cause });
  }
}

export class Outbox {
  /** since when every publication failed (the network's stream refuses or does not answer); null while it takes them */
  private failingSince: number | null = null;
  private sweeping = false;
  private unmarked: string[] = [];
  private marking: Promise<void> | null = null;
  /** publications asked for in this event-loop turn */
  private readonly waiting: Array<{ messages: OutboxMessage[]; resolve(acked: number): void }> = [];

  constructor(
    private readonly js: JetStreamClient,
    private readonly pool: Db,
    /** a pool without synchronous commit, for the marks */
    private readonly markPool: Db,
    private readonly logger: Logger,
    /** seals a private chain's messages with its key */
    private readonly sealer: ChainSealer,
    private readonly faults: Faults = {},
    /** the server's max_payload: a message of several transactions stays under it */
    private readonly maxPayload = 1024 * 1024,
  ) {}

  /**
   * Publishes in the given order (one connection keeps it); answers how many
   * the stream acknowledged. What is published in one event-loop turn (one
   * raw admission batch answers many requests, each publishing its own
   * transaction) goes out together. A failure is logged, not thrown: the
   * transactions are already durable and a sweep publishes them.
   */
  publish(messages: OutboxMessage[]): Promise<number> {
    if (messages.length === 0) return Promise.resolve(0);
    return new Promise((resolve) => {
      this.waiting.push({ messages, resolve });
      if (this.waiting.length === 1) setImmediate(() => void this.publishWaiting());
    });
  }

  private async publishWaiting(): Promise<void> {
    const waiting = this.waiting.splice(0);
    const acked = new Set(await this.publishNow(waiting.flatMap((w) => w.messages)));
    for (const w of waiting) w.resolve(w.messages.filter((m) => acked.has(m.hash)).length);
  }

  /** The hashes the stream acknowledged. */
  private async publishNow(messages: OutboxMessage[]): Promise<string[]> {
    const hashes = messages.map((m) => m.hash);
    try {
      this.faults.beforePublish?.(hashes);
    } catch (err) {
      this.logger.warn({ err, unpublished: hashes.length }, 'publishing admitted transactions failed; a sweep retries');
      return [];
    }
    const batches = admittedMessages(messages, this.maxPayload - 4096);
    const results = await Promise.allSettled(
      batches.map(async (b) => {
        const subject = SUBJECTS.tx.admitted(b.chainId);
        let data: string | Uint8Array;
        try {
          data = await this.sealer.sealed(b.chainId, subject, b.data);
        } catch (err) {
          throw new NotSealed(b.chainId, err);
        }
        // sent again when unanswered (a stream leader stepping down drops it): its msgID stores it once
        return publishUntilAnswered(this.js, subject, data, { msgID: b.msgID });
      }),
    );
    const acked = batches.flatMap((b, i) => (results[i].status === 'fulfilled' ? b.hashes : []));
    const failures = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => r.reason as unknown);
    if (failures.length > 0) this.logger.warn({ err: failures[0], unpublished: hashes.length - acked.length }, 'publishing admitted transactions failed; a sweep retries');
    // a private chain's key not to be had now says nothing of the stream
    const streamFailed = failures.some((err) => !(err instanceof NotSealed));
    if (acked.length > 0) {
      if (this.failingSince !== null) this.logger.info({ ms: Date.now() - this.failingSince }, 'the network orders transactions again: admission is open');
      this.failingSince = null;
    } else if (streamFailed && this.failingSince === null) {
      this.failingSince = Date.now();
      this.logger.error('the network does not order transactions (its stream refuses or does not answer): new transactions are refused with 503 until it does');
    }
    if (acked.length > 0) {
      this.unmarked.push(...acked);
      // only with marks to write: writeMarks on nothing would end (and clear `marking`) before this assignment,
      // leaving a settled promise in `marking` for good, and marksWritten() spinning on it
      this.marking ??= this.writeMarks();
    }
    return acked;
  }

  /**
   * Throws UNAVAILABLE (503) while the network's transaction stream takes no
   * publication — too few of its servers are up to order anything. What was
   * admitted before stays in the outbox and is ordered when it answers again
   * (a sweep retries); admitting more meanwhile would only pile up
   * transactions whose fate the client cannot see.
   */
  requireOrdering(): void {
    if (this.failingSince === null) return;
    throw new PlatformError(
      'UNAVAILABLE',
      'the network cannot order transactions now: its transaction stream does not answer (too few of its servers are up); retry later',
      { since: new Date(this.failingSince).toISOString() },
    );
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

/** One message of `tx.admitted.<chain>`. */
export interface AdmittedMessage {
  chainId: string;
  hashes: string[];
  msgID: string;
  data: string;
}

/**
 * The messages that carry `messages` (in their order per chain): one per
 * chain, split where a message would pass `maxBytes`. One transaction alone is
 * its body, with msgID = its hash; several are the list of their bodies.
 */
export function admittedMessages(messages: OutboxMessage[], maxBytes: number): AdmittedMessage[] {
  const byChain = new Map<string, OutboxMessage[][]>();
  const openRunBytes = new Map<string, number>();
  for (const m of messages) {
    let runs = byChain.get(m.chainId);
    if (!runs) byChain.set(m.chainId, (runs = [[]]));
    let run = runs[runs.length - 1]!;
    // a list's bytes: each body and its comma, and the brackets
    const size = Buffer.byteLength(m.body) + 1;
    let bytes = openRunBytes.get(m.chainId) ?? 1;
    if (run.length > 0 && bytes + size > maxBytes) {
      runs.push((run = []));
      bytes = 1;
    }
    run.push(m);
    openRunBytes.set(m.chainId, bytes + size);
  }
  const out: AdmittedMessage[] = [];
  for (const [chainId, runs] of byChain) {
    for (const run of runs) {
      const hashes = run.map((m) => m.hash);
      if (run.length === 1) out.push({ chainId, hashes, msgID: run[0]!.hash, data: run[0]!.body });
      else out.push({ chainId, hashes, msgID: `list:${createHash('sha256').update(hashes.join(',')).digest('hex')}`, data: `[${run.map((m) => m.body).join(',')}]` });
    }
  }
  return out;
}
