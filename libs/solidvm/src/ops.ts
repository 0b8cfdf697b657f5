// Operators on runtime values, specialised once per static type at compile
// time: Solidity 0.8 checked arithmetic (panic on overflow and division by
// zero), `unchecked` wrapping, decimal fixed-point, string concatenation.
import { PANIC_DIV_ZERO, PANIC_OVERFLOW, panic } from './errors.js';
import type { IntT, SType } from './types.js';
import { AccountValue, DECIMAL_SCALE } from './values.js';

export type BinFn = (a: any, b: any) => any;

export function wrapInt(t: IntT, v: bigint): bigint {
  return t.signed ? BigInt.asIntN(t.bits, v) : BigInt.asUintN(t.bits, v);
}

function checkedPow(b: bigint, e: bigint, t: IntT): bigint {
  if (e < 0n) panic(PANIC_OVERFLOW);
  let result = 1n;
  let base = b;
  while (e > 0n) {
    if (e & 1n) {
      result *= base;
      if (result > t.max || result < t.min) panic(PANIC_OVERFLOW);
    }
    e >>= 1n;
    if (e > 0n) {
      base *= base;
      if (base > t.max) {
        // any further factor makes the result too large (base is a square: positive)
        panic(PANIC_OVERFLOW);
      }
    }
  }
  return result;
}

function wrappingPow(b: bigint, e: bigint, t: IntT): bigint {
  const mod = 1n << BigInt(t.bits);
  let result = 1n;
  let base = BigInt.asUintN(t.bits, b);
  while (e > 0n) {
    if (e & 1n) result = (result * base) % mod;
    e >>= 1n;
    base = (base * base) % mod;
  }
  return wrapInt(t, result);
}

/** Arithmetic and bitwise operators on integers of type t. */
export function intOp(op: string, t: IntT, unchecked: boolean): BinFn {
  const { min, max } = t;
  if (unchecked) {
    switch (op) {
      case '+':
        return (a, b) => wrapInt(t, a + b);
      case '-':
        return (a: bigint, b: bigint) => wrapInt(t, a - b);
      case '*':
        return (a: bigint, b: bigint) => wrapInt(t, a * b);
      case '/':
        return (a: bigint, b: bigint) => (b === 0n ? panic(PANIC_DIV_ZERO) : wrapInt(t, a / b));
      case '%':
        return (a, b) => (b === 0n ? panic(PANIC_DIV_ZERO) : a % b);
      case '**':
        return (a, b) => wrappingPow(a, b, t);
    }
  } else {
    switch (op) {
      case '+':
        return t.signed
          ? (a, b) => {
              const r = a + b;
              if (r > max || r < min) panic(PANIC_OVERFLOW);
              return r;
            }
          : (a, b) => {
              const r = a + b;
              if (r > max) panic(PANIC_OVERFLOW);
              return r;
            };
      case '-':
        return t.signed
          ? (a, b) => {
              const r = a - b;
              if (r > max || r < min) panic(PANIC_OVERFLOW);
              return r;
            }
          : (a, b) => {
              if (b > a) panic(PANIC_OVERFLOW);
              return a - b;
            };
      case '*':
        return (a, b) => {
          const r = a * b;
          if (r > max || r < min) panic(PANIC_OVERFLOW);
          return r;
        };
      case '/':
        return (a, b) => {
          if (b === 0n) panic(PANIC_DIV_ZERO);
          const r = a / b;
          if (r > max) panic(PANIC_OVERFLOW); // min / -1
          return r;
        };
      case '%':
        return (a, b) => (b === 0n ? panic(PANIC_DIV_ZERO) : a % b);
      case '**':
        return (a, b) => checkedPow(a, b, t);
    }
  }
  switch (op) {
    case '&':
      return (a, b) => a & b;
    case '|':
      return (a, b) => a | b;
    case '^':
      return (a, b) => a ^ b;
    // shifts never revert in 0.8: they truncate to the type
    case '<<':
      return (a: bigint, b: bigint) => (b >= BigInt(t.bits) ? 0n : wrapInt(t, a << b));
    case '>>':
      return (a, b) => (b >= BigInt(t.bits) ? (a < 0n ? -1n : 0n) : a >> b);
    // SolidVM's unsigned shift: the bits of the declared width shifted in zeros, read back in the type
    case '>>>':
      return t.signed
        ? (a: bigint, b: bigint) => (b >= BigInt(t.bits) ? 0n : BigInt.asIntN(t.bits, BigInt.asUintN(t.bits, a) >> b))
        : (a, b) => (b >= BigInt(t.bits) ? 0n : a >> b);
  }
  throw new Error(`no integer operator ${op}`);
}

export function fbytesOp(op: string, n: number): BinFn {
  const bits = BigInt(n * 8);
  switch (op) {
    case '&':
      return (a, b) => a & b;
    case '|':
      return (a, b) => a | b;
    case '^':
      return (a, b) => a ^ b;
    case '<<':
      return (a: bigint, b: bigint) => (b >= bits ? 0n : BigInt.asUintN(n * 8, a << b));
    case '>>':
      return (a, b) => (b >= bits ? 0n : a >> b);
  }
  throw new Error(`no bytes operator ${op}`);
}

export function decimalOp(op: string): BinFn {
  switch (op) {
    case '+':
      return (a, b) => a + b;
    case '-':
      return (a, b) => a - b;
    case '*':
      return (a: bigint, b: bigint) => (a * b) / DECIMAL_SCALE;
    case '/':
      return (a, b) => (b === 0n ? panic(PANIC_DIV_ZERO) : (a * DECIMAL_SCALE) / b);
    case '%':
      return (a, b) => (b === 0n ? panic(PANIC_DIV_ZERO) : a % b);
  }
  throw new Error(`no decimal operator ${op}`);
}

/** Exact arithmetic on literal constants (Solidity evaluates literal expressions exactly). */
export function litOp(op: string, a: bigint, b: bigint): bigint | boolean | undefined {
  switch (op) {
    case '+':
      return a + b;
    case '-':
      return a - b;
    case '*':
      return a * b;
    case '/':
      // a constant quotient must be exact: Solidity's rational constants are not integers otherwise
      return b === 0n || a % b !== 0n ? undefined : a / b;
    case '%':
      return b === 0n ? undefined : a % b;
    case '**':
      return b < 0n || b > 4096n ? undefined : a ** b;
    case '&':
      return a & b;
    case '|':
      return a | b;
    case '^':
      return a ^ b;
    case '<<':
      return b > 4096n ? undefined : a << b;
    case '>>':
      return a >> b;
    case '<':
      return a < b;
    case '>':
      return a > b;
    case '<=':
      return a <= b;
    case '>=':
      return a >= b;
    case '==':
      return a === b;
    case '!=':
      return a !== b;
  }
  return undefined;
}

export function compareOp(op: string, t: SType): BinFn {
  if (t.k === 'account') {
    if (op === '==') return (a: AccountValue, b: AccountValue) => a.equals(b);
    if (op === '!=') return (a: AccountValue, b: AccountValue) => !a.equals(b);
  }
  switch (op) {
    case '==':
      return (a, b) => a === b;
    case '!=':
      return (a, b) => a !== b;
    case '<':
      return (a, b) => a < b;
    case '>':
      return (a, b) => a > b;
    case '<=':
      return (a, b) => a <= b;
    case '>=':
      return (a, b) => a >= b;
  }
  throw new Error(`no comparison ${op}`);
}
