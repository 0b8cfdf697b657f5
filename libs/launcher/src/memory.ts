// How much memory each of a node's Node.js processes may hold on to, set by
// the launcher in each one's environment. Measured under load (the soak
// bench, 10,000 raw transactions a round), V8's default young generation
// (semi-spaces of up to 16 MiB each) and glibc's malloc arenas (up to eight
// per core, one per thread that allocates) were about a third of the node's
// memory: a process grows its young generation to the maximum under a burst
// and keeps it. The parts on the transaction's path keep a young generation
// big enough that a block's objects die young; the others get the smallest.
// Every part may run a full collection itself (--expose-gc): at rest, each
// service gives back the heap a burst grew (collectWhenIdle in
// @platform/common). A NODE_OPTIONS or MALLOC_ARENA_MAX given to the launcher
// comes last, so it overrides these (e.g. to compare in a benchmark).

/** Semi-space size in MiB (V8's --max-semi-space-size; the young generation is three of them) per part; parts not named get SMALL_MIB. */
const YOUNG_MIB: Readonly<Record<string, number>> = { gateway: 4, transaction: 4, block: 4, cirrus: 2 };
const SMALL_MIB = 1;

/**
 * The files service streams gigabytes through short-lived buffers and must
 * stay under 150 MiB while it does (services/files README, "Memory and
 * speed"): it collects them every few MiB a transfer moves
 * (services/files/src/store.ts), and MALLOC_MMAP_THRESHOLD_ gives each chunk
 * its own mapping, returned to the system when it is freed.
 */
const FILES_ENV = { MALLOC_MMAP_THRESHOLD_: '65536' };

/** The environment variables that bound one part's memory: NODE_OPTIONS (`given` last) and malloc's. */
export function memoryEnv(part: string, given: { NODE_OPTIONS?: string | undefined; MALLOC_ARENA_MAX?: string | undefined }): Record<string, string> {
  // one V8 helper thread: on a node's few cores, more only contend with the services for them
  const flags = [`--max-semi-space-size=${YOUNG_MIB[part] ?? SMALL_MIB}`, '--v8-pool-size=1', '--expose-gc', given.NODE_OPTIONS ?? ''];
  return {
    NODE_OPTIONS: flags.join(' ').trim(),
    MALLOC_ARENA_MAX: given.MALLOC_ARENA_MAX ?? '2',
    ...(part === 'files' ? FILES_ENV : {}),
  };
}
