// The Solidity ABI encoding (head/tail layout, 32-byte words), both ways.
// Our own, about 150 lines, rather than a dependency: see README "Decisions".
// Values: integers bigint, address 40 lowercase hex, bool boolean, bytesN and
// bytes Uint8Array, string string, arrays and tuples JS arrays. Callers check
// ranges and shapes first (args.ts); the encoder trusts them.
import { bytesToHex, concatBytes as concat, hexToBytes } from '@platform/crypto';
import { isDynamic, staticSize, type AbiType } from './abi-types.js';

const WORD = 32;
const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder('utf-8', { fatal: false });

function word(n: bigint): Uint8Array {
  const out = new Uint8Array(WORD);
  let v = BigInt.asUintN(256, n);
  for (let i = WORD - 1; i >= 0 && v > 0n; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

function padRight(b: Uint8Array): Uint8Array {
  const len = Math.ceil(b.length / WORD) * WORD;
  if (len === b.length) return b;
  const out = new Uint8Array(len);
  out.set(b);
  return out;
}

function encodeTuple(types: AbiType[], values: unknown[]): Uint8Array {
  let headLen = 0;
  for (const t of types) headLen += isDynamic(t) ? WORD : staticSize(t);
  const heads: Uint8Array[] = [];
  const tails: Uint8Array[] = [];
  let tailLen = 0;
  types.forEach((t, i) => {
    const enc = encodeValue(t, values[i]);
    if (isDynamic(t)) {
      heads.push(word(BigInt(headLen + tailLen)));
      tails.push(enc);
      tailLen += enc.length;
    } else heads.push(enc);
  });
  return concat([...heads, ...tails]);
}

function encodeValue(t: AbiType, v: unknown): Uint8Array {
  switch (t.k) {
    case 'uint':
    case 'int':
      return word(v as bigint);
    case 'bool':
      return word(v ? 1n : 0n);
    case 'address': {
      const out = new Uint8Array(WORD);
      out.set(hexToBytes(v as string), 12);
      return out;
    }
    case 'fbytes': {
      const out = new Uint8Array(WORD);
      out.set(v as Uint8Array);
      return out;
    }
    case 'bytes':
    case 'string': {
      const b = t.k === 'string' ? utf8.encode(v as string) : (v as Uint8Array);
      return concat([word(BigInt(b.length)), padRight(b)]);
    }
    case 'array': {
      const items = v as unknown[];
      const body = encodeTuple(
        items.map(() => t.elem),
        items,
      );
      return t.len === null ? concat([word(BigInt(items.length)), body]) : body;
    }
    case 'tuple':
      return encodeTuple(t.items, v as unknown[]);
  }
}

/** ABI-encodes values of the given types, as a function's arguments are encoded. */
export function abiEncode(types: AbiType[], values: unknown[]): Uint8Array {
  return encodeTuple(types, values);
}

export class AbiDecodeError extends Error {
  override readonly name = 'AbiDecodeError';
}

// --- decoding --------------------------------------------------------------------

class Reader {
  constructor(readonly data: Uint8Array) {}

  word(at: number): Uint8Array {
    if (at < 0 || at + WORD > this.data.length) throw new AbiDecodeError(`data too short: a word at ${at} of ${this.data.length} bytes`);
    return this.data.subarray(at, at + WORD);
  }

  uint(at: number): bigint {
    const w = this.word(at);
    return w.every((b) => b === 0) ? 0n : BigInt('0x' + bytesToHex(w));
  }

  /** An offset or a length: must fit the data, so a hostile value cannot make us allocate. */
  size(at: number): number {
    const n = this.uint(at);
    if (n > BigInt(this.data.length)) throw new AbiDecodeError(`offset or length ${n} exceeds the ${this.data.length} bytes of data`);
    return Number(n);
  }
}

function decodeTuple(r: Reader, types: AbiType[], base: number): unknown[] {
  let head = base;
  return types.map((t) => {
    if (isDynamic(t)) {
      const v = decodeValue(r, t, base + r.size(head));
      head += WORD;
      return v;
    }
    const v = decodeValue(r, t, head);
    head += staticSize(t);
    return v;
  });
}

function decodeValue(r: Reader, t: AbiType, at: number): unknown {
  switch (t.k) {
    case 'uint':
      return BigInt.asUintN(t.bits, r.uint(at));
    case 'int':
      return BigInt.asIntN(t.bits, r.uint(at));
    case 'bool':
      return r.uint(at) !== 0n;
    case 'address':
      return bytesToHex(r.word(at).subarray(12));
    case 'fbytes':
      return r.word(at).slice(0, t.n);
    case 'bytes':
    case 'string': {
      const len = r.size(at);
      if (at + WORD + len > r.data.length) throw new AbiDecodeError(`data too short for ${len} bytes at ${at}`);
      const b = r.data.slice(at + WORD, at + WORD + len);
      return t.k === 'string' ? utf8Decoder.decode(b) : b;
    }
    case 'array': {
      const len = t.len ?? r.size(at);
      const base = t.len === null ? at + WORD : at;
      // each element takes at least one word: a length beyond that is malformed
      if (base + len * WORD > r.data.length && len > 0) throw new AbiDecodeError(`data too short for ${len} array elements`);
      return decodeTuple(
        r,
        Array.from({ length: len }, () => t.elem),
        base,
      );
    }
    case 'tuple':
      return decodeTuple(r, t.items, at);
  }
}

/** Decodes ABI-encoded data into values of the given types. Throws AbiDecodeError on malformed data. */
export function abiDecode(types: AbiType[], data: Uint8Array): unknown[] {
  return decodeTuple(new Reader(data), types, 0);
}
