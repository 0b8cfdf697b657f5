// The state root, computed once per block from what the block changed.
//
// Definition (Ethereum's two-level layout, with SolidVM's extra account fields):
// - the account trie is a secure Merkle-Patricia trie (keys Keccak-256 hashed)
//   from the 20-byte address to RLP `[nonce, balance, storageRoot, codeHash,
//   vm, contractName]` (codeHash empty for an externally owned account; vm and
//   contractName as UTF-8, empty when unset);
// - each contract's storage trie is a secure trie from the UTF-8 storage key
//   (a SolidVM path such as `.balances<a11ce…>`, or an EVM slot as 64 hex) to
//   RLP `[key, value]`, both UTF-8; an account without storage has the empty
//   trie's root (56e81f…b421).
// Tries are @ethereumjs/mpt over the chain's lmdb store; the nodes a block
// writes are buffered and stored with the block's application, so a dropped
// overlay leaves nothing behind. Nodes are never pruned.
import { MerklePatriciaTrie, type MPTOpts } from '@ethereumjs/mpt';
import type { AccountState, Address } from '@platform/common';
import { bytesToHex, hexToBytes, keccak256, rlpDecode, rlpEncode, type RlpDecoded } from '@platform/crypto';
import type { ChainStore, StateChanges } from './store.js';

const utf8 = new TextEncoder();
export const EMPTY_ROOT = keccak256(rlpEncode(new Uint8Array(0)));

type TrieDb = NonNullable<MPTOpts['db']>;

/** lmdb underneath, this block's new nodes in memory on top. */
class BufferedTrieDb {
  readonly written = new Map<string, Uint8Array>();
  constructor(private readonly store: ChainStore) {}
  async get(key: string): Promise<Uint8Array | undefined> {
    return this.written.get(key) ?? this.store.trieNode(key);
  }
  async put(key: string, value: string | Uint8Array): Promise<void> {
    this.written.set(key, value as Uint8Array);
  }
  async del(): Promise<void> {
    // no pruning: older roots stay readable
  }
  async batch(ops: Array<{ type: 'put' | 'del'; key: string; value?: string | Uint8Array }>): Promise<void> {
    for (const op of ops) if (op.type === 'put') this.written.set(op.key, op.value as Uint8Array);
  }
  shallowCopy(): TrieDb {
    return this as unknown as TrieDb;
  }
  async open(): Promise<void> {}
}

function trie(db: BufferedTrieDb, root: Uint8Array): MerklePatriciaTrie {
  // the library's default Keccak is JavaScript; ours is WebAssembly (libs/crypto), and hashing is most of a root's cost
  return new MerklePatriciaTrie({ db: db as unknown as TrieDb, useKeyHashing: true, useKeyHashingFunction: keccak256, valueEncoding: 'view', root });
}

export function accountLeaf(a: AccountState, storageRoot: Uint8Array): Uint8Array {
  return rlpEncode([
    a.nonce,
    a.balance,
    storageRoot,
    a.codeHash ? hexToBytes(a.codeHash) : new Uint8Array(0),
    utf8.encode(a.vm ?? ''),
    utf8.encode(a.contractName ?? ''),
  ]);
}

export interface RootResult {
  root: Uint8Array;
  trieNodes: Map<string, Uint8Array>;
  storageRoots: Map<Address, Uint8Array | null>;
}

/**
 * The state root after `changes`, starting from `parentRoot`. `current` reads
 * an account as it is after the block (the overlay).
 */
export async function computeStateRoot(
  store: ChainStore,
  parentRoot: Uint8Array,
  changes: StateChanges,
  current: (address: Address) => AccountState | undefined,
): Promise<RootResult> {
  const db = new BufferedTrieDb(store);
  const storageRoots = new Map<Address, Uint8Array | null>();
  const touched = new Set<Address>([...changes.accounts.keys(), ...changes.storage.keys()]);
  for (const [address, entries] of changes.storage) {
    if (current(address) === undefined) continue;
    const st = trie(db, store.storageRoot(address) ?? EMPTY_ROOT);
    for (const [key, value] of entries) {
      // an unchanged value costs a trie walk for nothing: skip it
      if (value === (store.getStorage(address, key) ?? null)) continue;
      const k = utf8.encode(key);
      if (value === null) await st.del(k);
      else await st.put(k, rlpEncode([k, utf8.encode(value)]));
    }
    storageRoots.set(address, st.root());
  }
  const accounts = trie(db, parentRoot);
  for (const address of [...touched].sort()) {
    const account = current(address);
    const key = hexToBytes(address);
    if (account === undefined) {
      await accounts.del(key);
      if (store.storageRoot(address) !== undefined) storageRoots.set(address, null);
      continue;
    }
    const storageRoot = storageRoots.get(address) ?? store.storageRoot(address) ?? EMPTY_ROOT;
    await accounts.put(key, accountLeaf(account, storageRoot));
  }
  const root = accounts.root();
  const roots = [root, ...[...storageRoots.values()].filter((r): r is Uint8Array => r !== null)];
  return { root, trieNodes: reachable(db.written, roots), storageRoots };
}

/**
 * The nodes written for this block that its final roots reach. A put
 * rewrites every node on its path, so a block that changes n accounts writes
 * the top of the trie n times over; only the last version of each is part of
 * any root. The others would be stored for nothing (more than half the
 * block's writes to the store, and its growth on disk).
 */
function reachable(written: Map<string, Uint8Array>, roots: Uint8Array[]): Map<string, Uint8Array> {
  const kept = new Map<string, Uint8Array>();
  const pending = roots.map((r) => bytesToHex(r));
  while (pending.length > 0) {
    const key = pending.pop()!;
    const node = written.get(key);
    // absent: stored by an earlier block (or the empty trie's root)
    if (node === undefined || kept.has(key)) continue;
    kept.set(key, node);
    for (const child of childHashes(rlpDecode(node) as RlpDecoded[])) pending.push(bytesToHex(child));
  }
  return kept;
}

/** The children a node refers to by hash (a child under 32 bytes is inlined, and so has none of its own). */
function childHashes(node: RlpDecoded[]): Uint8Array[] {
  if (node.length === 17) return node.slice(0, 16).filter((c): c is Uint8Array => c instanceof Uint8Array && c.length === 32);
  // a leaf's path is flagged by 2 or 3 in its first nibble; an extension's by 0 or 1
  const path = node[0] as Uint8Array;
  const child = node[1];
  const isLeaf = (path[0] >> 4) >= 2;
  return !isLeaf && child instanceof Uint8Array && child.length === 32 ? [child] : [];
}
