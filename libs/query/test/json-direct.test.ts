// runQueryJson writes the response body straight from the database's values;
// it must be byte for byte what toJson makes of runQuery's rows, whatever the
// columns (a key named twice, integer-like keys, `__proto__`) and values
// (numeric text that is not a JSON number, jsonb with duplicate keys, big
// numbers, control characters). On PostgreSQL with random queries: test/property.test.ts.
import fc from 'fast-check';
import type { OutputKind, QueryPlan } from '../src/index.js';
import { runQuery, runQueryJson, toJson } from '../src/index.js';

const KINDS: OutputKind[] = ['text', 'boolean', 'numeric', 'count', 'json'];
const key = fc.oneof(fc.constantFrom('a', 'b', 'qty', '0', '1', '10', '2', '__proto__', 'constructor', 'toString', '', 'é', '"q"', '-1', '01', '4294967295', '4294967294'), fc.string({ maxLength: 6 }));
const valueOf: Record<OutputKind, fc.Arbitrary<unknown>> = {
  text: fc.oneof(
    fc.string(),
    fc.string({ unit: 'binary' }),
    // what JSON escapes, and what it does not: quotes, backslashes, control characters, DEL, U+2028, lone and paired surrogates
    fc.array(fc.constantFrom('a', '"', '\\', '\u0000', '\n', '\u001f', '\u007f', '\u2028', '\ud800', '\udfff', '\ud83d\ude00', 'é'), { maxLength: 6 }).map((parts) => parts.join('')),
    fc.integer(),
    fc.constant(null),
  ),
  boolean: fc.oneof(fc.boolean(), fc.constant(null)),
  numeric: fc.oneof(fc.constantFrom('7.0', '-0', '1e5', '9007199254740993', '123456789012345678901234567890.000', 'NaN', 'Infinity', '-Infinity', '.5', '5.', '0x10', null), fc.bigInt().map(String), fc.integer()),
  count: fc.oneof(fc.bigInt({ min: 0n }).map(String), fc.constant('0')),
  json: fc.oneof(
    fc.json({ maxDepth: 3 }),
    fc.constantFrom('{"a": 1, "a": 2}', '{"x": 123456789012345678901234567890}', '[1, 2.50, {"b": null}]', '"s"', 'null', '{"__proto__": 1}', '{"2": 1, "1": 0}'),
    fc.constant(null),
  ),
};

const plans = fc
  .array(fc.record({ key, kind: fc.constantFrom(...KINDS) }), { minLength: 0, maxLength: 6 })
  .chain((columns) =>
    fc.record({
      columns: fc.constant(columns),
      rows: fc.array(fc.tuple(...columns.map((c) => valueOf[c.kind])), { maxLength: 4 }),
      count: fc.boolean(),
      offset: fc.nat(3),
      limit: fc.oneof(fc.constant(null), fc.nat(5)),
      total: fc.nat(10),
    }),
  );

describe('runQueryJson', () => {
  test('is toJson(runQuery(...).rows), byte for byte, with the same range answer (5,000 random plans and rows)', async () => {
    await fc.assert(
      fc.asyncProperty(plans, async ({ columns, rows, count, offset, limit, total }) => {
        const raw = rows.map((r) => (count ? [...r, String(total)] : [...r]));
        const db = { query: async ({ text }: { text: string }) => ({ rows: text === 'SELECT total' ? [[String(total)]] : raw }) };
        const plan: QueryPlan = { table: 't', sql: 'SELECT page', bindings: [], columns, countSql: count ? 'SELECT total' : null, countBindings: [], limit, offset, count, casts: [] };
        const expected = await runQuery(db, plan);
        const direct = await runQueryJson(db, plan);
        expect(direct.json).toBe(toJson(expected.rows));
        expect([direct.total, direct.status, direct.contentRange, direct.message]).toEqual([expected.total, expected.status, expected.contentRange, expected.message]);
      }),
      { numRuns: 5_000 },
    );
  });

  test('a key named twice keeps its first place and its last value; integer-like keys come first', async () => {
    const plan: QueryPlan = {
      table: 't',
      sql: 'SELECT 1',
      bindings: [],
      columns: [
        { key: 'b', kind: 'text' },
        { key: 'a', kind: 'numeric' },
        { key: 'b', kind: 'boolean' },
        { key: '10', kind: 'text' },
        { key: '2', kind: 'json' },
      ],
      countSql: null,
      countBindings: [],
      limit: null,
      offset: 0,
      count: false,
      casts: [],
    };
    const direct = await runQueryJson({ query: async () => ({ rows: [['x', '7.0', true, 'ten', '{"k": 1, "k": 2}']] }) }, plan);
    expect(direct.json).toBe('[{"2":{"k":2},"10":"ten","b":true,"a":7.0}]');
  });
});
