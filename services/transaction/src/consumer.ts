// Results from this node's execution: a durable consumer of `exec.>` turns
// each ExecResult (one block) into final results in ONE database transaction
// that also records the stream sequence applied (docs/architecture.md "Invariants",
// idempotent consumers), then publishes the block's `tx.done` notice, then acks.
//
// That commit does not wait for PostgreSQL's WAL flush (synchronous_commit
// off): the results are derived from the EXEC stream, which keeps every
// message, so a database crash that loses the last commits loses nothing the
// stream cannot give again. The stored sequence says what the store holds:
// a message whose predecessor in the stream is above it finds the store
// behind (commits lost after their messages were acknowledged), and the
// messages between are read from the stream and recorded first; at start,
// and after the database connection failed, the store is brought up to the
// consumer's acknowledged floor the same way.
//
// A redelivered message (sequence already applied) changes nothing, but its
// notices are sent again: a crash between commit and notices must not leave a
// `resolve=true` waiter without its notice. A result is never overwritten.
// The consumer allows one unacknowledged message at a time, so messages are
// applied in stream order even with several instances of the service, which
// is what makes "sequence ≤ last applied" mean "already applied".
import { AckPolicy, DeliverPolicy, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { STREAMS, SUBJECTS, consumeExecResults, readExecResult } from '@platform/bus';
import type { ExecResult, Logger, Transaction, TxResult } from '@platform/common';
import type { AdmittedCache } from './admitted-cache.js';
import type { RecentResults } from './recent-results.js';
import type { Db } from './db.js';
import type { Faults } from './outbox.js';
import { finalResult } from './results.js';
import { admittedBodies, readResults, recordResults, recordedSequence, type FinalResult } from './store.js';

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

/**
 * Applies one ExecResult at stream sequence `seq`; answers the results to
 * announce (stored ones when it was applied before). The transactions come
 * from `admitted` when this process admitted them, else from the database.
 * `after`: the sequence of the stream's message before this one; a store
 * whose progress is below it lost commits, and answers `behind` (its
 * progress) with nothing recorded.
 */
export async function recordExecResult(pool: Db, seq: number, exec: ExecResult, admittedHere?: AdmittedCache, after = 0): Promise<{ applied: boolean; results: TxResult[]; behind?: number }> {
  const hashes = exec.receipts.map((r) => r.transactionHash);
  // at most two statements, no transaction around them: the bodies this process did not admit (they never change), then progress and results in one
  const cached = admittedHere?.take(hashes) ?? { bodies: new Map<string, Transaction>(), unknown: hashes };
  const admitted = cached.unknown.length === 0 ? cached.bodies : new Map([...cached.bodies, ...(await admittedBodies(pool, cached.unknown))]);
  const finals: FinalResult[] = exec.receipts.map((receipt) => ({
    hash: receipt.transactionHash,
    chainId: exec.chainId,
    blockNumber: exec.block.number,
    result: finalResult(exec, receipt, admitted.get(receipt.transactionHash)),
  }));
  const { advanced, inserted, behind } = await recordResults(pool, EXEC_CONSUMER, finals, seq, after);
  if (behind !== null) return { applied: false, results: [], behind };
  if (advanced && inserted.size === finals.length) return { applied: true, results: finals.map((f) => f.result) };
  // applied before (or some results were final already): announce what is stored
  const stored = (await readResults(pool, hashes)).filter((r): r is TxResult => r !== null);
  return { applied: advanced, results: stored };
}

export interface ExecConsumerOptions {
  nc: NatsConnection;
  js: JetStreamClient;
  /** the node's JetStream manager: the EXEC stream's messages a store that lost commits records again */
  jsm: JetStreamManager;
  /** commits without waiting for the WAL flush (see the top of this file) */
  pool: Db;
  logger: Logger;
  /** the transactions this process admitted, not read back from the database */
  admitted?: AdmittedCache;
  /** where the main chain's final results are kept, as announced, for the results endpoint */
  recent?: RecentResults;
  faults?: Faults;
}

/** Between two attempts to bring a store that lost commits up to the consumer's acknowledged floor. */
const CATCH_UP_RETRY_MS = 1_000;

/**
 * Consumes until stopped; a failing database is retried on the same message,
 * keeping the order. Before the first message, and after any failure of one
 * of the pool's connections (the database may have crashed and restarted
 * while this process ran), what the consumer acknowledged beyond the store's
 * progress is recorded again from the stream, retried until it succeeds.
 */
export async function startExecConsumer(options: ExecConsumerOptions): Promise<{ stop(): Promise<void> }> {
  const { nc, js, jsm, pool, logger, admitted, recent, faults = {} } = options;
  const announce = (chainId: string, results: TxResult[]): void => {
    // each result encoded once: for its notice, and as kept for the results endpoint
    const texts = results.map((result) => JSON.stringify(result));
    if (chainId === '') recent?.remember(results.map((result, i) => ({ result, text: texts[i] })));
    for (const notice of doneNotices(results, (nc.info?.max_payload ?? 1024 * 1024) - 4096, texts)) nc.publish(SUBJECTS.tx.done, notice);
  };

  /** Records the stream's messages after `from` and before `to`, in order; answers the last one there (else `from`). */
  const recordMissed = async (from: number, to: number): Promise<number> => {
    const { state } = await jsm.streams.info(STREAMS.exec.name);
    let previous = from;
    for (let seq = Math.max(from + 1, state.first_seq); seq < to && seq <= state.last_seq; seq++) {
      const msg = await jsm.streams.getMessage(STREAMS.exec.name, { seq });
      if (!msg) continue; // deleted from the stream: nothing to record
      let exec: ExecResult;
      try {
        exec = await readExecResult(async () => jsm, msg.data);
      } catch (err) {
        if (!(err instanceof SyntaxError)) throw err;
        // not an ExecResult: the consumer terminated it
        previous = seq;
        continue;
      }
      const recorded = await recordExecResult(pool, seq, exec, admitted, previous);
      if (recorded.behind !== undefined) throw new Error(`the results store fell behind again (to sequence ${recorded.behind}) while recording sequence ${seq} from the stream`);
      announce(exec.chainId, recorded.results);
      previous = seq;
    }
    return previous;
  };

  /** Up to the consumer's acknowledged floor; a store that recorded nothing yet starts where the consumer is. */
  const catchUp = async (): Promise<void> => {
    const recorded = await recordedSequence(pool, EXEC_CONSUMER);
    if (recorded === null) return;
    const acked = (await jsm.consumers.info(STREAMS.exec.name, EXEC_CONSUMER)).ack_floor.stream_seq;
    if (acked <= recorded) return;
    logger.warn({ recorded, acknowledged: acked }, 'the results store is behind the execution results acknowledged (the database lost its last commits): recording them again from the stream');
    await recordMissed(recorded, acked + 1);
    logger.info({ recorded: acked }, 'the results store caught up with the execution results acknowledged');
  };
  let stopped = false;
  let catchingUp: Promise<void> | null = null;
  let retry: NodeJS.Timeout | undefined;
  /** one run at a time: asked for while running, it runs once more after */
  let askedAgain = false;
  const requestCatchUp = (): Promise<void> => {
    if (catchingUp) {
      askedAgain = true;
      return catchingUp;
    }
    clearTimeout(retry);
    return (catchingUp = (async () => {
      do {
        askedAgain = false;
        try {
          await catchUp();
        } catch (err) {
          if (stopped) break;
          logger.warn({ err }, 'bringing the results store up to the acknowledged execution results failed; retrying');
          retry = setTimeout(() => void requestCatchUp(), CATCH_UP_RETRY_MS);
          break;
        }
      } while (askedAgain && !stopped);
      catchingUp = null;
    })());
  };
  await requestCatchUp();
  const onConnectionFailure = () => {
    if (!stopped) void requestCatchUp();
  };
  pool.on('error', onConnectionFailure);

  const consumer = await consumeExecResults({
    js,
    durable: EXEC_CONSUMER,
    logger,
    heartbeatMs: EXEC_HEARTBEAT_MS,
    work: 'recording execution results',
    apply: async (seq, exec) => {
      let recorded = await recordExecResult(pool, seq, exec, admitted, seq - 1);
      if (recorded.behind !== undefined) {
        logger.warn({ recorded: recorded.behind, seq }, 'the results store is behind the message before this execution result (the database lost its last commits, or the stream holds no such message): recording what the stream holds between first');
        recorded = await recordExecResult(pool, seq, exec, admitted, await recordMissed(recorded.behind, seq));
        if (recorded.behind !== undefined) throw new Error(`the results store is behind sequence ${seq - 1} still`);
      }
      return { chainId: exec.chainId, results: recorded.results };
    },
    beforeAck: (seq, { chainId, results }) => {
      announce(chainId, results);
      faults.beforeExecAck?.(seq); // a throw here ends the loop unacknowledged, as a crash would
    },
  });
  return {
    async stop() {
      stopped = true;
      pool.off('error', onConnectionFailure);
      clearTimeout(retry);
      await consumer.stop();
      await catchingUp;
    },
  };
}

const encoder = new TextEncoder();

/**
 * The `tx.done` notices of a block's results: as few messages of at most
 * `maxBytes` as they fit in; a result too big for a message on its own is
 * named in `stored` instead, to be read from the results endpoint.
 * `encoded`: the results' JSON texts, when the caller has them.
 */
export function doneNotices(results: TxResult[], maxBytes: number, encoded: readonly string[] = results.map((r) => JSON.stringify(r))): Uint8Array[] {
  const notices: Uint8Array[] = [];
  let texts: string[] = [];
  let stored: string[] = [];
  let bytes = 0;
  const flush = () => {
    if (texts.length === 0 && stored.length === 0) return;
    notices.push(encoder.encode(`{"results":[${texts.join(',')}]${stored.length > 0 ? `,"stored":${JSON.stringify(stored)}` : ''}}`));
    texts = [];
    stored = [];
    bytes = 0;
  };
  for (const [i, result] of results.entries()) {
    const text = encoded[i];
    // 100 bytes for the notice's frame; a hash in `stored` takes 67
    const size = Buffer.byteLength(text);
    if (size + 100 > maxBytes) {
      if (bytes + 70 > maxBytes) flush();
      stored.push(result.hash);
      bytes += 70;
      continue;
    }
    if (bytes + size + 100 > maxBytes) flush();
    texts.push(text);
    bytes += size + 1;
  }
  flush();
  return notices;
}
