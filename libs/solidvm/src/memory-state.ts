// An in-memory WorldState with a nested journal: for tests, benchmarks and
// tools. The block service provides the real one.
import { UndoJournal, type AccountState, type WorldState } from '@platform/common';
import { bytesToHex, keccak256 } from './hash.js';


export class MemoryWorldState implements WorldState {
  private readonly accounts = new Map<string, AccountState>();
  private readonly code = new Map<string, Uint8Array>();
  private readonly storage = new Map<string, Map<string, string>>();
  private readonly journal = new UndoJournal();

  constructor(readonly chainId = '') {}


  getAccount(address: string): AccountState | undefined {
    return this.accounts.get(address);
  }

  putAccount(address: string, account: AccountState): void {
    const prev = this.accounts.get(address);
    this.journal.record(() => (prev ? this.accounts.set(address, prev) : this.accounts.delete(address)));
    this.accounts.set(address, { ...account });
  }

  deleteAccount(address: string): void {
    const prev = this.accounts.get(address);
    if (!prev) return;
    this.journal.record(() => this.accounts.set(address, prev));
    this.accounts.delete(address);
  }

  getCode(codeHash: string): Uint8Array | undefined {
    return this.code.get(codeHash);
  }

  putCode(code: Uint8Array): string {
    const h = bytesToHex(keccak256(code));
    // code is content-addressed: keeping it after a revert is harmless
    this.code.set(h, code);
    return h;
  }

  getStorage(address: string, key: string): string | undefined {
    return this.storage.get(address)?.get(key);
  }

  putStorage(address: string, key: string, value: string | undefined): void {
    let m = this.storage.get(address);
    if (!m) {
      if (value === undefined) return;
      m = new Map();
      this.storage.set(address, m);
    }
    const prev = m.get(key);
    if (prev === value) return;
    if (this.journal.depth) {
      const mm = m;
      this.journal.record(() => (prev === undefined ? mm.delete(key) : mm.set(key, prev)));
    }
    if (value === undefined) m.delete(key);
    else m.set(key, value);
  }

  *storageEntries(address: string, prefix = ''): Iterable<[string, string]> {
    const m = this.storage.get(address);
    if (!m) return;
    const keys = [...m.keys()].filter((k) => k.startsWith(prefix)).sort();
    for (const k of keys) yield [k, m.get(k)!];
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

}
