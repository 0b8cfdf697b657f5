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
// chain's lmdb store; the nodes a block makes are returned, to be stored with
// the block's application, so a dropped overlay leaves nothing behind. Nodes
// are never pruned: every root a block ever had stays readable.
import type { AccountState, Address } from '@platform/common';
import { hexToBytes, rlpEncode } from '@platform/crypto';
import { EMPTY_ROOT, MerkleTrie } from './mpt.js';
import type { ChainStore, StateChanges } from './store.js';

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
  trieNodes: Map<string, Uint8Array>;
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
  const trieNodes = new Map<string, Uint8Array>();
  const source = (hexHash: string) => store.trieNode(hexHash);
  const storageRoots = new Map<Address, Uint8Array | null>();
  for (const [address, entries] of changes.storage) {
    if (current(address) === undefined) continue;
    const storage = new MerkleTrie(store.storageRoot(address) ?? EMPTY_ROOT, source, true);
    for (const [key, value] of entries) {
      // an unchanged value costs a trie walk for nothing: skip it
      if (value === (store.getStorage(address, key) ?? null)) continue;
      const k = utf8.encode(key);
      if (value === null) storage.del(k);
      else storage.put(k, rlpEncode([k, utf8.encode(value)]));
    }
    storageRoots.set(address, storage.commit(trieNodes));
  }
  const accounts = new MerkleTrie(parentRoot, source, true);
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
  return { root: accounts.commit(trieNodes), trieNodes, storageRoots };
}
