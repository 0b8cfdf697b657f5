// The root of a Merkle-Patricia trie built from scratch over a set of pairs,
// in one synchronous pass: what a block's transactionsRoot needs. Equal to the
// root @ethereumjs/mpt gives for the same puts (test/trie-root.test.ts checks
// it); that library hashes the whole path on every put, about 0.4 ms each,
// which for a 500-transaction block would cost more than executing it.
import { keccak256, rlpEncode, type RlpInput } from '@platform/crypto';

type Item = Uint8Array | Item[];

function nibblesOf(key: Uint8Array): Uint8Array {
  const out = new Uint8Array(key.length * 2);
  for (let i = 0; i < key.length; i++) {
    out[2 * i] = key[i] >> 4;
    out[2 * i + 1] = key[i] & 15;
  }
  return out;
}

/** Ethereum's hex-prefix encoding of a nibble path, flagged as leaf or extension. */
function hexPrefix(nibbles: Uint8Array, leaf: boolean): Uint8Array {
  const odd = nibbles.length % 2;
  const out = new Uint8Array(Math.floor(nibbles.length / 2) + 1);
  out[0] = ((leaf ? 2 : 0) + odd) << 4;
  let i = 0;
  if (odd) out[0] |= nibbles[i++];
  for (let o = 1; i < nibbles.length; i += 2, o++) out[o] = (nibbles[i] << 4) | nibbles[i + 1];
  return out;
}

/** A child reference: the node itself when its RLP is under 32 bytes, else its hash. */
function ref(node: Item): Item {
  const enc = rlpEncode(node as RlpInput);
  return enc.length < 32 ? node : keccak256(enc);
}

/** The node over `items` (sorted by path, unique), all sharing their first `depth` nibbles. */
function build(items: Array<[Uint8Array, Uint8Array]>, depth: number): Item {
  if (items.length === 1) return [hexPrefix(items[0][0].subarray(depth), true), items[0][1]];
  // the longest prefix all paths share beyond depth
  const first = items[0][0];
  const last = items[items.length - 1][0];
  let shared = depth;
  while (shared < first.length && shared < last.length && first[shared] === last[shared]) shared++;
  if (shared > depth) return [hexPrefix(first.subarray(depth, shared), false), ref(build(items, shared))];
  const branch: Item[] = new Array(17).fill(new Uint8Array(0));
  let i = 0;
  if (items[0][0].length === depth) branch[16] = items[i++][1];
  while (i < items.length) {
    const nibble = items[i][0][depth];
    let j = i;
    while (j < items.length && items[j][0][depth] === nibble) j++;
    branch[nibble] = ref(build(items.slice(i, j), depth + 1));
    i = j;
  }
  return branch;
}

function compare(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

/** The root hash of the trie holding these pairs (later duplicates of a key win, as with puts). */
export function trieRootOf(pairs: Array<[Uint8Array, Uint8Array]>): Uint8Array {
  const byPath = new Map<string, [Uint8Array, Uint8Array]>();
  for (const [k, v] of pairs) if (v.length > 0) byPath.set(Buffer.from(k).toString('hex'), [nibblesOf(k), v]);
  if (byPath.size === 0) return keccak256(rlpEncode(new Uint8Array(0)));
  const items = [...byPath.values()].sort((a, b) => compare(a[0], b[0]));
  return keccak256(rlpEncode(build(items, 0) as RlpInput));
}
