import { CryptoError } from './errors.js';
import { bytesToHex } from './hex.js';

/**
 * What `rlpEncode` takes: byte strings, non-negative integers (encoded minimal
 * big-endian, 0 as the empty string) and lists of these. Text is not accepted:
 * encode it to UTF-8 bytes first, so a string is never guessed to be hex or text.
 */
export type RlpInput = Uint8Array | bigint | number | RlpInput[];

/** What `rlpDecode` gives back: byte strings and lists of these. */
export type RlpDecoded = Uint8Array | RlpDecoded[];

/** An RLP item already reduced to bytes and lists. */
export type RlpItem = Uint8Array | RlpItem[];

const EMPTY = new Uint8Array(0);

/** Minimal big-endian bytes of a non-negative integer; 0 gives the empty array. */
export function bigintToMinimalBytes(n: bigint): Uint8Array {
  if (typeof n !== 'bigint') throw new CryptoError('BAD_RLP', `expected a bigint, got ${typeof n}`);
  if (n < 0n) throw new CryptoError('BAD_RLP', 'a negative integer has no RLP encoding');
  if (n === 0n) return new Uint8Array(0);
  if (n <= MAX_SAFE) return safeIntegerBytes(Number(n));
  const hex = n.toString(16);
  return new Uint8Array(Buffer.from(hex.length % 2 === 0 ? hex : `0${hex}`, 'hex'));
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** Minimal big-endian bytes of a safe integer above 0, by arithmetic: the text round trip cost more than the rest of an encoding. */
function safeIntegerBytes(n: number): Uint8Array {
  let length = 0;
  for (let v = n; v > 0; v = Math.floor(v / 256)) length++;
  const out = new Uint8Array(length);
  for (let i = length - 1, v = n; i >= 0; i--, v = Math.floor(v / 256)) out[i] = v % 256;
  return out;
}

/** The unsigned big-endian integer of some bytes; the empty array is 0. */
export function bytesToBigint(b: Uint8Array): bigint {
  return b.length === 0 ? 0n : BigInt(`0x${bytesToHex(b)}`);
}

/** Minimal big-endian bytes of a non-negative safe integer or bigint. */
export function integerItem(n: bigint | number, what = 'integer'): Uint8Array {
  if (typeof n === 'bigint') return bigintToMinimalBytes(n);
  if (typeof n === 'number' && Number.isSafeInteger(n) && n >= 0) return n === 0 ? EMPTY : safeIntegerBytes(n);
  throw new CryptoError('BAD_RLP', `${what} must be a non-negative integer, got ${describe(n)}`);
}

/** Drops leading zero bytes, turning a fixed-width number into its minimal form. */
export function stripLeadingZeros(b: Uint8Array): Uint8Array {
  let i = 0;
  while (i < b.length && b[i] === 0) i++;
  return i === 0 ? b : b.subarray(i);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  return typeof value;
}

function toItem(input: RlpInput): RlpItem {
  if (input instanceof Uint8Array) return input;
  if (Array.isArray(input)) return input.map(toItem);
  if (typeof input === 'bigint' || typeof input === 'number') return integerItem(input);
  throw new CryptoError('BAD_RLP', `cannot RLP-encode a value of type ${describe(input)}`);
}

/**
 * RLP of an item tree that is already bytes and lists, written once into one
 * buffer: a first pass measures every list's payload (in the order the second
 * pass writes them), the second writes headers and bytes in place. A
 * block's transactions, headers and trie nodes are encoded on the hot path;
 * concatenating each list's encoded children, as a recursive encoder does,
 * copied every byte once per level.
 */
export function encodeItem(item: RlpItem): Uint8Array {
  const payloads: number[] = [];
  const out = new Uint8Array(measure(item, payloads));
  let next = 0;
  const write = (it: RlpItem, pos: number): number => {
    if (it instanceof Uint8Array) {
      if (it.length === 1 && it[0]! < 0x80) {
        out[pos] = it[0]!;
        return pos + 1;
      }
      pos = writeRlpHeader(out, 0x80, it.length, pos);
      out.set(it, pos);
      return pos + it.length;
    }
    pos = writeRlpHeader(out, 0xc0, payloads[next++]!, pos);
    for (const child of it) pos = write(child, pos);
    return pos;
  };
  write(item, 0);
  return out;
}

/** The encoded length of `item`; pushes each list's payload length, lists in pre-order. */
function measure(item: RlpItem, payloads: number[]): number {
  if (item instanceof Uint8Array) return item.length === 1 && item[0]! < 0x80 ? 1 : rlpHeaderLength(item.length) + item.length;
  if (!Array.isArray(item)) throw new CryptoError('BAD_RLP', `cannot RLP-encode a value of type ${describe(item)}`);
  const slot = payloads.length;
  payloads.push(0);
  let payload = 0;
  for (const child of item) payload += measure(child, payloads);
  payloads[slot] = payload;
  return rlpHeaderLength(payload) + payload;
}

function lengthBytes(length: number): number {
  let n = 0;
  for (let l = length; l > 0; l = Math.floor(l / 256)) n++;
  return n;
}

/** The size of the RLP header of a string or list whose payload is `length` bytes. */
export function rlpHeaderLength(length: number): number {
  return length < 56 ? 1 : 1 + lengthBytes(length);
}

/** Writes at `pos` the RLP header of a string (0x80) or list (0xc0) whose payload is `length` bytes; answers the position after it. */
export function writeRlpHeader(out: Uint8Array, offset: 0x80 | 0xc0, length: number, pos: number): number {
  if (length < 56) {
    out[pos] = offset + length;
    return pos + 1;
  }
  const n = lengthBytes(length);
  out[pos] = offset + 55 + n;
  for (let i = n, l = length; i >= 1; i--, l = Math.floor(l / 256)) out[pos + i] = l % 256;
  return pos + 1 + n;
}

/** RLP-encodes bytes, non-negative integers and nested lists of these. */
export function rlpEncode(input: RlpInput): Uint8Array {
  return encodeItem(toItem(input));
}

function malformed(reason: string, at: number): CryptoError {
  return new CryptoError('BAD_RLP', `malformed RLP: ${reason} at byte ${at}`);
}

/** The length in `count` big-endian bytes at `at`, which must be canonical and fit before `end`. */
function readLength(data: Uint8Array, at: number, count: number, end: number): number {
  if (at + count > end) throw malformed('truncated length', at);
  if (data[at] === 0) throw malformed('length with a leading zero', at);
  let length = 0;
  for (let i = 0; i < count; i++) {
    length = length * 256 + data[at + i];
    if (length > end) throw malformed('length beyond the input', at);
  }
  if (length < 56) throw malformed(`long form for a length of ${length}`, at);
  return length;
}

interface OpenList {
  items: RlpDecoded[];
  end: number;
}

/**
 * Decodes exactly one RLP item that spans all of `data`. Throws CryptoError
 * `BAD_RLP` on empty input, truncation, trailing bytes or any non-canonical
 * encoding (a prefixed single byte below 0x80, a long form for a short length,
 * leading zeros in a length). Linear in the input, whatever the nesting depth;
 * byte strings in the result are copies, independent of `data`.
 */
export function rlpDecode(data: Uint8Array): RlpDecoded {
  if (!(data instanceof Uint8Array)) throw new CryptoError('BAD_RLP', `expected bytes, got ${describe(data)}`);
  if (data.length === 0) throw new CryptoError('BAD_RLP', 'malformed RLP: empty input');
  const open: OpenList[] = [];
  let root: RlpDecoded | undefined;
  let pos = 0;
  for (;;) {
    const end = open.length > 0 ? open[open.length - 1].end : data.length;
    const at = pos;
    const prefix = data[pos];
    let value: RlpDecoded;
    let list: OpenList | null = null;
    if (prefix < 0x80) {
      value = data.slice(pos, pos + 1);
      pos += 1;
    } else if (prefix < 0xc0) {
      let start: number;
      let length: number;
      if (prefix <= 0xb7) {
        start = pos + 1;
        length = prefix - 0x80;
        if (length === 1 && start < end && data[start] < 0x80) throw malformed('single byte below 0x80 with a prefix', at);
      } else {
        start = pos + 1 + (prefix - 0xb7);
        length = readLength(data, pos + 1, prefix - 0xb7, end);
      }
      if (start + length > end) throw malformed('string runs past its end', at);
      value = data.slice(start, start + length);
      pos = start + length;
    } else {
      let start: number;
      let length: number;
      if (prefix <= 0xf7) {
        start = pos + 1;
        length = prefix - 0xc0;
      } else {
        start = pos + 1 + (prefix - 0xf7);
        length = readLength(data, pos + 1, prefix - 0xf7, end);
      }
      if (start + length > end) throw malformed('list runs past its end', at);
      const items: RlpDecoded[] = [];
      value = items;
      pos = start;
      if (length > 0) list = { items, end: start + length };
    }
    if (open.length > 0) open[open.length - 1].items.push(value);
    else root = value;
    if (list) {
      open.push(list);
      continue;
    }
    while (open.length > 0 && open[open.length - 1].end === pos) open.pop();
    if (open.length === 0) break;
  }
  if (pos !== data.length) throw malformed('trailing bytes after the item', pos);
  return root as RlpDecoded;
}
