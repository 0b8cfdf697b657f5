// Errors with stable codes. A compile error is thrown (the upload is refused
// before anything runs); every failure of an execution becomes a failed
// ExecOutcome instead, with the world state as it was.

/**
 * Stable codes of a failed execution (ExecOutcome.code): SolidVM's (less its
 * STEP_LIMIT and CALL_DEPTH: the EVM meters gas, and a call beyond depth 1024
 * fails inside the EVM), plus two only the EVM has.
 */
export type FailureCode =
  | 'REVERT' // require/revert/custom error
  | 'PANIC' // assert, overflow, division by zero, out-of-bounds, bad enum, pop on empty
  | 'OUT_OF_GAS'
  | 'BAD_ARGUMENTS' // the JSON arguments or the calldata do not match the ABI
  | 'UNKNOWN_METHOD'
  | 'NO_CONTRACT' // no EVM contract at the address, or no such contract in the source
  | 'COMPILE_ERROR'
  | 'INSUFFICIENT_BALANCE' // the value sent exceeds the sender's balance
  | 'EVM_ERROR' // any other exceptional halt: invalid opcode, stack underflow, code size, …
  | 'LIMIT'; // an execution limit of the chain's protocol (maxStateBytes, maxMemoryBytes, …), as in SolidVM

/** One message of solc: `formatted` is what solc prints (file:line:column, the source line, a caret). */
export interface SolcMessage {
  severity: 'error' | 'warning' | 'info';
  /** solc's error type: ParserError, TypeError, DeclarationError, … */
  type: string;
  message: string;
  formatted: string;
  file?: string;
}

export const COMPILE_ERROR = 'COMPILE_ERROR';

/** solc refused the source; `errors` carries solc's messages. */
export class SolidityCompileError extends Error {
  override readonly name = 'SolidityCompileError';
  readonly code = COMPILE_ERROR;
  constructor(
    readonly errors: SolcMessage[],
    message = errors.map((e) => e.formatted.trim()).join('\n'),
  ) {
    super(message);
  }
}

/** Raised while preparing or executing a transaction; turned into a failed ExecOutcome. */
export class ExecFailure extends Error {
  override readonly name = 'ExecFailure';
  constructor(
    readonly code: FailureCode,
    message: string,
  ) {
    super(message);
  }
}

export function badArguments(message: string): never {
  throw new ExecFailure('BAD_ARGUMENTS', message);
}
