// Admitted transactions waiting for a block, and the choice of the next
// block's transactions: each account's in nonce order, in order of arrival
// otherwise. A transaction whose earlier nonces have not arrived waits, for
// at most the nonce-gap time; then it goes into a block anyway, where it fails
// as out of order (and consumes its nonce, so the account moves on).
import type { Address, Hash, Transaction } from '@platform/common';

export interface Waiting<M> {
  tx: Transaction;
  /** the admitted message, acknowledged once the transaction's block is applied */
  msg: M;
  /** ms, for the nonce-gap time */
  since: number;
  /** JSON size, for the block's byte budget */
  bytes: number;
}

export interface Selection<M> {
  chosen: Array<Waiting<M>>;
  /** when the oldest held transaction's gap time runs out (ms since epoch), if any is held */
  nextDeadline: number | null;
}

export class Mempool<M> {
  private readonly waiting = new Map<Hash, Waiting<M>>();

  get size(): number {
    return this.waiting.size;
  }

  has(hash: Hash): boolean {
    return this.waiting.has(hash);
  }

  /** Adds a transaction, or gives one already waiting (a redelivery) the new message. Returns the message it replaced. */
  add(entry: Waiting<M>): M | undefined {
    const prev = this.waiting.get(entry.tx.hash);
    if (prev) {
      const replaced = prev.msg;
      prev.msg = entry.msg;
      return replaced;
    }
    this.waiting.set(entry.tx.hash, entry);
    return undefined;
  }

  /** every waiting transaction, in order of arrival */
  entries(): IterableIterator<Waiting<M>> {
    return this.waiting.values();
  }

  /** the transaction that has waited longest */
  oldest(): Waiting<M> | undefined {
    return this.waiting.values().next().value;
  }

  take(hash: Hash): Waiting<M> | undefined {
    const entry = this.waiting.get(hash);
    this.waiting.delete(hash);
    return entry;
  }

  /**
   * The next block's transactions: at most `maxTxs` and about `maxBytes`,
   * given each account's next nonce. Accounts take turns (one transaction per
   * account per round, accounts in order of arrival), so one busy account
   * cannot fill every block.
   */
  select(nextNonce: (address: Address) => bigint, opts: { maxTxs: number; maxBytes: number; gapMs: number; now: number }): Selection<M> {
    const queues = new Map<Address, Array<Waiting<M>>>();
    for (const w of this.waiting.values()) {
      const q = queues.get(w.tx.from);
      if (q) q.push(w);
      else queues.set(w.tx.from, [w]);
    }
    const accounts = [...queues].map(([address, q]) => ({
      address,
      q: q.sort((a, b) => a.tx.nonce - b.tx.nonce),
      want: nextNonce(address),
      // the gap has been waited for since the account's oldest waiting transaction arrived
      waitingSince: Math.min(...q.map((w) => w.since)),
    }));
    const chosen: Array<Waiting<M>> = [];
    let bytes = 0;
    let nextDeadline: number | null = null;
    let full = false;
    for (let progress = true; progress && !full; ) {
      progress = false;
      for (const a of accounts) {
        const head = a.q[0];
        if (!head) continue;
        if (chosen.length >= opts.maxTxs || (chosen.length > 0 && bytes + head.bytes > opts.maxBytes)) {
          full = true;
          break;
        }
        const nonce = BigInt(head.tx.nonce);
        if (nonce > a.want && opts.now - a.waitingSince < opts.gapMs) {
          const deadline = a.waitingSince + opts.gapMs;
          if (nextDeadline === null || deadline < nextDeadline) nextDeadline = deadline;
          continue;
        }
        // an old nonce goes in too (it fails saying it was used); an overdue one fails as out of order
        if (nonce >= a.want) a.want = nonce + 1n;
        a.q.shift();
        chosen.push(head);
        bytes += head.bytes;
        progress = true;
      }
    }
    return { chosen, nextDeadline };
  }
}
