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
// Tries are edited in memory and hashed once per block (mpt.ts), over the
// chain's lmdb store; the nodes a block makes, and the positions it empties,
// are returned, to be written with the block's application, so a dropped
// overlay leaves nothing behind. The store holds the current root's nodes
// alone (by position, each trie's under its owner: '' for the account trie,
// the contract's address for its storage), so only the current root is
// readable: execution, verification and the endpoints need no other.
import type { AccountState, Address } from '@platform/common';
import { hexToBytes, rlpEncode } from '@platform/crypto';
import { EMPTY_ROOT, MerkleTrie, trieWrites, type TrieWrites } from './mpt.js';
import { ACCOUNT_TRIE, trieKey, type ChainStore, type StateChanges } from './store.js';

export { EMPTY_ROOT } from './mpt.js';

const utf8 = new TextEncoder();

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
  /** the nodes to store, by store key (store.ts trieKey) */
  trieNodes: Map<string, Uint8Array>;
  /** store keys whose node is gone */
  trieVacated: string[];
  storageRoots: Map<Address, Uint8Array | null>;
}

/**
 * The state root after `changes`, starting from `parentRoot`. `current` reads
 * an account as it is after the block (the overlay).
 */
export function computeStateRoot(
  store: ChainStore,
  parentRoot: Uint8Array,
  changes: StateChanges,
  current: (address: Address) => AccountState | undefined,
): RootResult {
  const result: RootResult = { root: EMPTY_ROOT, trieNodes: new Map(), trieVacated: [], storageRoots: new Map() };
  const { storageRoots } = result;
  const sourceOf = (owner: string) => (position: string) => store.trieNode(trieKey(owner, position));
  for (const [address, entries] of changes.storage) {
    if (current(address) === undefined) continue;
    const storage = new MerkleTrie(store.storageRoot(address) ?? EMPTY_ROOT, sourceOf(address), true);
    for (const [key, value] of entries) {
      // an unchanged value costs a trie walk for nothing: skip it
      if (value === (store.getStorage(address, key) ?? null)) continue;
      const k = utf8.encode(key);
      if (value === null) storage.del(k);
      else storage.put(k, rlpEncode([k, utf8.encode(value)]));
    }
    storageRoots.set(address, commitInto(result, address, storage));
  }
  const accounts = new MerkleTrie(parentRoot, sourceOf(ACCOUNT_TRIE), true);
  for (const address of new Set([...changes.accounts.keys(), ...changes.storage.keys()])) {
    const account = current(address);
    const key = hexToBytes(address);
    if (account === undefined) {
      accounts.del(key);
      if (store.storageRoot(address) !== undefined) storageRoots.set(address, null);
      continue;
    }
    const storageRoot = storageRoots.get(address) ?? store.storageRoot(address) ?? EMPTY_ROOT;
    accounts.put(key, accountLeaf(account, storageRoot));
  }
  result.root = commitInto(result, ACCOUNT_TRIE, accounts);
  return result;
}

/** Commits one trie, its writes going into the block's under their store keys. */
function commitInto(result: RootResult, owner: string, trie: MerkleTrie): Uint8Array {
  const writes: TrieWrites = trieWrites();
  const root = trie.commit(writes);
  for (const [position, node] of writes.nodes) result.trieNodes.set(trieKey(owner, position), node);
  for (const position of writes.vacated) result.trieVacated.push(trieKey(owner, position));
  return root;
}
