// CPU profiles of node processes whose command line cannot be changed (the
// launcher starts every service): Node 20 refuses `--cpu-prof` in
// NODE_OPTIONS, but accepts `--import` of this file. With CPU_PROFILE_DIR set,
// each SIGUSR2 toggles the V8 profiler: the first starts it, the second
// writes `<CPU_PROFILE_DIR>/<name>-<n>.cpuprofile` (Chrome DevTools' format;
// name = the entry's service folder, its source or its bundle under .build/,
// n = 1, 2, …), and so on. node.bench.ts sends the signals around each phase
// (services/cirrus/bench/query.bench.ts around its gateway phase):
//   CPU_PROFILE_DIR=/tmp/prof NODE_BENCH_NODE_OPTIONS="--import $PWD/test-e2e/bench/cpu-profile.mjs" \
//     node --import tsx scripts/bench.ts node
// CPU_PROFILE_AUTOSTART=1 starts the profiler at once (a process whose
// interesting part is its start, e.g. a node catching up: network.bench.ts).
import { Session } from 'node:inspector';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.env.CPU_PROFILE_DIR;
if (dir) {
  const entry = process.argv.find((arg) => /\/(services|libs)\/[^/]+\/src\/main\.(?:ts|mjs)$/.test(arg)) ?? '';
  const name = /\/(?:services|libs)\/([^/]+)\//.exec(entry)?.[1] ?? `pid${process.pid}`;
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: Number(process.env.CPU_PROFILE_INTERVAL_US ?? 250) });
  let running = false;
  let count = 0;
  if (process.env.CPU_PROFILE_AUTOSTART === '1') {
    running = true;
    session.post('Profiler.start');
  }
  process.on('SIGUSR2', () => {
    if (!running) {
      running = true;
      session.post('Profiler.start');
      return;
    }
    running = false;
    const n = ++count;
    session.post('Profiler.stop', (err, result) => {
      if (err) return;
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, `${name}-${n}.cpuprofile`), JSON.stringify(result.profile));
    });
  });
}
