// Results from this node's execution: a durable consumer of `exec.>` turns
// each ExecResult (one block) into final results in ONE database transaction
// that also records the stream sequence applied (ARCHITECTURE.md "Idempotent
// consumers"), then publishes `tx.done.<hash>` for each transaction, then acks.
//
// A redelivered message (sequence already applied) changes nothing, but its
// notices are sent again: a crash between commit and notices must not leave a
// `resolve=true` waiter without its notice. A result is never overwritten.
// The consumer allows one unacknowledged message at a time, so messages are
// applied in stream order even with several instances of the service, which
// is what makes "sequence ≤ last applied" mean "already applied".
import { AckPolicy, DeliverPolicy, type ConsumerMessages, type JetStreamClient, type JetStreamManager, type JsMsg } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { STREAMS, SUBJECTS, encodeJson } from '@platform/bus';
import type { ExecResult, Logger, TxResult } from '@platform/common';
import { inTransaction, type Db } from './db.js';
import type { Faults } from './outbox.js';
import { finalResult } from './results.js';
import { admittedBodies, insertResults, lockExecProgress, readResults, setExecProgress, type FinalResult } from './store.js';

export const EXEC_CONSUMER = 'transaction-results';
/** ack wait of execution results: one message at a time, so a crashed instance's message blocks every later result until it comes back */
export const EXEC_ACK_WAIT_MS = 5_000;
const EXEC_HEARTBEAT_MS = 1_500;

export async function declareExecConsumer(jsm: JetStreamManager, ackWaitMs: number): Promise<void> {
  const config = {
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    filter_subject: 'exec.>',
    ack_wait: ackWaitMs * 1_000_000,
    max_ack_pending: 1,
  };
  try {
    await jsm.consumers.info(STREAMS.exec.name, EXEC_CONSUMER);
  } catch {
    await jsm.consumers.add(STREAMS.exec.name, { durable_name: EXEC_CONSUMER, ...config });
    return;
  }
  await jsm.consumers.update(STREAMS.exec.name, EXEC_CONSUMER, config);
}

/** Applies one ExecResult at stream sequence `seq`; answers the results to announce (stored ones when it was applied before). */
export async function recordExecResult(pool: Db, seq: number, exec: ExecResult): Promise<{ applied: boolean; results: TxResult[] }> {
  const hashes = exec.receipts.map((r) => r.transactionHash);
  const outcome = await inTransaction(pool, async (client) => {
    if (seq <= (await lockExecProgress(client, EXEC_CONSUMER))) return null;
    const admitted = await admittedBodies(client, hashes);
    const finals: FinalResult[] = exec.receipts.map((receipt) => ({
      hash: receipt.transactionHash,
      chainId: exec.chainId,
      blockNumber: exec.block.number,
      result: finalResult(exec, receipt, admitted.get(receipt.transactionHash)),
    }));
    const inserted = await insertResults(client, finals, seq);
    await setExecProgress(client, EXEC_CONSUMER, seq);
    return { finals, inserted };
  });
  if (outcome && outcome.inserted.size === outcome.finals.length) return { applied: true, results: outcome.finals.map((f) => f.result) };
  // applied before (or some results were final already): announce what is stored
  const stored = (await readResults(pool, hashes)).filter((r): r is TxResult => r !== null);
  return { applied: outcome !== null, results: stored };
}

export interface ExecConsumerOptions {
  nc: NatsConnection;
  js: JetStreamClient;
  pool: Db;
  logger: Logger;
  faults?: Faults;
}

/** Consumes until stopped; a failing database is retried on the same message, keeping the order. */
export async function startExecConsumer(options: ExecConsumerOptions): Promise<{ stop(): Promise<void> }> {
  const { nc, js, pool, logger, faults = {} } = options;
  const consumer = await js.consumers.get(STREAMS.exec.name, EXEC_CONSUMER);
  const messages: ConsumerMessages = await consumer.consume({ max_messages: 16 });
  let stopping = false;

  const handle = async (msg: JsMsg): Promise<void> => {
    let exec: ExecResult;
    try {
      exec = JSON.parse(new TextDecoder().decode(msg.data)) as ExecResult;
      if (!Array.isArray(exec?.receipts) || typeof exec.block?.hash !== 'string') throw new Error('not an ExecResult');
    } catch (err) {
      // a message no retry can fix; holding it would stop every later result
      logger.error({ err, seq: msg.seq, subject: msg.subject }, 'an exec message is not an ExecResult; terminated');
      msg.term();
      return;
    }
    // "still working": the ack wait is short so that a crashed instance's
    // message comes back quickly; a slow database must not trigger that
    const heartbeat = setInterval(() => msg.working(), EXEC_HEARTBEAT_MS);
    try {
      await record(msg, exec);
    } finally {
      clearInterval(heartbeat);
    }
  };

  const record = async (msg: JsMsg, exec: ExecResult): Promise<void> => {
    for (let attempt = 0; ; attempt++) {
      let results: TxResult[];
      try {
        ({ results } = await recordExecResult(pool, msg.seq, exec));
      } catch (err) {
        if (stopping) return; // unacknowledged: redelivered to the next instance
        logger.warn({ err, seq: msg.seq, attempt }, 'recording execution results failed; retrying');
        msg.working();
        await new Promise((resolve) => setTimeout(resolve, Math.min(5_000, 100 * 2 ** attempt)));
        continue;
      }
      for (const result of results) nc.publish(SUBJECTS.tx.done(result.hash), encodeJson(result));
      faults.beforeExecAck?.(msg.seq); // a throw here ends the loop unacknowledged, as a crash would
      msg.ack();
      return;
    }
  };

  const loop = (async () => {
    for await (const msg of messages) {
      if (stopping) break;
      await handle(msg);
    }
  })().catch((err: unknown) => logger.error({ err }, 'the exec consumer stopped'));

  return {
    async stop() {
      stopping = true;
      await messages.close();
      await loop;
    },
  };
}
