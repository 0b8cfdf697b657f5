// `resolve=true`: waiting for transactions to reach a final status
// (docs/architecture.md "One transaction, end to end", step 5). One
// subscription to every completion notice serves all waiting requests.
//
// A request's notice may arrive before the request knows its hashes (between
// the submission's commit and its answer reaching this process). So from the
// moment a request starts until its waiters are registered it holds a window
// open, and the notices that arrive while any window is open are remembered;
// registering looks there first. That needs no second read of the results
// (a round trip through the transaction service and PostgreSQL per request),
// and what a window remembers is forgotten as soon as no open window began
// before it. A request that stays unanswered long (its call times out after
// 10 s) would keep everything since it began: past `remembered` results the oldest is
// forgotten anyway, and a request that began before what was forgotten reads
// its results after registering, as every request did before.
//
// The results it reads itself come from the node's own subject
// (`tx.results.node`, unfiltered): they are only ever of hashes the request
// was already shown — by a submission, or by a read filtered for the user.
//
// After RESOLVE_TIMEOUT_MS the request answers 504 with the hashes, which stay
// trackable through the results endpoints.
import { PlatformError, type Logger, type TxResult } from '@platform/common';
import { SUBJECTS, TX, call, decodeJson, type NatsConnection, type Subscription, type TxDoneNotice } from '@platform/bus';

type Waiter = (result: TxResult) => void;

/** A result seen in a notice, or a hash named in its `stored` (too big for a notice: read it). */
type Seen = { result: TxResult; notice: number } | { stored: true; notice: number };

/** results remembered at most by default (about a kilobyte each) */
const REMEMBERED = 20_000;

export class ResolveHub {
  private readonly waiters = new Map<string, Set<Waiter>>();
  private readonly subscription: Subscription;
  /** notices read so far: what a window's start and a remembered result are compared by */
  private notices = 0;
  private nextWindow = 0;
  /** open windows → the notice count when each opened; in opening order, so the first is the oldest */
  private readonly windows = new Map<number, number>();
  /** results seen while a window was open, in the order seen */
  private readonly seen = new Map<string, Seen>();
  /** the notice count of the last result forgotten for want of room: a window opened before it cannot trust `seen` */
  private forgottenAt = 0;

  constructor(
    private readonly nc: NatsConnection,
    private readonly logger: Logger,
    private readonly remembered = REMEMBERED,
  ) {
    this.subscription = nc.subscribe(SUBJECTS.tx.done, {
      callback: (err, msg) => {
        if (err) return this.logger.error({ err }, 'completion notices subscription failed');
        // every block's notice comes here: read it only while somebody waits or may
        if (this.waiters.size === 0 && this.windows.size === 0) return;
        let notice: TxDoneNotice;
        try {
          notice = decodeJson<TxDoneNotice>(msg.data);
        } catch (error) {
          return this.logger.warn({ err: error }, 'unreadable completion notice');
        }
        const n = ++this.notices;
        const remember = this.windows.size > 0;
        for (const result of notice.results ?? []) {
          if (remember) this.remember(result.hash, { result, notice: n });
          this.wake(result);
        }
        const stored = notice.stored ?? [];
        if (remember) for (const hash of stored) this.remember(hash, { stored: true, notice: n });
        this.readStored(stored.filter((hash) => this.waiters.has(hash)));
      },
    });
  }

  /**
   * The results `fetch` answers (a submission, or a read of results) with
   * every Pending one replaced by its final result; TIMEOUT (504) when that
   * takes longer than `timeoutMs`.
   */
  async settle(fetch: () => Promise<TxResult[]>, timeoutMs: number, requestId?: string): Promise<TxResult[]> {
    const window = this.openWindow();
    const final = new Map<string, TxResult>();
    let pending: string[] = [];
    let wakeAll: () => void = () => {};
    const allFinal = new Promise<void>((resolve) => (wakeAll = resolve));
    const record = (result: TxResult) => {
      if (result.status === 'Pending' || final.has(result.hash)) return;
      final.set(result.hash, result);
      if (final.size === pending.length) wakeAll();
    };
    let timer: NodeJS.Timeout | undefined;
    try {
      const results = await fetch();
      pending = [...new Set(results.filter((r) => r.status === 'Pending').map((r) => r.hash))];
      if (pending.length === 0) return results;
      for (const hash of pending) this.addWaiter(hash, record);
      await this.recall(pending, window, record, requestId);
      // registered: from here its notices wake it directly
      this.closeWindow(window);
      const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs)));
      if (final.size < pending.length && (await Promise.race([allFinal, timedOut])) === 'timeout') {
        const unresolved = pending.filter((hash) => !final.has(hash));
        throw new PlatformError('TIMEOUT', `not resolved within ${Math.round(timeoutMs / 1000)} s; the transactions stay trackable by hash`, { hashes: results.map((r) => r.hash), unresolved });
      }
      return results.map((r) => final.get(r.hash) ?? r);
    } finally {
      this.closeWindow(window);
      clearTimeout(timer);
      for (const hash of pending) this.removeWaiter(hash, record);
    }
  }

  /** What came for `pending` while its request did not yet know its hashes (window `window`). */
  private async recall(pending: string[], window: number, record: Waiter, requestId: string | undefined): Promise<void> {
    const stored: string[] = [];
    for (const hash of pending) {
      const seen = this.seen.get(hash);
      if (seen && 'result' in seen) record(seen.result);
      else if (seen) stored.push(hash);
    }
    this.readStored(stored);
    if (this.windows.get(window)! < this.forgottenAt) {
      // what came for it may have been forgotten: read what is final by now
      const read = await call(this.nc, TX.nodeResults, { hashes: pending }, requestId ? { requestId } : {});
      for (const result of read) record(result);
    }
  }

  close(): void {
    this.subscription.unsubscribe();
  }

  private openWindow(): number {
    const id = this.nextWindow++;
    this.windows.set(id, this.notices);
    return id;
  }

  /** At the end of the order, so that `seen` stays in notice order (a notice can come again). */
  private remember(hash: string, seen: Seen): void {
    this.seen.delete(hash);
    this.seen.set(hash, seen);
    if (this.seen.size <= this.remembered) return;
    const [oldest, { notice }] = this.seen.entries().next().value!;
    this.seen.delete(oldest);
    this.forgottenAt = notice;
  }

  /** Closing a closed window changes nothing. */
  private closeWindow(id: number): void {
    if (!this.windows.delete(id)) return;
    if (this.windows.size === 0) return this.seen.clear();
    // no open window began before what is older than the oldest one's start
    const oldest = this.windows.values().next().value!;
    for (const [hash, seen] of this.seen) {
      if (seen.notice > oldest) break;
      this.seen.delete(hash);
    }
  }

  /** Results too big for a notice, asked of the transaction service for their waiters. */
  private readStored(hashes: string[]): void {
    if (hashes.length === 0) return;
    call(this.nc, TX.nodeResults, { hashes }).then(
      (results) => results.forEach((result) => this.wake(result)),
      // its waiters then time out: 504 with the hashes, which stay trackable
      (error: unknown) => this.logger.warn({ err: error, hashes }, 'reading results too big for a notice failed'),
    );
  }

  private wake(result: TxResult): void {
    const waiting = this.waiters.get(result.hash);
    if (waiting) for (const wake of waiting) wake(result);
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
