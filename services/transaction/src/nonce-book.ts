// The next nonce of the accounts this process signs for, and their turns.
//
// A vault-signed request of one account on one chain takes its turn on that
// account (requests of one account in this process go one after the other,
// as the account's row lock made them go before), signs with the nonces it
// expects, and stores them with `tx.admit_signed`, which refuses nonces
// already taken. What the book believes is only a guess: it is learned from
// the database on first use, and forgotten when a store is refused (another
// instance, or a raw transaction of the same account, took the nonce), after
// which the request reads the database and signs again. A failure before the
// store (the vault, the nonce limit) takes no nonce at all.
import { PlatformError } from '@platform/common';
import type { Db } from './db.js';
import { nextNonce } from './store.js';

/** signing again after a refused store: past this, other writers keep taking the account's nonces */
const ATTEMPTS = 5;
const MAX_ACCOUNTS = 100_000;

export class NonceBook {
  private readonly next = new Map<string, number>();
  private readonly turns = new Map<string, Promise<unknown>>();

  constructor(private readonly pool: Db) {}

  /**
   * Runs `attempt(first)` in the account's turn with the nonce it should
   * start from, until it answers a value (its nonces were taken) or
   * ATTEMPTS have been refused (null: another writer took them).
   */
  async inTurn<T>(address: string, chainId: string, count: number, attempt: (first: number) => Promise<T | null>): Promise<T> {
    const key = `${address}\0${chainId}`;
    const previous = this.turns.get(key) ?? Promise.resolve();
    const mine = previous.then(
      () => this.attempts(key, address, chainId, count, attempt),
      () => this.attempts(key, address, chainId, count, attempt),
    );
    this.turns.set(key, mine);
    try {
      return await mine;
    } finally {
      if (this.turns.get(key) === mine) this.turns.delete(key);
    }
  }

  /** Another path (a raw transaction) took a nonce of the account. */
  forget(address: string, chainId: string): void {
    this.next.delete(`${address}\0${chainId}`);
  }

  private async attempts<T>(key: string, address: string, chainId: string, count: number, attempt: (first: number) => Promise<T | null>): Promise<T> {
    for (let i = 0; i < ATTEMPTS; i++) {
      const first = this.next.get(key) ?? (await nextNonce(this.pool, address, chainId));
      let outcome: T | null;
      try {
        outcome = await attempt(first);
      } catch (err) {
        // the database may have moved on meanwhile: learn it again next time
        this.next.delete(key);
        throw err;
      }
      if (outcome !== null) {
        if (this.next.size >= MAX_ACCOUNTS) this.next.clear();
        this.next.set(key, first + count);
        return outcome;
      }
      this.next.delete(key);
    }
    throw new PlatformError('UNAVAILABLE', `the nonces of ${address} kept being taken by other writers while this request signed; retry it`, { address, chainId });
  }
}
