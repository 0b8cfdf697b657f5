// The one way a service consumes this node's execution results (`exec.>`),
// in stream order: each ExecResult is applied (by the caller, in one database
// transaction that also stores its stream sequence, so a redelivery changes
// nothing), retried on failure without moving on, and acknowledged only then.
// The consumer's ack wait is short, so that a crashed instance's message comes
// back quickly; a heartbeat tells the server a slow apply is still working.
import type { ConsumerMessages, JetStreamClient, JetStreamManager, JsMsg } from '@nats-io/jetstream';
import type { ExecResult, Logger } from '@platform/common';
import { readExecResult } from './exec-results.js';
import { STREAMS } from './streams.js';

export interface ExecConsumerSpec<R> {
  js: JetStreamClient;
  /** the durable consumer on the EXEC stream, declared by the caller */
  durable: string;
  logger: Logger;
  /** how often a message being applied is reported as still in progress; below the consumer's ack wait */
  heartbeatMs: number;
  /** what applying does, for log lines ("recording execution results") */
  work: string;
  /**
   * whether a message's subject (`exec.<chain>`) concerns the caller; one that
   * does not is acknowledged unread (not even parsed). Default: every one.
   */
  wanted?(subject: string): boolean;
  /** applies one result; a throw is retried on the same message */
  apply(seq: number, exec: ExecResult): Promise<R>;
  /** after a successful apply, before the ack; a throw ends the consumer with the message unacknowledged, as a crash would */
  beforeAck?(seq: number, applied: R): void;
  afterAck?(seq: number): void;
}

const MAX_RETRY_PAUSE_MS = 5_000;
/** failed attempts between two reminders that a message still fails (at MAX_RETRY_PAUSE_MS apart: five minutes) */
const REMIND_EVERY = 60;
/** failed rounds (about 10 s of pauses) before waiting is worth a log line */
const GAP_PATIENCE = 12;

/**
 * The messages of a durable consumer of the EXEC stream, until `close`. When
 * the consumer is deleted (another instance starting on an empty read model
 * deletes and declares it again, so that it delivers from the first message),
 * consuming starts over on the consumer declared next; without this the
 * instance would wait, silently, on a consumer that no longer exists.
 */
class Deliveries implements AsyncIterable<JsMsg> {
  private current: ConsumerMessages | null = null;
  private closed = false;

  constructor(
    private readonly js: JetStreamClient,
    private readonly durable: string,
    private readonly maxMessages: number,
    private readonly logger: Logger,
  ) {}

  async *[Symbol.asyncIterator](): AsyncIterator<JsMsg> {
    for (let attempt = 0; !this.closed; attempt++) {
      let messages: ConsumerMessages;
      try {
        const consumer = await this.js.consumers.get(STREAMS.exec.name, this.durable);
        messages = await consumer.consume({ max_messages: this.maxMessages });
      } catch (err) {
        if (attempt % 10 === 9) this.logger.warn({ err, consumer: this.durable }, 'the exec consumer is not there; still looking for it');
        await new Promise((resolve) => setTimeout(resolve, Math.min(1_000, 50 * 2 ** attempt)));
        continue;
      }
      this.current = messages;
      if (this.closed) await messages.close();
      void (async () => {
        for await (const status of messages.status()) {
          if (status.type !== 'consumer_deleted') continue;
          this.logger.warn({ consumer: this.durable }, 'the exec consumer was deleted; consuming from the one declared next');
          await messages.close();
        }
      })().catch(() => undefined);
      attempt = -1;
      for await (const msg of messages) yield msg;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.current?.close();
  }
}

/**
 * The message's ExecResult (read from its parts when it refers to them: see
 * exec-results.ts); null (logged) when it is not one; undefined when
 * stopping interrupted reading its parts. Parts that cannot be read are
 * retried, the message kept in progress: skipping it would lose a block.
 */
async function decodeExecResult(msg: JsMsg, logger: Logger, jsm: () => Promise<JetStreamManager>, stopping: () => boolean): Promise<ExecResult | null | undefined> {
  for (let attempt = 0; ; attempt++) {
    try {
      const exec = await readExecResult(jsm, msg.data);
      if (!Array.isArray(exec?.receipts) || typeof exec.block?.hash !== 'string') throw new SyntaxError('not an ExecResult');
      return exec;
    } catch (err) {
      if (err instanceof SyntaxError) {
        logger.error({ err, seq: msg.seq, subject: msg.subject }, 'an exec message is not an ExecResult; terminated');
        return null;
      }
      if (stopping()) return undefined;
      if (attempt % REMIND_EVERY === 0) logger.warn({ err, seq: msg.seq, subject: msg.subject, attempt }, 'the parts of an execution result cannot be read; retrying until they can');
      msg.working();
      await new Promise((resolve) => setTimeout(resolve, Math.min(MAX_RETRY_PAUSE_MS, 100 * 2 ** attempt)));
    }
  }
}

/** The JetStream manager of a client, made once on first use (only results in parts need it). */
function managerOf(js: JetStreamClient): () => Promise<JetStreamManager> {
  let manager: Promise<JetStreamManager> | null = null;
  return () => (manager ??= js.jetstreamManager());
}

export async function consumeExecResults<R>(spec: ExecConsumerSpec<R>): Promise<{ stop(): Promise<void> }> {
  const { logger } = spec;
  // fails fast (before any message) when the caller did not declare the consumer
  await spec.js.consumers.get(STREAMS.exec.name, spec.durable);
  const messages = new Deliveries(spec.js, spec.durable, 16, logger);
  let stopping = false;

  const jsm = managerOf(spec.js);
  const decode = async (msg: JsMsg): Promise<ExecResult | null | undefined> => {
    const exec = await decodeExecResult(msg, logger, jsm, () => stopping);
    // a message no retry can fix; holding it would stop every later result
    if (exec === null) msg.term();
    return exec;
  };

  /** the applied value, or undefined when stopping interrupted the retries (the message stays unacknowledged) */
  const applyWithRetries = async (msg: JsMsg, exec: ExecResult): Promise<{ applied: R } | undefined> => {
    for (let attempt = 0; ; attempt++) {
      try {
        const applied = await spec.apply(msg.seq, exec);
        if (attempt > 0) logger.info({ seq: msg.seq, attempts: attempt + 1 }, `${spec.work} succeeded after retries`);
        return { applied };
      } catch (err) {
        if (stopping) return undefined; // redelivered to the next instance
        // said once, with why, and reminded now and then: not a line per retry
        if (attempt % REMIND_EVERY === 0) logger.warn({ err, seq: msg.seq, attempt }, `${spec.work} failed; retrying until it succeeds`);
        msg.working();
        await new Promise((resolve) => setTimeout(resolve, Math.min(MAX_RETRY_PAUSE_MS, 100 * 2 ** attempt)));
      }
    }
  };

  const handle = async (msg: JsMsg): Promise<void> => {
    if (spec.wanted && !spec.wanted(msg.subject)) {
      msg.ack();
      spec.afterAck?.(msg.seq);
      return;
    }
    const exec = await decode(msg);
    if (!exec) return;
    const heartbeat = setInterval(() => msg.working(), spec.heartbeatMs);
    let outcome: { applied: R } | undefined;
    try {
      outcome = await applyWithRetries(msg, exec);
    } finally {
      clearInterval(heartbeat);
    }
    if (!outcome) return;
    spec.beforeAck?.(msg.seq, outcome.applied);
    msg.ack();
    spec.afterAck?.(msg.seq);
  };

  const loop = (async () => {
    for await (const msg of messages) {
      if (stopping) break;
      await handle(msg);
    }
  })().catch((err: unknown) => logger.error({ err }, `the exec consumer ${spec.durable} stopped`));

  return {
    async stop() {
      stopping = true;
      await messages.close();
      await loop;
    },
  };
}

// ---------------------------------------------------------------------------
// Several results at a time

/** One received message: its stream sequence and its result (null: not an ExecResult, terminated once done with). */
export interface ExecItem {
  seq: number;
  exec: ExecResult | null;
}

export interface ExecBatchSpec {
  js: JetStreamClient;
  /** the durable consumer on the EXEC stream, declared by the caller with max_ack_pending ≥ maxBatch */
  durable: string;
  logger: Logger;
  /** how often every received, unacknowledged message is reported as still in progress; below the consumer's ack wait */
  heartbeatMs: number;
  work: string;
  /** most messages handed to one apply */
  maxBatch: number;
  /** most receipts handed to one apply (a lone larger message goes alone) */
  maxReceipts: number;
  /**
   * Applies what it can of `items` (ascending sequences, as received) and
   * answers the sequences it is done with: applied now, or before. Those are
   * acknowledged; the others are offered again, with whatever arrived
   * meanwhile, after a pause. A throw is retried the same way.
   */
  apply(items: ExecItem[]): Promise<number[]>;
  afterAck?(seq: number): void;
}

/**
 * The consumer of a read model that keeps its own position (the last
 * sequence applied, stored with its data): messages are received ahead,
 * several unacknowledged at once, and applied together when several are
 * waiting — one transaction and one commit for many blocks while the model
 * catches up, one block at a time when it keeps up. Which of them may be
 * applied (in order, none skipped) is the model's decision, made against its
 * stored position: with several instances, one may hold the messages before
 * another's.
 */
export async function consumeExecBatches(spec: ExecBatchSpec): Promise<{ stop(): Promise<void> }> {
  const { logger } = spec;
  await spec.js.consumers.get(STREAMS.exec.name, spec.durable);
  const messages = new Deliveries(spec.js, spec.durable, spec.maxBatch, logger);
  let stopping = false;
  /** received, not yet acknowledged, by ascending sequence; a redelivery replaces the delivery it supersedes */
  const held: Array<{ msg: JsMsg; item: ExecItem; receipts: number }> = [];
  let arrived: (() => void) | null = null;
  const heartbeat = setInterval(() => {
    for (const h of held) h.msg.working();
  }, spec.heartbeatMs);

  const hold = (msg: JsMsg, exec: ExecResult | null): void => {
    const entry = { msg, item: { seq: msg.seq, exec }, receipts: exec?.receipts.length ?? 0 };
    let i = held.length;
    while (i > 0 && held[i - 1].item.seq > msg.seq) i--;
    if (i > 0 && held[i - 1].item.seq === msg.seq) held[i - 1] = entry;
    else held.splice(i, 0, entry);
    arrived?.();
  };

  const nextBatch = (): typeof held => {
    const batch = held.slice(0, 1);
    let receipts = batch[0].receipts;
    for (const h of held.slice(1, spec.maxBatch)) {
      if (receipts + h.receipts > spec.maxReceipts) break;
      receipts += h.receipts;
      batch.push(h);
    }
    return batch;
  };

  const reader = (async () => {
    const jsm = managerOf(spec.js);
    for await (const msg of messages) {
      if (stopping) break;
      const exec = await decodeExecResult(msg, logger, jsm, () => stopping);
      if (exec === undefined) break;
      hold(msg, exec);
    }
  })().catch((err: unknown) => logger.error({ err }, `the exec consumer ${spec.durable} stopped receiving`));

  const applier = (async () => {
    let pauses = 0;
    /** apply calls that threw since the last one that applied something */
    let failures = 0;
    while (!stopping) {
      if (held.length === 0) {
        await new Promise<void>((resolve) => (arrived = resolve));
        arrived = null;
        continue;
      }
      const batch = nextBatch();
      let done: Set<number>;
      try {
        done = new Set(await spec.apply(batch.map((h) => h.item)));
      } catch (err) {
        if (stopping) break; // redelivered to the next instance
        if (failures++ % REMIND_EVERY === 0) logger.warn({ err, seqs: [batch[0].item.seq, batch[batch.length - 1].item.seq], attempt: pauses }, `${spec.work} failed; retrying until it succeeds`);
        done = new Set();
      }
      for (const seq of done) {
        // the latest delivery of the sequence is the one acknowledged
        const at = held.findIndex((h) => h.item.seq === seq);
        if (at < 0) continue;
        const [{ msg, item }] = held.splice(at, 1);
        if (item.exec === null) msg.term();
        else msg.ack();
        spec.afterAck?.(seq);
      }
      if (done.size > 0) {
        if (failures > 0) logger.info({ failures }, `${spec.work} succeeded after retries`);
        pauses = 0;
        failures = 0;
        continue;
      }
      // nothing could be applied: an earlier message is still with another
      // instance (or is coming back to this one), or the database failed
      if (++pauses === GAP_PATIENCE) logger.warn({ waitingFrom: batch[0].item.seq }, `${spec.work}: no message could be applied for a while; still retrying`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(MAX_RETRY_PAUSE_MS, 10 * 2 ** pauses));
        arrived = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      arrived = null;
    }
  })().catch((err: unknown) => logger.error({ err }, `the exec consumer ${spec.durable} stopped`));

  return {
    async stop() {
      stopping = true;
      arrived?.();
      clearInterval(heartbeat);
      await messages.close();
      await reader;
      await applier;
    },
  };
}
