// The shared PostgreSQL pieces against a real server: migrations applied once
// even by instances starting together, a rebuild migration, transactions that
// roll back, a database that is down told apart from a wrong query, and JSON
// texts sent in bulk coming back exactly.
import { PlatformError } from '@platform/common';
import { startTestInfra, type TestInfra } from '@platform/launcher';
import { createPool, dropSchema, inTransaction, isUnavailable, jsonList, jsonTexts, migrateSchema, query, type Db, type Migration } from '../src/index.js';

let infra: TestInfra;
let url: string;
const pools: Db[] = [];
const pool = () => {
  const p = createPool(url, { applicationName: 'pg-test', max: 4 });
  pools.push(p);
  return p;
};

beforeAll(async () => {
  infra = await startTestInfra({ postgres: true });
  url = await infra.postgres!.createDatabase('pgtest');
}, 120_000);
afterAll(async () => {
  await Promise.all(pools.map((p) => p.end()));
  await infra?.stop();
});

const FIRST: Array<string | Migration> = ['CREATE TABLE demo.items (id integer PRIMARY KEY, name text NOT NULL)', 'ALTER TABLE demo.items ADD COLUMN qty integer NOT NULL DEFAULT 0'];
const spec = (migrations: Array<string | Migration>) => ({ schema: 'demo', lock: 0x64656d6f, migrations });
const versions = async (db: Db) => (await db.query<{ version: number }>('SELECT version FROM demo.migrations ORDER BY version')).rows.map((r) => r.version);

test('instances migrating at once apply each migration exactly once, in order', async () => {
  const results = await Promise.all([pool(), pool(), pool()].map((p) => inTransaction(p, (c) => migrateSchema(c, spec(FIRST)))));
  expect(results).toEqual([{ rebuilt: false }, { rebuilt: false }, { rebuilt: false }]);
  expect(await versions(pools[0])).toEqual([1, 2]);
  await pools[0].query("INSERT INTO demo.items (id, name, qty) VALUES (1, 'a', 3)");
  // a later start with one more migration applies only that one; the rows stay
  await inTransaction(pools[0], (c) => migrateSchema(c, spec([...FIRST, 'CREATE INDEX ON demo.items (name)'])));
  expect(await versions(pools[0])).toEqual([1, 2, 3]);
  expect((await pools[0].query('SELECT name FROM demo.items')).rows).toEqual([{ name: 'a' }]);
});

test('a rebuild migration drops the existing schema and applies everything again', async () => {
  const db = pools[0];
  const next = [...FIRST, 'CREATE INDEX ON demo.items (name)', { sql: 'ALTER TABLE demo.items ADD COLUMN note text', rebuild: true }];
  expect(await inTransaction(db, (c) => migrateSchema(c, spec(next)))).toEqual({ rebuilt: true });
  expect(await versions(db)).toEqual([1, 2, 3, 4]);
  expect((await db.query('SELECT count(*)::int AS n FROM demo.items')).rows).toEqual([{ n: 0 }]);
  // applied: not rebuilt again
  expect(await inTransaction(db, (c) => migrateSchema(c, spec(next)))).toEqual({ rebuilt: false });
  await inTransaction(db, (c) => dropSchema(c, spec(next)));
  expect(await versions(db)).toEqual([]);
});

test('a transaction whose work throws leaves nothing behind; a bad schema name is refused before any SQL', async () => {
  const db = pools[0];
  await db.query('CREATE TABLE IF NOT EXISTS public.t (n integer)');
  await expect(
    inTransaction(db, async (c) => {
      await c.query('INSERT INTO public.t VALUES (1)');
      throw new Error('changed my mind');
    }),
  ).rejects.toThrow('changed my mind');
  expect((await db.query('SELECT count(*)::int AS n FROM public.t')).rows).toEqual([{ n: 0 }]);
  await expect(inTransaction(db, (c) => migrateSchema(c, { schema: 'x; DROP TABLE public.t', lock: 1, migrations: [] }))).rejects.toThrow(/not a plain schema name/);
});

test('a database that is down is a 503 naming its owner; a wrong query stays what it is', async () => {
  const down = createPool('postgres://nobody:x@127.0.0.1:1/none', { applicationName: 'pg-test' });
  pools.push(down);
  const err = await inTransaction(down, async () => 1, 'the test service').catch((e: unknown) => e);
  expect(err).toBeInstanceOf(PlatformError);
  expect(err).toMatchObject({ code: 'UNAVAILABLE', status: 503, message: "the test service's database is not available; try again shortly" });
  expect(await query(down, 'SELECT 1', [], 'the test service').catch((e: unknown) => e)).toMatchObject({ code: 'UNAVAILABLE', status: 503 });
  const wrong = await inTransaction(pools[0], (c) => c.query('SELECT * FROM no_such_table'), 'the test service').catch((e: unknown) => e);
  expect(wrong).not.toBeInstanceOf(PlatformError);
  expect(isUnavailable(wrong)).toBe(false);
});

test('settings apply to every session of a pool, with synchronous_commit; only plain names and values are taken', async () => {
  const pool = createPool(url, { applicationName: 'pg-test', synchronousCommit: false, settings: { plan_cache_mode: 'force_custom_plan' } });
  pools.push(pool);
  expect((await pool.query('SHOW plan_cache_mode')).rows).toEqual([{ plan_cache_mode: 'force_custom_plan' }]);
  expect((await pool.query('SHOW synchronous_commit')).rows).toEqual([{ synchronous_commit: 'off' }]);
  expect(() => createPool(url, { applicationName: 'pg-test', settings: { plan_cache_mode: 'auto -c role=postgres' } })).toThrow(/not a plain setting/);
});

test('JSON texts sent as one list come back in order, each exactly the text given', async () => {
  // escapes kept as written (the json type keeps its input), spacing, a NUL escape jsonb would refuse, a lone string, a big one
  const texts = ['{"a" : 1,"b":"\\u00e9 \\"q\\" \\\\ x","c":[1, 2]}', JSON.stringify({ nul: '\u0000', quote: '"', slash: '\\' }), '"just text"', '[]', JSON.stringify({ src: 'x'.repeat(100_000) })];
  const { rows } = await query<{ texts: string[] }>(pool(), `SELECT ${jsonTexts('$1')} AS texts`, [jsonList(texts)], 'the test');
  expect(rows[0].texts).toEqual(texts);
  // a null is JSON null, which a caller turns back into SQL NULL where it means absent
  const nulls = await query<{ t: string | null }>(pool(), `SELECT CASE WHEN json_typeof(e) = 'null' THEN NULL ELSE e::text END AS t FROM json_array_elements($1::json) WITH ORDINALITY AS x(e, i) ORDER BY i`, [jsonList(['1', null, '{}'])], 'the test');
  expect(nulls.rows.map((r) => r.t)).toEqual(['1', null, '{}']);
});
