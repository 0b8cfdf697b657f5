// The node's JetStream streams, declared once here so that every service that
// publishes to or consumes from one declares it identically (any of them may
// start first). Retention: limits (kept), since blocks and execution results
// are the source of truth from which every read model is rebuilt.
import type { StreamSpec } from './jetstream.js';

export const STREAMS = {
  /** admitted transactions, `tx.admitted.<chain>`: one (msgID = its hash) or a list published together (msgID `list:<sha256 of the hashes>`) */
  tx: { name: 'TX', subjects: ['tx.admitted.>'] },
  /** ordered blocks, `block.<chain>`: what was decided (replicated network-wide) */
  blocks: { name: 'BLOCKS', subjects: ['block.>'] },
  /**
   * this node's execution results, `exec.<chain>`, msgID = `<chain>:<height>`.
   * Nothing else may go in: cirrus applies them in order, none skipped, by
   * stream sequence (services/cirrus, consumer.ts), which relies on every
   * message of the stream being an execution result it receives.
   */
  exec: { name: 'EXEC', subjects: ['exec.>'] },
  /**
   * the parts of execution results too large for one message,
   * `exec-part.<chain>.<height>.<i>`, msgID `<chain>:<height>:<i>`; the
   * result's message on EXEC refers to them (exec-results.ts). Kept like EXEC.
   */
  execParts: { name: 'EXEC_PARTS', subjects: ['exec-part.>'] },
  /** private chains' geneses, `genesis.<chain>`, msgID = chain ID: every block service starts each chain from it */
  geneses: { name: 'GENESIS', subjects: ['genesis.>'] },
} as const satisfies Record<string, StreamSpec>;
