// Benchmarks of the query language:
// - parse + plan per second for typical queries (no database);
// - end-to-end queries per second (parse, plan, run on PostgreSQL, shape,
//   serialise) against a 10,000-row table, with 8 queries in flight, through
//   knex and through a pg pool, next to the same SQL sent directly with pg
//   (what the library costs on top).
// `npm run bench -- query`, or `npx tsx libs/query/bench/query.bench.ts`.
import { pathToFileURL } from 'node:url';
import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import { measureConcurrent, startTestInfra } from '@platform/launcher';
import { type CatalogueTable, type Database, catalogueOf, columnsOf, parseQuery, planQuery, runQuery, toJson } from '../src/index.js';

export interface BenchResult {
  name: string;
  value: number;
  unit: string;
}

const ROWS = 10_000;
const CONCURRENCY = 8;
const VISIBLE = ['', 'c1'];

const items: CatalogueTable = {
  name: 'Bench-Item',
  sql: { schema: 'bench', name: 't_item' },
  chainColumn: 'chainId',
  columns: columnsOf([
    ['address', 'address', 'text'],
    ['chainId', 'chain_id', 'text'],
    ['block_number', 'block_number', 'integer'],
    ['block_timestamp', 'block_timestamp', 'text'],
    ['name', 'name', 'text'],
    ['qty', 'qty', 'integer'],
    ['active', 'active', 'boolean'],
    ['meta', 'meta', 'jsonb'],
    ['owner', 'owner', 'text'],
  ]),
  relations: [{ name: 'Owner', target: 'Bench-Owner', on: [['owner', 'address'], ['chainId', 'chainId']], cardinality: 'one' }],
  defaultOrder: [{ column: 'block_number' }, { column: 'address' }],
};
const owners: CatalogueTable = {
  name: 'Bench-Owner',
  sql: { schema: 'bench', name: 't_owner' },
  chainColumn: 'chainId',
  columns: columnsOf([
    ['address', 'address', 'text'],
    ['chainId', 'chain_id', 'text'],
    ['name', 'name', 'text'],
  ]),
};
const catalogue = catalogueOf([items, owners]);

/** Typical queries: a point lookup, a filtered ordered page, a logic tree with a count, an embed. */
const QUERIES: Array<{ name: string; query: string; prefer?: string }> = [
  { name: 'point lookup (address=eq.)', query: 'address=eq.a00004242' },
  { name: 'filter+order+limit 20', query: 'select=address,name,qty,block_number&qty=gt.5000&active=is.true&order=block_number.desc&limit=20' },
  { name: 'or/like + count=exact, page 50', query: 'or=(name.like.*42*,qty.lt.100)&order=qty.desc,address&limit=50&offset=10', prefer: 'count=exact' },
  { name: 'embed Owner(name), limit 20', query: 'select=address,qty,Owner(name)&chainId=eq.&order=block_number&limit=20' },
];

/** Calls `op` in batches until about a second has passed; operations per second. */
function opsPerSecond(op: (i: number) => void, seconds = 1): number {
  for (let i = 0; i < 1000; i++) op(i);
  let count = 0;
  const started = performance.now();
  let elapsed = 0;
  while (elapsed < seconds * 1000) {
    for (let i = 0; i < 256; i++) op(count + i);
    count += 256;
    elapsed = performance.now() - started;
  }
  return Math.round((count * 1000) / elapsed);
}

async function createTables(knex: Knex): Promise<void> {
  await knex.raw('CREATE SCHEMA bench');
  await knex.raw(`CREATE TABLE bench.t_item (address text NOT NULL, chain_id text NOT NULL, block_number numeric NOT NULL,
    block_timestamp text NOT NULL, name text, qty numeric, active boolean, meta jsonb, owner text, PRIMARY KEY (address, chain_id))`);
  await knex.raw(`INSERT INTO bench.t_item
    SELECT 'a' || lpad(i::text, 8, '0'), CASE WHEN i % 10 = 0 THEN 'c1' WHEN i % 10 = 1 THEN 'c2' ELSE '' END, i / 3,
      to_char(timestamp '2024-01-01' + i * interval '1 minute', 'YYYY-MM-DD HH24:MI:SS') || ' UTC', 'item ' || i,
      (i * 7919) % 10000, i % 3 <> 0, jsonb_build_object('n', i, 'tag', 'x' || (i % 5)), 'o' || (i % 50)
    FROM generate_series(1, ${ROWS}) AS i`);
  // the indexes cirrus's contract tables get: address, chain, block number
  await knex.raw('CREATE INDEX ON bench.t_item (chain_id)');
  await knex.raw('CREATE INDEX ON bench.t_item (block_number)');
  await knex.raw(`CREATE TABLE bench.t_owner (address text NOT NULL, chain_id text NOT NULL, name text, PRIMARY KEY (address, chain_id))`);
  await knex.raw(`INSERT INTO bench.t_owner SELECT 'o' || i, c, 'owner ' || i FROM generate_series(0, 49) AS i, unnest(ARRAY['', 'c1', 'c2']) AS c`);
  await knex.raw('ANALYZE bench.t_item');
  await knex.raw('ANALYZE bench.t_owner');
}

export async function run(): Promise<BenchResult[]> {
  const results: BenchResult[] = [];
  for (const q of QUERIES) {
    const params = new URLSearchParams(q.query);
    const rate = opsPerSecond(() => planQuery(parseQuery(params, { prefer: q.prefer }), catalogue, { table: 'Bench-Item', visibleChains: VISIBLE }));
    results.push({ name: `query: parse+plan, ${q.name}`, value: rate, unit: 'ops/s' });
  }

  const infra = await startTestInfra({ postgres: true });
  const url = await infra.postgres!.createDatabase('query_bench');
  const knex = knexFactory({ client: 'pg', connection: url, pool: { min: CONCURRENCY, max: CONCURRENCY } });
  const direct = new pg.Pool({ connectionString: url, max: CONCURRENCY });
  // an idle client may hear the server stop at the very end: not an error of the benchmark
  direct.on('error', () => {});
  try {
    await createTables(knex);
    for (const q of QUERIES) {
      const params = new URLSearchParams(q.query);
      const endToEnd = (db: Database) => async () => {
        const plan = planQuery(parseQuery(params, { prefer: q.prefer }), catalogue, { table: 'Bench-Item', visibleChains: VISIBLE });
        return toJson((await runQuery(db, plan)).rows);
      };
      // the same statement, sent with pg directly (no parse, plan, knex or shaping)
      const plan = planQuery(parseQuery(params, { prefer: q.prefer }), catalogue, { table: 'Bench-Item', visibleChains: VISIBLE });
      const native = knex.raw(plan.sql, plan.bindings as Knex.RawBinding[]).toSQL().toNative();
      const ops = {
        viaKnex: endToEnd(knex),
        viaPg: endToEnd(direct),
        sqlOnly: () => direct.query(native.sql, native.bindings as unknown[]),
      };
      // rounds alternate between the three, the best of each is kept: the host is shared and noisy
      const best: Record<keyof typeof ops, { perSecond: number; p50: number }> = {
        viaKnex: { perSecond: 0, p50: Infinity },
        viaPg: { perSecond: 0, p50: Infinity },
        sqlOnly: { perSecond: 0, p50: Infinity },
      };
      for (let round = 0; round < 2; round++) {
        for (const key of Object.keys(ops) as Array<keyof typeof ops>) {
          const t = await measureConcurrent(ops[key], { concurrency: CONCURRENCY, seconds: 1 });
          if (t.perSecond > best[key].perSecond) best[key] = t;
        }
      }
      results.push({ name: `query: end-to-end via knex, ${q.name}`, value: best.viaKnex.perSecond, unit: 'queries/s' });
      results.push({ name: `query:   end-to-end via a pg pool`, value: best.viaPg.perSecond, unit: 'queries/s' });
      results.push({ name: `query:   same SQL direct with pg`, value: best.sqlOnly.perSecond, unit: 'queries/s' });
      results.push({ name: `query:   p50 latency, end-to-end via pg`, value: Math.round(best.viaPg.p50 * 1000), unit: 'µs' });
      results.push({ name: `query:   p50 latency, same SQL direct`, value: Math.round(best.sqlOnly.p50 * 1000), unit: 'µs' });
    }
  } finally {
    await direct.end();
    await knex.destroy();
    await infra.stop();
  }
  return results;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const r of await run()) console.log(`${r.name.padEnd(60)} ${r.value.toLocaleString('en-US').padStart(10)} ${r.unit}`);
}
