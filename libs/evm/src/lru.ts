// A bounded least-recently-used map: Map keeps insertion order, so a hit is
// moved to the end and the first key is the one to evict.
export class Lru<K, V> {
  private readonly map = new Map<K, V>();
  hits = 0;
  misses = 0;

  constructor(readonly limit: number) {}

  get(key: K): V | undefined {
    const v = this.map.get(key);
    if (v === undefined) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    this.map.delete(key);
    this.map.set(key, v);
    return v;
  }

  set(key: K, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.limit) this.map.delete(this.map.keys().next().value as K);
  }

  get size(): number {
    return this.map.size;
  }

  clear(): void {
    this.map.clear();
    this.hits = 0;
    this.misses = 0;
  }
}
