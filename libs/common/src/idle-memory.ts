// Giving memory back when a service is at rest. Under load V8 lets a
// process's old generation grow to several times what it keeps alive
// (docs/benchmarks.md, "Where a loaded node's memory goes"), and it gives
// those pages back only at its next full collection, which a process at rest
// reaches late or never: V8's own reduction comes 10-15 s after the load, if
// at all. Measured on these machines, a process left idle for 30 s after a
// burst kept 190 MiB of PSS; one compacting full collection took it to 53 MiB.
//
// So a service watches its own event loop. When the loop has been nearly
// idle for a while and the heap has grown well past what the last such
// collection left, it runs one full collection. Under load it never runs
// (the loop is busy); at rest it runs once, then not again until the heap
// grows again. It needs `gc`, which the launcher exposes (--expose-gc in
// libs/launcher/src/memory.ts); without it (a service started inside a test
// runner) it does nothing.
import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import type { Logger } from './logger.js';

/** When the loop counts as at rest. */
export interface RestTiming {
  /** how often the loop's utilisation is read */
  checkMs: number;
  /** how many checks in a row must find the loop idle before a collection */
  idleChecks: number;
  /** the share of a check's time the loop may be busy and still count as idle */
  idleBelow: number;
}

/**
 * A service at rest for a second gives its garbage back. At rest means busy
 * under 2 % of the time: a service that takes a small share of steady
 * traffic (the vault during lone calls, some 5 %) is not at rest, and a
 * collection there would stop a call in flight.
 *
 * The growth it waits for (IDLE_COLLECTION_MB, 8 by default) keeps a
 * service that takes a call now and then from collecting after each one: a
 * compacting collection of a 45 MB live heap (the block service's, loaded)
 * stops its loop for 60–230 ms on these machines. With 8 MiB the small
 * services (vault, chains, cirrus) collect too after a burst; with 16 they
 * kept their grown heaps.
 */
export const AT_REST: RestTiming = { checkMs: 500, idleChecks: 2, idleBelow: 0.02 };

/** One full collection, when the process may run one (--expose-gc). */
const fullCollection = (globalThis as { gc?: () => void }).gc;

/**
 * Runs a full collection when the process has been idle for a while and its
 * heap has grown by `growthMiB` since it was smallest after the last one (see
 * the file's head).
 * Returns the call that stops watching, or null when the process cannot
 * collect or `growthMiB` is 0 (the operator's way to leave the heap to V8).
 */
export function collectWhenIdle(logger: Logger, growthMiB: number, timing: RestTiming = AT_REST): (() => void) | null {
  const collect = fullCollection;
  if (!collect || growthMiB <= 0) return null;
  const growthBytes = growthMiB * 1024 * 1024;
  let baseline = getHeapStatistics().total_heap_size;
  let idleInARow = 0;
  let last: EventLoopUtilization = performance.eventLoopUtilization();
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const busy = performance.eventLoopUtilization(now, last).utilization;
    last = now;
    const held = getHeapStatistics().total_heap_size;
    // growth is counted from the smallest heap seen since the last collection:
    // V8's own collections shrink it too, and a baseline left above them hid
    // a burst's growth (a transaction service back at 25 MiB after V8's, up to
    // 37 in the next burst, kept that at rest: 37 - 32 < 8)
    baseline = Math.min(baseline, held);
    idleInARow = busy < timing.idleBelow ? idleInARow + 1 : 0;
    if (idleInARow < timing.idleChecks) return;
    if (held - baseline < growthBytes) return;
    const started = performance.now();
    compacting(collect);
    baseline = getHeapStatistics().total_heap_size;
    logger.debug({ heldMiB: mib(held), afterMiB: mib(baseline), ms: Math.round(performance.now() - started) }, 'at rest: heap collected');
  }, timing.checkMs);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * A full collection that also compacts every page. V8 moves the survivors of
 * only its most fragmented pages by default, so a heap that a burst left full
 * of half-empty pages keeps most of them: measured, a heap of 285 MB holding
 * 18 MB of live objects kept 195 MB after a plain full collection and 27 MB
 * after a compacting one (about 15 % longer). Compaction is turned on for this
 * one collection only: under load V8's own collections stay as they are.
 */
function compacting(collect: () => void): void {
  setFlagsFromString('--compact-on-every-full-gc');
  try {
    collect();
  } finally {
    setFlagsFromString('--no-compact-on-every-full-gc');
  }
}

function mib(bytes: number): number {
  return Math.round(bytes / (1024 * 1024));
}
