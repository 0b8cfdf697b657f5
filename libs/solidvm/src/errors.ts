// Errors with stable codes. Compile errors reject an upload; everything else
// is raised while executing and becomes a failed ExecOutcome (never escapes
// createContract/callContract), with every state change rolled back.
import type { SType } from './types.js';

export const SOLIDVM_COMPILE_ERROR = 'SOLIDVM_COMPILE_ERROR';

/** Stable codes of a failed execution (ExecOutcome.code): @platform/vm's; SolidVM gives all but INSUFFICIENT_BALANCE and EVM_ERROR. */
export type { FailureCode } from '@platform/vm';
import type { FailureCode } from '@platform/vm';

export interface SourcePosition {
  file: string;
  line: number;
  column: number;
}

export class SolidVMCompileError extends Error {
  override readonly name = 'SolidVMCompileError';
  readonly code = SOLIDVM_COMPILE_ERROR;
  readonly file: string;
  readonly line: number;
  readonly column: number;
  constructor(message: string, pos?: Partial<SourcePosition>) {
    const where = pos?.line !== undefined ? `${pos.file ? pos.file + ':' : ''}${pos.line}:${pos.column ?? 0}: ` : '';
    super(where + message);
    this.file = pos?.file ?? '';
    this.line = pos?.line ?? 0;
    this.column = pos?.column ?? 0;
  }
}

/**
 * A failure raised while executing. `catchable` is false for the limits (step
 * limit, call depth): a try/catch in the contract must not be able to swallow
 * them, or a runaway loop could be retried forever.
 */
export class VmFailure extends Error {
  override readonly name = 'VmFailure';
  constructor(
    readonly code: FailureCode,
    message: string,
    /** for try/catch: 'error' (string reason), 'panic' (code), 'custom' */
    readonly kind: 'error' | 'panic' | 'custom' | 'other' = 'other',
    readonly data: { reason?: string; panic?: bigint; errorName?: string; args?: unknown[]; types?: SType[]; selector?: string } = {},
    readonly catchable = true,
  ) {
    super(message);
  }
}

// Panic codes, as Solidity numbers them, so `catch Panic(uint code)` agrees.
export const PANIC_ASSERT = 0x01n;
export const PANIC_OVERFLOW = 0x11n;
export const PANIC_DIV_ZERO = 0x12n;
export const PANIC_ENUM = 0x21n;
export const PANIC_POP_EMPTY = 0x31n;
export const PANIC_INDEX = 0x32n;
export const PANIC_INTERNAL_FN = 0x51n;

const PANIC_MESSAGES: Record<string, string> = {
  '1': 'assertion failed',
  '17': 'arithmetic overflow',
  '18': 'division by zero',
  '33': 'invalid enum value',
  '49': 'pop from an empty array',
  '50': 'array index out of bounds',
  '81': 'call of an uninitialised function value',
};

export function panic(code: bigint): never {
  throw new VmFailure('PANIC', PANIC_MESSAGES[code.toString()] ?? `panic ${code}`, 'panic', { panic: code });
}

/** A revert with a reason: what `catch Error(string reason)` catches. */
export function revertWith(reason: string): never {
  throw new VmFailure('REVERT', reason, 'error', { reason });
}

/**
 * A revert that carries no reason data (as `require(c)`, `revert()`, a failed
 * `abi.decode` or a failed transfer do in the EVM): the outcome still says
 * what happened, but `catch Error(…)` does not see it and `catch (bytes
 * memory b)` gets empty bytes.
 */
export function revertBare(message: string): never {
  throw new VmFailure('REVERT', message, 'other');
}
