// The Solidity ABI's JSON description (solc's `abi` output) and the parsed
// type tree the codec works on. Parsing happens once per contract, when its
// metadata is loaded, not per call.
import { keccak256Hex } from '@platform/crypto';

export interface AbiParam {
  name: string;
  type: string;
  /** solc's source-level type: `struct C.S`, `enum C.E`, `contract C`, `address payable` */
  internalType?: string;
  components?: AbiParam[];
  indexed?: boolean;
}

export interface AbiEntry {
  type: 'function' | 'constructor' | 'event' | 'error' | 'fallback' | 'receive';
  name?: string;
  inputs?: AbiParam[];
  outputs?: AbiParam[];
  stateMutability?: 'pure' | 'view' | 'nonpayable' | 'payable';
  anonymous?: boolean;
}

export type AbiType =
  | { k: 'uint'; bits: number }
  | { k: 'int'; bits: number }
  | { k: 'address' }
  | { k: 'bool' }
  | { k: 'fbytes'; n: number }
  | { k: 'bytes' }
  | { k: 'string' }
  | { k: 'array'; elem: AbiType; len: number | null }
  | { k: 'tuple'; items: AbiType[]; names: string[] };

const ELEMENTARY = /^(uint|int|bytes)(\d*)$/;

/** The type tree of one ABI parameter. Throws on a type the ABI does not define. */
export function abiType(p: Pick<AbiParam, 'type' | 'components'>): AbiType {
  const arr = /^(.*)\[(\d*)\]$/.exec(p.type);
  if (arr) return { k: 'array', elem: abiType({ type: arr[1], components: p.components }), len: arr[2] === '' ? null : Number(arr[2]) };
  switch (p.type) {
    case 'address':
      return { k: 'address' };
    case 'bool':
      return { k: 'bool' };
    case 'string':
      return { k: 'string' };
    case 'bytes':
      return { k: 'bytes' };
    // an external function pointer is 20 bytes of address and 4 of selector
    case 'function':
      return { k: 'fbytes', n: 24 };
    case 'tuple': {
      const cs = p.components ?? [];
      return { k: 'tuple', items: cs.map((c) => abiType(c)), names: cs.map((c) => c.name) };
    }
  }
  const m = ELEMENTARY.exec(p.type);
  if (m) {
    const size = m[2] === '' ? (m[1] === 'bytes' ? NaN : 256) : Number(m[2]);
    if (m[1] === 'bytes' && size >= 1 && size <= 32) return { k: 'fbytes', n: size };
    if (m[1] !== 'bytes' && size >= 8 && size <= 256 && size % 8 === 0) return { k: m[1] as 'uint' | 'int', bits: size };
  }
  throw new Error(`unsupported ABI type ${p.type}`);
}

export function tupleOf(params: AbiParam[] | undefined): AbiType & { k: 'tuple' } {
  return { k: 'tuple', items: (params ?? []).map((p) => abiType(p)), names: (params ?? []).map((p) => p.name) };
}

/** The canonical type text of a signature: tuples spelled out as `(a,b)`. */
export function canonicalType(p: Pick<AbiParam, 'type' | 'components'>): string {
  const m = /^tuple(.*)$/.exec(p.type);
  if (m) return `(${(p.components ?? []).map(canonicalType).join(',')})${m[1]}`;
  return p.type;
}

export function signature(e: Pick<AbiEntry, 'name' | 'inputs'>): string {
  return `${e.name ?? ''}(${(e.inputs ?? []).map(canonicalType).join(',')})`;
}

/** 8 hex digits: the first 4 bytes of Keccak-256 of the signature. */
export function selectorOf(e: Pick<AbiEntry, 'name' | 'inputs'>): string {
  return keccak256Hex(signature(e)).slice(0, 8);
}

/** 64 hex digits: an event's topic 0. */
export function eventTopic(e: Pick<AbiEntry, 'name' | 'inputs'>): string {
  return keccak256Hex(signature(e));
}

export function isDynamic(t: AbiType): boolean {
  switch (t.k) {
    case 'bytes':
    case 'string':
      return true;
    case 'array':
      return t.len === null || isDynamic(t.elem);
    case 'tuple':
      return t.items.some(isDynamic);
    default:
      return false;
  }
}

/** Bytes a value of a static type takes in the head. */
export function staticSize(t: AbiType): number {
  if (t.k === 'array') return (t.len ?? 0) * staticSize(t.elem);
  if (t.k === 'tuple') return t.items.reduce((n, i) => n + staticSize(i), 0);
  return 32;
}

/** `uint256`, `bytes32[]`, `(uint256,string)`: for messages. */
export function typeText(t: AbiType): string {
  switch (t.k) {
    case 'uint':
    case 'int':
      return `${t.k}${t.bits}`;
    case 'fbytes':
      return `bytes${t.n}`;
    case 'array':
      return `${typeText(t.elem)}[${t.len ?? ''}]`;
    case 'tuple':
      return `(${t.items.map(typeText).join(',')})`;
    default:
      return t.k;
  }
}
