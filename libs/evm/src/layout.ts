// State variables read back from EVM storage by solc's storage layout, in
// SolidVM's forms. `simpleVars`/`readVar`: the variables whose value sits in
// known slots (value types, packed several to a slot, and string/bytes), read
// for every state change. `storageModel`/`readValue`: every type of the
// layout — structs by their members, fixed and dynamic arrays with packed
// elements, mappings — for the decoding of slots to paths (slots.ts), which
// runs only when the node indexes EVM contracts.
import { bytesToHex, hexToBytes, keccak256 } from '@platform/crypto';

/** A type of solc's `storageLayout.types`. */
export interface SolcType {
  encoding: string;
  label: string;
  numberOfBytes: string;
  base?: string;
  key?: string;
  value?: string;
  members?: SolcSlot[];
}

export interface SolcSlot {
  label: string;
  slot: string;
  offset: number;
  type: string;
}

/** solc's `storageLayout` output. */
export interface SolcStorageLayout {
  storage: SolcSlot[];
  types: Record<string, SolcType> | null;
}

export type ValueKind = 'uint' | 'int' | 'bool' | 'address' | 'fbytes';
export type VarKind = ValueKind | 'string' | 'bytes';

/** A storage type, resolved: what reading and decoding need of solc's description. */
export type Ty =
  | { k: 'value'; kind: ValueKind; size: number }
  | { k: 'bytes'; string: boolean }
  | { k: 'struct'; words: bigint; members: Member[] }
  | { k: 'fixed'; words: bigint; length: number; elem: Ty }
  | { k: 'dynamic'; elem: Ty }
  | { k: 'mapping'; key: Ty; value: Ty }
  /** user-defined value types, function pointers: kept in their slots, not decoded */
  | { k: 'opaque'; words: bigint };

export interface Member {
  name: string;
  /** slot relative to the struct's (absolute for a contract's variables) */
  slot: bigint;
  /** bytes from the low-order end of the slot */
  offset: number;
  ty: Ty;
}

export interface LayoutVar {
  name: string;
  /** 64 hex */
  slot: string;
  /** bytes from the low-order end of the slot */
  offset: number;
  size: number;
  kind: VarKind;
}

/** Reads one storage slot (64-hex key) as stored: 64 hex, or undefined for zero. */
export type SlotReader = (slot: string) => string | undefined;

/** the longest string/bytes read back, and the most elements of an array */
export const MAX_BYTES = 1 << 20;
export const MAX_ELEMENTS = 100_000;
const ZERO_WORD = new Uint8Array(32);

function valueKind(label: string): ValueKind | undefined {
  if (/^uint\d+$/.test(label) || label.startsWith('enum ')) return 'uint';
  if (/^int\d+$/.test(label)) return 'int';
  if (label === 'bool') return 'bool';
  if (label === 'address' || label === 'address payable' || label.startsWith('contract ')) return 'address';
  if (/^bytes\d+$/.test(label)) return 'fbytes';
  return undefined;
}

function kindOf(encoding: string, label: string): VarKind | undefined {
  if (encoding === 'bytes') return label === 'string' ? 'string' : 'bytes';
  return encoding === 'inplace' ? valueKind(label) : undefined;
}

export function slotHex(n: bigint): string {
  return BigInt.asUintN(256, n).toString(16).padStart(64, '0');
}

/** The variables of a layout this module can read, in declaration order. */
export function simpleVars(layout: SolcStorageLayout | undefined): LayoutVar[] {
  if (!layout?.types) return [];
  const out: LayoutVar[] = [];
  for (const s of layout.storage) {
    const t = layout.types[s.type];
    const kind = t && kindOf(t.encoding, t.label);
    if (!kind) continue;
    out.push({ name: s.label, slot: slotHex(BigInt(s.slot)), offset: s.offset, size: Number(t.numberOfBytes), kind });
  }
  return out;
}

/** One word of storage by slot number. */
export type WordReader = (slot: bigint) => Uint8Array;

export function wordReader(read: SlotReader): WordReader {
  return (slot) => {
    const v = read(slotHex(slot));
    return v === undefined ? ZERO_WORD : hexToBytes(v.padStart(64, '0'));
  };
}

const toBig = (b: Uint8Array): bigint => (b.every((x) => x === 0) ? 0n : BigInt('0x' + bytesToHex(b)));
export const wordBig = (w: Uint8Array): bigint => toBig(w);

/** The bytes of a value type within its word. */
const bytesOf = (w: Uint8Array, offset: number, size: number): Uint8Array => w.subarray(32 - offset - size, 32 - offset);

/** A value type in SolidVM's JSON form: integers as decimal strings, bools as booleans, hex without 0x. */
function valueJson(kind: ValueKind, size: number, b: Uint8Array): unknown {
  switch (kind) {
    case 'uint':
      return toBig(b).toString();
    case 'int':
      return BigInt.asIntN(size * 8, toBig(b)).toString();
    case 'bool':
      return toBig(b) !== 0n;
    default:
      return bytesToHex(b);
  }
}

/** A variable's value in SolidVM's JSON form: integers as decimal strings, bools as booleans, hex without 0x. */
export function readVar(v: LayoutVar, read: SlotReader): unknown {
  // every state change reads every simple variable: the slot as it is, no reader built
  if (v.kind === 'string' || v.kind === 'bytes') return readBytes(BigInt('0x' + v.slot), v.kind === 'string', wordReader(read));
  const raw = read(v.slot);
  return valueJson(v.kind, v.size, bytesOf(raw === undefined ? ZERO_WORD : hexToBytes(raw.padStart(64, '0')), v.offset, v.size));
}

/** The data slots of a string/bytes or dynamic array at `slot` start at keccak256(slot). */
export const dataSlot = (slot: bigint): bigint => toBig(keccak256(hexToBytes(slotHex(slot))));

// Solidity's layout of string/bytes: up to 31 bytes inline with 2×length in
// the lowest byte; longer ones keep 2×length+1 in the slot and the data from
// slot keccak256(slot) on.
export function readBytes(slot: bigint, string: boolean, word: WordReader): string | undefined {
  const w = word(slot);
  let data: Uint8Array;
  if ((w[31] & 1) === 0) data = w.subarray(0, Math.min(w[31] >> 1, 31));
  else {
    const len = (toBig(w) - 1n) / 2n;
    if (len > BigInt(MAX_BYTES)) return undefined;
    const n = Number(len);
    const base = dataSlot(slot);
    data = new Uint8Array(Math.ceil(n / 32) * 32);
    for (let i = 0; i * 32 < n; i++) data.set(word(base + BigInt(i)), i * 32);
    data = data.subarray(0, n);
  }
  return string ? new TextDecoder().decode(data) : bytesToHex(data);
}

// --- every type of a layout ------------------------------------------------------

export const wordsOf = (t: Ty): bigint => (t.k === 'struct' || t.k === 'fixed' || t.k === 'opaque' ? t.words : 1n);

/** The contract's storage as one struct (its variables at absolute slots), and the slots they span. */
export interface StorageModel {
  top: Extract<Ty, { k: 'struct' }>;
  lo: bigint;
  hi: bigint;
}

export function storageModel(layout: SolcStorageLayout): StorageModel {
  const types = layout.types ?? {};
  const made = new Map<string, Ty>();
  const tyOf = (id: string): Ty => {
    const known = made.get(id);
    if (known) return known;
    const t = types[id];
    const words = BigInt(t?.numberOfBytes ?? '32') / 32n;
    if (!t) return { k: 'opaque', words: 1n };
    if (t.encoding === 'bytes') return { k: 'bytes', string: t.label === 'string' };
    if (t.encoding === 'mapping') {
      const m = { k: 'mapping', key: { k: 'opaque', words: 1n }, value: { k: 'opaque', words: 1n } } as Extract<Ty, { k: 'mapping' }>;
      made.set(id, m); // a struct may hold a mapping to itself
      m.key = tyOf(t.key!);
      m.value = tyOf(t.value!);
      return m;
    }
    if (t.encoding === 'dynamic_array') {
      const d = { k: 'dynamic', elem: { k: 'opaque', words: 1n } } as Extract<Ty, { k: 'dynamic' }>;
      made.set(id, d);
      d.elem = tyOf(t.base!);
      return d;
    }
    if (t.members) {
      const s: Extract<Ty, { k: 'struct' }> = { k: 'struct', words, members: [] };
      made.set(id, s);
      s.members = t.members.map((m) => ({ name: m.label, slot: BigInt(m.slot), offset: m.offset, ty: tyOf(m.type) }));
      return s;
    }
    if (t.base) {
      const elem = tyOf(t.base);
      const per = elem.k === 'value' ? Math.floor(32 / elem.size) : 1;
      const length = Number((words * BigInt(per)) / wordsOf(elem));
      // solc's label says the length; words × per-word is an upper bound that packing can exceed
      const stated = /\[(\d+)\]$/.exec(t.label);
      return { k: 'fixed', words, length: stated ? Number(stated[1]) : length, elem };
    }
    const kind = valueKind(t.label);
    return kind ? { k: 'value', kind, size: Number(t.numberOfBytes) } : { k: 'opaque', words: words || 1n };
  };
  const members = layout.storage.map((s) => ({ name: s.label, slot: BigInt(s.slot), offset: s.offset, ty: tyOf(s.type) }));
  let lo = members.length ? members[0].slot : 0n;
  let hi = lo;
  for (const m of members) {
    if (m.slot < lo) lo = m.slot;
    if (m.slot + wordsOf(m.ty) > hi) hi = m.slot + wordsOf(m.ty);
  }
  return { top: { k: 'struct', words: hi - lo, members }, lo, hi };
}

/** Where element `i` of an array whose data starts at `base` lies: its slot and offset. */
export function elementAt(elem: Ty, base: bigint, i: number): { slot: bigint; offset: number } {
  if (elem.k === 'value') {
    const per = Math.floor(32 / elem.size);
    return { slot: base + BigInt(Math.floor(i / per)), offset: (i % per) * elem.size };
  }
  return { slot: base + BigInt(i) * wordsOf(elem), offset: 0 };
}

export const arrayLength = (slot: bigint, word: WordReader): bigint => toBig(word(slot));

/**
 * A value of any type but a mapping, whole, in SolidVM's JSON form (structs
 * as objects without their mapping members, arrays as arrays); undefined for a
 * mapping or a value too large to read.
 */
export function readValue(t: Ty, slot: bigint, offset: number, word: WordReader): unknown {
  switch (t.k) {
    case 'value':
      return valueJson(t.kind, t.size, bytesOf(word(slot), offset, t.size));
    case 'bytes':
      return readBytes(slot, t.string, word);
    case 'struct': {
      const out: Record<string, unknown> = {};
      for (const m of t.members) if (m.ty.k !== 'mapping' && m.ty.k !== 'opaque') out[m.name] = readValue(m.ty, slot + m.slot, m.offset, word);
      return out;
    }
    case 'fixed':
    case 'dynamic': {
      const n = t.k === 'fixed' ? BigInt(t.length) : arrayLength(slot, word);
      if (n > BigInt(MAX_ELEMENTS)) return undefined;
      const base = t.k === 'fixed' ? slot : dataSlot(slot);
      return Array.from({ length: Number(n) }, (_, i) => {
        const at = elementAt(t.elem, base, i);
        return readValue(t.elem, at.slot, at.offset, word);
      });
    }
    default:
      return undefined;
  }
}

/**
 * A scalar as SolidVM stores it in a diff: integers and enums in decimal,
 * bools `true`/`false`, addresses and bytes as hex, strings as they are, an
 * array's length in decimal; null for the default (zero, empty).
 */
export function storedText(t: Ty, slot: bigint, offset: number, word: WordReader): string | null {
  if (t.k === 'value') {
    const b = bytesOf(word(slot), offset, t.size);
    if (b.every((x) => x === 0)) return null;
    const v = valueJson(t.kind, t.size, b);
    return typeof v === 'boolean' ? String(v) : (v as string);
  }
  if (t.k === 'bytes') return readBytes(slot, t.string, word) || null;
  if (t.k === 'dynamic') {
    const n = arrayLength(slot, word);
    return n === 0n ? null : n.toString();
  }
  return null;
}
