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

export const CIRRUS_CONSUMER = 'cirrus';
/**
 * One message at a time: a crashed instance's message holds every later
 * block until its ack wait runs out, so the wait is short (as the transaction
 * service's) and a slow apply keeps it alive with a heartbeat.
 */
export const EXEC_ACK_WAIT_MS = 5_000;
export const EXEC_HEARTBEAT_MS = 1_500;

async function lockProgress(client: Client): Promise<number> {
  await client.query('INSERT INTO cirrus.progress (consumer, last_seq) VALUES ($1, 0) ON CONFLICT DO NOTHING', [CIRRUS_CONSUMER]);
  const { rows } = await client.query<{ last_seq: string }>('SELECT last_seq FROM cirrus.progress WHERE consumer = $1 FOR UPDATE', [CIRRUS_CONSUMER]);
  return Number(rows[0].last_seq);
}

/** Applies the ExecResult at stream sequence `seq`; false when that sequence was applied before. */
export async function indexExecResult(pool: Db, seq: number, exec: ExecResult, logger: Logger, options: IndexOptions): Promise<boolean> {
  return inTransaction(pool, async (client) => {
    if (seq <= (await lockProgress(client))) return false;
    await applyExecResult(client, seq, exec, (fields, message) => logger.warn({ ...fields, seq }, message), options);
    await client.query('UPDATE cirrus.progress SET last_seq = $2 WHERE consumer = $1', [CIRRUS_CONSUMER, seq]);
    return true;
  });
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
  return consumeExecResults({
    js,
    durable: CIRRUS_CONSUMER,
    logger,
    heartbeatMs: options.heartbeatMs ?? EXEC_HEARTBEAT_MS,
    work: 'indexing an execution result',
    apply: (seq, exec) => indexExecResult(pool, seq, exec, logger, options.index),
    ...(options.onApplied ? { afterAck: options.onApplied } : {}),
  });
}
