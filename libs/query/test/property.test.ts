// Properties: whatever the query string, parse+plan either succeed or throw a
// PlatformError with a 4xx status (never anything else), and a plan that is
// produced runs on PostgreSQL without an SQL error and returns only rows of the
// caller's chains. Query strings come from three generators: arbitrary text,
// a soup of the grammar's tokens, and mostly-well-formed queries with random
// values (so that many reach the database).
import fc from 'fast-check';
import type { Knex } from 'knex';
import pg from 'pg';
import { PlatformError } from '@platform/common';
import { parseQuery, planQuery, runQuery, runQueryJson, toJson, type TextRowSource } from '../src/index.js';
import { LONG_NAME, VISIBLE, catalogue } from './fixtures.js';
import { type TestDb, startTestDb } from './db.js';

const TABLES = ['Acme-Item', 'Acme-Item@1', 'Acme-Order', 'Acme-Owner', 'Acme-Counter', 'Certificate', 'Acme-Secret', 'Nope'];
const COLUMNS = ['id', 'qty', 'price', 'name', 'active', 'meta', 'meta->a', 'meta->>a', 'meta->tags->0', 'chainId', 'address', 'owner', 'count', 'score', 'block_number', LONG_NAME, 'field-with_sep', '"field-with_sep"', 'nope', 'Owner.name', 'weight', 'buyer', 'seller'];
const TOKENS = [
  'eq.', 'neq.', 'lt.', 'lte.', 'gt.', 'gte.', 'like.', 'ilike.', 'in.', 'is.', 'not.', 'cs.', 'fts.', '(', ')', ',', '.', '"', '\\', '*', '%', '_',
  'null', 'true', 'false', 'unknown', 't', 'no', '1', '-1', '007', '1e5', '1e1001', '7.0', '.5', 'NaN', 'abc', ' ', '{', '}', ':', '::', '!',
  '->', '->>', 'and', 'or', 'asc', 'desc', '!inner', '!left', 'Owner(name)', 'b:', 'Acme-Order.', 'nullsfirst', 'nullslast', 'count()', 'Owner', 'Acme-Item', 'Acme-Order', 'Item', 'Items', '!buyer', '!seller', 'é', '\u0000', '\ud800', '9007199254740993',
  ...COLUMNS,
];
const EMBEDDED_KEYS = ['Owner.name', 'Owner.score', 'Owner', 'Acme-Order', 'Acme-Order.qty', 'Acme-Order.order', 'Acme-Order.limit', 'Acme-Order.offset', 'Acme-Order.or', 'Acme-Order.not.and', 'Items.weight', 'Owner.Acme-Item.qty', 'Owner.Acme-Item', 'b.name', 'Nope.id', 'Owner.select'];
const KEYS = ['select', 'order', 'limit', 'offset', 'or', 'and', 'not.or', 'not.and', 'columns', ...COLUMNS, ...EMBEDDED_KEYS];

const soup = fc.array(fc.constantFrom(...TOKENS), { maxLength: 12 }).map((t) => t.join(''));
const anyText = fc.oneof(fc.string({ maxLength: 20 }), fc.string({ unit: 'grapheme', maxLength: 20 }), fc.string({ unit: 'binary', maxLength: 10 }));
const value = fc.oneof(anyText, fc.constantFrom('1', '5', '7.0', '-12', '9007199254740993', 'apple', 'a,b', '"q"', 't', 'false', '{"a": 1}', '"x"', '', '*a*', 'a\\'), fc.integer().map(String));

/** A well-formed filter with a random value: `col=[not.]op.value`, `in.(...)`, `is.x`. */
const filter = fc
  .tuple(
    fc.constantFrom(...COLUMNS),
    fc.boolean(),
    fc.constantFrom('eq', 'neq', 'lt', 'lte', 'gt', 'gte', 'like', 'ilike', 'in', 'is'),
    fc.array(value, { minLength: 1, maxLength: 3 }),
    fc.constantFrom('null', 'true', 'false', 'unknown', 'x'),
  )
  .map(([col, not, op, vals, trilean]) => {
    const operand = op === 'in' ? `(${vals.join(',')})` : op === 'is' ? trilean : vals[0];
    return [col, `${not ? 'not.' : ''}${op}.${operand}`] as [string, string];
  });
const logic = fc
  .tuple(fc.constantFrom('or', 'and', 'not.or', 'not.and'), fc.array(filter, { minLength: 1, maxLength: 3 }))
  .map(([key, fs]) => [key, `(${fs.map(([c, v]) => `${c}.${v}`).join(',')})`] as [string, string]);
const reserved = fc.oneof(
  fc.constantFrom<[string, string]>(['select', 'id,name,Owner(*)'], ['select', '*,Acme-Order!buyer(*)'], ['select', 'id,Item!seller(name,qty,weight)'], ['select', 'address,Items(*,Owner(name))'], ['select', 'count'], ['select', '*'], ['select', 'x:qty,meta->a'], ['order', 'id.desc'], ['order', 'qty.nullsfirst,id'], ['select', 'id,Owner!inner(*),Acme-Order!buyer!inner(id)'], ['order', 'Owner(name).desc,id'], ['order', 'Owner(score)'], ['limit', '3'], ['offset', '2'], ['limit', '0']),
  fc.tuple(fc.constantFrom('select', 'order', 'limit', 'offset'), fc.oneof(soup, value)),
);

/** Filters that fit their column's type, so that many queries get as far as PostgreSQL. */
const text = fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('apple', 'a,b', '"quoted"', '50% off', 'back\\slash', 'c1', ''));
const numeric = fc.oneof(fc.integer().map(String), fc.bigInt().map(String), fc.double({ noNaN: true, noDefaultInfinity: true }).map(String), fc.constantFrom('7.0', '007', ' 5 ', '1e2', '.5', '9007199254740993'));
const bool = fc.constantFrom('t', 'true', 'FALSE', 'no', 'on', 'off', '1', '0', 'yes', 'f');
const json = fc.oneof(fc.json({ maxDepth: 2 }), fc.constantFrom('1', '"1"', '{"a": 1}', 'null', '[1,2,3]', '123456789012345678901234567890'));
const typed: Array<[string[], fc.Arbitrary<string>, string[]]> = [
  [['id', 'qty', 'price', 'block_number'], numeric, ['eq', 'neq', 'lt', 'lte', 'gt', 'gte', 'in']],
  [['name', 'address', 'owner', 'chainId', 'block_timestamp', 'meta->>a', LONG_NAME, 'field-with_sep'], text, ['eq', 'neq', 'lt', 'gte', 'like', 'ilike', 'in']],
  [['active'], bool, ['eq', 'neq', 'in']],
  [['meta', 'meta->a', 'meta->tags->0'], json, ['eq', 'neq', 'gt', 'in']],
];
const quote = (v: string) => `"${v.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
const goodFilter = fc.oneof(
  ...typed.map(([cols, values, ops]) =>
    fc.tuple(fc.constantFrom(...cols), fc.boolean(), fc.constantFrom(...ops), fc.array(values, { minLength: 1, maxLength: 3 })).map(([col, not, op, vals]) => {
      const operand = op === 'in' ? `(${vals.map(quote).join(',')})` : vals[0];
      return [col, `${not ? 'not.' : ''}${op}.${operand}`] as [string, string];
    }),
  ),
  fc.tuple(fc.constantFrom('id', 'name', 'active', 'meta', 'meta->a'), fc.constantFrom('is.null', 'not.is.null', 'is.true', 'is.unknown')),
);
const goodLogic = fc
  .tuple(fc.constantFrom('or', 'and', 'not.or', 'not.and'), fc.array(goodFilter, { minLength: 1, maxLength: 3 }))
  .map(([key, fs]) => [key, `(${fs.map(([c, v]) => `${c}.${v.startsWith('in.') || v.startsWith('not.in.') ? v : v.replace(/^((?:not\.)?[a-z]+\.)(.*)$/, (_m, op: string, rest: string) => op + quote(rest))}`).join(',')})`] as [string, string]);

/** An embed in select and parameters addressed to it (filters that fit their column's type, orders, pages, null filters), so that many reach PostgreSQL. */
const EMBEDS: Array<[string, string]> = [
  ['Owner', 'id,Owner(*)'],
  ['Owner', 'id,Owner!inner(name,score)'],
  ['b', 'id,b:Owner(name)'],
  ['Acme-Order', '*,Acme-Order!buyer(*)'],
  ['Acme-Order', 'id,Acme-Order!seller!inner(id,qty)'],
  ['Owner.Acme-Item', 'id,Owner(name,Acme-Item(id,qty,Owner(name)))'],
  ['Owner.Items', 'id,Owner(Items!inner(name,qty,weight))'],
];
const embeddedParam = (path: string) =>
  fc.oneof(
    { weight: 4, arbitrary: goodFilter.map(([col, v]) => [`${path}.${col}`, v] as [string, string]) },
    { weight: 1, arbitrary: goodLogic.map(([key, v]) => [`${path}.${key}`, v] as [string, string]) },
    { weight: 1, arbitrary: fc.constantFrom('qty.desc,id', 'name.nullsfirst', 'weight,name', 'score', 'Owner(name).desc', 'meta->a').map((o) => [`${path}.order`, o] as [string, string]) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom('limit', 'offset'), fc.integer({ min: -1, max: 3 })).map(([k, n]) => [`${path}.${k}`, String(n)] as [string, string]) },
    { weight: 1, arbitrary: fc.constantFrom('is.null', 'not.is.null', 'eq.1').map((v) => [path, v] as [string, string]) },
  );
const goodEmbedded = fc
  .constantFrom(...EMBEDS)
  .chain(([path, select]) => fc.array(embeddedParam(path), { minLength: 1, maxLength: 3 }).map((ps) => [['select', select] as [string, string], ...ps]));

const pairs = fc.oneof(
  { weight: 3, arbitrary: goodEmbedded },
  { weight: 3, arbitrary: fc.array(fc.oneof({ weight: 3, arbitrary: goodFilter }, { weight: 1, arbitrary: goodLogic }, { weight: 1, arbitrary: reserved }), { maxLength: 3 }) },
  {
    weight: 2,
    arbitrary: fc.array(
      fc.oneof(
        { weight: 4, arbitrary: filter },
        { weight: 2, arbitrary: logic },
        { weight: 2, arbitrary: reserved },
        { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...KEYS), soup) },
        { weight: 1, arbitrary: fc.tuple(anyText, anyText) },
      ),
      { maxLength: 5 },
    ),
  },
);
/** The query as a URLSearchParams, or (sometimes) as raw text that URLSearchParams decodes. */
const queries = fc.oneof(
  { weight: 6, arbitrary: pairs.map((p) => new URLSearchParams(p)) },
  { weight: 1, arbitrary: anyText.map((t) => new URLSearchParams(t)) },
  { weight: 1, arbitrary: soup.map((t) => new URLSearchParams(t)) },
);
const requests = fc.record({
  table: fc.oneof({ weight: 1, arbitrary: fc.constantFrom(...TABLES) }, { weight: 4, arbitrary: fc.constant('Acme-Item') }),
  query: queries,
  prefer: fc.constantFrom(undefined, 'count=exact', 'count=none'),
  visible: fc.constantFrom(VISIBLE, ['c1'], [], ['', 'c1', 'c2']),
});

type Outcome = 'refused' | 'ran';

interface Request {
  table: string;
  query: URLSearchParams;
  prefer: string | undefined;
  visible: string[];
}

function plan(r: Request) {
  try {
    return planQuery(parseQuery(r.query, { prefer: r.prefer }), catalogue, { table: r.table, visibleChains: r.visible });
  } catch (err) {
    // the only acceptable failure: a PlatformError with a 4xx status and no SQL in its message
    if (!(err instanceof PlatformError)) throw new Error(`not a PlatformError for ${r.table}?${r.query}: ${String(err)}`, { cause: err });
    if (err.status < 400 || err.status >= 500) throw new Error(`status ${err.status} for ${r.table}?${r.query}`, { cause: err });
    const request = `${r.table}?${r.query}${decodeURIComponent(r.query.toString().replace(/%(?![0-9A-F]{2})/gi, '%25'))}`;
    for (const sqlText of ['t0."', 'e1."', '?::', 'json_build_object', '"q".', 'ANY(', 'SELECT ', 't_item', 'c_long', 'chain_id']) {
      if (err.message.includes(sqlText) && !request.includes(sqlText)) throw new Error(`SQL in the message: ${err.message}`, { cause: err });
    }
    return null;
  }
}

describe('properties', () => {
  test('parse + plan never throw anything but a 4xx PlatformError (20,000 random queries)', () => {
    fc.assert(
      fc.property(requests, (r) => {
        plan(r);
      }),
      { numRuns: 20_000 },
    );
  });

  describe('on PostgreSQL', () => {
    let db: TestDb;
    let knex: Knex;
    let pool: pg.Pool;
    // PostgreSQL's text of every field, no type parsed (what @platform/cirrus-read reads rows as)
    let textRows: TextRowSource;
    beforeAll(async () => {
      db = await startTestDb('query_property');
      knex = db.knex;
      pool = new pg.Pool({ connectionString: db.url, max: 2 });
      const asText = { getTypeParser: () => (value: string) => value };
      textRows = { textRows: async ({ text, values }) => (await pool.query<Array<string | null>>({ text, values, rowMode: 'array', types: asText })).rows };
    });
    afterAll(async () => {
      await pool?.end();
      await db?.stop();
    });

    test('a plan never meets an SQL error, returns only visible rows, and runQueryJson writes the same body, from the driver\'s values and from PostgreSQL\'s text (3,000 random queries)', async () => {
      const outcomes: Outcome[] = [];
      await fc.assert(
        fc.asyncProperty(requests, async (r) => {
          const p = plan(r);
          if (!p) return void outcomes.push('refused');
          let result;
          try {
            result = await runQuery(knex, p);
          } catch (err) {
            throw new Error(`SQL error for ${r.table}?${r.query}: ${(err as Error).message}`, { cause: err });
          }
          outcomes.push('ran');
          // the body written straight from the values is the same text (test/json-direct.test.ts)
          const direct = await runQueryJson(knex, p);
          expect([direct.json, direct.status, direct.contentRange]).toEqual([toJson(result.rows), result.status, result.contentRange]);
          // and from PostgreSQL's text of the fields, booleans as `t` and `f`
          const fromText = await runQueryJson(textRows, p);
          expect([fromText.json, fromText.status, fromText.contentRange]).toEqual([toJson(result.rows), result.status, result.contentRange]);
          if (!r.visible.includes('c2')) expect(toJson(result.rows)).not.toMatch(/secret|"chainId":"c2"/);
          if (!r.visible.includes('c1')) expect(toJson(result.rows)).not.toMatch(/"chainId":"c1"/);
        }),
        { numRuns: 3000 },
      );
      // the generators reach the database often enough for the property to mean something
      if (process.env.QUERY_PROPERTY_STATS) console.log(`ran ${outcomes.filter((o) => o === 'ran').length} of ${outcomes.length}`);
      expect(outcomes.filter((o) => o === 'ran').length).toBeGreaterThan(outcomes.length * 0.25);
    });
  });
});
