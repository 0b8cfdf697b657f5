// The WorldState the VMs execute a block against: reads fall through to the
// chain's store, writes stay in memory until the block is applied (or the
// overlay is dropped, when the proposer loses a race). A journal of undo
// steps gives the nested checkpoint/commit/revert of the common interface.
import { UndoJournal, type AccountState, type Address, type ChainId, type Hash, type WorldState } from '@platform/common';
import { bytesToHex, keccak256 } from '@platform/crypto';
import type { ChainStore, StateChanges } from './store.js';


export class Overlay implements WorldState {
  private readonly accounts = new Map<Address, AccountState | null>();
  private readonly storage = new Map<Address, Map<string, string | null>>();
  private readonly code = new Map<Hash, Uint8Array>();
  private readonly journal = new UndoJournal();

  constructor(
    private readonly base: ChainStore,
    readonly chainId: ChainId,
  ) {}


  getAccount(address: Address): AccountState | undefined {
    const own = this.accounts.get(address);
    if (own !== undefined) return own ?? undefined;
    return this.base.getAccount(address);
  }

  putAccount(address: Address, account: AccountState): void {
    this.setAccount(address, { ...account });
  }

  deleteAccount(address: Address): void {
    if (this.getAccount(address) !== undefined) this.setAccount(address, null);
  }

  private setAccount(address: Address, value: AccountState | null): void {
    if (this.journal.depth) {
      const had = this.accounts.has(address);
      const prev = this.accounts.get(address);
      this.journal.record(() => (had ? this.accounts.set(address, prev!) : this.accounts.delete(address)));
    }
    this.accounts.set(address, value);
  }

  getCode(codeHash: Hash): Uint8Array | undefined {
    return this.code.get(codeHash) ?? this.base.getCode(codeHash);
  }

  putCode(code: Uint8Array): Hash {
    const hash = bytesToHex(keccak256(code));
    // content-addressed: keeping it after a revert is harmless, so no journal entry
    if (!this.code.has(hash) && this.base.getCode(hash) === undefined) this.code.set(hash, code);
    return hash;
  }

  getStorage(address: Address, key: string): string | undefined {
    const own = this.storage.get(address)?.get(key);
    if (own !== undefined) return own ?? undefined;
    return this.base.getStorage(address, key);
  }

  putStorage(address: Address, key: string, value: string | undefined): void {
    let entries = this.storage.get(address);
    if (!entries) {
      entries = new Map();
      this.storage.set(address, entries);
    }
    const next = value ?? null;
    if (this.journal.depth) {
      const had = entries.has(key);
      const prev = entries.get(key);
      const m = entries;
      this.journal.record(() => (had ? m.set(key, prev!) : m.delete(key)));
    }
    entries.set(key, next);
  }

  *storageEntries(address: Address, prefix = ''): Iterable<[string, string]> {
    const merged = new Map<string, string>(this.base.storageRange(address, prefix));
    const own = this.storage.get(address);
    if (own) {
      for (const [k, v] of own) {
        if (!k.startsWith(prefix)) continue;
        if (v === null) merged.delete(k);
        else merged.set(k, v);
      }
    }
    const keys = [...merged.keys()].sort();
    for (const k of keys) yield [k, merged.get(k)!];
  }

  checkpoint(): void {
    this.journal.checkpoint();
  }

  commit(): void {
    this.journal.commit();
  }

  revert(): void {
    this.journal.revert();
  }

  /** What the block wrote, net of reverted work; the overlay must be closed (no open checkpoint). */
  changes(): StateChanges {
    if (this.journal.depth) throw new Error(`${this.journal.depth} checkpoint(s) still open at the end of a block`);
    return { accounts: this.accounts, storage: this.storage, code: this.code };
  }
}
