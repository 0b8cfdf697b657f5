// The response writer and the placeholder conversion: small pure pieces every
// response goes through.
import { LosslessNumber } from 'lossless-json';
import { type Row, jsonNumber, jsonText, parseJson, toJson } from '../src/index.js';
import { toNative } from '../src/plan/sql.js';
import { catalogueOf, columnsOf, nativeStatement, parseQuery, planQuery } from '../src/index.js';

describe('toJson', () => {
  test('numbers are written as their text, strings escaped, nesting kept, key order kept', () => {
    const rows: Row[] = [
      {
        n: new LosslessNumber('123456789012345678901234567890.10'),
        s: 'quote " backslash \\ newline \n tab \t nul-free é \u2028',
        b: false,
        z: null,
        a: [new LosslessNumber('1'), 'x', [true], {}],
        o: { k: new LosslessNumber('-0.5e-7'), e: [] },
      },
      {},
    ];
    const text = toJson(rows);
    expect(text).toBe(
      '[{"n":123456789012345678901234567890.10,"s":' +
        JSON.stringify(rows[0].s) +
        ',"b":false,"z":null,"a":[1,"x",[true],{}],"o":{"k":-0.5e-7,"e":[]}},{}]',
    );
    expect(JSON.parse(text)[0].s).toBe(rows[0].s);
  });

  test('a key named __proto__ is an ordinary key', () => {
    const row = Object.fromEntries([['__proto__', 'x'], ['a', 'b']]) as Row;
    expect(toJson([row])).toBe('[{"__proto__":"x","a":"b"}]');
  });

  test('no rows is []', () => {
    expect(toJson([])).toBe('[]');
  });
});

describe('toNative', () => {
  test('? placeholders become $1, $2...; an escaped \\? is a question mark', () => {
    expect(toNative('SELECT t0."a\\?b" FROM "t" AS t0 WHERE t0."x" = ?::text AND t0."y" = ANY(?::text[]) LIMIT ?')).toBe(
      'SELECT t0."a?b" FROM "t" AS t0 WHERE t0."x" = $1::text AND t0."y" = ANY($2::text[]) LIMIT $3',
    );
  });
});

describe('jsonText, parseJson, jsonNumber', () => {
  test('a value round-trips with every digit, key order kept', () => {
    const text = '{"b":[9007199254740993,1.50,"x"],"a":{"t":true,"n":null}}';
    expect(jsonText(parseJson(text))).toBe(text);
    expect(jsonText({ n: jsonNumber('123456789012345678901234567890'), s: 'é"' })).toBe('{"n":123456789012345678901234567890,"s":"é\\""}');
  });
});

describe('nativeStatement', () => {
  test('the plan with $n placeholders and its values', () => {
    const table = { name: 'T', sql: 't', chainColumn: null, columns: columnsOf([['a', 'a', 'numeric']]) };
    const plan = planQuery(parseQuery('a=gt.5&limit=2'), catalogueOf([table]), { table: 'T', visibleChains: [''] });
    expect(nativeStatement(plan)).toEqual({ text: 'SELECT t0."a" FROM "t" AS t0 WHERE t0."a" > $1::numeric LIMIT $2', values: ['5', 2] });
  });
});
