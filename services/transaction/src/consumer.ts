// Results from this node's execution: a durable consumer of `exec.>` turns
// each ExecResult (one block) into final results in ONE database transaction
// that also records the stream sequence applied (docs/architecture.md "Invariants",
// idempotent consumers), then publishes the block's `tx.done` notice, then acks.
//
// A redelivered message (sequence already applied) changes nothing, but its
// notices are sent again: a crash between commit and notices must not leave a
// `resolve=true` waiter without its notice. A result is never overwritten.
// The consumer allows one unacknowledged message at a time, so messages are
// applied in stream order even with several instances of the service, which
// is what makes "sequence ≤ last applied" mean "already applied".
import { AckPolicy, DeliverPolicy, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { STREAMS, SUBJECTS, consumeExecResults } from '@platform/bus';
import type { ExecResult, Logger, Transaction, TxResult } from '@platform/common';
import type { AdmittedCache } from './admitted-cache.js';
import type { RecentResults } from './recent-results.js';
import type { Db } from './db.js';
import type { Faults } from './outbox.js';
import { finalResult } from './results.js';
import { admittedBodies, readResults, recordResults, type FinalResult } from './store.js';

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
 */
export async function recordExecResult(pool: Db, seq: number, exec: ExecResult, admittedHere?: AdmittedCache): Promise<{ applied: boolean; results: TxResult[] }> {
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
  const { advanced, inserted } = await recordResults(pool, EXEC_CONSUMER, finals, seq);
  if (advanced && inserted.size === finals.length) return { applied: true, results: finals.map((f) => f.result) };
  // applied before (or some results were final already): announce what is stored
  const stored = (await readResults(pool, hashes)).filter((r): r is TxResult => r !== null);
  return { applied: advanced, results: stored };
}

export interface ExecConsumerOptions {
  nc: NatsConnection;
  js: JetStreamClient;
  pool: Db;
  logger: Logger;
  /** the transactions this process admitted, not read back from the database */
  admitted?: AdmittedCache;
  /** where the main chain's final results are kept, as announced, for the results endpoint */
  recent?: RecentResults;
  faults?: Faults;
}

/** Consumes until stopped; a failing database is retried on the same message, keeping the order. */
export async function startExecConsumer(options: ExecConsumerOptions): Promise<{ stop(): Promise<void> }> {
  const { nc, js, pool, logger, admitted, recent, faults = {} } = options;
  return consumeExecResults({
    js,
    durable: EXEC_CONSUMER,
    logger,
    heartbeatMs: EXEC_HEARTBEAT_MS,
    work: 'recording execution results',
    apply: async (seq, exec) => ({ chainId: exec.chainId, results: (await recordExecResult(pool, seq, exec, admitted)).results }),
    beforeAck: (seq, { chainId, results }) => {
      // each result encoded once: for its notice, and as kept for the results endpoint
      const texts = results.map((result) => JSON.stringify(result));
      if (chainId === '') recent?.remember(results.map((result, i) => ({ result, text: texts[i] })));
      for (const notice of doneNotices(results, (nc.info?.max_payload ?? 1024 * 1024) - 4096, texts)) nc.publish(SUBJECTS.tx.done, notice);
      faults.beforeExecAck?.(seq); // a throw here ends the loop unacknowledged, as a crash would
    },
  });
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
