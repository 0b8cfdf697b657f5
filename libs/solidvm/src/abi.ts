// abi.encode / abi.encodePacked / abi.decode with Solidity's layouts, so that
// hashes of encoded values agree with contracts compiled by solc.
import { concatBytes as concat } from '@platform/crypto';
import { VmFailure } from './errors.js';
import { bytesToHex, fromUtf8, hexToBytes, keccak256, utf8 } from './hash.js';
import { STRING, UINT256, typeName, type SType } from './types.js';
import { AccountValue } from './values.js';

function word(v: bigint): Uint8Array {
  return hexToBytes(BigInt.asUintN(256, v).toString(16).padStart(64, '0'));
}

function isDynamic(t: SType): boolean {
  if (t.k === 'string' || t.k === 'bytes') return true;
  if (t.k === 'array') return t.len === null || isDynamic(t.elem);
  if (t.k === 'struct') return t.fields.some((f) => isDynamic(f.t));
  return false;
}

function headSize(t: SType): number {
  if (isDynamic(t)) return 32;
  if (t.k === 'array') return (t.len ?? 0) * headSize(t.elem);
  if (t.k === 'struct') return t.fields.reduce((n, f) => n + headSize(f.t), 0);
  return 32;
}

function scalarWord(t: SType, v: unknown): Uint8Array {
  switch (t.k) {
    case 'int':
    case 'decimal':
    case 'lit':
      return word(v as bigint);
    case 'bool':
      return word(v ? 1n : 0n);
    case 'enum':
      return word(BigInt(v as number));
    case 'address':
    case 'contract':
      return word(BigInt('0x' + (v as string)));
    case 'account':
      return word(BigInt('0x' + (v as AccountValue).address));
    case 'fbytes':
      return word((v as bigint) << BigInt((32 - t.n) * 8));
    default:
      throw new Error(`cannot encode ${t.k}`);
  }
}

function encodeTuple(types: SType[], values: unknown[]): Uint8Array {
  const heads: Uint8Array[] = [];
  const tails: Uint8Array[] = [];
  let offset = types.reduce((n, t) => n + headSize(t), 0);
  types.forEach((t, i) => {
    if (isDynamic(t)) {
      heads.push(word(BigInt(offset)));
      const enc = encodeOne(t, values[i]);
      tails.push(enc);
      offset += enc.length;
    } else heads.push(encodeOne(t, values[i]));
  });
  return concat([...heads, ...tails]);
}

function encodeOne(t: SType, v: unknown): Uint8Array {
  switch (t.k) {
    case 'string':
    case 'bytes': {
      const b = t.k === 'string' ? utf8(v as string) : (v as Uint8Array);
      const padded = new Uint8Array(Math.ceil(b.length / 32) * 32);
      padded.set(b);
      return concat([word(BigInt(b.length)), padded]);
    }
    case 'array': {
      const a = v as unknown[];
      const body = encodeTuple(
        a.map(() => t.elem),
        a,
      );
      return t.len === null ? concat([word(BigInt(a.length)), body]) : body;
    }
    case 'struct':
      return encodeTuple(
        t.fields.map((f) => f.t),
        v as unknown[],
      );
    default:
      return scalarWord(t, v);
  }
}

export function abiEncode(types: SType[], values: unknown[]): Uint8Array {
  return encodeTuple(types, values);
}

function packedOne(t: SType, v: unknown, inArray: boolean): Uint8Array {
  switch (t.k) {
    case 'string':
      return utf8(v as string);
    case 'bytes':
      return v as Uint8Array;
    case 'array':
      return concat((v as unknown[]).map((e) => packedOne(t.elem, e, true)));
    case 'struct':
      throw new VmFailure('REVERT', 'abi.encodePacked does not take structs', 'error', { reason: 'abi.encodePacked does not take structs' });
  }
  if (inArray) return scalarWord(t, v);
  switch (t.k) {
    case 'int':
      return hexToBytes(BigInt.asUintN(t.bits, v as bigint).toString(16).padStart(t.bits / 4, '0'));
    case 'bool':
      return Uint8Array.of(v ? 1 : 0);
    case 'enum':
      return Uint8Array.of(v as number);
    case 'address':
    case 'contract':
      return hexToBytes(v as string);
    case 'account':
      return hexToBytes((v as AccountValue).address);
    case 'fbytes':
      return hexToBytes((v as bigint).toString(16).padStart(t.n * 2, '0'));
    default:
      return scalarWord(t, v);
  }
}

export function abiEncodePacked(types: SType[], values: unknown[]): Uint8Array {
  return concat(types.map((t, i) => packedOne(t, values[i], false)));
}

function badData(): never {
  // the EVM reverts without data here
  throw new VmFailure('REVERT', 'abi.decode: data does not match the types', 'other');
}

function readWord(b: Uint8Array, at: number): bigint {
  if (at + 32 > b.length) badData();
  return BigInt('0x' + bytesToHex(b.subarray(at, at + 32)));
}

/** Counts memory a decode makes (32 bytes an array element, a string's or bytes' length): see abiDecode. */
type CountAllocation = (bytes: number) => void;

function decodeTuple(types: SType[], b: Uint8Array, base: number, count: CountAllocation): unknown[] {
  let at = base;
  return types.map((t) => {
    let v: unknown;
    if (isDynamic(t)) {
      const off = Number(readWord(b, at));
      v = decodeOne(t, b, base + off, count);
      at += 32;
    } else {
      v = decodeOne(t, b, at, count);
      at += headSize(t);
    }
    return v;
  });
}

function decodeOne(t: SType, b: Uint8Array, at: number, count: CountAllocation): unknown {
  switch (t.k) {
    case 'string':
    case 'bytes': {
      const n = Number(readWord(b, at));
      if (at + 32 + n > b.length) badData();
      count(n);
      const raw = b.slice(at + 32, at + 32 + n);
      return t.k === 'string' ? fromUtf8(raw) : raw;
    }
    case 'array': {
      if (t.len === null) {
        const n = Number(readWord(b, at));
        if (n > b.length) badData();
        count(32 * n);
        return decodeTuple(
          Array.from({ length: n }, () => t.elem),
          b,
          at + 32,
          count,
        );
      }
      return decodeTuple(
        Array.from({ length: t.len }, () => t.elem),
        b,
        at,
        count,
      );
    }
    case 'struct':
      return decodeTuple(
        t.fields.map((f) => f.t),
        b,
        at,
        count,
      );
    case 'int': {
      const w = readWord(b, at);
      const v = t.signed ? BigInt.asIntN(256, w) : w;
      if (v < t.min || v > t.max) badData();
      return v;
    }
    case 'decimal':
      return BigInt.asIntN(256, readWord(b, at));
    // solc's decoder validates every word: dirty high bits revert, as out-of-range integers do
    case 'bool': {
      const w = readWord(b, at);
      if (w > 1n) badData();
      return w === 1n;
    }
    case 'enum': {
      const w = readWord(b, at);
      if (w >= BigInt(t.members.length)) badData();
      return Number(w);
    }
    case 'address':
    case 'contract':
    case 'account': {
      const w = readWord(b, at);
      if (w >> 160n !== 0n) badData();
      const a = w.toString(16).padStart(40, '0');
      return t.k === 'account' ? new AccountValue(a, null) : a;
    }
    case 'fbytes': {
      const w = readWord(b, at);
      const sh = BigInt((32 - t.n) * 8);
      if (w & ((1n << sh) - 1n)) badData();
      return w >> sh;
    }
    default:
      return badData();
  }
}

/**
 * Decodes ABI data. Offsets may point many elements at one array or string,
 * so 2 MiB of data can describe gigabytes of values: `count` is told each
 * array's and string's size before it is made (the transaction's
 * maxAllocatedBytes), and stops such data before it costs anything.
 */
export function abiDecode(types: SType[], b: Uint8Array, count: CountAllocation = () => {}): unknown[] {
  return decodeTuple(types, b, 0, count);
}

/** The canonical ABI name of a type, as in function and error signatures (`(uint256,string)[]`). */
export function abiTypeName(t: SType): string {
  switch (t.k) {
    case 'struct':
      return `(${t.fields.map((f) => abiTypeName(f.t)).join(',')})`;
    case 'array':
      return `${abiTypeName(t.elem)}[${t.len ?? ''}]`;
    case 'enum':
      return 'uint8';
    case 'contract':
    case 'account':
      return 'address';
    case 'decimal':
      return 'int256';
    default:
      return typeName(t);
  }
}

/** The 4-byte selector of a signature `name(type,…)`, as hex. */
export function selectorOf(name: string, types: SType[]): string {
  return bytesToHex(keccak256(utf8(`${name}(${types.map(abiTypeName).join(',')})`)).subarray(0, 4));
}

const ERROR_SELECTOR = hexToBytes('08c379a0');
const PANIC_SELECTOR = hexToBytes('4e487b71');

/**
 * The revert data the EVM would return for a failure, for `catch (bytes
 * memory data)`: `Error(string)`, `Panic(uint256)` or a custom error,
 * ABI-encoded behind its selector; empty for a revert without data.
 */
export function revertData(e: VmFailure): Uint8Array {
  switch (e.kind) {
    case 'error':
      return concat([ERROR_SELECTOR, abiEncode([STRING], [e.data.reason ?? e.message])]);
    case 'panic':
      return concat([PANIC_SELECTOR, abiEncode([UINT256], [e.data.panic ?? 0n])]);
    case 'custom':
      return concat([hexToBytes(e.data.selector ?? '00000000'), abiEncode(e.data.types ?? [], e.data.args ?? [])]);
    default:
      return new Uint8Array(0);
  }
}
