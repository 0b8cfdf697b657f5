// One memory budget for every read cache of the block service's process: the
// committed values of each chain's store (accounts, storage, storage roots)
// and the decoded trie nodes every trie shares. A cache bounded
// by its own count grows with the number of chains, and a count says little
// about bytes (a storage value may be a word or a whole string); here each
// entry is charged an estimate of what it holds, and when the process's
// caches together pass the budget (BLOCK_STATE_CACHE_MB) the largest are
// cleared whole until half the budget is free. Clearing costs only reads
// from lmdb and decodes; no cache is ever the only copy of anything.

/** What an entry of a cache is charged: its key and value, and the Map's own entry. */
const MAP_ENTRY_BYTES = 64;
/** a Uint8Array's object and its ArrayBuffer's, besides its bytes (measured in a heap snapshot: 96 + 88) */
const TYPED_ARRAY_BYTES = 184;

export function bytesOfString(text: string): number {
  return 16 + text.length * 2;
}

export function bytesOfArray(bytes: Uint8Array): number {
  return TYPED_ARRAY_BYTES + bytes.byteLength;
}

export class CacheBudget {
  private readonly caches = new Set<BudgetedCache<unknown>>();
  private used = 0;

  constructor(private maxBytes: number) {}

  /** The budget in bytes; a smaller one takes effect at the next charge. */
  setLimit(maxBytes: number): void {
    this.maxBytes = maxBytes;
  }

  get bytesUsed(): number {
    return this.used;
  }

  /** @internal a cache made with this budget */
  add(cache: BudgetedCache<unknown>): void {
    this.caches.add(cache);
  }

  /** @internal a closed store's cache: it no longer counts, nor is kept from the collector */
  remove(cache: BudgetedCache<unknown>): void {
    if (this.caches.delete(cache)) this.used -= cache.bytes;
  }

  /** @internal */
  charge(bytes: number): void {
    this.used += bytes;
    if (this.used <= this.maxBytes) return;
    for (const cache of [...this.caches].sort((a, b) => b.bytes - a.bytes)) {
      if (this.used <= this.maxBytes / 2) break;
      cache.clear();
    }
  }
}

/**
 * A cache of values by string key, absent values included (as undefined),
 * charged to a budget: `sizeOf` estimates a value's bytes.
 */
export class BudgetedCache<V> {
  private readonly values = new Map<string, { value: V | undefined; bytes: number }>();
  bytes = 0;
  private disposed = false;

  constructor(
    private readonly budget: CacheBudget,
    private readonly sizeOf: (value: V) => number,
  ) {
    budget.add(this as BudgetedCache<unknown>);
  }

  get size(): number {
    return this.values.size;
  }

  has(key: string): boolean {
    return this.values.has(key);
  }

  peek(key: string): V | undefined {
    return this.values.get(key)?.value;
  }

  get(key: string, load: () => V | undefined): V | undefined {
    const hit = this.values.get(key);
    if (hit) return hit.value;
    const loaded = load();
    this.set(key, loaded);
    return loaded;
  }

  /** `valueBytes`: the value's size when the caller knows it better than `sizeOf` */
  set(key: string, value: V | undefined, valueBytes?: number): void {
    if (this.disposed) return;
    const bytes = MAP_ENTRY_BYTES + bytesOfString(key) + (valueBytes ?? (value === undefined ? 0 : this.sizeOf(value)));
    const before = this.values.get(key);
    this.values.set(key, { value, bytes });
    const delta = bytes - (before?.bytes ?? 0);
    this.bytes += delta;
    this.budget.charge(delta);
  }

  clear(): void {
    this.values.clear();
    this.budget.charge(-this.bytes);
    this.bytes = 0;
  }

  /** Stops counting against the budget, and remembering (the store is closed). */
  dispose(): void {
    this.disposed = true;
    this.clear();
    this.budget.remove(this as BudgetedCache<unknown>);
  }
}

/** What the block service's process allows its state caches, until the service's configuration says (BLOCK_STATE_CACHE_MB). */
export const DEFAULT_STATE_CACHE_MB = 64;
export const stateCacheBudget = new CacheBudget(DEFAULT_STATE_CACHE_MB * 1024 * 1024);
