// `resolve=true`: waiting for transactions to reach a final status
// (ARCHITECTURE.md step 5). One subscription to every completion notice serves
// all waiting requests; a request registers its waiters first and only then
// reads the results once, so a completion that raced ahead is never missed.
// After RESOLVE_TIMEOUT_MS the request answers 504 with the hashes, which stay
// trackable through the results endpoints.
import { PlatformError, type Logger, type TxResult } from '@platform/common';
import { SUBJECTS, TX, call, decodeJson, type NatsConnection, type Subscription, type TxDoneNotice } from '@platform/bus';

type Waiter = (result: TxResult) => void;

export class ResolveHub {
  private readonly waiters = new Map<string, Set<Waiter>>();
  private readonly subscription: Subscription;

  constructor(
    private readonly nc: NatsConnection,
    private readonly logger: Logger,
  ) {
    this.subscription = nc.subscribe(SUBJECTS.tx.done, {
      callback: (err, msg) => {
        if (err) return this.logger.error({ err }, 'completion notices subscription failed');
        // every block's notice comes here: read it only while somebody waits
        if (this.waiters.size === 0) return;
        let notice: TxDoneNotice;
        try {
          notice = decodeJson<TxDoneNotice>(msg.data);
        } catch (error) {
          return this.logger.warn({ err: error }, 'unreadable completion notice');
        }
        for (const result of notice.results ?? []) this.wake(result);
        const stored = (notice.stored ?? []).filter((hash) => this.waiters.has(hash));
        if (stored.length > 0) {
          call(this.nc, TX.results, { hashes: stored }).then(
            (results) => results.forEach((result) => this.wake(result)),
            // its waiters then time out: 504 with the hashes, which stay trackable
            (error: unknown) => this.logger.warn({ err: error, hashes: stored }, 'reading results too big for a notice failed'),
          );
        }
      },
    });
  }

  private wake(result: TxResult): void {
    const waiting = this.waiters.get(result.hash);
    if (waiting) for (const wake of waiting) wake(result);
  }

  /** The results with every Pending one replaced by its final result; TIMEOUT (504) when that takes longer than `timeoutMs`. */
  async resolve(results: TxResult[], timeoutMs: number, requestId?: string): Promise<TxResult[]> {
    const pending = [...new Set(results.filter((r) => r.status === 'Pending').map((r) => r.hash))];
    if (pending.length === 0) return results;
    const final = new Map<string, TxResult>();
    let wakeAll: () => void = () => {};
    const allFinal = new Promise<void>((resolve) => (wakeAll = resolve));
    const record = (result: TxResult) => {
      if (result.status === 'Pending' || final.has(result.hash)) return;
      final.set(result.hash, result);
      if (final.size === pending.length) wakeAll();
    };
    for (const hash of pending) this.addWaiter(hash, record);
    let timer: NodeJS.Timeout | undefined;
    try {
      for (const result of await call(this.nc, TX.results, { hashes: pending }, requestId ? { requestId } : {})) record(result);
      const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs)));
      if ((await Promise.race([allFinal, timedOut])) === 'timeout') {
        const unresolved = pending.filter((hash) => !final.has(hash));
        throw new PlatformError('TIMEOUT', `not resolved within ${Math.round(timeoutMs / 1000)} s; the transactions stay trackable by hash`, { hashes: results.map((r) => r.hash), unresolved });
      }
    } finally {
      clearTimeout(timer);
      for (const hash of pending) this.removeWaiter(hash, record);
    }
    return results.map((r) => final.get(r.hash) ?? r);
  }

  close(): void {
    this.subscription.unsubscribe();
  }

  private addWaiter(hash: string, waiter: Waiter): void {
    let set = this.waiters.get(hash);
    if (!set) this.waiters.set(hash, (set = new Set()));
    set.add(waiter);
  }

  private removeWaiter(hash: string, waiter: Waiter): void {
    const set = this.waiters.get(hash);
    set?.delete(waiter);
    if (set?.size === 0) this.waiters.delete(hash);
  }
}
