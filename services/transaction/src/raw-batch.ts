// Group commit of raw admissions. Each raw transaction comes in its own
// request, and one synchronous commit per transaction would bound raw
// admission by the disk's flush rate. Admissions that arrive while a batch
// commits wait for the next batch: a batch is one database transaction (one
// flush), each admission in it its own statement in arrival order, so one
// account's consecutive nonces still follow each other. A lone admission on an
// idle service goes straight through as a single statement.
import type { Transaction } from '@platform/common';
import { inTransaction, type Db } from './db.js';
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
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, MAX_BATCH);
        if (batch.length === 1) await this.one(batch[0]!);
        else await this.many(batch);
      }
    } finally {
      this.draining = false;
    }
  }

  private async one(item: Pending): Promise<void> {
    try {
      item.resolve(await admitRaw(this.pool, item.tx, item.body));
    } catch (err) {
      item.reject(err);
    }
  }

  private async many(batch: Pending[]): Promise<void> {
    let admitted: boolean[];
    try {
      admitted = await inTransaction(this.pool, async (client) => {
        const out: boolean[] = [];
        for (const item of batch) out.push(await admitRaw(client, item.tx, item.body));
        return out;
      });
    } catch {
      // one failing statement aborts the whole transaction: admit each on its
      // own, in order, so that only the failing request fails
      for (const item of batch) await this.one(item);
      return;
    }
    batch.forEach((item, i) => item.resolve(admitted[i]!));
  }
}
