// The static types of SolidVM. Every expression is typed at compile time, so
// the interpreter never inspects a runtime value to decide what an operator
// means (string + string, checked uint8 arithmetic, rendering of results).
import type { XabiType } from '@platform/common';

export interface IntT {
  k: 'int';
  signed: boolean;
  bits: number;
  min: bigint;
  max: bigint;
}
export interface EnumT {
  k: 'enum';
  name: string;
  members: string[];
}
export interface StructField {
  name: string;
  t: SType;
}
export interface StructT {
  k: 'struct';
  name: string;
  /** filled after creation: a struct may refer to itself through an array or mapping */
  fields: StructField[];
  index: Map<string, number>;
}
export interface ArrayT {
  k: 'array';
  elem: SType;
  /** null: dynamic */
  len: number | null;
}
export interface MappingT {
  k: 'mapping';
  key: SType;
  value: SType;
}
export interface TupleT {
  k: 'tuple';
  items: Array<SType | null>;
}
/** An internal function type, `function (uint) internal pure returns (uint)`: its value is a compiled function. */
export interface FnT {
  k: 'function';
  params: SType[];
  returns: SType[];
  /** pure, view, payable, or null (non-payable) */
  mutability: string | null;
}
export type SType =
  | IntT
  | { k: 'bool' }
  | { k: 'address' }
  | { k: 'string' }
  | { k: 'bytes' }
  | { k: 'fbytes'; n: number }
  | { k: 'decimal' }
  | { k: 'account' }
  | EnumT
  | StructT
  | { k: 'contract'; name: string }
  | ArrayT
  | MappingT
  | TupleT
  | FnT
  /** an integer literal or constant expression of literals: exact, converts to any integer type it fits */
  | { k: 'lit' }
  | { k: 'void' };

const intCache = new Map<string, IntT>();
export function intT(signed: boolean, bits: number): IntT {
  const key = (signed ? 'i' : 'u') + bits;
  let t = intCache.get(key);
  if (!t) {
    const b = BigInt(bits);
    t = signed
      ? { k: 'int', signed, bits, min: -(1n << (b - 1n)), max: (1n << (b - 1n)) - 1n }
      : { k: 'int', signed, bits, min: 0n, max: (1n << b) - 1n };
    intCache.set(key, t);
  }
  return t;
}

export const UINT256 = intT(false, 256);
export const INT256 = intT(true, 256);
export const UINT8 = intT(false, 8);
export const BOOL: SType = { k: 'bool' };
export const ADDRESS: SType = { k: 'address' };
export const STRING: SType = { k: 'string' };
export const BYTES: SType = { k: 'bytes' };
export const BYTES32: SType = { k: 'fbytes', n: 32 };
export const DECIMAL: SType = { k: 'decimal' };
export const ACCOUNT: SType = { k: 'account' };
export const LIT: SType = { k: 'lit' };
export const VOID: SType = { k: 'void' };

const fbytesCache = new Map<number, SType>();
export function fbytesT(n: number): SType {
  let t = fbytesCache.get(n);
  if (!t) {
    t = { k: 'fbytes', n };
    fbytesCache.set(n, t);
  }
  return t;
}

/** Parses an elementary type name (`uint`, `int64`, `bytes4`, `address payable`…). */
export function elementaryType(name: string): SType | undefined {
  switch (name) {
    case 'uint':
      return UINT256;
    case 'int':
      return INT256;
    case 'bool':
      return BOOL;
    case 'address':
    case 'address payable':
      return ADDRESS;
    case 'string':
      return STRING;
    case 'bytes':
      return BYTES;
    case 'byte':
      return fbytesT(1);
    case 'decimal':
      return DECIMAL;
    case 'account':
      return ACCOUNT;
  }
  let m = /^(u?)int(\d+)$/.exec(name);
  if (m) {
    const bits = Number(m[2]);
    if (bits >= 8 && bits <= 256 && bits % 8 === 0) return intT(m[1] === '', bits);
    return undefined;
  }
  m = /^bytes(\d+)$/.exec(name);
  if (m) {
    const n = Number(m[1]);
    if (n >= 1 && n <= 32) return fbytesT(n);
  }
  return undefined;
}

/** Value types are copied on assignment and stored under a single path. */
export function isValueType(t: SType): boolean {
  return t.k !== 'struct' && t.k !== 'array' && t.k !== 'mapping' && t.k !== 'tuple';
}

export function typeName(t: SType): string {
  switch (t.k) {
    case 'int':
      return (t.signed ? 'int' : 'uint') + t.bits;
    case 'fbytes':
      return 'bytes' + t.n;
    case 'enum':
    case 'struct':
      return t.name;
    case 'contract':
      return t.name;
    case 'array':
      return `${typeName(t.elem)}[${t.len ?? ''}]`;
    case 'mapping':
      return `mapping(${typeName(t.key)} => ${typeName(t.value)})`;
    case 'tuple':
      return `(${t.items.map((i) => (i ? typeName(i) : '')).join(',')})`;
    case 'lit':
      return 'int_const';
    case 'function':
      return `function (${t.params.map(typeName).join(',')})${t.mutability ? ' ' + t.mutability : ''}${t.returns.length ? ` returns (${t.returns.map(typeName).join(',')})` : ''}`;
    default:
      return t.k;
  }
}

export function sameType(a: SType, b: SType): boolean {
  if (a === b) return true;
  if (a.k !== b.k) return false;
  switch (a.k) {
    case 'int':
      return a.signed === (b as IntT).signed && a.bits === (b as IntT).bits;
    case 'fbytes':
      return a.n === (b as { n: number }).n;
    case 'enum':
    case 'struct':
      return a.name === (b as EnumT).name;
    case 'contract':
      return true; // contract types interconvert freely: both are addresses
    case 'array':
      return a.len === (b as ArrayT).len && sameType(a.elem, (b as ArrayT).elem);
    case 'mapping':
      return sameType(a.key, (b as MappingT).key) && sameType(a.value, (b as MappingT).value);
    case 'tuple':
      return false;
    case 'function': {
      const o = b as FnT;
      const same = (x: SType[], y: SType[]) => x.length === y.length && x.every((t, i) => sameType(t, y[i]));
      return a.mutability === o.mutability && same(a.params, o.params) && same(a.returns, o.returns);
    }
    default:
      return true;
  }
}

/** True when a type holds an internal function type (which SolidVM keeps in memory only). */
export function containsFunction(t: SType, seen = new Set<SType>()): boolean {
  if (t.k === 'function') return true;
  if (seen.has(t)) return false;
  seen.add(t);
  if (t.k === 'array') return containsFunction(t.elem, seen);
  if (t.k === 'mapping') return containsFunction(t.value, seen);
  if (t.k === 'struct') return t.fields.some((f) => containsFunction(f.t, seen));
  return false;
}

/** True when a value of this type contains a mapping (cannot live in memory). */
export function containsMapping(t: SType, seen = new Set<SType>()): boolean {
  if (t.k === 'mapping') return true;
  if (seen.has(t)) return false;
  seen.add(t);
  if (t.k === 'array') return containsMapping(t.elem, seen);
  if (t.k === 'struct') return t.fields.some((f) => containsMapping(f.t, seen));
  return false;
}

/**
 * A type without parts as its xabi type (docs/conventions.md, the platform's
 * layout); undefined for an array, a mapping or a struct, which the caller
 * builds from its parts, and for a type xabi has none for (a function type).
 */
export function scalarXabiType(t: SType): XabiType | undefined {
  switch (t.k) {
    case 'int':
      return { type: 'Int', signed: t.signed, bytes: t.bits / 8 };
    case 'lit':
      return { type: 'Int', signed: false, bytes: 32 };
    case 'string':
      return { type: 'String', dynamic: true };
    case 'bytes':
      return { type: 'Bytes', dynamic: true };
    case 'fbytes':
      return { type: 'Bytes', dynamic: false, bytes: t.n };
    case 'bool':
      return { type: 'Bool' };
    case 'address':
      return { type: 'Address' };
    case 'account':
      return { type: 'Account' };
    case 'decimal':
      return { type: 'Decimal' };
    case 'enum':
      return { type: 'Enum', typedef: t.name, names: t.members };
    case 'contract':
      return { type: 'Contract', typedef: t.name };
    default:
      return undefined;
  }
}
