// Ethereum's Merkle-Patricia trie, edited in memory and hashed once.
//
// A block changes many keys of one trie. Hashing the path of every put (what
// a conventional trie does) rewrites the trie's upper nodes once per key; here
// edits only build new nodes (copy on write: a loaded node is never changed),
// and `commit` encodes and hashes each new node once, bottom up. The roots are
// those of the Yellow Paper's trie (appendix D), checked against
// ethereum/tests' TrieTests and @ethereumjs/mpt (test/mpt.test.ts).
//
// Nodes are stored by position, not by hash: a node's position is the nibble
// path from the root to it (the prefix of every key beneath it, written one
// hex digit per nibble; the root's is ''), which a node keeps as long as it
// exists. A commit gives the store the hashed nodes it made, each by
// position (overwriting the version there before), and the positions left
// empty, so a store holds exactly the current root's nodes: its size follows
// the state, not the history. (Nodes stored by hash are never overwritten, so
// every block's new versions stayed for ever: 16 → 39 MiB of the block
// service's resident store pages over six soak rounds.) A node read from its
// position is checked against the hash its parent names. Decoded nodes are
// kept by hash, at most once per process (`decodedNodes`: a hash names one
// content, so a decoded one never goes stale).
import { bytesToHex, keccak256, rlpDecode, rlpEncode, type RlpDecoded, type RlpInput } from '@platform/crypto';
import { BudgetedCache, stateCacheBudget } from './cache-budget.js';

/** The root of the empty trie: Keccak-256 of RLP(""), 56e81f…b421. */
export const EMPTY_ROOT = keccak256(rlpEncode(new Uint8Array(0)));

/**
 * The stored node at a position (nibbles as hex digits, '' for the root), or
 * undefined when the store has none there. `hexHash` is the hash the parent
 * names, for a source that keeps nodes by hash.
 */
export type NodeSource = (position: string, hexHash: string) => Uint8Array | undefined;

/** What a commit leaves for the store: the hashed nodes it made, by position, and the positions whose node is gone. */
export interface TrieWrites {
  nodes: Map<string, Uint8Array>;
  vacated: Set<string>;
}

/** A fresh TrieWrites. */
export function trieWrites(): TrieWrites {
  return { nodes: new Map(), vacated: new Set() };
}

/** A path of nibbles (values 0–15), one per element. */
type Nibbles = Uint8Array;

/**
 * What a parent holds of a child once the child is encoded: its 32-byte hash,
 * or the child's own item when its encoding is under 32 bytes (inlined).
 */
type Ref = Uint8Array | RlpInput[];

interface Leaf {
  kind: 'leaf';
  path: Nibbles;
  value: Uint8Array;
  /** set once encoded: a loaded node has it from the start, a new one gets it at commit */
  ref?: Ref;
}
interface Extension {
  kind: 'extension';
  path: Nibbles;
  child: Child;
  ref?: Ref;
}
interface Branch {
  kind: 'branch';
  children: Array<Child | null>;
  value: Uint8Array | null;
  ref?: Ref;
}
/** A stored node known only by its hash until an edit needs to look inside. */
interface Stored {
  kind: 'stored';
  hash: Uint8Array;
}
type TrieNode = Leaf | Extension | Branch;
type Child = TrieNode | Stored;

const EMPTY = new Uint8Array(0);

export class TrieError extends Error {}

/**
 * One trie from `root` over the nodes of `source`. With `secure`, keys are
 * hashed with Keccak-256 first (the state and storage tries). An empty value
 * deletes, as in Ethereum's trie.
 */
export class MerkleTrie {
  private top: Child | null;
  /** positions whose stored node an edit replaced or removed since the last commit */
  private readonly replaced = new Set<string>();

  constructor(
    root: Uint8Array,
    private readonly source: NodeSource,
    private readonly secure = false,
  ) {
    this.top = equalBytes(root, EMPTY_ROOT) ? null : { kind: 'stored', hash: root };
  }

  put(key: Uint8Array, value: Uint8Array): void {
    if (value.length === 0) return this.del(key);
    this.top = this.insert(this.top, this.pathOf(key), value, '');
  }

  del(key: Uint8Array): void {
    this.top = this.remove(this.top, this.pathOf(key), '');
  }

  /** The value under `key`, or undefined. */
  get(key: Uint8Array): Uint8Array | undefined {
    let node = this.top;
    let path = this.pathOf(key);
    let position = '';
    while (node !== null) {
      const n = this.resolve(node, position);
      if (n.kind === 'leaf') return equalBytes(n.path, path) ? n.value : undefined;
      if (n.kind === 'extension') {
        if (commonPrefix(n.path, path) < n.path.length) return undefined;
        position += digitsOf(n.path);
        path = path.subarray(n.path.length);
        node = n.child;
        continue;
      }
      if (path.length === 0) return n.value ?? undefined;
      position += DIGITS[path[0]];
      node = n.children[path[0]];
      path = path.subarray(1);
    }
    return undefined;
  }

  /**
   * The root hash. Every node made since the last commit is encoded and
   * hashed once; those of 32 bytes or more go into `writes.nodes` by
   * position, and the positions whose stored node the edits replaced by
   * nothing (or by a node small enough to sit inside its parent) into
   * `writes.vacated`: what a store needs to hold this root's nodes and no
   * other. `writes` null: a trie that is hashed and dropped (a block's
   * transactions), whose nodes are neither kept nor remembered among the
   * state's.
   */
  commit(writes: TrieWrites | null): Uint8Array {
    const top = this.top;
    let root: Uint8Array;
    if (top === null) root = EMPTY_ROOT;
    else if (top.kind === 'stored') root = top.hash;
    else {
      const ref = refOf(top, writes, '');
      if (ref instanceof Uint8Array) root = ref;
      else {
        // the root is named by its hash whatever its size; its ref stays the
        // inline item, what a parent would hold of it
        const encoded = rlpEncode(ref);
        root = keccak256(encoded);
        keep(writes, '', root, top, encoded);
      }
    }
    // a stored node replaced is rewritten at its position, unless what took
    // its place is nothing or sits inside its parent; an unchanged node
    // keeps its position and was never replaced
    if (writes !== null) {
      for (const position of this.replaced) if (!writes.nodes.has(position)) writes.vacated.add(position);
    }
    this.replaced.clear();
    return root;
  }

  private pathOf(key: Uint8Array): Nibbles {
    return nibbles(this.secure ? keccak256(key) : key);
  }

  /** `child`, the node at `position`, decoded */
  private resolve(child: Child, position: string): TrieNode {
    if (child.kind !== 'stored') return child;
    return loadNode(child.hash, position, this.source);
  }

  /**
   * `child` (the node at `position`) with `value` under `path`: new nodes
   * along the path, the rest shared; `child` itself when it held that value
   * already.
   */
  private insert(child: Child | null, path: Nibbles, value: Uint8Array, position: string): Child {
    if (child === null) return { kind: 'leaf', path, value };
    const after = this.inserted(child, path, value, position);
    if (after !== child && isStored(child)) this.replaced.add(position);
    return after;
  }

  private inserted(child: Child, path: Nibbles, value: Uint8Array, position: string): Child {
    const node = this.resolve(child, position);
    if (node.kind === 'branch') {
      if (path.length === 0) {
        if (node.value !== null && equalBytes(node.value, value)) return child;
        return { kind: 'branch', children: node.children.slice(), value };
      }
      const before = node.children[path[0]];
      const after = this.insert(before, path.subarray(1), value, position + DIGITS[path[0]]);
      if (after === before) return child;
      const children = node.children.slice();
      children[path[0]] = after;
      return { kind: 'branch', children, value: node.value };
    }
    const shared = commonPrefix(node.path, path);
    if (node.kind === 'leaf' && shared === node.path.length && shared === path.length) {
      return equalBytes(node.value, value) ? child : { kind: 'leaf', path, value };
    }
    if (node.kind === 'extension' && shared === node.path.length) {
      const after = this.insert(node.child, path.subarray(shared), value, position + digitsOf(node.path));
      return after === node.child ? child : { kind: 'extension', path: node.path, child: after };
    }
    // the paths part after `shared` nibbles: a branch there holds both
    const branch: Branch = { kind: 'branch', children: new Array<Child | null>(16).fill(null), value: null };
    if (node.kind === 'leaf') {
      if (shared === node.path.length) branch.value = node.value;
      else branch.children[node.path[shared]] = { kind: 'leaf', path: node.path.subarray(shared + 1), value: node.value };
    } else {
      const rest = node.path.subarray(shared + 1);
      branch.children[node.path[shared]] = rest.length === 0 ? node.child : { kind: 'extension', path: rest, child: node.child };
    }
    if (shared === path.length) branch.value = value;
    else branch.children[path[shared]] = { kind: 'leaf', path: path.subarray(shared + 1), value };
    return shared === 0 ? branch : { kind: 'extension', path: path.subarray(0, shared), child: branch };
  }

  /** `child` (the node at `position`) without `path`; the same object when it held no such key. */
  private remove(child: Child | null, path: Nibbles, position: string): Child | null {
    if (child === null) return null;
    const after = this.removed(child, path, position);
    if (after !== child && isStored(child)) this.replaced.add(position);
    return after;
  }

  private removed(child: Child, path: Nibbles, position: string): Child | null {
    const node = this.resolve(child, position);
    if (node.kind === 'leaf') return equalBytes(node.path, path) ? null : child;
    if (node.kind === 'extension') {
      if (commonPrefix(node.path, path) < node.path.length) return child;
      const after = this.remove(node.child, path.subarray(node.path.length), position + digitsOf(node.path));
      if (after === node.child) return child;
      // under an extension is a branch of two or more entries, which a removal leaves non-empty
      if (after === null) throw new TrieError('an extension leads to a branch of one entry');
      return this.joinPath(node.path, after, position);
    }
    const children = node.children.slice();
    let value = node.value;
    if (path.length === 0) {
      if (value === null) return child;
      value = null;
    } else {
      const before = children[path[0]];
      const after = this.remove(before, path.subarray(1), position + DIGITS[path[0]]);
      if (after === before) return child;
      children[path[0]] = after;
    }
    // a branch left with one entry becomes that entry, its nibble joined to the path
    let only = -1;
    let count = value === null ? 0 : 1;
    for (let i = 0; i < 16; i++) {
      if (children[i] !== null) {
        count++;
        only = i;
      }
    }
    if (count >= 2) return { kind: 'branch', children, value };
    if (count === 0) return null;
    if (only === -1) return { kind: 'leaf', path: EMPTY, value: value! };
    return this.joinPath(Uint8Array.of(only), children[only]!, position);
  }

  /**
   * `child` reached through `prefix` from `position`: a leaf or extension
   * takes the prefix into its path and moves up to `position` (leaving its
   * own empty), a branch gets an extension and stays where it is.
   */
  private joinPath(prefix: Nibbles, child: Child, position: string): TrieNode {
    const own = position + digitsOf(prefix);
    const node = this.resolve(child, own);
    if (node.kind === 'branch') return { kind: 'extension', path: prefix, child };
    if (isStored(child)) this.replaced.add(own);
    if (node.kind === 'leaf') return { kind: 'leaf', path: concatNibbles(prefix, node.path), value: node.value };
    return { kind: 'extension', path: concatNibbles(prefix, node.path), child: node.child };
  }
}

/**
 * The root of a trie holding these pairs, built from empty (later duplicates
 * of a key win, an empty value deletes). Its nodes are not remembered: a
 * block's transactions trie in the decoded-node cache evicted the state's
 * nodes for entries nobody reads again.
 */
export function trieRootOf(pairs: Iterable<readonly [Uint8Array, Uint8Array]>): Uint8Array {
  const trie = new MerkleTrie(EMPTY_ROOT, () => undefined);
  for (const [key, value] of pairs) trie.put(key, value);
  return trie.commit(null);
}

// --- encoding ---------------------------------------------------------------------

/** A node that is in the store: loaded from it, or hashed by an earlier commit (not one made since, nor one inside its parent). */
function isStored(child: Child): boolean {
  return child.kind === 'stored' || child.ref instanceof Uint8Array;
}

/** What the parent holds of `child` (the node at `position`), encoding (and recording) new nodes beneath it first. */
function refOf(child: Child, writes: TrieWrites | null, position: string): Ref {
  if (child.kind === 'stored') return child.hash;
  if (child.ref !== undefined) return child.ref;
  const item = itemOf(child, writes, position);
  const encoded = rlpEncode(item);
  if (encoded.length < 32) {
    child.ref = item;
  } else {
    const hash = keccak256(encoded);
    keep(writes, position, hash, child, encoded);
    child.ref = hash;
  }
  return child.ref;
}

/** A hashed node for the store (by position) and the decoded-node cache (by hash); nothing for a trie hashed and dropped. */
function keep(writes: TrieWrites | null, position: string, hash: Uint8Array, node: TrieNode, encoded: Uint8Array): void {
  if (writes === null) return;
  writes.nodes.set(position, encoded);
  remember(bytesToHex(hash), node, encoded.length);
}

function itemOf(node: TrieNode, writes: TrieWrites | null, position: string): RlpInput[] {
  if (node.kind === 'leaf') return [hexPrefix(node.path, true), node.value];
  // a child's position is spelt out only for a node made since the last commit, which is encoded now
  if (node.kind === 'extension') {
    const c = node.child;
    return [hexPrefix(node.path, false), c.kind === 'stored' ? c.hash : (c.ref ?? refOf(c, writes, position + digitsOf(node.path)))];
  }
  const item: RlpInput[] = new Array<RlpInput>(17);
  for (let i = 0; i < 16; i++) {
    const c = node.children[i];
    item[i] = c === null ? EMPTY : c.kind === 'stored' ? c.hash : (c.ref ?? refOf(c, writes, position + DIGITS[i]));
  }
  item[16] = node.value ?? EMPTY;
  return item;
}

/** Ethereum's hex-prefix encoding of a nibble path, flagged as leaf or extension. */
function hexPrefix(path: Nibbles, leaf: boolean): Uint8Array {
  const odd = path.length % 2;
  const out = new Uint8Array((path.length >> 1) + 1);
  out[0] = ((leaf ? 2 : 0) + odd) << 4;
  let i = 0;
  if (odd) out[0] |= path[i++];
  for (let o = 1; i < path.length; i += 2, o++) out[o] = (path[i] << 4) | path[i + 1];
  return out;
}

// --- decoding ---------------------------------------------------------------------

/**
 * Decoded nodes by hex hash, shared by every trie of the process (a hash
 * names one content, and a node is never changed once hashed): those loaded,
 * and those a commit hashed, since the next block walks down the nodes this
 * one made. Within the process's state cache budget (./cache-budget.ts),
 * each charged by its encoding's size: a decoded node holds its pieces as
 * arrays of their own, about three times the encoding.
 */
const decodedNodes = new BudgetedCache<TrieNode>(stateCacheBudget, () => 0);

function remember(hex: string, node: TrieNode, encodedBytes: number): void {
  decodedNodes.set(hex, node, DECODED_NODE_BYTES + 3 * encodedBytes);
}

const DECODED_NODE_BYTES = 200;

function loadNode(hash: Uint8Array, position: string, source: NodeSource): TrieNode {
  const hex = bytesToHex(hash);
  const cached = decodedNodes.peek(hex);
  if (cached !== undefined) return cached;
  const encoded = source(position, hex);
  if (encoded === undefined) throw new TrieError(`the trie node ${hex} (at position '${position}') is not in the store`);
  // a position holds one version at a time: another than the parent names is a store out of step with its root
  if (!equalBytes(keccak256(encoded), hash)) throw new TrieError(`the store holds another node than ${hex} at position '${position}'`);
  const node = nodeOf(rlpDecode(encoded), hash);
  remember(hex, node, encoded.length);
  return node;
}

/**
 * Every hashed node `root` reaches, with its position: the root first, then
 * depth first. `load` reads a node by its hash (a store kept by hash, as
 * chains stored before positions were).
 */
export function* nodesByPosition(root: Uint8Array, load: (hexHash: string) => Uint8Array | undefined): Iterable<[position: string, encoded: Uint8Array]> {
  if (equalBytes(root, EMPTY_ROOT)) return;
  const pending: Array<{ hash: Uint8Array; position: string }> = [{ hash: root, position: '' }];
  while (pending.length > 0) {
    const { hash, position } = pending.pop()!;
    const hex = bytesToHex(hash);
    const encoded = load(hex);
    if (encoded === undefined) throw new TrieError(`the trie node ${hex} (at position '${position}') is not in the store`);
    yield [position, encoded];
    const node = nodeOf(rlpDecode(encoded), hash);
    if (node.kind === 'branch') {
      for (let i = 15; i >= 0; i--) {
        const child = node.children[i];
        if (child?.kind === 'stored') pending.push({ hash: child.hash, position: position + DIGITS[i] });
      }
    } else if (node.kind === 'extension' && node.child.kind === 'stored') {
      pending.push({ hash: node.child.hash, position: position + digitsOf(node.path) });
    }
    // nodes under 32 bytes sit inside their parent and hold no hashes
  }
}

function nodeOf(item: RlpDecoded, ref: Ref): TrieNode {
  if (!Array.isArray(item)) throw new TrieError('a trie node is a list');
  if (item.length === 17) {
    const children = new Array<Child | null>(16);
    for (let i = 0; i < 16; i++) children[i] = childOf(item[i]);
    const value = item[16];
    if (Array.isArray(value)) throw new TrieError("a branch's value is a byte string");
    return { kind: 'branch', children, value: value.length === 0 ? null : value, ref };
  }
  if (item.length !== 2 || Array.isArray(item[0]) || item[0].length === 0) throw new TrieError('a trie node has 2 or 17 items');
  const [encodedPath, second] = item;
  const flag = encodedPath[0] >> 4;
  if (flag > 3) throw new TrieError(`bad hex-prefix flag ${flag}`);
  const all = nibbles(encodedPath);
  const path = all.subarray(flag & 1 ? 1 : 2);
  if (flag >= 2) {
    if (Array.isArray(second)) throw new TrieError("a leaf's value is a byte string");
    return { kind: 'leaf', path, value: second, ref };
  }
  const child = childOf(second);
  if (child === null) throw new TrieError('an extension has no child');
  return { kind: 'extension', path, child, ref };
}

function childOf(item: RlpDecoded): Child | null {
  if (Array.isArray(item)) return nodeOf(item, item as RlpInput[]);
  if (item.length === 0) return null;
  if (item.length === 32) return { kind: 'stored', hash: item };
  throw new TrieError(`a child reference of ${item.length} bytes`);
}

// --- nibbles ----------------------------------------------------------------------

/** a nibble as the hex digit a position writes it with */
const DIGITS = '0123456789abcdef';

function digitsOf(path: Nibbles): string {
  let out = '';
  for (let i = 0; i < path.length; i++) out += DIGITS[path[i]];
  return out;
}

function nibbles(bytes: Uint8Array): Nibbles {
  const out = new Uint8Array(bytes.length * 2);
  for (let i = 0; i < bytes.length; i++) {
    out[2 * i] = bytes[i] >> 4;
    out[2 * i + 1] = bytes[i] & 15;
  }
  return out;
}

function commonPrefix(a: Nibbles, b: Nibbles): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}

function concatNibbles(a: Nibbles, b: Nibbles): Nibbles {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
