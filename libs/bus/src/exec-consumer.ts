// The one way a service consumes this node's execution results (`exec.>`),
// in stream order: each ExecResult is applied (by the caller, in one database
// transaction that also stores its stream sequence, so a redelivery changes
// nothing), retried on failure without moving on, and acknowledged only then.
// The consumer's ack wait is short, so that a crashed instance's message comes
// back quickly; a heartbeat tells the server a slow apply is still working.
import type { ConsumerMessages, JetStreamClient, JsMsg } from '@nats-io/jetstream';
import type { ExecResult, Logger } from '@platform/common';
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
  /** applies one result; a throw is retried on the same message */
  apply(seq: number, exec: ExecResult): Promise<R>;
  /** after a successful apply, before the ack; a throw ends the consumer with the message unacknowledged, as a crash would */
  beforeAck?(seq: number, applied: R): void;
  afterAck?(seq: number): void;
}

const MAX_RETRY_PAUSE_MS = 5_000;

export async function consumeExecResults<R>(spec: ExecConsumerSpec<R>): Promise<{ stop(): Promise<void> }> {
  const { logger } = spec;
  const consumer = await spec.js.consumers.get(STREAMS.exec.name, spec.durable);
  const messages: ConsumerMessages = await consumer.consume({ max_messages: 16 });
  let stopping = false;

  const decode = (msg: JsMsg): ExecResult | null => {
    try {
      const exec = JSON.parse(new TextDecoder().decode(msg.data)) as ExecResult;
      if (!Array.isArray(exec?.receipts) || typeof exec.block?.hash !== 'string') throw new Error('not an ExecResult');
      return exec;
    } catch (err) {
      // a message no retry can fix; holding it would stop every later result
      logger.error({ err, seq: msg.seq, subject: msg.subject }, 'an exec message is not an ExecResult; terminated');
      msg.term();
      return null;
    }
  };

  /** the applied value, or undefined when stopping interrupted the retries (the message stays unacknowledged) */
  const applyWithRetries = async (msg: JsMsg, exec: ExecResult): Promise<{ applied: R } | undefined> => {
    for (let attempt = 0; ; attempt++) {
      try {
        return { applied: await spec.apply(msg.seq, exec) };
      } catch (err) {
        if (stopping) return undefined; // redelivered to the next instance
        logger.warn({ err, seq: msg.seq, attempt }, `${spec.work} failed; retrying`);
        msg.working();
        await new Promise((resolve) => setTimeout(resolve, Math.min(MAX_RETRY_PAUSE_MS, 100 * 2 ** attempt)));
      }
    }
  };

  const handle = async (msg: JsMsg): Promise<void> => {
    const exec = decode(msg);
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
