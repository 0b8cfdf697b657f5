// The transactions this process admitted, kept until their results are
// recorded: a vault-signed result's `data` needs the transaction (a raw one's
// is null: only its hash is kept), and the process that admitted it nearly
// always records its result moments later. Reading them back from PostgreSQL
// cost a query and a JSON parse per block on the latency path of every
// `resolve=true` call. What is not here (another
// instance admitted it, this one restarted, the budget evicted it) is read
// from the database as before, so the cache is only ever a shortcut.
import type { Transaction } from '@platform/common';

/** bytes of JSON kept at most; the oldest go first */
const DEFAULT_BUDGET_BYTES = 64 * 1024 * 1024;

export class AdmittedCache {
  /** tx null: a raw transaction, whose result needs no body */
  private readonly entries = new Map<string, { tx: Transaction | null; bytes: number }>();
  private bytes = 0;

  constructor(private readonly budgetBytes = DEFAULT_BUDGET_BYTES) {}

  get size(): number {
    return this.entries.size;
  }

  /** Called after a vault-signed admission committed: `bodies[i]` is the stored JSON of `transactions[i]`. */
  remember(transactions: readonly Transaction[], bodies: readonly string[]): void {
    transactions.forEach((tx, i) => this.add(tx.hash, tx, bodies[i].length));
    this.evict();
  }

  /** Called after raw admissions committed. */
  rememberRaw(hashes: readonly string[]): void {
    for (const hash of hashes) this.add(hash, null, hash.length);
    this.evict();
  }

  private add(hash: string, tx: Transaction | null, bytes: number): void {
    // one that alone exceeds the budget is read from the database when needed
    if (bytes > this.budgetBytes || this.entries.has(hash)) return;
    this.entries.set(hash, { tx, bytes });
    this.bytes += bytes;
  }

  private evict(): void {
    for (const [hash, entry] of this.entries) {
      if (this.bytes <= this.budgetBytes) break;
      this.entries.delete(hash);
      this.bytes -= entry.bytes;
    }
  }

  /** Forgets `hashes`, answering the vault-signed transactions it held among them and the hashes it did not know. */
  take(hashes: readonly string[]): { bodies: Map<string, Transaction>; unknown: string[] } {
    const bodies = new Map<string, Transaction>();
    const unknown: string[] = [];
    for (const hash of hashes) {
      const entry = this.entries.get(hash);
      if (!entry) {
        unknown.push(hash);
        continue;
      }
      this.entries.delete(hash);
      this.bytes -= entry.bytes;
      if (entry.tx) bodies.set(hash, entry.tx);
    }
    return { bodies, unknown };
  }
}
