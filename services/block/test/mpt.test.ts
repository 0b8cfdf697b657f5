// The in-memory Merkle-Patricia trie (src/state/mpt.ts) against sources it
// does not share code with: ethereum/tests' trie vectors (fixtures/SOURCE.md)
// and @ethereumjs/mpt, over seeded random edits in batches, each batch
// starting from the nodes the earlier ones stored by position; and after
// each batch the store holds exactly the nodes the root reaches.
//
// @ethereumjs/mpt is the oracle of what a trie holding some pairs hashes to,
// built by puts alone: its deletes are wrong where one key is a prefix of
// another (the branch keeps the deleted value; ethereumjs-monorepo PR #4346,
// after the 10.1 we install), which secure tries, with their keys all 32
// bytes, never meet — the state and storage tries of every stored chain.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { bytesToHex, hexToBytes, keccak256, rlpDecode, rlpEncode, type RlpDecoded } from '@platform/crypto';
import { EMPTY_ROOT, MerkleTrie, TrieError, nodesByPosition, trieRootOf, trieWrites, type TrieWrites } from '../src/state/mpt.js';

const fixture = (name: string) => JSON.parse(readFileSync(join(import.meta.dirname, 'fixtures', name), 'utf8'));
const bytesOf = (s: string) => (s.startsWith('0x') ? hexToBytes(s) : new TextEncoder().encode(s));
const noNodes = () => undefined;

/** A store of nodes by position, as the block service's. */
class PositionStore {
  readonly nodes = new Map<string, Uint8Array>();
  readonly source = (position: string) => this.nodes.get(position);
  /** `trie`'s root, its writes applied here */
  commit(trie: MerkleTrie): { root: Uint8Array; writes: TrieWrites } {
    const writes = trieWrites();
    const root = trie.commit(writes);
    this.apply(writes);
    return { root, writes };
  }
  apply(writes: TrieWrites): void {
    for (const position of writes.vacated) this.nodes.delete(position);
    for (const [position, node] of writes.nodes) this.nodes.set(position, node);
  }
  /** the same nodes by hash, as a parent names them */
  byHash(): (hex: string) => Uint8Array | undefined {
    const all = new Map([...this.nodes.values()].map((node) => [bytesToHex(keccak256(node)), node]));
    return (hex) => all.get(hex);
  }
  /** every node `root` reaches, read by hash, is the one stored at its position, and nothing else is stored */
  expectExactly(root: Uint8Array): void {
    const reached = new Map(nodesByPosition(root, this.byHash()));
    expect([...this.nodes.keys()].sort()).toEqual([...reached.keys()].sort());
    for (const [position, node] of reached) expect(this.nodes.get(position)).toEqual(node);
  }
}

/** xorshift32: the same edits on every run */
function random(seed: number) {
  let x = seed;
  const next = () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
  return { next, int: (n: number) => Math.floor(next() * n) };
}

describe('ethereum/tests TrieTests', () => {
  const cases = fixture('trietest.json') as Record<string, { in: Array<[string, string | null]>; root: string }>;
  test.each(Object.keys(cases))('trietest.json %s', (name) => {
    const trie = new MerkleTrie(EMPTY_ROOT, noNodes);
    for (const [key, value] of cases[name].in) {
      if (value === null) trie.del(bytesOf(key));
      else trie.put(bytesOf(key), bytesOf(value));
    }
    expect(`0x${bytesToHex(trie.commit(trieWrites()))}`).toBe(cases[name].root);
  });

  test('hex_encoded_securetrie_test.json test1 (keys hashed)', () => {
    const { data, result } = fixture('hex_encoded_securetrie_test.json').test1 as { data: Array<[string, string]>; result: string };
    const trie = new MerkleTrie(EMPTY_ROOT, noNodes, true);
    for (const [key, value] of data) trie.put(hexToBytes(key), hexToBytes(value));
    expect(`0x${bytesToHex(trie.commit(trieWrites()))}`).toBe(result);
  });

  test('the same vectors, each edit committed and the trie reopened from the nodes stored by position', () => {
    const cases = fixture('trietest.json') as Record<string, { in: Array<[string, string | null]>; root: string }>;
    for (const { in: edits, root } of Object.values(cases)) {
      const store = new PositionStore();
      let current = EMPTY_ROOT;
      for (const [key, value] of edits) {
        const trie = new MerkleTrie(current, store.source);
        if (value === null) trie.del(bytesOf(key));
        else trie.put(bytesOf(key), bytesOf(value));
        current = store.commit(trie).root;
        store.expectExactly(current);
      }
      expect(`0x${bytesToHex(current)}`).toBe(root);
    }
  });
});

describe('against @ethereumjs/mpt', () => {
  /**
   * Keys of mixed lengths that share prefixes (so leaves sit on branches'
   * values and extensions split), values short enough to be inlined and
   * long enough to be hashed; edits in batches of 1–40, a tenth deletes.
   */
  async function compare(seed: number, secure: boolean): Promise<void> {
    const rng = random(seed);
    const keyPool = Array.from({ length: 60 }, () => {
      const k = new Uint8Array(1 + rng.int(secure ? 20 : 5));
      for (let i = 0; i < k.length; i++) k[i] = rng.int(4) * 0x11;
      return k;
    });
    const model = new Map<string, Uint8Array>();
    const store = new PositionStore();
    let root = EMPTY_ROOT;
    for (let batch = 0; batch < 40; batch++) {
      const trie = new MerkleTrie(root, store.source, secure);
      for (let n = 1 + rng.int(40); n > 0; n--) {
        const key = keyPool[rng.int(keyPool.length)];
        if (rng.next() < 0.1) {
          trie.del(key);
          model.delete(bytesToHex(key));
        } else {
          const value = new Uint8Array(1 + rng.int(rng.next() < 0.5 ? 4 : 60)).fill(1 + rng.int(255));
          trie.put(key, value);
          model.set(bytesToHex(key), value);
        }
      }
      root = store.commit(trie).root;
      const reference = secure ? new MerklePatriciaTrie({ useKeyHashing: true, useKeyHashingFunction: keccak256 }) : new MerklePatriciaTrie();
      for (const [key, value] of model) await reference.put(hexToBytes(key), value);
      expect(bytesToHex(root)).toBe(bytesToHex(reference.root()));
      // the store holds this root's nodes, each at its position, and no other
      store.expectExactly(root);
      // every value reads back from the stored nodes alone
      const reopened = new MerkleTrie(root, store.source, secure);
      for (const key of keyPool) expect(reopened.get(key)).toEqual(model.get(bytesToHex(key)));
    }
  }

  test('a delete that leaves a branch with its value and one child gives the root of the pairs left', async () => {
    const trie = new MerkleTrie(EMPTY_ROOT, noNodes);
    trie.put(hexToBytes('111111'), hexToBytes('04040404040404'));
    trie.put(hexToBytes('110011'), hexToBytes('04'));
    trie.put(hexToBytes('11'), hexToBytes('09'));
    trie.del(hexToBytes('110011'));
    const reference = new MerklePatriciaTrie();
    await reference.put(hexToBytes('111111'), hexToBytes('04040404040404'));
    await reference.put(hexToBytes('11'), hexToBytes('09'));
    expect(bytesToHex(trie.commit(trieWrites()))).toBe(bytesToHex(reference.root()));
  });

  test.each([1, 2, 3, 4, 5])('plain keys, seed %i', (seed) => compare(seed, false));
  test.each([11, 12, 13])('hashed keys, seed %i', (seed) => compare(seed, true));

  test('continues from nodes stored by hash, as @ethereumjs/mpt stored them (the chains stored before this trie)', async () => {
    // the database the block service gave @ethereumjs/mpt: string keys, byte values, never a delete
    const stored = new Map<string, Uint8Array>();
    const db = {
      get: async (key: string) => stored.get(key),
      put: async (key: string, value: Uint8Array) => void stored.set(key, value),
      del: async () => {},
      batch: async (ops: Array<{ type: string; key: string; value?: Uint8Array }>) => ops.forEach((op) => op.type === 'put' && stored.set(op.key, op.value!)),
      shallowCopy() {
        return this;
      },
      open: async () => {},
    };
    const reference = new MerklePatriciaTrie({ db: db as never, useKeyHashing: true, useKeyHashingFunction: keccak256, valueEncoding: 'view' as never });
    const account = (nonce: number) => rlpEncode([nonce, 10n ** 18n, EMPTY_ROOT, new Uint8Array(0)]);
    for (let i = 0; i < 300; i++) await reference.put(rlpEncode(i * 7919), account(1));
    const trie = new MerkleTrie(reference.root(), (_position, hash) => stored.get(hash), true);
    for (let i = 0; i < 300; i += 3) {
      trie.put(rlpEncode(i * 7919), account(2));
      await reference.put(rlpEncode(i * 7919), account(2));
    }
    trie.del(rlpEncode(7919));
    await reference.del(rlpEncode(7919));
    expect(bytesToHex(trie.commit(trieWrites()))).toBe(bytesToHex(reference.root()));
    expect(trie.get(rlpEncode(2 * 7919))).toEqual(account(1));
  });

  test('the transactions trie of a block, from empty, as @ethereumjs/mpt builds it', async () => {
    for (const n of [0, 1, 2, 16, 17, 130, 500]) {
      const reference = new MerklePatriciaTrie();
      const pairs: Array<[Uint8Array, Uint8Array]> = [];
      for (let i = 0; i < n; i++) {
        const value = new Uint8Array(1 + ((i * 7) % 90)).fill(i % 256);
        pairs.push([rlpEncode(i), value]);
        await reference.put(rlpEncode(i), value);
      }
      expect(bytesToHex(trieRootOf(pairs))).toBe(bytesToHex(reference.root()));
    }
  });
});

/** The hashes of the stored nodes met going from `root` down to `key` (a secure trie's hashed key). */
function pathNodes(root: Uint8Array, key: Uint8Array, load: (hex: string) => Uint8Array | undefined): string[] {
  const nibbles = [...key].flatMap((b) => [b >> 4, b & 15]);
  const met: string[] = [];
  let ref: RlpDecoded = root;
  let depth = 0;
  for (;;) {
    let node: RlpDecoded;
    if (ref instanceof Uint8Array) {
      met.push(bytesToHex(ref));
      node = rlpDecode(load(bytesToHex(ref))!);
    } else node = ref;
    const items = node as RlpDecoded[];
    if (items.length === 17) {
      ref = items[nibbles[depth++]];
      continue;
    }
    const flag = (items[0] as Uint8Array)[0] >> 4;
    if (flag >= 2) return met;
    depth += (items[0] as Uint8Array).length * 2 - (flag & 1 ? 1 : 2);
    ref = items[1];
  }
}

describe('what a block stores', () => {
  test('only new nodes the root reaches, each once at its position, and nothing for edits that change nothing', () => {
    const store = new PositionStore();
    const first = new MerkleTrie(EMPTY_ROOT, store.source, true);
    for (let i = 0; i < 200; i++) first.put(rlpEncode(i), new Uint8Array(70).fill(i));
    const { root } = store.commit(first);
    const second = new MerkleTrie(root, store.source, true);
    for (let i = 0; i < 50; i++) second.put(rlpEncode(i), new Uint8Array(70).fill(i + 1));
    const writes = trieWrites();
    const root2 = second.commit(writes);
    // exactly the nodes on the changed keys' paths, which all changed: each replaces the version at its position
    const before = store.byHash();
    const written = new Map([...writes.nodes.values()].map((node) => [bytesToHex(keccak256(node)), node]));
    const onPaths = new Set<string>();
    for (let i = 0; i < 50; i++) for (const hash of pathNodes(root2, keccak256(rlpEncode(i)), (h) => written.get(h) ?? before(h))) onPaths.add(hash);
    expect([...written.keys()].sort()).toEqual([...onPaths].sort());
    for (const [position, node] of writes.nodes) {
      expect(store.nodes.has(position)).toBe(true);
      expect(store.nodes.get(position)).not.toEqual(node);
    }
    expect(writes.vacated.size).toBe(0);
    store.apply(writes);
    store.expectExactly(root2);

    const same = new MerkleTrie(root2, store.source, true);
    same.put(rlpEncode(7), new Uint8Array(70).fill(8));
    same.del(rlpEncode(100_000));
    const none = trieWrites();
    expect(bytesToHex(same.commit(none))).toBe(bytesToHex(root2));
    expect(none.nodes.size + none.vacated.size).toBe(0);
  });

  test('deleting keys empties their positions: a trie emptied leaves nothing stored', () => {
    const store = new PositionStore();
    const trie = new MerkleTrie(EMPTY_ROOT, store.source, true);
    for (let i = 0; i < 300; i++) trie.put(rlpEncode(i), new Uint8Array(40).fill(i));
    const full = store.commit(trie).root;
    const stored = store.nodes.size;
    // half of the keys go: the trie gets shallower where branches are left with one entry
    const half = new MerkleTrie(full, store.source, true);
    for (let i = 0; i < 300; i += 2) half.del(rlpEncode(i));
    const { root, writes } = store.commit(half);
    expect(writes.vacated.size).toBeGreaterThan(0);
    store.expectExactly(root);
    expect(store.nodes.size).toBeLessThan(stored);
    const rest = new MerkleTrie(root, store.source, true);
    for (let i = 1; i < 300; i += 2) rest.del(rlpEncode(i));
    expect(bytesToHex(store.commit(rest).root)).toBe(bytesToHex(EMPTY_ROOT));
    expect(store.nodes.size).toBe(0);
  });

  test('a store that grows no larger with history: the same keys rewritten, block after block', () => {
    const store = new PositionStore();
    let root = EMPTY_ROOT;
    const sizes: number[] = [];
    for (let block = 0; block < 30; block++) {
      const trie = new MerkleTrie(root, store.source, true);
      for (let i = 0; i < 100; i++) trie.put(rlpEncode(i), new Uint8Array(50).fill((block + i) % 256));
      root = store.commit(trie).root;
      sizes.push(store.nodes.size);
    }
    expect(new Set(sizes.slice(1)).size).toBe(1);
    store.expectExactly(root);
  });

  test('a node missing from the store is a TrieError naming it, not a wrong root', () => {
    const absent = keccak256(new TextEncoder().encode('a root no trie of this process made'));
    const broken = new MerkleTrie(absent, () => undefined);
    expect(() => broken.put(rlpEncode(1), new Uint8Array([1]))).toThrow(TrieError);
    expect(() => broken.get(rlpEncode(1))).toThrow(bytesToHex(absent));
  });

  test('another version at a position than the parent names is a TrieError, not a wrong root', async () => {
    // nodes this process never decoded (made by @ethereumjs/mpt, stored by hash), moved to their positions
    const byHash = new Map<string, Uint8Array>();
    const reference = new MerklePatriciaTrie({ useKeyHashing: true, useKeyHashingFunction: keccak256 });
    for (let i = 0; i < 40; i++) await reference.put(rlpEncode(1000 + i), new Uint8Array(40).fill(i));
    const walk = async (ref: Uint8Array): Promise<void> => {
      const node = await reference.database().get(ref);
      if (node === undefined) return;
      byHash.set(bytesToHex(ref), node);
      for (const item of rlpDecode(node) as RlpDecoded[]) if (item instanceof Uint8Array && item.length === 32) await walk(item);
    };
    await walk(reference.root());
    const store = new PositionStore();
    for (const [position, node] of nodesByPosition(reference.root(), (hex) => byHash.get(hex))) store.nodes.set(position, node);
    expect(store.nodes.size).toBeGreaterThan(16);
    // a child position's node swapped for an unrelated one of the same shape
    const child = [...store.nodes.keys()].find((position) => position.length === 1)!;
    store.nodes.set(child, rlpEncode([new Uint8Array([0x20]), new Uint8Array(40).fill(7)]));
    const reopened = new MerkleTrie(reference.root(), store.source, true);
    expect(() => {
      for (let i = 0; i < 40; i++) reopened.get(rlpEncode(1000 + i));
    }).toThrow(/another node/);
  });
});
