// What the benchmarks measure the same way: several loops calling an
// asynchronous operation for a while, as clients in flight would.

export interface ConcurrentRun {
  /** completed calls per second */
  perSecond: number;
  /** latency of a call, ms */
  p50: number;
  p99: number;
}

/**
 * `concurrency` loops call `op` for `seconds` after `warmup` calls one at a
 * time (caches, JIT, connections); completed calls per second and latencies.
 */
export async function measureConcurrent(op: () => Promise<unknown>, options: { concurrency: number; seconds: number; warmup?: number }): Promise<ConcurrentRun> {
  for (let i = 0; i < (options.warmup ?? 50); i++) await op();
  const latencies: number[] = [];
  const started = performance.now();
  const deadline = started + options.seconds * 1000;
  await Promise.all(
    Array.from({ length: options.concurrency }, async () => {
      while (performance.now() < deadline) {
        const t = performance.now();
        await op();
        latencies.push(performance.now() - t);
      }
    }),
  );
  const elapsed = performance.now() - started;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))] ?? 0;
  return { perSecond: (latencies.length * 1000) / elapsed, p50: at(0.5), p99: at(0.99) };
}
