// Pieces without NATS: the settings edge, the gathering window, the state root's independence from how blocks split the
// changes, the overlay's journal, the mempool's choice, and gas accounting.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, type Transaction } from '@platform/common';
import { open } from 'lmdb';
import { bytesToHex, contractAddress, generateKeyPair, keccak256 } from '@platform/crypto';
import { MemoryWorldState } from '@platform/solidvm';
import { Mempool } from '../src/chain/mempool.js';
import { gatheringWindowMs } from '../src/chain/worker.js';
import { executeBlock, type BlockEnv } from '../src/exec/execute.js';
import { createBlockVms, blockHash, blockIntegrityError, identitiesRoot, signBlock } from '../src/index.js';
import { loadBlockSettings } from '../src/settings.js';
import { Overlay } from '../src/state/overlay.js';
import { EMPTY_ROOT, computeStateRoot } from '../src/state/root.js';
import { ChainStore } from '../src/state/store.js';
import { Account, COUNTER } from './helpers.js';

describe('settings', () => {
  test('defaults, and errors that name the variable', () => {
    expect(loadBlockSettings({})).toEqual({ maxTxs: 500, maxWaitMs: 100, nonceGapMs: 30_000 });
    expect(loadBlockSettings({ BLOCK_MAX_TXS: '20', BLOCK_MAX_WAIT_MS: '0' })).toMatchObject({ maxTxs: 20, maxWaitMs: 0 });
    expect(() => loadBlockSettings({ BLOCK_MAX_TXS: 'many' })).toThrow(ConfigError);
    expect(() => loadBlockSettings({ BLOCK_MAX_TXS: '0' })).toThrow(/^BLOCK_MAX_TXS: /);
    expect(() => loadBlockSettings({ BLOCK_MAX_WAIT_MS: '-1' })).toThrow(/^BLOCK_MAX_WAIT_MS: /);
  });
});

describe('gathering window of a busy chain', () => {
  test('three times what the last block took, at most BLOCK_MAX_WAIT_MS', () => {
    // a node with CPU to spare makes quick blocks, and keeps its latency
    expect(gatheringWindowMs(4, 100)).toBe(12);
    // a node short of CPU makes slow blocks, and gathers bigger ones
    expect(gatheringWindowMs(30, 100)).toBe(90);
    expect(gatheringWindowMs(250, 100)).toBe(100);
    // no block yet, or no gathering wanted: cut at once
    expect(gatheringWindowMs(0, 100)).toBe(0);
    expect(gatheringWindowMs(40, 0)).toBe(0);
  });
});

describe('state root', () => {
  let dirs: string[] = [];
  /** a directory of its own, removed after the test */
  const newDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'block-store-'));
    dirs.push(dir);
    return dir;
  };
  const store = () => new ChainStore(newDir());
  afterEach(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
    dirs = [];
  });

  /** applies `writes` to the store as one block, with the mark of the publications up to `published`; returns the new root */
  async function apply(s: ChainStore, parent: Uint8Array, writes: (o: Overlay) => void, number: number, published?: number): Promise<Uint8Array> {
    const o = new Overlay(s, '');
    writes(o);
    const r = computeStateRoot(s, parent, o.changes(), (a) => o.getAccount(a));
    const header = { chainId: '', number, parentHash: '', timestamp: 0, transactionsRoot: '', stateRoot: bytesToHex(r.root), proposer: '' };
    const exec = { chainId: '', block: { number, hash: '', timestamp: 0, parentHash: '', stateRoot: '' }, receipts: [] };
    await s.applyBlock({ head: { header, hash: String(number), seq: number }, changes: o.changes(), trieNodes: r.trieNodes, trieVacated: r.trieVacated, storageRoots: r.storageRoots, executedHashes: [], exec, published });
    return r.root;
  }

  const a1 = 'a'.repeat(40);
  const a2 = 'b'.repeat(40);
  const first = (o: Overlay) => {
    o.putAccount(a1, { nonce: 1n, balance: 5n, codeHash: null });
    o.putAccount(a2, { nonce: 0n, balance: 0n, codeHash: 'c'.repeat(64), vm: 'SolidVM', contractName: 'C' });
    o.putStorage(a2, '.x', '1');
    o.putStorage(a2, '.y', '2');
  };
  const second = (o: Overlay) => {
    o.putStorage(a2, '.x', '3');
    o.putStorage(a2, '.y', undefined);
    o.putAccount(a1, { nonce: 2n, balance: 5n, codeHash: null });
  };

  test('a block\'s commit carries the mark of the results published before it; a mark of its own is for the last', async () => {
    const s = store();
    const r1 = await apply(s, EMPTY_ROOT, first, 1);
    const r2 = await apply(s, r1, second, 2, -1);
    expect(s.unpublished().map((u) => u.height)).toEqual([1, 2]);
    // block 1's result was published while block 2 was made; block 3's commit says so
    await apply(s, r2, (o) => o.putStorage(a2, '.x', '4'), 3, 2);
    expect(s.unpublished().map((u) => u.height)).toEqual([3]);
    expect(s.publishedHeight()).toBe(2);
    await s.markPublished(3);
    expect(s.unpublished()).toEqual([]);
    expect(s.publishedHeight()).toBe(3);
    await s.close();
  });

  test('depends on the state, not on how blocks split the changes', async () => {
    const s1 = store();
    const r1 = await apply(s1, EMPTY_ROOT, first, 1);
    const r2 = await apply(s1, r1, second, 2);
    const s2 = store();
    const together = await apply(s2, EMPTY_ROOT, (o) => (first(o), second(o)), 1);
    expect(bytesToHex(together)).toBe(bytesToHex(r2));
    expect(bytesToHex(r2)).not.toBe(bytesToHex(r1));
    // and a write back to the old values gives the old root again
    const back = await apply(s1, r2, (o) => {
      o.putStorage(a2, '.x', '1');
      o.putStorage(a2, '.y', '2');
      o.putAccount(a1, { nonce: 1n, balance: 5n, codeHash: null });
    }, 3);
    expect(bytesToHex(back)).toBe(bytesToHex(r1));
    await s1.close();
    await s2.close();
  });

  test('a block stores only the trie nodes its roots reach, and later blocks, after a restart too, build on them', async () => {
    const accounts = Array.from({ length: 200 }, (_, i) => (i + 1).toString(16).padStart(40, '0'));
    const set = (o: Overlay, list: string[], nonce: bigint) => {
      for (const a of list) o.putAccount(a, { nonce, balance: 1n, codeHash: null });
    };
    const dir = newDir();
    let s = new ChainStore(dir);
    const r1 = await apply(s, EMPTY_ROOT, (o) => set(o, accounts, 1n), 1);
    // 50 accounts change: every put rewrites its path, but only the final nodes are kept
    const o2 = new Overlay(s, '');
    set(o2, accounts.slice(0, 50), 2n);
    const block2 = computeStateRoot(s, r1, o2.changes(), (a) => o2.getAccount(a));
    expect(block2.trieNodes.size).toBeLessThan(100);
    const r2 = await apply(s, r1, (o) => set(o, accounts.slice(0, 50), 2n), 2);
    expect(bytesToHex(r2)).toBe(bytesToHex(block2.root));
    await s.close();
    s = new ChainStore(dir);
    const r3 = await apply(s, r2, (o) => set(o, accounts.slice(25, 125), 3n), 3);
    await s.close();
    // the same end state in one block, on a store of its own
    const fresh = store();
    const together = await apply(fresh, EMPTY_ROOT, (o) => {
      set(o, accounts.slice(125), 1n);
      set(o, accounts.slice(0, 25), 2n);
      set(o, accounts.slice(25, 125), 3n);
    }, 1);
    expect(bytesToHex(r3)).toBe(bytesToHex(together));
    await fresh.close();
  });

  /** the trie nodes a closed store holds, by key (owner:position) */
  async function storedTrie(dir: string, name = 'triePositions'): Promise<Map<string, Uint8Array>> {
    const env = open({ path: join(dir, 'state.mdb'), maxDbs: 16, compression: false });
    const db = env.openDB<Uint8Array, string>({ name, encoding: 'binary' });
    const nodes = new Map<string, Uint8Array>();
    for (const { key, value } of db.getRange({})) nodes.set(key, Uint8Array.from(value));
    await env.close();
    return nodes;
  }

  test('the store holds the current trie nodes alone: rewriting the same state does not grow it, and a contract gone takes its storage trie', async () => {
    const dir = newDir();
    const s = new ChainStore(dir);
    const accounts = Array.from({ length: 100 }, (_, i) => (i + 1).toString(16).padStart(40, '0'));
    let root = await apply(s, EMPTY_ROOT, first, 1);
    const sizes: number[] = [];
    for (let block = 2; block < 12; block++) {
      root = await apply(s, root, (o) => {
        for (const a of accounts) o.putAccount(a, { nonce: BigInt(block), balance: 1n, codeHash: null });
        o.putStorage(a2, '.x', String(block));
      }, block);
      sizes.push(s.trieNodeCount());
    }
    expect(new Set(sizes).size).toBe(1);
    expect(s.trieNodeCount(a2)).toBeGreaterThan(0);
    await apply(s, root, (o) => o.deleteAccount(a2), 12);
    expect(s.trieNodeCount(a2)).toBe(0);
    expect(s.trieNodeCount()).toBeLessThan(sizes[0]!);
    await s.close();
  });

  test('a store that kept trie nodes by hash has them moved to their positions at open, and goes on from there', async () => {
    const moved = newDir();
    const control = newDir();
    const roots: Uint8Array[] = [];
    for (const dir of [moved, control]) {
      const s = new ChainStore(dir);
      const r1 = await apply(s, EMPTY_ROOT, first, 1);
      roots.push(await apply(s, r1, second, 2));
      await s.close();
    }
    // the layout before positions: every node under its hash, in the 'trie' database
    const byPosition = await storedTrie(moved);
    const env = open({ path: join(moved, 'state.mdb'), maxDbs: 16, compression: false });
    const old = env.openDB<Uint8Array, string>({ name: 'trie', encoding: 'binary' });
    const positions = env.openDB<Uint8Array, string>({ name: 'triePositions', encoding: 'binary' });
    env.transactionSync(() => {
      for (const node of byPosition.values()) old.putSync(bytesToHex(keccak256(node)), node);
      // and a node of an older block, which the move leaves behind
      old.putSync('ab'.repeat(32), new Uint8Array([0xc0]));
      positions.clearSync();
    });
    await env.close();

    const s = new ChainStore(moved);
    expect(s.trieNodesMoved).toBe(byPosition.size);
    const next = (o: Overlay) => {
      o.putStorage(a2, '.x', '5');
      o.putStorage(a2, '.z', '6');
      o.putAccount(a1, { nonce: 3n, balance: 4n, codeHash: null });
    };
    const after = await apply(s, roots[0]!, next, 3);
    await s.close();
    const c = new ChainStore(control);
    expect(c.trieNodesMoved).toBe(0);
    expect(bytesToHex(after)).toBe(bytesToHex(await apply(c, roots[1]!, next, 3)));
    await c.close();
    expect((await storedTrie(moved, 'trie')).size).toBe(0);
    expect(await storedTrie(moved)).toEqual(await storedTrie(control));
  });

  test("the store's remembered reads follow every applied block, and a caller cannot change them", async () => {
    const s = store();
    // read before the first block: absent values are remembered too
    expect(s.getStorage(a2, '.x')).toBeUndefined();
    expect(s.getAccount(a1)).toBeUndefined();
    const r1 = await apply(s, EMPTY_ROOT, first, 1);
    expect(s.getStorage(a2, '.x')).toBe('1');
    const account = s.getAccount(a1)!;
    expect(account.nonce).toBe(1n);
    account.nonce = 99n;
    expect(s.getAccount(a1)?.nonce).toBe(1n);
    const rootOfA2 = s.storageRoot(a2);
    await apply(s, r1, second, 2);
    expect(s.getStorage(a2, '.x')).toBe('3');
    expect(s.getStorage(a2, '.y')).toBeUndefined();
    expect(s.getAccount(a1)?.nonce).toBe(2n);
    expect(bytesToHex(s.storageRoot(a2)!)).not.toBe(bytesToHex(rootOfA2!));
    await s.close();
    // what a fresh store reads from lmdb is what the remembered reads said
    const reopened = new ChainStore(dirs[dirs.length - 1]!);
    expect([reopened.getStorage(a2, '.x'), reopened.getStorage(a2, '.y'), reopened.getAccount(a1)?.nonce]).toEqual(['3', undefined, 2n]);
    await reopened.close();
  });

  test('the overlay journal: nested checkpoints, reverts restore the store value', async () => {
    const s = store();
    await apply(s, EMPTY_ROOT, first, 1);
    const o = new Overlay(s, '');
    o.checkpoint();
    o.putStorage(a2, '.x', '9');
    o.checkpoint();
    o.putStorage(a2, '.z', '7');
    o.deleteAccount(a1);
    o.revert();
    expect(o.getStorage(a2, '.z')).toBeUndefined();
    expect(o.getAccount(a1)?.nonce).toBe(1n);
    expect([...o.storageEntries(a2)]).toEqual([['.x', '9'], ['.y', '2']]);
    o.commit();
    expect(o.getStorage(a2, '.x')).toBe('9');
    o.checkpoint();
    o.putStorage(a2, '.y', undefined);
    expect([...o.storageEntries(a2)]).toEqual([['.x', '9']]);
    o.revert();
    expect(o.getStorage(a2, '.y')).toBe('2');
    expect(s.getStorage(a2, '.x')).toBe('1');
    await s.close();
  });
});

describe('mempool', () => {
  const tx = (from: string, nonce: number): Transaction => ({ hash: `${from.slice(0, 2)}${nonce}`.padEnd(64, '0'), from, nonce }) as Transaction;
  test('nonce order per account, accounts take turns, gaps wait until their time is up', () => {
    const pool = new Mempool<null>();
    const add = (t: Transaction, since = 0) => pool.add({ tx: t, msg: null, since, bytes: 10 });
    const [a, b] = ['a'.repeat(40), 'b'.repeat(40)];
    add(tx(a, 2));
    add(tx(a, 0));
    add(tx(a, 1));
    add(tx(b, 5)); // b is at 3: a gap
    add(tx(b, 7));
    const next = (addr: string) => (addr === a ? 0n : 3n);
    const now = 1_000;
    const held = pool.select(next, { maxTxs: 10, maxBytes: 1e6, gapMs: 5_000, now });
    expect(held.chosen.map((w) => [w.tx.from[0], w.tx.nonce])).toEqual([['a', 0], ['a', 1], ['a', 2]]);
    expect(held.nextDeadline).toBe(5_000);
    const overdue = pool.select(next, { maxTxs: 10, maxBytes: 1e6, gapMs: 5_000, now: 6_000 });
    expect(overdue.chosen.map((w) => [w.tx.from[0], w.tx.nonce])).toEqual([['a', 0], ['b', 5], ['a', 1], ['b', 7], ['a', 2]]);
    expect(pool.select(next, { maxTxs: 2, maxBytes: 1e6, gapMs: 5_000, now }).chosen).toHaveLength(2);
  });
});

describe('execution with gas', () => {
  const env = (gasEnabled: boolean): BlockEnv => ({
    chainId: '',
    number: 1,
    timestamp: 1,
    protocol: { stepLimit: 10_000_000, gasTableVersion: 1 },
    gasEnabled,
    executors: createBlockVms().executors,
    isExecuted: () => false,
  });

  test('fees are gasUsed × gasPrice, transfers move value, out of gas fails and still charges', async () => {
    const state = new MemoryWorldState('');
    const alice = new Account();
    const bob = new Account();
    state.putAccount(alice.address, { nonce: 0n, balance: 10n ** 18n, codeHash: null });
    const transfer = alice.tx({ to: bob.address, value: 1000n, gasPrice: 2n, gasLimit: 21_000n });
    const create = alice.tx({ to: null, initOrData: Buffer.from(COUNTER).toString('hex'), metadata: { VM: 'SolidVM', name: 'Counter', args: '{"start":1}' }, gasPrice: 3n, gasLimit: 1_000_000n });
    const starved = alice.call(contractAddress(alice.address, 1n), 'add', { n: 1 });
    const starvedTx = { ...starved, gasLimit: '21500', gasPrice: '5' };
    const { receipts } = await executeBlock(state, [transfer, create, starvedTx], env(true));
    expect(receipts.map((r) => r.status)).toEqual(['Success', 'Success', 'Failure']);
    expect(receipts[0]).toMatchObject({ gasUsed: '21000', etherUsed: '42000' });
    expect(receipts[2].message).toMatch(/gas/i);
    expect(receipts[2].gasUsed).toBe('21500');
    const fees = 42_000n + BigInt(receipts[1].gasUsed) * 3n + 21_500n * 5n;
    expect(state.getAccount(alice.address)).toMatchObject({ nonce: 3n, balance: 10n ** 18n - 1000n - fees });
    expect(state.getAccount(bob.address)?.balance).toBe(1000n);
  });

  test('without gas a transfer moves nothing; an unfunded sender with gas fails and keeps its balance', async () => {
    const state = new MemoryWorldState('');
    const alice = new Account();
    const bob = new Account();
    const free = await executeBlock(state, [alice.tx({ to: bob.address, value: 5n })], env(false));
    expect(free.receipts[0]).toMatchObject({ status: 'Success', etherUsed: '0' });
    expect(state.getAccount(bob.address)).toBeUndefined();
    const poor = await executeBlock(state, [alice.tx({ to: bob.address, value: 5n })], env(true));
    expect(poor.receipts[0]).toMatchObject({ status: 'Failure' });
    expect(poor.receipts[0].message).toMatch(/^insufficient balance/);
    expect(state.getAccount(alice.address)).toMatchObject({ nonce: 2n, balance: 0n });
  });
});

describe('a private chain block\'s identities', () => {
  const key = generateKeyPair();
  const header = { chainId: 'ab'.repeat(32), number: 1, parentHash: '0'.repeat(64), timestamp: 1, transactionsRoot: '0'.repeat(64), stateRoot: '0'.repeat(64), proposer: key.address };

  test('are covered by the header (hash and signature); a block without them hashes as before', () => {
    const identities = { ['a1'.repeat(20)]: '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n' };
    const plain = signBlock(header, [], key);
    const carrying = signBlock({ ...header, identitiesRoot: identitiesRoot(identities) }, [], key, identities);
    expect(blockIntegrityError(plain)).toBeNull();
    expect(blockIntegrityError(carrying)).toBeNull();
    expect(carrying.hash).not.toBe(plain.hash);
    expect(blockHash(header)).toBe(plain.hash);
    // another certificate for the same sender, or one dropped: the root no longer matches
    expect(blockIntegrityError({ ...carrying, identities: { ['a1'.repeat(20)]: 'forged' } })).toMatch(/identities root/);
    expect(blockIntegrityError({ ...carrying, identities: undefined })).toMatch(/do not come together/);
    expect(blockIntegrityError({ ...plain, identities })).toMatch(/do not come together/);
  });
});
