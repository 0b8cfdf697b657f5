// One chain's persistent world state: an lmdb environment in
// `<DATA_DIR>/block/<chainToken>/`. Everything a block changes — accounts,
// storage, code, trie nodes, the "applied" head, the dedupe record of executed
// hashes and the block's execution result awaiting publication (the outbox) —
// is written in one lmdb transaction, so a crash leaves either all of a
// block's application or none of it.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { open, type Database, type RootDatabase } from 'lmdb';
import type { AccountState, Address, BlockHeader, ChainId, ExecResult, Hash, Logger } from '@platform/common';
import { hexToBytes } from '@platform/crypto';
import { BudgetedCache, bytesOfArray, bytesOfString, stateCacheBudget } from './cache-budget.js';
import { nodesByPosition } from './mpt.js';

/** The account trie's owner: its nodes' keys start with ':' */
export const ACCOUNT_TRIE = '';

/** A trie node's key in the store: its trie's owner (ACCOUNT_TRIE, or a contract's address), then its position. */
export function trieKey(owner: string, position: string): string {
  return `${owner}:${position}`;
}

/** The keys of one trie's nodes: `<owner>:…`, and ';' follows ':'. */
function trieRange(owner: string): { start: string; end: string } {
  return { start: trieKey(owner, ''), end: `${owner};` };
}

/** The last applied block: the head of this node's copy of the chain. */
export interface Head {
  header: BlockHeader;
  hash: Hash;
  /** its sequence in the BLOCKS stream; 0 for block 0, which is derived from the genesis and never appended */
  seq: number;
}

/** What one block did to the state, as the overlay collected it. */
export interface StateChanges {
  /** null: deleted */
  accounts: Map<Address, AccountState | null>;
  /** per address, per key; null: deleted */
  storage: Map<Address, Map<string, string | null>>;
  code: Map<Hash, Uint8Array>;
}

export interface BlockApplication {
  head: Head;
  changes: StateChanges;
  /** trie nodes written while computing the state root, by store key (trieKey: owner and position) */
  trieNodes: Map<string, Uint8Array>;
  /** store keys of trie nodes the block left no node at */
  trieVacated: string[];
  /** new storage roots of the contracts whose storage changed (null: account gone) */
  storageRoots: Map<Address, Uint8Array | null>;
  executedHashes: Hash[];
  exec: ExecResult;
  /**
   * the highest height whose result has reached `exec.<chain>`: its mark is
   * written with this block, so that marking costs no commit of its own
   */
  published?: number;
}

interface StoredAccount {
  n: string;
  b: string;
  c: string | null;
  vm?: string;
  name?: string;
  /** the last block that wrote the account or its storage (for the account lookup; not part of the state root) */
  h?: number;
}

/** an AccountState: its object, two bigints, a code hash and a contract name */
const ACCOUNT_BYTES = 320;

const HEAD = 'head';
const GENESIS = 'genesis';
/** where stores written before 2026-11-28 kept trie nodes, by hash: moved to their positions at open */
const TRIE_BY_HASH = 'trie';
const PUBLISHED = 'published';

/** Storage keys are `<address>:<key>`: the fixed-width address keeps one contract's keys together and in order. */
function storageKey(address: Address, key: string): string {
  return `${address}:${key}`;
}

/** A chain's store, opened; a store from before trie nodes were kept by position is moved first, and says so. */
export function openChainStore(dir: string, chainId: ChainId, logger: Logger): ChainStore {
  const store = new ChainStore(dir);
  if (store.trieNodesMoved > 0) logger.info({ chain: chainId, nodes: store.trieNodesMoved }, 'trie nodes kept by hash moved to their positions (once, for a store written before positions)');
  return store;
}

export class ChainStore {
  private readonly root: RootDatabase;
  private readonly meta: Database<unknown, string>;
  private readonly accounts: Database<StoredAccount, string>;
  private readonly storage: Database<string, string>;
  private readonly code: Database<Uint8Array, string>;
  /** the current state's trie nodes by owner and position (trieKey) */
  private readonly trie: Database<Uint8Array, string>;
  private readonly storageRoots: Database<Uint8Array, string>;
  private readonly executed: Database<number, string>;
  /** ExecResult JSON by height, kept until published */
  private readonly outbox: Database<string, number>;
  // Committed values by key, absent ones included. lmdb's reads are
  // memory-mapped, but each still costs a trip through lmdb-js and a decode,
  // and consecutive blocks read mostly the same keys (senders, the contracts
  // they call, the identity registry, the trie's upper nodes). applyBlock is
  // the only writer of what these remember, and updates them; the process's
  // state cache budget bounds them all (./cache-budget.ts).
  private readonly accountCache = new BudgetedCache<AccountState>(stateCacheBudget, () => ACCOUNT_BYTES);
  private readonly storageCache = new BudgetedCache<string>(stateCacheBudget, bytesOfString);
  private readonly storageRootCache = new BudgetedCache<Uint8Array>(stateCacheBudget, bytesOfArray);
  /** trie nodes a store kept by hash before (TRIE_BY_HASH) that were moved to their positions at this open */
  readonly trieNodesMoved: number;

  constructor(dir: string) {
    mkdirSync(dir, { recursive: true });
    // overlappingSync (lmdb's default off Windows, stated because applyBlock's durability rests on it)
    this.root = open({ path: join(dir, 'state.mdb'), maxDbs: 16, compression: false, overlappingSync: true });
    this.meta = this.root.openDB({ name: 'meta', encoding: 'msgpack' });
    this.accounts = this.root.openDB({ name: 'accounts', encoding: 'msgpack' });
    this.storage = this.root.openDB({ name: 'storage', encoding: 'string' });
    this.code = this.root.openDB({ name: 'code', encoding: 'binary' });
    this.trie = this.root.openDB({ name: 'triePositions', encoding: 'binary' });
    this.storageRoots = this.root.openDB({ name: 'storageRoots', encoding: 'binary' });
    this.executed = this.root.openDB({ name: 'executed', encoding: 'msgpack' });
    this.outbox = this.root.openDB({ name: 'outbox', encoding: 'string', keyEncoding: 'uint32' });
    this.trieNodesMoved = this.moveTrieToPositions();
  }

  /**
   * A store written before trie nodes were kept by position kept them by
   * hash, every version of every block, in TRIE_BY_HASH. Its current root's
   * nodes (the account trie's from the head's state root, each contract's
   * from its storage root) are written at their positions, and the old
   * database emptied, in one transaction: a crash meanwhile leaves it as it
   * was, to be moved again at the next open.
   */
  private moveTrieToPositions(): number {
    const byHash = this.root.openDB<Uint8Array, string>({ name: TRIE_BY_HASH, encoding: 'binary' });
    if (byHash.getKeysCount({ limit: 1 }) === 0) return 0;
    const load = (hex: string) => byHash.get(hex);
    let moved = 0;
    this.root.transactionSync(() => {
      const head = this.head();
      const tries: Array<[string, Uint8Array]> = head ? [[ACCOUNT_TRIE, hexToBytes(head.header.stateRoot)]] : [];
      for (const { key, value } of this.storageRoots.getRange({})) tries.push([key, value]);
      for (const [owner, root] of tries) {
        for (const [position, node] of nodesByPosition(root, load)) {
          this.trie.putSync(trieKey(owner, position), node);
          moved++;
        }
      }
      byHash.clearSync();
    });
    return moved;
  }

  // --- reads (synchronous: lmdb reads are memory-mapped) ---------------------

  head(): Head | undefined {
    return this.meta.get(HEAD) as Head | undefined;
  }

  genesisHash(): Hash | undefined {
    return this.meta.get(GENESIS) as Hash | undefined;
  }

  /** highest height whose execution result is known to be on `exec.<chain>` */
  publishedHeight(): number {
    return (this.meta.get(PUBLISHED) as number | undefined) ?? -1;
  }

  getAccount(address: Address): AccountState | undefined {
    const account = this.accountCache.get(address, () => {
      const a = this.accounts.get(address);
      return a ? decodeAccount(a) : undefined;
    });
    // a copy: the remembered one must not change with a caller's
    return account && { ...account };
  }

  /** An account with the last block that wrote it (null for accounts stored before that was recorded). */
  accountRecord(address: Address): { state: AccountState; latestBlock: number | null } | undefined {
    const a = this.accounts.get(address);
    return a ? { state: decodeAccount(a), latestBlock: a.h ?? null } : undefined;
  }

  getStorage(address: Address, key: string): string | undefined {
    const k = storageKey(address, key);
    return this.storageCache.get(k, () => this.storage.get(k));
  }

  /** one contract's storage with a key prefix, in key order */
  *storageRange(address: Address, prefix: string): Iterable<[string, string]> {
    const start = storageKey(address, prefix);
    // '\uffff' sorts after every character a storage path uses
    for (const { key, value } of this.storage.getRange({ start, end: `${start}\uffff` })) {
      yield [key.slice(address.length + 1), value];
    }
  }

  getCode(codeHash: Hash): Uint8Array | undefined {
    return this.code.get(codeHash);
  }

  storageRoot(address: Address): Uint8Array | undefined {
    return this.storageRootCache.get(address, () => this.storageRoots.get(address));
  }

  /** how many trie nodes the store holds: the account trie's and every contract's, or one contract's storage trie's */
  trieNodeCount(owner?: Address): number {
    return this.trie.getKeysCount(owner === undefined ? {} : trieRange(owner));
  }

  /** a trie node by its store key (trieKey); decoded nodes are cached by hash in mpt.ts */
  trieNode(key: string): Uint8Array | undefined {
    return this.trie.get(key);
  }

  isExecuted(txHash: Hash): boolean {
    return this.executed.get(txHash) !== undefined;
  }

  /** heights and JSON of applied blocks whose execution result is not yet published, oldest first */
  unpublished(): Array<{ height: number; json: string }> {
    const out: Array<{ height: number; json: string }> = [];
    for (const { key, value } of this.outbox.getRange({})) out.push({ height: key, json: value });
    return out;
  }

  // --- writes ------------------------------------------------------------------

  /**
   * Records a block as applied: state, trie nodes, head, dedupe record and
   * outbox, atomically. Resolves once committed (visible to every reader); the
   * flush to disk follows off the event loop (lmdb's overlapping sync), so a
   * block's commit does not wait for the disk. A process crash loses nothing;
   * an operating-system crash may undo the last few blocks, which the chain
   * then applies again from the BLOCKS stream (deterministically, with the same
   * results and msgIDs) — the stream, not this store, is the record.
   */
  async applyBlock(app: BlockApplication, genesisHash?: Hash): Promise<void> {
    const height = app.head.header.number;
    await this.root.transaction(() => {
      for (const [address, account] of app.changes.accounts) {
        if (account === null) this.accounts.removeSync(address);
        else this.accounts.putSync(address, { ...encodeAccount(account), h: height });
      }
      for (const [address, entries] of app.changes.storage) {
        // a contract whose storage alone changed: its height moves too
        const stored = entries.size === 0 || app.changes.accounts.has(address) ? undefined : this.accounts.get(address);
        if (stored && stored.h !== height) this.accounts.putSync(address, { ...stored, h: height });
        for (const [key, value] of entries) {
          if (value === null) this.storage.removeSync(storageKey(address, key));
          else this.storage.putSync(storageKey(address, key), value);
        }
      }
      for (const [hash, code] of app.changes.code) this.code.putSync(hash, code);
      for (const key of app.trieVacated) this.trie.removeSync(key);
      for (const [key, node] of app.trieNodes) this.trie.putSync(key, node);
      for (const [address, root] of app.storageRoots) {
        if (root !== null) this.storageRoots.putSync(address, root);
        else {
          // the contract is gone, and its storage trie with it
          this.storageRoots.removeSync(address);
          const keys = [...this.trie.getKeys(trieRange(address))];
          for (const key of keys) this.trie.removeSync(key);
        }
      }
      for (const hash of app.executedHashes) this.executed.putSync(hash, height);
      if (app.published !== undefined) this.dropPublished(app.published);
      this.outbox.putSync(height, JSON.stringify(app.exec));
      this.meta.putSync(HEAD, app.head);
      if (genesisHash !== undefined) this.meta.putSync(GENESIS, genesisHash);
    });
    // committed: what is remembered follows (a read in between saw the old value, and is overwritten now)
    for (const [address, account] of app.changes.accounts) this.accountCache.set(address, account === null ? undefined : { ...account });
    for (const [address, entries] of app.changes.storage) {
      for (const [key, value] of entries) this.storageCache.set(storageKey(address, key), value ?? undefined);
    }
    for (const [address, root] of app.storageRoots) this.storageRootCache.set(address, root ?? undefined);
  }

  /**
   * The execution result of `height` reached `exec.<chain>`: drop it (and
   * anything older) from the outbox, in a commit of its own. While blocks
   * follow, their commits carry the marks instead (`published`).
   */
  markPublished(height: number): Promise<unknown> {
    // asynchronous (batched by lmdb, no fsync of its own): losing this record
    // in a crash only means republishing with the same msgID
    return this.root.transaction(() => this.dropPublished(height));
  }

  /** inside a write transaction */
  private dropPublished(height: number): void {
    for (const { key } of this.outbox.getRange({ end: height + 1 })) this.outbox.removeSync(key);
    if (height > this.publishedHeight()) this.meta.putSync(PUBLISHED, height);
  }

  async close(): Promise<void> {
    for (const cache of [this.accountCache, this.storageCache, this.storageRootCache]) cache.dispose();
    await this.root.close();
  }
}

function decodeAccount(a: StoredAccount): AccountState {
  const out: AccountState = { nonce: BigInt(a.n), balance: BigInt(a.b), codeHash: a.c };
  if (a.vm !== undefined) out.vm = a.vm as AccountState['vm'];
  if (a.name !== undefined) out.contractName = a.name;
  return out;
}

function encodeAccount(a: AccountState): StoredAccount {
  const out: StoredAccount = { n: a.nonce.toString(), b: a.balance.toString(), c: a.codeHash };
  if (a.vm !== undefined) out.vm = a.vm;
  if (a.contractName !== undefined) out.name = a.contractName;
  return out;
}
