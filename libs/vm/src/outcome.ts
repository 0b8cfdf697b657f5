// What every VM reports for one creation or call, and the stable codes of a
// failure. SolidVM and the EVM return this shape (each adds a little of its
// own: SolidVM its interpreter steps, the EVM its raw logs); the block
// service turns it into a receipt.
import type { ContractStateChange, CreatedContract, EventLog } from '@platform/common';

/**
 * Stable codes of a failed execution (VmOutcome.code). Each VM uses the ones
 * that apply to it: `STEP_LIMIT` and `CALL_DEPTH` are SolidVM's (the EVM
 * meters gas, and a call beyond depth 1024 fails inside it),
 * `INSUFFICIENT_BALANCE` and `EVM_ERROR` the EVM's.
 */
export type FailureCode =
  | 'REVERT' // require/revert/custom error
  | 'PANIC' // assert, overflow, division by zero, out-of-bounds, bad enum, pop on empty
  | 'OUT_OF_GAS'
  | 'STEP_LIMIT'
  | 'BAD_ARGUMENTS' // the JSON or raw arguments (or the calldata) do not match the declaration
  | 'UNKNOWN_METHOD'
  | 'NO_CONTRACT' // no contract of this VM at the address, or no such contract in the source
  | 'COMPILE_ERROR' // the source given to a creation does not compile
  | 'CALL_DEPTH'
  | 'INSUFFICIENT_BALANCE' // the value sent exceeds the sender's balance
  | 'EVM_ERROR' // any other exceptional halt of the EVM: invalid opcode, stack underflow, code size, …
  | 'LIMIT'; // an execution limit of the chain's protocol (maxStateBytes, maxEvents, …)

export const FAILURE_CODES: readonly FailureCode[] = [
  'REVERT',
  'PANIC',
  'OUT_OF_GAS',
  'STEP_LIMIT',
  'BAD_ARGUMENTS',
  'UNKNOWN_METHOD',
  'NO_CONTRACT',
  'COMPILE_ERROR',
  'CALL_DEPTH',
  'INSUFFICIENT_BALANCE',
  'EVM_ERROR',
  'LIMIT',
];

export interface VmOutcome {
  ok: boolean;
  /** set by the VM when ok is false; absent on a failure the node reports around the VM (a bad nonce, …) */
  code?: FailureCode;
  /** `Success!`, or why it failed (the require text, `arithmetic overflow`, `argument x: …`) */
  message: string;
  /** one string per returned value */
  returnValues: string[];
  /** SolidVM: JSON text of the returned values; EVM: the returned bytes as hex */
  response: string;
  events: EventLog[];
  stateChanges: ContractStateChange[];
  contractsCreated: CreatedContract[];
  contractsDeleted: string[];
  gasUsed: bigint;
  /** a creation's new contract address (also when it failed) */
  address?: string;
}

/** A failure with nothing done: no events, no state changes. */
export function failedOutcome(message: string, gasUsed = 0n, code?: FailureCode): VmOutcome {
  const out: VmOutcome = { ok: false, message, returnValues: [], response: '', events: [], stateChanges: [], contractsCreated: [], contractsDeleted: [], gasUsed };
  if (code !== undefined) out.code = code;
  return out;
}
