// Statements run as textRowsOf runs them (src/text-rows.ts), on a real
// PostgreSQL: fields as PostgreSQL's text, values bound as pg binds them, a
// prepared statement parsed once per connection, and a statement the server
// refuses failing alone.
import pg from 'pg';
import { startTestInfra, type TestInfra } from '@platform/launcher';
import { textRowsOf } from '../src/text-rows.js';

describe('textRowsOf', () => {
  let infra: TestInfra;
  let pool: pg.Pool;
  beforeAll(async () => {
    infra = await startTestInfra({ postgres: true });
    // one connection: every statement below meets the same session
    pool = new pg.Pool({ connectionString: await infra.postgres!.createDatabase('text_rows'), max: 1 });
    await pool.query(`CREATE TABLE t (id int, name text, qty numeric, active boolean, meta jsonb, chain text)`);
    await pool.query(`INSERT INTO t VALUES (1, 'a"b', 7.0, true, '{"x": 1}', ''), (2, NULL, 123456789012345678901234567890, false, NULL, 'c1'), (3, 'é', -0.5, NULL, '[]', 'c2')`);
  });
  afterAll(async () => {
    await pool?.end();
    await infra?.stop();
  });

  const rows = () => textRowsOf(pool);
  const SELECT = 'SELECT id, name, qty, active, meta::text FROM t WHERE chain = ANY($1::text[]) AND qty > $2::numeric ORDER BY id';

  test("answers every field as PostgreSQL's text, null as null, with values bound as pg binds them (an array as an array literal)", async () => {
    expect(await rows().textRows({ text: SELECT, values: [['', 'c1', 'with "quote", and \\ backslash'], '-1'] })).toEqual([
      ['1', 'a"b', '7.0', 't', '{"x": 1}'],
      ['2', null, '123456789012345678901234567890', 'f', null],
    ]);
  });

  test('a prepared statement is parsed once on a connection, then only bound and executed', async () => {
    for (const chains of [[''], ['c2'], ['', 'c1', 'c2']]) await rows().textRows({ text: SELECT, values: [chains, '-1'], name: 'text_rows_q1' });
    const prepared = await pool.query<{ name: string; statement: string }>('SELECT name, statement FROM pg_prepared_statements');
    expect(prepared.rows).toEqual([{ name: 'text_rows_q1', statement: SELECT }]);
    expect(await rows().textRows({ text: SELECT, values: [['c2'], '-1'], name: 'text_rows_q1' })).toEqual([['3', 'é', '-0.5', null, '[]']]);
  });

  test("a statement the server refuses fails with PostgreSQL's code, and the next one runs", async () => {
    await expect(rows().textRows({ text: 'SELECT 1 / $1::int', values: ['0'] })).rejects.toMatchObject({ code: '22012' });
    await expect(rows().textRows({ text: 'SELEC 1', values: [], name: 'text_rows_bad' })).rejects.toMatchObject({ code: '42601' });
    await expect(rows().textRows({ text: 'SELECT $1::int + 1', values: ['x'], name: 'text_rows_q2' })).rejects.toMatchObject({ code: '22P02' });
    expect(await rows().textRows({ text: 'SELECT $1::int + 1', values: ['41'], name: 'text_rows_q2' })).toEqual([['42']]);
  });

  test('one name stays with one text', async () => {
    await rows().textRows({ text: 'SELECT 1', values: [], name: 'text_rows_q3' });
    await expect(rows().textRows({ text: 'SELECT 2', values: [], name: 'text_rows_q3' })).rejects.toThrow(/another text/);
    expect(await rows().textRows({ text: 'SELECT 1', values: [], name: 'text_rows_q3' })).toEqual([['1']]);
  });

  test('statements that wait for the connection go together, in one transaction of the server, each answered with its own rows', async () => {
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => rows().textRows({ text: 'SELECT transaction_timestamp()::text, $1::int * 2', values: [String(i)] })));
    expect(answers.map((a) => a[0][1])).toEqual(Array.from({ length: 12 }, (_, i) => String(i * 2)));
    // one connection: the first statement alone, the second waiting for the pool, the ten others one batch
    expect(new Set(answers.map((a) => a[0][0])).size).toBeLessThanOrEqual(3);
  });

  test("a refused statement in a batch fails alone: the statements before it keep their rows, those after it are sent again", async () => {
    const statements = Array.from({ length: 10 }, (_, i) =>
      i === 5 ? { text: 'SELECT 1 / $1::int', values: ['0'] } : i === 7 ? { text: 'SELECT $1::int + 1', values: [String(i)], name: 'text_rows_q4' } : { text: 'SELECT $1::int', values: [String(i)] },
    );
    const settled = await Promise.allSettled(statements.map((statement) => rows().textRows(statement)));
    settled.forEach((outcome, i) => {
      if (i === 5) expect(outcome).toMatchObject({ status: 'rejected', reason: { code: '22012' } });
      else expect(outcome).toEqual({ status: 'fulfilled', value: [[String(i === 7 ? 8 : i)]] });
    });
    // the named statement after the refusal was parsed when it was sent again, and is known as parsed
    expect(await rows().textRows({ text: 'SELECT $1::int + 1', values: ['1'], name: 'text_rows_q4' })).toEqual([['2']]);
    const prepared = await pool.query<{ name: string }>("SELECT name FROM pg_prepared_statements WHERE name = 'text_rows_q4'");
    expect(prepared.rows).toHaveLength(1);
  });

  test('a statement with a value pg cannot bind fails alone in its batch', async () => {
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    const settled = await Promise.allSettled([0, 1, 2, 3].map((i) => rows().textRows({ text: 'SELECT $1::text', values: [i === 2 ? circular : String(i)] })));
    expect(settled.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
  });

  test("statement_timeout counts per statement, not per batch: four statements of 0.4 s sent together under a 1 s timeout all answer", async () => {
    const timed = new pg.Pool({ connectionString: await infra.postgres!.createDatabase('text_rows_timeout'), max: 1, options: '-c statement_timeout=1000' });
    try {
      const source = textRowsOf(timed, { concurrentBatches: 1 });
      // the first holds the connection; the four others wait for it and go together
      const answers = await Promise.all(Array.from({ length: 5 }, (_, i) => source.textRows({ text: 'SELECT transaction_timestamp()::text, pg_sleep(0.4)::text, $1::int', values: [String(i)] })));
      expect(answers.map((a) => a[0][2])).toEqual(['0', '1', '2', '3', '4']);
      expect(new Set(answers.slice(1).map((a) => a[0][0])).size).toBe(1);
    } finally {
      await timed.end();
    }
  });
});
