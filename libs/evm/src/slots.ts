// Storage slots back to SolidVM's storage paths (`.balances<1a2b…>`,
// `.orders<"a,b">.qty`, `.lists<3>[0]`, `.lists<3>.length`, `.p.x`), so the
// EVM's state changes read as SolidVM's and cirrus indexes both alike.
//
// A variable of static size sits at the slots its layout gives. Everything
// else sits at hashed slots: a mapping's value for key k at keccak256(k . p)
// (p: the mapping's slot; k padded to 32 bytes, or a string/bytes key as it
// is), a dynamic array's elements and a long string's data from
// keccak256(p) on. Those hashes cannot be inverted, so the preimages are
// collected: the ones the contract hashed while it ran (the KECCAK256 opcode,
// recorded by engine.ts) and the ones solc's optimizer hashed at compile time
// and left as constants in the code (folded.ts). A written slot is then
// attributed by the nearest preimage hash at or below it, checked against
// the layout: the preimage's last 32 bytes must be the slot of a mapping
// (or of an array or string), and the slot's distance from the hash must fall
// inside the value (or element) there.
import { bytesToHex } from '@platform/crypto';
import { MAX_BYTES, arrayLength, elementAt, storedText, wordBig, wordsOf, type StorageModel, type Ty, type WordReader } from './layout.js';

/** A place in storage whose value the path names: a scalar, a string, an array (its length), a mapping (nothing of its own). */
export interface Node {
  path: string;
  ty: Ty;
  slot: bigint;
  offset: number;
}

/** the farthest a written slot may lie from its hash: an element index of a huge array, yet never a stranger's hash */
const MAX_DISTANCE = 1n << 40n;
/** hashes tried below a slot before it is left raw */
const TRIES = 3;
const MAX_DEPTH = 24;

/** Hashes and their preimages, searchable by the nearest hash at or below a slot. */
export class Preimages {
  private readonly map = new Map<bigint, Uint8Array>();
  private sorted: bigint[] | null = null;

  add(hash: bigint, preimage: Uint8Array): void {
    if (this.map.has(hash)) return;
    this.map.set(hash, preimage);
    this.sorted = null;
  }

  addAll(pairs: Iterable<readonly [bigint, Uint8Array]>): void {
    for (const [h, p] of pairs) this.add(h, p);
  }

  get(hash: bigint): Uint8Array | undefined {
    return this.map.get(hash);
  }

  get size(): number {
    return this.map.size;
  }

  /** Up to `n` hashes at or below `slot`, nearest first. */
  below(slot: bigint, n: number): bigint[] {
    this.sorted ??= [...this.map.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const s = this.sorted;
    let lo = 0;
    let hi = s.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (s[mid] <= slot) lo = mid + 1;
      else hi = mid;
    }
    const out: bigint[] = [];
    for (let i = lo - 1; i >= 0 && out.length < n && slot - s[i] < MAX_DISTANCE; i--) out.push(s[i]);
    return out;
  }
}

const utf8 = new TextDecoder();

/**
 * A mapping key as SolidVM writes it in a path: integers and enums in decimal,
 * bools `true`/`false`, addresses and bytesN as hex, a string JSON-quoted,
 * bytes as 0x-hex; undefined when the bytes are not a key of that type (so the
 * preimage was something else).
 */
export function keyText(t: Ty, key: Uint8Array): string | undefined {
  if (t.k === 'bytes') return t.string ? JSON.stringify(utf8.decode(key)) : '0x' + bytesToHex(key);
  if (t.k !== 'value' || key.length !== 32) return undefined;
  const n = wordBig(key);
  switch (t.kind) {
    case 'uint':
      return n < 1n << BigInt(t.size * 8) ? n.toString() : undefined;
    case 'int': {
      const v = BigInt.asIntN(256, n);
      return v === BigInt.asIntN(t.size * 8, v) ? v.toString() : undefined;
    }
    case 'bool':
      return n === 0n ? 'false' : n === 1n ? 'true' : undefined;
    case 'address':
      return n < 1n << 160n ? bytesToHex(key.subarray(12)) : undefined;
    case 'fbytes':
      return key.subarray(t.size).every((b) => b === 0) ? bytesToHex(key.subarray(0, t.size)) : undefined;
  }
}

/** Resolves slots to the nodes that occupy them, for one contract's storage at one moment. */
export class SlotResolver {
  private readonly memo = new Map<bigint, Node[]>();

  constructor(
    private readonly model: StorageModel,
    private readonly pre: Preimages,
    /** storage before and after the transaction: an array's elements are those below either length */
    private readonly before: WordReader,
    private readonly now: WordReader,
  ) {}

  /** The nodes at a slot: several packed scalars, or one scalar, string, array or mapping; none when unknown. */
  nodesAt(slot: bigint, depth = 0): Node[] {
    const known = this.memo.get(slot);
    if (known) return known;
    const out: Node[] = [];
    if (slot >= this.model.lo && slot < this.model.hi) descend(this.model.top, 0n, 0, '', slot, out);
    else if (depth < MAX_DEPTH) this.hashed(slot, depth, out);
    this.memo.set(slot, out);
    return out;
  }

  private hashed(slot: bigint, depth: number, out: Node[]): void {
    for (const h of this.pre.below(slot, TRIES)) {
      const p = this.pre.get(h)!;
      const d = slot - h;
      const parent = wordBig(p.subarray(p.length - 32));
      for (const head of this.nodesAt(parent, depth + 1)) {
        if (head.slot !== parent) continue;
        if (head.ty.k === 'mapping') {
          const key = keyText(head.ty.key, p.subarray(0, p.length - 32));
          if (key !== undefined && d < wordsOf(head.ty.value)) descend(head.ty.value, h, 0, `${head.path}<${key}>`, slot, out);
        } else if (p.length === 32 && head.ty.k === 'bytes') {
          if (d * 32n < BigInt(MAX_BYTES)) out.push(head);
        } else if (p.length === 32 && head.ty.k === 'dynamic') {
          const a = arrayLength(parent, this.before);
          const b = arrayLength(parent, this.now);
          elementsAt(head.ty.elem, h, d, a > b ? a : b, head.path, slot, out);
        }
      }
      if (out.length) return;
    }
  }
}

/** The nodes of a value of type `t` at `base` that occupy `slot` (which lies within it). */
function descend(t: Ty, base: bigint, offset: number, path: string, slot: bigint, out: Node[]): void {
  switch (t.k) {
    case 'struct':
      for (const m of t.members) {
        const start = base + m.slot;
        if (slot >= start && slot < start + wordsOf(m.ty)) descend(m.ty, start, m.offset, `${path}.${m.name}`, slot, out);
      }
      return;
    case 'fixed':
      elementsAt(t.elem, base, slot - base, BigInt(t.length), path, slot, out);
      return;
    case 'opaque':
      return;
    default:
      out.push({ path, ty: t, slot: base, offset });
  }
}

/** The elements (below `length`) of an array whose data starts at `base` that occupy the slot `d` words in. */
function elementsAt(elem: Ty, base: bigint, d: bigint, length: bigint, path: string, slot: bigint, out: Node[]): void {
  if (elem.k === 'value') {
    const per = BigInt(Math.floor(32 / elem.size));
    for (let i = d * per; i < (d + 1n) * per && i < length; i++) out.push({ path: `${path}[${i}]`, ty: elem, slot, offset: Number(i % per) * elem.size });
    return;
  }
  const i = d / wordsOf(elem);
  if (i >= length) return;
  const at = elementAt(elem, base, Number(i));
  descend(elem, at.slot, 0, `${path}[${i}]`, slot, out);
}

/**
 * The paths a transaction changed, with their new stored text (null: back to
 * the default), from the slots it wrote. `skip`: paths reported otherwise (a
 * contract's simple variables). Slots no preimage explains are left out: they
 * stay in the diff by slot number only.
 */
export function changedPaths(resolver: SlotResolver, slots: Iterable<bigint>, before: WordReader, now: WordReader, skip: Set<string>): Map<string, string | null> {
  const nodes = new Map<string, Node>();
  for (const s of slots) for (const n of resolver.nodesAt(s)) if (n.ty.k !== 'mapping') nodes.set(n.ty.k === 'dynamic' ? `${n.path}.length` : n.path, n);
  const out = new Map<string, string | null>();
  for (const [path, n] of nodes) {
    if (skip.has(path)) continue;
    const after = storedText(n.ty, n.slot, n.offset, now);
    if (after !== storedText(n.ty, n.slot, n.offset, before)) out.set(path, after);
  }
  return out;
}

/** Whether a slot lies outside the contract's variables of static size (so only a preimage can explain it). */
export const isHashed = (model: StorageModel, slot: bigint): boolean => slot < model.lo || slot >= model.hi;
