// The seam between the node and a virtual machine. The block service does
// everything around a VM (nonce, fees, value of plain transfers, receipts)
// and hands it the transaction as admitted, so each VM decodes its own input
// forms (SolidVM: source text and metadata arguments; EVM: source or
// bytecode, metadata arguments or call data).
import type { ExecutionContext, Transaction, VmKind, WorldState } from '@platform/common';
import type { VmOutcome } from './outcome.js';

/**
 * A VM over the common WorldState. Must not throw for a failing transaction
 * (a failure is an outcome with ok=false and the state as it was); must meter
 * gas and enforce `ctx.tx.gasLimit` when `ctx.gasEnabled`. May answer
 * asynchronously (the EVM does); the block's transactions still run one at a
 * time, and nothing else touches the overlay meanwhile.
 */
export interface VmExecutor {
  readonly kind: VmKind;
  /** a CONTRACT transaction (`to` is null); the contract address comes from (tx.from, tx.nonce) */
  create(state: WorldState, ctx: ExecutionContext, tx: Transaction): VmOutcome | Promise<VmOutcome>;
  /** a FUNCTION transaction to a contract of this VM */
  call(state: WorldState, ctx: ExecutionContext, tx: Transaction): VmOutcome | Promise<VmOutcome>;
  /**
   * Before a block runs: slow work a creation will need that can be done off
   * the thread and cached (the EVM compiles new sources on a worker), so that
   * executing the block does not hold the caller's event loop. Never fails:
   * execution meets the same problem and reports it.
   */
  prepare?(tx: Transaction): Promise<void>;
}

export type VmExecutors = Partial<Record<VmKind, VmExecutor>>;
