// An in-memory WorldState with a nested journal: for tests, benchmarks and
// tools. The block service provides the real one.
import type { AccountState, WorldState } from '@platform/common';
import { bytesToHex, keccak256 } from './hash.js';

type Undo = () => void;

export class MemoryWorldState implements WorldState {
  private readonly accounts = new Map<string, AccountState>();
  private readonly code = new Map<string, Uint8Array>();
  private readonly storage = new Map<string, Map<string, string>>();
  private readonly journal: Undo[][] = [];

  constructor(readonly chainId = '') {}

  private log(u: Undo): void {
    const top = this.journal[this.journal.length - 1];
    if (top) top.push(u);
  }

  getAccount(address: string): AccountState | undefined {
    return this.accounts.get(address);
  }

  putAccount(address: string, account: AccountState): void {
    const prev = this.accounts.get(address);
    this.log(() => (prev ? this.accounts.set(address, prev) : this.accounts.delete(address)));
    this.accounts.set(address, { ...account });
  }

  deleteAccount(address: string): void {
    const prev = this.accounts.get(address);
    if (!prev) return;
    this.log(() => this.accounts.set(address, prev));
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
    if (this.journal.length) {
      const mm = m;
      this.log(() => (prev === undefined ? mm.delete(key) : mm.set(key, prev)));
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
    this.journal.push([]);
  }

  commit(): void {
    const top = this.journal.pop();
    if (!top) throw new Error('commit without checkpoint');
    const parent = this.journal[this.journal.length - 1];
    if (parent) for (const u of top) parent.push(u);
  }

  revert(): void {
    const top = this.journal.pop();
    if (!top) throw new Error('revert without checkpoint');
    for (let i = top.length - 1; i >= 0; i--) top[i]();
  }
}
