// runQuery on PostgreSQL: the shape of rows and bodies (numbers with every
// digit), Content-Range and status exactly as PostgREST 12 answers them, and
// privacy (rows of chains the caller cannot see never come back).
import type { Knex } from 'knex';
import { LosslessNumber } from 'lossless-json';
import pg from 'pg';
import { type CatalogueTable, catalogueOf, columnsOf, parseQuery, planQuery, rangeAnswer, runQuery, toJson } from '../src/index.js';
import { type TestDb, handRows, query, startTestDb, wire } from './db.js';
import { VISIBLE, catalogue } from './fixtures.js';

describe('runQuery on PostgreSQL', () => {
  let db: TestDb;
  let knex: Knex;
  beforeAll(async () => {
    db = await startTestDb('query_run');
    knex = db.knex;
  });
  afterAll(async () => db?.stop());

  describe('shape', () => {
    test('numbers keep every digit and PostgreSQL text (7.0 stays 7.0), in rows and in the body', async () => {
      const { rows } = await query(knex, 'Acme-Item', 'select=id,qty,price,meta&id=in.(2,3,6)&order=id');
      expect(rows[0].qty).toEqual(new LosslessNumber('7.0'));
      expect(rows[1].qty).toEqual(new LosslessNumber('9007199254740993'));
      expect(toJson(rows)).toBe(
        '[{"id":2,"qty":7.0,"price":0.25,"meta":{"a":2,"big":123456789012345678901234567890}},' +
          '{"id":3,"qty":9007199254740993,"price":100,"meta":{"a":"1","nested":{"k":"v"}}},' +
          '{"id":6,"qty":123456789012345678901234567890,"price":3.14159,"meta":{"a":null}}]',
      );
    });

    test('a cast the data does not fit, or between types without one, is a 400 naming types and values, never the statement', async () => {
      for (const [q, message] of [
        ['select=name::int&id=eq.1', "the select's casts (name::int) cannot be applied to the values they read: a value is not valid text for the type"],
        ['select=id,Owner(name::text,score::bool)&id=eq.1', "the select's casts (name::text, score::bool) cannot be applied to the values they read: PostgreSQL has no cast between those types"],
        ['select=active::json&id=eq.1', 'PostgreSQL has no cast between those types'],
      ]) {
        const err = await query(knex, 'Acme-Item', q).then(
          () => null,
          (e: unknown) => e as { code: string; status: number; message: string },
        );
        expect(err).toMatchObject({ code: 'BAD_QUERY', status: 400 });
        expect(err!.message).toContain(message);
        expect(err!.message).not.toMatch(/SELECT|q\.t_item|json_build_object/);
      }
    });

    test('text, booleans and NULLs as JSON strings, booleans and null', async () => {
      const { rows } = await query(knex, 'Acme-Item', 'select=name,active,qty,meta&id=in.(5,8)&order=id');
      expect(toJson(rows)).toBe('[{"name":"\\"quoted\\"","active":false,"qty":0,"meta":null},{"name":"under_score","active":null,"qty":null,"meta":null}]');
    });

    test('keys are API names and aliases, whatever their length; JSON paths are keyed by their last key', async () => {
      const { rows } = await query(knex, 'Acme-Item', 'select=aVeryLongStateVariableNameThatIsDefinitelyLongerThanSixtyThreeBytesWhenWrittenOutInFull,x:field-with_sep,meta->tags->0,meta->>a&id=eq.1');
      expect(Object.keys(rows[0])).toEqual(['aVeryLongStateVariableNameThatIsDefinitelyLongerThanSixtyThreeBytesWhenWrittenOutInFull', 'x', 'tags', 'a']);
      expect(toJson(rows)).toContain('"tags":"x","a":"1"');
    });

    test('a to-one embed is an object or null, a to-many embed an array or []', async () => {
      const { rows } = await query(knex, 'Acme-Item', 'select=id,Owner(name)&id=in.(1,8)&order=id');
      expect(toJson(rows)).toBe('[{"id":1,"Owner":{"name":"Olive"}},{"id":8,"Owner":null}]');
      const owners = await query(knex, 'Acme-Owner', 'select=address,Acme-Item(id)&address=in.(o3,o4)&order=address');
      expect(toJson(owners.rows)).toBe('[{"address":"o3","Acme-Item":[{"id":4},{"id":10},{"id":14}]},{"address":"o4","Acme-Item":[]}]');
    });

    test('an embed over two versions of a table: `*` is the columns of the version the row is in', async () => {
      const { rows } = await query(knex, 'Acme-Order', 'select=id,Item!seller(*)&id=eq.1');
      expect(toJson(rows)).toBe('[{"id":1,"Item":{"address":"v01","chainId":"","name":"old apple","weight":3,"owner":"o1","block_number":10}}]');
      // rows of both tables in one default order (block_number: 11, 13 (the older table's), 14, 17)
      const many = await query(knex, 'Acme-Owner', 'select=Items(address,qty,weight)&address=eq.o2');
      expect(toJson(many.rows)).toBe('[{"Items":[{"address":"a03","qty":9007199254740993,"weight":null},{"address":"v02","qty":null,"weight":null},{"address":"a07","qty":50,"weight":null},{"address":"a11","qty":6,"weight":null}]}]');
    });

    test('select=count answers one row', async () => {
      const { rows } = await query(knex, 'Acme-Item', 'select=count&qty=gt.5');
      expect(toJson(rows)).toBe('[{"count":10}]');
    });
  });

  describe('Content-Range and status (PostgREST 12, RangeSpec.hs)', () => {
    // 18 rows are visible; `order=id` everywhere so pages are stable
    test.each<[string, string | undefined, number, string, number, number | null]>([
      ['order=id&limit=5', undefined, 200, '0-4/*', 5, null],
      ['order=id&limit=5', 'count=exact', 206, '0-4/18', 5, 18],
      ['order=id', 'count=exact', 200, '0-17/18', 18, 18],
      ['order=id&limit=3&offset=2', undefined, 200, '2-4/*', 3, null],
      ['order=id&limit=3&offset=15', 'count=exact', 206, '15-17/18', 3, 18],
      ['order=id&offset=17', 'count=exact', 206, '17-17/18', 1, 18],
      ['order=id&offset=18', 'count=exact', 206, '*/18', 0, 18],
      ['order=id&offset=100', 'count=exact', 416, '*/18', 0, 18],
      ['order=id&offset=100', undefined, 200, '*/*', 0, null],
      ['id=eq.999', 'count=exact', 200, '*/0', 0, 0],
      ['id=eq.999', undefined, 200, '*/*', 0, null],
      ['id=eq.999&offset=1', 'count=exact', 416, '*/0', 0, 0],
      ['limit=0', 'count=exact', 206, '*/18', 0, 18],
      ['limit=0&offset=5', 'count=exact', 206, '*/18', 0, 18],
      ['limit=0', undefined, 200, '*/*', 0, null],
      ['qty=gt.5&order=id&limit=100', 'count=exact', 200, '0-9/10', 10, 10],
      ['select=count', 'count=exact', 206, '0-0/18', 1, 18],
      ['select=count&id=eq.1', 'count=exact', 200, '0-0/1', 1, 1],
    ])('%s (Prefer %s) → %i %s', async (params, prefer, status, contentRange, length, total) => {
      const result = await query(knex, 'Acme-Item', params, { prefer });
      expect([result.status, result.contentRange, result.rows.length, result.total]).toEqual([status, contentRange, length, total]);
    });

    test('416 carries PostgREST’s explanation', async () => {
      const result = await query(knex, 'Acme-Item', 'offset=100', { prefer: 'count=exact' });
      expect(result.message).toBe('An offset of 100 was requested, but there are only 18 rows.');
    });

    test.each<[number, number | null, number, number | null, string, number]>([
      [0, null, 15, null, '0-14/*', 200],
      [0, null, 0, null, '*/*', 200],
      [0, 5, 5, 15, '0-4/15', 206],
      // the last page of several is still partial content: 5 rows of 15
      [10, null, 5, 15, '10-14/15', 206],
      [0, null, 0, 0, '*/0', 200],
      [1, null, 0, 0, '*/0', 416],
      [15, null, 0, 15, '*/15', 206],
      [16, null, 0, 15, '*/15', 416],
      [7, 0, 0, 15, '*/15', 206],
    ])('rangeAnswer(offset %i, limit %s, returned %i, total %s) = %s %i', (offset, limit, returned, total, range, status) => {
      const answer = rangeAnswer(offset, limit, returned, total);
      expect([answer.contentRange, answer.status]).toEqual([range, status]);
    });
  });

  describe('privacy: only rows of the caller’s chains', () => {
    test('rows of c2 never come back, whatever the filter', async () => {
      for (const params of ['', 'chainId=eq.c2', 'name=like.secret*', 'or=(chainId.eq.c2,id.gt.18)', 'select=count']) {
        const { rows } = await query(knex, 'Acme-Item', params);
        expect(toJson(rows)).not.toMatch(/secret|"c2"|"count":2\d/);
      }
    });

    test('a caller of c1 alone sees c1 rows alone, embeds included', async () => {
      const items = await query(knex, 'Acme-Item', 'select=id,chainId,Owner(name)&order=id', { visibleChains: ['c1'] });
      expect(toJson(items.rows)).toBe(
        '[{"id":16,"chainId":"c1","Owner":{"name":"Olive on c1"}},{"id":17,"chainId":"c1","Owner":null},{"id":18,"chainId":"c1","Owner":{"name":"Olive on c1"}}]',
      );
      const owners = await query(knex, 'Acme-Owner', 'select=name,Acme-Item(id)', { visibleChains: ['c1'] });
      expect(toJson(owners.rows)).toBe('[{"name":"Olive on c1","Acme-Item":[{"id":16},{"id":18}]}]');
    });

    test('a caller of no chain sees no row of a chain table, and every row of a table of no chain', async () => {
      expect((await query(knex, 'Acme-Item', '', { visibleChains: [] })).rows).toEqual([]);
      expect((await query(knex, 'Certificate', '', { visibleChains: [] })).rows).toHaveLength(2);
    });

    test('a member of c2 sees the secret table', async () => {
      const { rows } = await query(knex, 'Acme-Secret', '', { visibleChains: ['c2'] });
      expect(toJson(rows)).toBe('[{"id":1,"chainId":"c2"}]');
    });
  });

  describe('a pg client instead of knex', () => {
    test.each<[string, string, string | undefined]>([
      ['Acme-Item', 'select=id,qty,meta,Owner(*)&or=(qty.gt.5,name.like.*a*)&order=id&limit=5', 'count=exact'],
      ['Acme-Item', 'offset=100', 'count=exact'],
      ['Acme-Item', 'select=count&name=in.("a,b",apple)', undefined],
      ['Acme-Owner', 'select=*,Acme-Item(id,meta->a)&order=address,chainId', undefined],
    ])('%s?%s answers as with knex', async (table, params, prefer) => {
      const pool = new pg.Pool({ connectionString: db.url, max: 2 });
      try {
        const plan = planQuery(parseQuery(params, { prefer }), catalogue, { table, visibleChains: VISIBLE });
        const viaPg = await runQuery(pool, plan);
        const viaKnex = await runQuery(knex, plan);
        expect(toJson(viaPg.rows)).toBe(toJson(viaKnex.rows));
        expect({ ...viaPg, rows: null }).toEqual({ ...viaKnex, rows: null });
      } finally {
        await pool.end();
      }
    });

    test('an identifier holding ? runs on both', async () => {
      // (a ? in knex.raw's text is a placeholder unless escaped, here too)
      await knex.raw('CREATE TABLE q."odd\\?table" ("col\\?" text, "x" text)');
      await knex.raw(`INSERT INTO q."odd\\?table" VALUES ('a', 'b')`);
      const odd: CatalogueTable = { name: 'Odd', sql: { schema: 'q', name: 'odd?table' }, chainColumn: null, columns: columnsOf([['c', 'col?', 'text'], ['x', 'x', 'text']]) };
      const plan = planQuery(parseQuery('c=eq.a&x=eq.b'), catalogueOf([odd]), { table: 'Odd', visibleChains: [] });
      const pool = new pg.Pool({ connectionString: db.url, max: 1 });
      try {
        expect(toJson((await runQuery(pool, plan)).rows)).toBe('[{"c":"a","x":"b"}]');
        expect(toJson((await runQuery(knex, plan)).rows)).toBe('[{"c":"a","x":"b"}]');
      } finally {
        await pool.end();
      }
    });
  });

  describe('wide tables (json_build_object takes 50 pairs per call)', () => {
    const WIDTH = 120;
    const names = Array.from({ length: WIDTH }, (_, i) => `v${i}`);
    const wide: CatalogueTable = {
      name: 'Wide',
      sql: { schema: 'q', name: 't_wide' },
      chainColumn: 'chainId',
      columns: columnsOf([['id', 'id', 'integer'], ['chainId', 'chain_id', 'text'], ...names.map((n, i) => [n, `c${i}`, i % 2 ? 'text' : 'integer'] as const)]),
    };
    const pointer: CatalogueTable = {
      name: 'Pointer',
      sql: { schema: 'q', name: 't_pointer' },
      chainColumn: 'chainId',
      columns: columnsOf([
        ['id', 'id', 'integer'],
        ['chainId', 'chain_id', 'text'],
        ['wide', 'wide', 'integer'],
      ]),
      relations: [{ name: 'Wide', target: 'Wide', on: [['wide', 'id'], ['chainId', 'chainId']], cardinality: 'one' }],
    };
    const cat = catalogueOf([wide, pointer]);

    beforeAll(async () => {
      const cols = names.map((_, i) => `c${i} ${i % 2 ? 'text' : 'numeric'}`).join(', ');
      await knex.raw(`CREATE TABLE q.t_wide (id numeric, chain_id text, ${cols})`);
      const values = names.map((_, i) => (i % 2 ? `'t${i},"}{'` : `${i}${'9'.repeat(20)}`)).join(', ');
      await knex.raw(`INSERT INTO q.t_wide VALUES (1, '', ${values})`);
      await knex.raw(`CREATE TABLE q.t_pointer (id numeric, chain_id text, wide numeric)`);
      await knex.raw(`INSERT INTO q.t_pointer VALUES (10, '', 1), (11, '', 2)`);
    });

    test('a 122-column embed equals row_to_json of the row, key order included', async () => {
      const plan = planQuery(parseQuery('select=id,Wide(*)&order=id'), cat, { table: 'Pointer', visibleChains: [''] });
      const { rows } = await runQuery(knex, plan);
      const renames = ['id, chain_id AS "chainId"', ...names.map((n, i) => `c${i} AS "${n}"`)].join(', ');
      const [expected] = await handRows(knex, `SELECT row_to_json(w)::text FROM (SELECT ${renames} FROM q.t_wide) w`);
      expect(wire(rows)).toEqual([
        { id: { number: '10' }, Wide: expected },
        { id: { number: '11' }, Wide: null },
      ]);
      expect(Object.keys(rows[0].Wide as object)).toEqual(['id', 'chainId', ...names]);
    });

    test('the same 122 columns at the top level', async () => {
      const { rows } = await runQuery(knex, planQuery(parseQuery(''), cat, { table: 'Wide', visibleChains: [''] }));
      expect(Object.keys(rows[0])).toEqual(['id', 'chainId', ...names]);
      expect(rows[0].v0).toEqual(new LosslessNumber('9'.repeat(20)));
      expect(toJson(rows)).toContain(`"v118":118${'9'.repeat(20)},"v119":"t119,\\"}{"`);
    });
  });
});
