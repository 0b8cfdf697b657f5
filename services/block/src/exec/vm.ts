// The seam between the block service and a virtual machine. Each VmKind has
// one VmExecutor; the block service does everything around it (nonce, fees,
// value of plain transfers, receipts) and hands it the transaction as admitted,
// so each VM decodes its own input forms (SolidVM: source text and metadata
// arguments; EVM: bytecode and call data).
import type { ContractStateChange, CreatedContract, EventLog, ExecutionContext, Transaction, VmKind, WorldState } from '@platform/common';

/** What a VM reports for one creation or call (the shape of @platform/solidvm's ExecOutcome). */
export interface VmOutcome {
  ok: boolean;
  /** `Success!`, or why it failed */
  message: string;
  returnValues: string[];
  response: string;
  events: EventLog[];
  stateChanges: ContractStateChange[];
  contractsCreated: CreatedContract[];
  contractsDeleted: string[];
  gasUsed: bigint;
  /** a creation's new contract address */
  address?: string;
}

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
   * executing the block does not hold the service's event loop. Never fails:
   * execution meets the same problem and reports it.
   */
  prepare?(tx: Transaction): Promise<void>;
}

export type VmExecutors = Partial<Record<VmKind, VmExecutor>>;

export function failedOutcome(message: string, gasUsed = 0n): VmOutcome {
  return { ok: false, message, returnValues: [], response: '', events: [], stateChanges: [], contractsCreated: [], contractsDeleted: [], gasUsed };
}
