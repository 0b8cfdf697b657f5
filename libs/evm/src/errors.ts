// Errors with stable codes. A compile error is thrown (the upload is refused
// before anything runs); every failure of an execution becomes a failed
// ExecOutcome instead, with the world state as it was.

/**
 * Stable codes of a failed execution (ExecOutcome.code): @platform/vm's; the
 * EVM gives all but STEP_LIMIT and CALL_DEPTH (it meters gas, and a call
 * beyond depth 1024 fails inside the EVM).
 */
export type { FailureCode } from '@platform/vm';
import type { FailureCode } from '@platform/vm';

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
