// Final results of this node's main chain, as the JSON text they were
// announced in (`tx.done`), kept for a while after they are recorded: clients
// ask for the results of the transactions they just submitted, and answering
// from here spares a PostgreSQL read, a parse of each stored result and its
// encoding again. A final result never changes, so what is kept is never
// stale; what is not here (older, recorded by another instance, or of a
// private chain, whose readers are checked against the chain's members) is
// read from the database.
import type { TxResult } from '@platform/common';

/** characters of JSON kept at most, the oldest going first: some 14,000 results of a contract call, more than the clients that just sent them read back (a raw bench round reads 5,000–16,000) */
const DEFAULT_BUDGET = 12 * 1024 * 1024;

export class RecentResults {
  private readonly texts = new Map<string, string>();
  private size = 0;

  constructor(private readonly budget = DEFAULT_BUDGET) {}

  /** Final results just recorded (and announced with these texts). */
  remember(results: ReadonlyArray<{ result: TxResult; text: string }>): void {
    for (const { result, text } of results) {
      if (result.status === 'Pending' || this.texts.has(result.hash) || text.length > this.budget) continue;
      this.texts.set(result.hash, text);
      this.size += text.length;
    }
    for (const [hash, text] of this.texts) {
      if (this.size <= this.budget) break;
      this.texts.delete(hash);
      this.size -= text.length;
    }
  }

  /** The result's JSON text, when kept. */
  get(hash: string): string | undefined {
    return this.texts.get(hash);
  }
}
