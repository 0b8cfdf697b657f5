// Group commit of raw admissions. Each raw transaction comes in its own
// request, and one statement and one synchronous commit per transaction would
// bound raw admission by round trips and the disk's flush rate. Admissions
// that arrive while a batch commits wait for the next batch: a batch is one
// statement (`tx.admit_raw`, one commit) that admits its transactions in
// arrival order, so one account's consecutive nonces still follow each other.
// A lone admission on an idle service is simply a batch of one.
import type { Transaction } from '@platform/common';
import type { Db } from './db.js';
import { admitRaw } from './store.js';

interface Pending {
  tx: Transaction;
  body: string;
  resolve(admitted: boolean): void;
  reject(err: unknown): void;
}

const MAX_BATCH = 256;

export class RawAdmissions {
  private readonly queue: Pending[] = [];
  private draining = false;

  constructor(private readonly pool: Db) {}

  /** Whether the transaction was admitted (its nonce was the account's next one). */
  admit(tx: Transaction, body: string): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.queue.push({ tx, body, resolve, reject });
      if (!this.draining) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.draining = true;
    try {
      while (this.queue.length > 0) await this.admitBatch(this.queue.splice(0, MAX_BATCH));
    } finally {
      this.draining = false;
    }
  }

  private async admitBatch(batch: Pending[]): Promise<void> {
    let admitted: boolean[];
    try {
      admitted = await admitRaw(this.pool, batch);
    } catch (err) {
      if (batch.length === 1) return batch[0]!.reject(err);
      // one failing admission aborts the whole statement: admit each on its
      // own, in order, so that only the failing request fails
      for (const item of batch) await this.admitBatch([item]);
      return;
    }
    batch.forEach((item, i) => item.resolve(admitted[i]!));
  }
}
