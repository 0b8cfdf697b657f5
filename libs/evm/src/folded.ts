// The preimages a contract never hashes while it runs, because solc's
// optimizer hashed them at compile time: keccak256(p) of an array or string
// at a fixed slot p, and keccak256(k . p) of a mapping entry whose key is a
// constant (`names[7] = "seven"` compiles to a 32-byte constant, not to a
// KECCAK256). The first kind is computed from the layout. For the second, the
// candidate keys are the literals of the contract's sources (numbers with
// their units, strings, hex strings, and the keccak256 of each string, enum
// member indexes), encoded as each mapping's key type; a candidate is kept
// only when its hash (or a slot of the value it starts) is a 32-byte
// constant of the contract's code (for a mapping of mappings, only the
// innermost hash is in the code: the outer keys are tried against it).
// A constant key that is no literal of the sources (`m[X * 3]`) is missed:
// its slot stays in the diff by number only.
import { hexToBytes, keccak256 } from '@platform/crypto';
import { dataSlot, slotHex, wordBig, wordsOf, type StorageModel, type Ty } from './layout.js';

/** bounds on the work, whatever the contract: static slots walked, mapping headers tried */
const MAX_STATIC_NODES = 4096;
const MAX_MAPPINGS = 256;
const MAX_HASHES = 20_000;
const MAX_KEY_BYTES = 1024;

const UNITS: Record<string, bigint> = {
  wei: 1n,
  gwei: 10n ** 9n,
  ether: 10n ** 18n,
  seconds: 1n,
  minutes: 60n,
  hours: 3600n,
  days: 86400n,
  weeks: 604800n,
};

interface Literals {
  numbers: Set<bigint>;
  strings: Uint8Array[];
}

const utf8 = new TextEncoder();

/** A decimal literal's integer value (`1.5e3`, `2_000`), or undefined when it is not an integer. */
function decimalValue(text: string): bigint | undefined {
  const m = /^(\d*)(?:\.(\d*))?(?:[eE](-?\d+))?$/.exec(text.replace(/_/g, ''));
  if (!m) return undefined;
  const frac = m[2] ?? '';
  let exp = Number(m[3] ?? '0') - frac.length;
  let digits = BigInt((m[1] || '0') + frac);
  for (; exp < 0; exp++) {
    if (digits % 10n !== 0n) return undefined;
    digits /= 10n;
  }
  return exp > 80 ? undefined : digits * 10n ** BigInt(exp);
}

function unescape(body: string): Uint8Array {
  const out: number[] = [];
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c !== '\\') {
      out.push(...utf8.encode(c));
      continue;
    }
    const e = body[++i];
    if (e === 'x') {
      out.push(parseInt(body.slice(i + 1, i + 3), 16));
      i += 2;
    } else if (e === 'u') {
      out.push(...utf8.encode(String.fromCharCode(parseInt(body.slice(i + 1, i + 5), 16))));
      i += 4;
    } else out.push(...utf8.encode({ n: '\n', r: '\r', t: '\t', b: '\b', f: '\f', v: '\v', '0': '\0' }[e] ?? e));
  }
  return new Uint8Array(out);
}

/** The literals of Solidity sources: comments skipped, strings unescaped, numbers with their units. */
export function literalsOf(sources: Iterable<string>): Literals {
  const numbers = new Set<bigint>([0n, 1n]);
  const strings: Uint8Array[] = [];
  const token = /\/\/[^\n]*|\/\*[\s\S]*?\*\/|(hex|unicode)?("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')|\b(0x[0-9a-fA-F_]+|\d[\d_]*(?:\.\d[\d_]*)?(?:[eE]-?\d+)?)(?:\s*(wei|gwei|ether|seconds|minutes|hours|days|weeks)\b)?|\benum\s+\w+\s*\{([^}]*)\}/g;
  for (const src of sources) {
    for (const m of src.matchAll(token)) {
      if (m[2]) {
        const body = m[2].slice(1, -1);
        const bytes = m[1] === 'hex' ? hexToBytes(body.replace(/_/g, '')) : unescape(body);
        if (bytes.length <= MAX_KEY_BYTES) strings.push(bytes);
      } else if (m[3]) {
        const v = m[3].startsWith('0x') ? BigInt(m[3].replace(/_/g, '')) : decimalValue(m[3]);
        if (v !== undefined) numbers.add(v * (m[4] ? UNITS[m[4]] : 1n));
      } else if (m[5] !== undefined) {
        const count = m[5].split(',').filter((s) => s.trim()).length;
        for (let i = 0; i < count; i++) numbers.add(BigInt(i));
      }
    }
  }
  // role identifiers and the like: keccak256("ADMIN") used as a key
  for (const s of [...strings]) numbers.add(wordBig(keccak256(s)));
  return { numbers, strings };
}

/** The 32-byte constants of bytecode (PUSH32 immediates), sorted. */
export function constantsOf(codes: Iterable<Uint8Array>): bigint[] {
  const out = new Set<bigint>();
  for (const code of codes) {
    for (let i = 0; i < code.length; i++) {
      const op = code[i];
      if (op < 0x60 || op > 0x7f) continue;
      const n = op - 0x5f;
      if (n === 32 && i + 32 < code.length) out.add(wordBig(code.subarray(i + 1, i + 33)));
      i += n;
    }
  }
  return [...out].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

const word = (n: bigint): Uint8Array => hexToBytes(slotHex(n));
const TWO_256 = 1n << 256n;

/** The candidate keys of a mapping's key type, as they are hashed (value types padded to 32 bytes). */
function encodings(key: Ty, lit: Literals): Uint8Array[] {
  if (key.k === 'bytes') return lit.strings;
  if (key.k !== 'value') return [];
  const out: Uint8Array[] = [];
  if (key.kind === 'fbytes') {
    const fit = (b: Uint8Array) => {
      if (b.length > key.size) return;
      const w = new Uint8Array(32);
      w.set(b);
      out.push(w);
    };
    for (const s of lit.strings) fit(s);
    for (const n of lit.numbers) if (n < 1n << BigInt(key.size * 8)) fit(hexToBytes(n.toString(16).padStart(key.size * 2, '0')));
    return out;
  }
  for (const n of lit.numbers) {
    if (n >= TWO_256) continue;
    out.push(word(n));
    if (key.kind === 'int' && n !== 0n) out.push(word(TWO_256 - n));
  }
  return out;
}

/** Is some constant in [from, from + span)? */
function anyIn(sorted: bigint[], from: bigint, span: bigint): boolean {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] < from) lo = mid + 1;
    else hi = mid;
  }
  return lo < sorted.length && sorted[lo] < from + span;
}

/**
 * The preimages a contract's storage needs that its execution does not
 * hash: data slots of arrays and strings at fixed slots, and mapping entries
 * of constant keys found in its code (`codes`: runtime, and init code at a
 * creation).
 */
export function staticPreimages(model: StorageModel, sources: Iterable<string>, codes: Iterable<Uint8Array>): Array<[bigint, Uint8Array]> {
  const out: Array<[bigint, Uint8Array]> = [];
  const mappings: Array<[bigint, Extract<Ty, { k: 'mapping' }>]> = [];
  let budget = MAX_STATIC_NODES;
  // the arrays, strings and mappings within a value of static size at `base`
  const walk = (t: Ty, base: bigint): void => {
    if (--budget < 0) return;
    if (t.k === 'dynamic' || t.k === 'bytes') out.push([dataSlot(base), word(base)]);
    else if (t.k === 'mapping') mappings.push([base, t]);
    else if (t.k === 'struct') for (const m of t.members) walk(m.ty, base + m.slot);
    else if (t.k === 'fixed' && t.elem.k !== 'value') for (let i = 0; i < t.length && budget > 0; i++) walk(t.elem, base + BigInt(i) * wordsOf(t.elem));
  };
  walk(model.top, 0n);
  if (mappings.length === 0) return out;
  const constants = constantsOf(codes);
  if (constants.length === 0) return out;
  const lit = literalsOf(sources);
  let hashes = MAX_HASHES;
  for (let i = 0; i < mappings.length && i < MAX_MAPPINGS; i++) {
    const [slot, m] = mappings[i];
    const tail = word(slot);
    for (const key of encodings(m.key, lit)) {
      if (--hashes < 0) return out;
      const pre = new Uint8Array(key.length + 32);
      pre.set(key);
      pre.set(tail, key.length);
      const h = wordBig(keccak256(pre));
      // an entry of a nested mapping is only an intermediate hash: the code holds the innermost one
      if (m.value.k !== 'mapping' && !anyIn(constants, h, wordsOf(m.value))) continue;
      out.push([h, pre]);
      walk(m.value, h);
    }
  }
  return out;
}
