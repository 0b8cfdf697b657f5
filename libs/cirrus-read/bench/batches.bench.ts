// What sending waiting statements together saves (src/text-rows.ts): a
// search's statement (a filter, the newest first, one page of 20) on a
// 200,000-row table, 8 in flight for 2 s, by textRowsOf on three pools of 8
// connections: every statement alone as soon as it comes (8 batches at once:
// how statements were sent before batching), the default (as many batches as
// cores), and one batch at a time. Rounds interleave the three (the host is
// shared); each prints queries/s and the CPU per query of this process and of
// PostgreSQL's processes, and the medians close the table.
// `npm run bench -- cirrus-read/bench/batches`.
import { availableParallelism } from 'node:os';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { measureConcurrent, processes, startTestInfra } from '@platform/launcher';
import { textRowsOf } from '../src/text-rows.js';

const ROUNDS = 5;
const SECONDS = 2;
const IN_FLIGHT = 8;
const SQL = 'SELECT address, name, qty::text, block_number FROM t WHERE qty > $1::numeric AND active IS TRUE ORDER BY block_number DESC LIMIT 20';

/** CPU seconds so far of every process named postgres (this bench's own server is the only one it starts). */
function postgresCpuSeconds(): number {
  return processes()
    .filter((p) => p.comm === 'postgres')
    .reduce((sum, p) => sum + p.cpu, 0);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1];

export async function run(): Promise<Array<{ name: string; value: number; unit: string }>> {
  const infra = await startTestInfra({ postgres: true });
  const pools: pg.Pool[] = [];
  try {
    const url = await infra.postgres!.createDatabase('batches_bench');
    const setup = new pg.Pool({ connectionString: url, max: 1 });
    pools.push(setup);
    await setup.query('CREATE TABLE t (address text, name text, qty numeric, active boolean, block_number bigint)');
    await setup.query(`INSERT INTO t SELECT md5(i::text), 'n' || i, i % 10000, i % 3 = 0, i FROM generate_series(1, 200000) i`);
    await setup.query('CREATE INDEX ON t (block_number)');
    await setup.query('ANALYZE t');
    const modes = [
      { label: 'each statement alone', batches: IN_FLIGHT },
      { label: `batched (${availableParallelism()} at once, the default)`, batches: availableParallelism() },
      { label: 'batched (one at a time)', batches: 1 },
    ].map((mode) => {
      const pool = new pg.Pool({ connectionString: url, max: IN_FLIGHT });
      pools.push(pool);
      return { ...mode, rows: textRowsOf(pool, { concurrentBatches: mode.batches }), rates: [] as number[], cpu: [] as number[] };
    });
    for (let round = 1; round <= ROUNDS; round++) {
      for (const mode of modes) {
        const ownBefore = process.cpuUsage();
        const postgresBefore = postgresCpuSeconds();
        let done = 0;
        const call = async () => {
          await mode.rows.textRows({ text: SQL, values: ['5000'], name: 'batches_bench' });
          done++;
        };
        const run = await measureConcurrent(call, { concurrency: IN_FLIGHT, seconds: SECONDS, warmup: 0 });
        const own = process.cpuUsage(ownBefore);
        const ownMs = (own.user + own.system) / 1000 / done;
        const postgresMs = ((postgresCpuSeconds() - postgresBefore) * 1000) / done;
        mode.rates.push(run.perSecond);
        mode.cpu.push(ownMs + postgresMs);
        console.log(`   round ${round}, ${mode.label}: ${Math.round(run.perSecond)} queries/s, CPU per query: client ${ownMs.toFixed(3)} ms, PostgreSQL ${postgresMs.toFixed(3)} ms`);
      }
    }
    return modes.flatMap((mode) => [
      { name: `text rows, ${mode.label}: queries/s (median)`, value: Math.round(median(mode.rates)), unit: 'queries/s' },
      { name: `text rows, ${mode.label}: CPU per query (median)`, value: Math.round(median(mode.cpu) * 1000), unit: 'µs' },
    ]);
  } finally {
    // the server stops next: a connection still closing then reports its termination, which ends nothing here
    for (const pool of pools) pool.on('error', () => {});
    await Promise.allSettled(pools.map((pool) => pool.end()));
    await infra.stop();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const r of await run()) console.log(`${r.name.padEnd(60)} ${String(r.value).padStart(10)} ${r.unit}`);
}
