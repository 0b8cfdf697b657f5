// The indexer's durable consumer of `exec.>`: each ExecResult (one block) is
// applied in ONE database transaction that also stores the stream sequence
// applied, so a crash never leaves half a block and a redelivered message
// (sequence ≤ the stored one) changes nothing. One unacknowledged message at
// a time keeps stream order, even with several instances.
import type { ConsumerMessages, JetStreamClient, JsMsg } from '@nats-io/jetstream';
import { STREAMS } from '@platform/bus';
import type { ExecResult, Logger } from '@platform/common';
import { inTransaction, type Client, type Db } from './db.js';
import { applyExecResult } from './indexer.js';

export const CIRRUS_CONSUMER = 'cirrus';
export const EXEC_ACK_WAIT_MS = 30_000;
const HEARTBEAT_MS = 5_000;

async function lockProgress(client: Client): Promise<number> {
  await client.query('INSERT INTO cirrus.progress (consumer, last_seq) VALUES ($1, 0) ON CONFLICT DO NOTHING', [CIRRUS_CONSUMER]);
  const { rows } = await client.query<{ last_seq: string }>('SELECT last_seq FROM cirrus.progress WHERE consumer = $1 FOR UPDATE', [CIRRUS_CONSUMER]);
  return Number(rows[0].last_seq);
}

/** Applies the ExecResult at stream sequence `seq`; false when that sequence was applied before. */
export async function indexExecResult(pool: Db, seq: number, exec: ExecResult, logger: Logger): Promise<boolean> {
  return inTransaction(pool, async (client) => {
    if (seq <= (await lockProgress(client))) return false;
    await applyExecResult(client, seq, exec, (fields, message) => logger.warn({ ...fields, seq }, message));
    await client.query('UPDATE cirrus.progress SET last_seq = $2 WHERE consumer = $1', [CIRRUS_CONSUMER, seq]);
    return true;
  });
}

/** The last stream sequence applied (0: none). */
export async function appliedSequence(pool: Db): Promise<number> {
  const { rows } = await pool.query<{ last_seq: string }>('SELECT last_seq FROM cirrus.progress WHERE consumer = $1', [CIRRUS_CONSUMER]);
  return rows[0] ? Number(rows[0].last_seq) : 0;
}

export async function startIndexer(options: { js: JetStreamClient; pool: Db; logger: Logger; onApplied?: (seq: number) => void }): Promise<{ stop(): Promise<void> }> {
  const { js, pool, logger } = options;
  const consumer = await js.consumers.get(STREAMS.exec.name, CIRRUS_CONSUMER);
  const messages: ConsumerMessages = await consumer.consume({ max_messages: 16 });
  let stopping = false;

  const handle = async (msg: JsMsg): Promise<void> => {
    let exec: ExecResult;
    try {
      exec = JSON.parse(new TextDecoder().decode(msg.data)) as ExecResult;
      if (!Array.isArray(exec?.receipts) || typeof exec.block?.hash !== 'string') throw new Error('not an ExecResult');
    } catch (err) {
      logger.error({ err, seq: msg.seq, subject: msg.subject }, 'an exec message is not an ExecResult; terminated');
      msg.term();
      return;
    }
    const heartbeat = setInterval(() => msg.working(), HEARTBEAT_MS);
    try {
      for (let attempt = 0; ; attempt++) {
        try {
          await indexExecResult(pool, msg.seq, exec, logger);
          break;
        } catch (err) {
          if (stopping) return; // unacknowledged: redelivered later
          logger.warn({ err, seq: msg.seq, attempt }, 'indexing an execution result failed; retrying');
          await new Promise((resolve) => setTimeout(resolve, Math.min(5_000, 100 * 2 ** attempt)));
        }
      }
    } finally {
      clearInterval(heartbeat);
    }
    msg.ack();
    options.onApplied?.(msg.seq);
  };

  const loop = (async () => {
    for await (const msg of messages) {
      if (stopping) break;
      await handle(msg);
    }
  })().catch((err: unknown) => logger.error({ err }, 'the cirrus indexer stopped'));

  return {
    async stop() {
      stopping = true;
      await messages.close();
      await loop;
    },
  };
}
