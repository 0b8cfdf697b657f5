// The in-memory Merkle-Patricia trie (src/state/mpt.ts) against sources it
// does not share code with: ethereum/tests' trie vectors (fixtures/SOURCE.md)
// and @ethereumjs/mpt, over seeded random edits in batches, each batch
// starting from the nodes the earlier ones stored.
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
import { EMPTY_ROOT, MerkleTrie, TrieError, trieRootOf } from '../src/state/mpt.js';

const fixture = (name: string) => JSON.parse(readFileSync(join(import.meta.dirname, 'fixtures', name), 'utf8'));
const bytesOf = (s: string) => (s.startsWith('0x') ? hexToBytes(s) : new TextEncoder().encode(s));
const noNodes = () => undefined;

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
    expect(`0x${bytesToHex(trie.commit(new Map()))}`).toBe(cases[name].root);
  });

  test('hex_encoded_securetrie_test.json test1 (keys hashed)', () => {
    const { data, result } = fixture('hex_encoded_securetrie_test.json').test1 as { data: Array<[string, string]>; result: string };
    const trie = new MerkleTrie(EMPTY_ROOT, noNodes, true);
    for (const [key, value] of data) trie.put(hexToBytes(key), hexToBytes(value));
    expect(`0x${bytesToHex(trie.commit(new Map()))}`).toBe(result);
  });

  test('the same vectors, each edit committed and the trie reopened from the stored nodes', () => {
    const cases = fixture('trietest.json') as Record<string, { in: Array<[string, string | null]>; root: string }>;
    for (const { in: edits, root } of Object.values(cases)) {
      const store = new Map<string, Uint8Array>();
      let current = EMPTY_ROOT;
      for (const [key, value] of edits) {
        const trie = new MerkleTrie(current, (h) => store.get(h));
        if (value === null) trie.del(bytesOf(key));
        else trie.put(bytesOf(key), bytesOf(value));
        current = trie.commit(store);
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
    const store = new Map<string, Uint8Array>();
    let root = EMPTY_ROOT;
    for (let batch = 0; batch < 40; batch++) {
      const trie = new MerkleTrie(root, (h) => store.get(h), secure);
      const written = new Map<string, Uint8Array>();
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
      root = trie.commit(written);
      const reference = secure ? new MerklePatriciaTrie({ useKeyHashing: true, useKeyHashingFunction: keccak256 }) : new MerklePatriciaTrie();
      for (const [key, value] of model) await reference.put(hexToBytes(key), value);
      expect(bytesToHex(root)).toBe(bytesToHex(reference.root()));
      for (const [hash, node] of written) {
        // a node is stored under its own hash
        expect(bytesToHex(keccak256(node))).toBe(hash);
        store.set(hash, node);
      }
      // every value reads back from the stored nodes alone
      const reopened = new MerkleTrie(root, (h) => store.get(h), secure);
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
    expect(bytesToHex(trie.commit(new Map()))).toBe(bytesToHex(reference.root()));
  });

  test.each([1, 2, 3, 4, 5])('plain keys, seed %i', (seed) => compare(seed, false));
  test.each([11, 12, 13])('hashed keys, seed %i', (seed) => compare(seed, true));

  test('continues from what @ethereumjs/mpt stored (the chains stored before this trie), by the same hex keys', async () => {
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
    const trie = new MerkleTrie(reference.root(), (h) => stored.get(h), true);
    for (let i = 0; i < 300; i += 3) {
      trie.put(rlpEncode(i * 7919), account(2));
      await reference.put(rlpEncode(i * 7919), account(2));
    }
    trie.del(rlpEncode(7919));
    await reference.del(rlpEncode(7919));
    expect(bytesToHex(trie.commit(new Map()))).toBe(bytesToHex(reference.root()));
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
  test('only new nodes the root reaches, each once, and nothing for edits that change nothing', () => {
    const store = new Map<string, Uint8Array>();
    const first = new MerkleTrie(EMPTY_ROOT, (h) => store.get(h), true);
    for (let i = 0; i < 200; i++) first.put(rlpEncode(i), new Uint8Array(70).fill(i));
    const root = first.commit(store);
    const second = new MerkleTrie(root, (h) => store.get(h), true);
    for (let i = 0; i < 50; i++) second.put(rlpEncode(i), new Uint8Array(70).fill(i + 1));
    const written = new Map<string, Uint8Array>();
    const root2 = second.commit(written);
    // exactly the nodes on the changed keys' paths, which all changed
    const onPaths = new Set<string>();
    for (let i = 0; i < 50; i++) for (const hash of pathNodes(root2, keccak256(rlpEncode(i)), (h) => written.get(h) ?? store.get(h))) onPaths.add(hash);
    expect([...written.keys()].sort()).toEqual([...onPaths].sort());
    for (const hash of written.keys()) expect(store.has(hash)).toBe(false);

    const same = new MerkleTrie(root, (h) => store.get(h), true);
    same.put(rlpEncode(7), new Uint8Array(70).fill(7));
    same.del(rlpEncode(100_000));
    const none = new Map<string, Uint8Array>();
    expect(bytesToHex(same.commit(none))).toBe(bytesToHex(root));
    expect(none.size).toBe(0);
  });

  test('a node missing from the store is a TrieError naming it, not a wrong root', () => {
    const absent = keccak256(new TextEncoder().encode('a root no trie of this process made'));
    const broken = new MerkleTrie(absent, () => undefined);
    expect(() => broken.put(rlpEncode(1), new Uint8Array([1]))).toThrow(TrieError);
    expect(() => broken.get(rlpEncode(1))).toThrow(bytesToHex(absent));
  });
});
