// The argument grammar on its own: the forms of `args`, each type's values,
// named and positional binding, overload choice. args-table.test.ts runs the
// same JSON through both VMs and admission.
import { ArgumentError, argumentsDecoder, checkArgsText, chooseOverload, normaliseArgs, parseRawArgs, toBigInt, valueDecoder, type ArgParam, type XabiType } from '../src/index.js';

const uint256: XabiType = { type: 'Int', signed: false, bytes: 32 };
const uint8: XabiType = { type: 'Int', signed: false, bytes: 1 };
const int8: XabiType = { type: 'Int', signed: true, bytes: 1 };
const dec = (t: XabiType, v: unknown, structs?: Record<string, unknown>) => valueDecoder(t, { structs })(v, 'x');

describe('the forms of args', () => {
  test('JSON values, JSON text, the raw form', () => {
    expect(normaliseArgs(undefined)).toEqual([]);
    expect(normaliseArgs(null)).toEqual([]);
    expect(normaliseArgs('')).toEqual([]);
    expect(normaliseArgs({ a: 1 })).toEqual({ a: 1 });
    expect(normaliseArgs([1, 2])).toEqual([1, 2]);
    expect(normaliseArgs(7)).toEqual([7]);
    expect(normaliseArgs(' {"to":"ab","amount":"5"} ')).toEqual({ to: 'ab', amount: '5' });
    expect(normaliseArgs('[1, 2]')).toEqual([1, 2]);
    // a number JSON cannot hold exactly stays its text
    expect(normaliseArgs('[123456789012345678901234567890]')).toEqual(['123456789012345678901234567890']);
    expect(normaliseArgs('(12345678901234567890123, "a,b\\"c", [1, 2], true, {"x": "}"}, ())')).toEqual(['12345678901234567890123', 'a,b"c', ['1', '2'], true, { x: '}' }, []]);
    expect(normaliseArgs('()')).toEqual([]);
  });

  test('what does not parse is an ArgumentError (BAD_ARGUMENTS)', () => {
    for (const text of ['(1,', '(1, {"x": })', '(1, {"x": 1)', 'not json', '5', '"x"', '{"a":', '[1,', '(1) x', '  ']) {
      expect(() => normaliseArgs(text)).toThrow(ArgumentError);
      expect(() => checkArgsText(text)).toThrow(ArgumentError);
    }
    expect(() => parseRawArgs('(1,')).toThrow(/do not parse at position 3/);
    expect(() => normaliseArgs('not json')).toThrow(/not valid JSON/);
    try {
      normaliseArgs('(');
    } catch (e) {
      expect((e as ArgumentError).code).toBe('BAD_ARGUMENTS');
    }
  });
});

describe('values', () => {
  test('integers: numbers, decimal, hex, scientific; ranges', () => {
    expect(dec(uint256, 5)).toBe(5n);
    expect(dec(uint256, 1e21)).toBe(10n ** 21n);
    expect(dec(uint256, '123456789012345678901234567890')).toBe(123456789012345678901234567890n);
    expect(dec(uint256, '0x10')).toBe(16n);
    expect(dec(uint256, '1.5e18')).toBe(1_500_000_000_000_000_000n);
    expect(dec(int8, '-128')).toBe(-128n);
    expect(() => dec(int8, 128)).toThrow(/128 is out of range for int8/);
    expect(() => dec(uint8, -1)).toThrow(/out of range for uint8/);
    expect(() => dec(uint256, 1.5)).toThrow(/expected uint256, got 1.5/);
    expect(() => dec(uint256, 'abc')).toThrow(/argument x: expected uint256, got "abc"/);
    expect(() => dec(uint256, '1e101')).toThrow(ArgumentError);
    expect(toBigInt('1.25e1')).toBeUndefined();
  });

  test('bools, addresses, strings, bytes', () => {
    expect(dec({ type: 'Bool' }, 'True')).toBe(true);
    expect(() => dec({ type: 'Bool' }, 1)).toThrow(/expected bool/);
    expect(dec({ type: 'Address' }, '0xAB')).toBe('0'.repeat(38) + 'ab');
    expect(dec({ type: 'Address' }, 'c0'.repeat(20))).toBe('c0'.repeat(20));
    expect(() => dec({ type: 'Address' }, 'c0'.repeat(21))).toThrow(/expected address/);
    expect(dec({ type: 'String' }, 12)).toBe('12');
    expect(dec({ type: 'Bytes', dynamic: true }, '0x0102')).toEqual(new Uint8Array([1, 2]));
    expect(dec({ type: 'Bytes', dynamic: true }, 'hi')).toEqual(new TextEncoder().encode('hi'));
    expect(dec({ type: 'Bytes', dynamic: false, bytes: 4 }, '0x0102')).toEqual(new Uint8Array([1, 2, 0, 0]));
    expect(() => dec({ type: 'Bytes', dynamic: false, bytes: 1 }, '0x0102')).toThrow(/expected bytes1/);
  });

  test('enums by name or index; decimals; accounts', () => {
    const color: XabiType = { type: 'Enum', typedef: 'Color', names: ['Red', 'Green'] };
    expect(dec(color, 'Green')).toBe(1n);
    expect(dec(color, 'Color.Red')).toBe(0n);
    expect(dec(color, '1')).toBe(1n);
    expect(() => dec(color, 2)).toThrow(/expected one of Color\.\{Red, Green\}/);
    expect(dec({ type: 'Decimal' }, '1.5')).toBe(15n * 10n ** 17n);
    expect(dec({ type: 'Account' }, 'ab:main')).toEqual({ address: '0'.repeat(38) + 'ab', chain: 'main' });
  });

  test('arrays and structs, also as strings holding their JSON', () => {
    const arr: XabiType = { type: 'Array', entry: uint256 };
    expect(dec(arr, [1, '2'])).toEqual([1n, 2n]);
    expect(dec(arr, '[1, "2"]')).toEqual([1n, 2n]);
    expect(() => dec({ type: 'Array', entry: uint256, length: 3 }, [1])).toThrow(/expected 3 elements \(uint256\[3\]\), got 1/);
    expect(() => dec(arr, '[1,')).toThrow(/expected uint256\[\]/);
    const types = { P: { type: 'Struct', fields: { b: { type: 'String', index: 1 }, a: { ...uint256, index: 0 } } } };
    const p: XabiType = { type: 'Struct', typedef: 'P' };
    expect(dec(p, { a: 1, b: 'x' }, types)).toEqual([1n, 'x']);
    expect(dec(p, [1, 'x'], types)).toEqual([1n, 'x']);
    expect(dec(p, '{"a": 1, "b": "x"}', types)).toEqual([1n, 'x']);
    expect(() => dec(p, { a: 1 }, types)).toThrow(/missing member b \(string\) of struct P/);
    expect(() => dec(p, { a: 1, b: 'x', c: 2 }, types)).toThrow(/struct P has no member c/);
    expect(() => dec(p, [1], types)).toThrow(/expected 2 members of struct P, got 1/);
    expect(() => dec(p, { a: 1, b: 'x' })).toThrow(/expected P/);
  });

  test('mappings: quoted string keys; a struct mapping member starts empty', () => {
    const m: XabiType = { type: 'Mapping', key: { type: 'String' }, value: uint256 };
    expect(dec(m, { "'alice'": 1, bob: '2' })).toEqual(
      new Map<unknown, unknown>([
        ['alice', 1n],
        ['bob', 2n],
      ]),
    );
    const types = { S: { type: 'Struct', fields: { n: { ...uint256, index: 0 }, m: { ...m, index: 1 } } } };
    expect(dec({ type: 'Struct', typedef: 'S' }, [5], types)).toEqual([5n, new Map()]);
    expect(dec({ type: 'Struct', typedef: 'S' }, { n: 5 }, types)).toEqual([5n, new Map()]);
  });
});

describe('a function’s arguments', () => {
  const params: ArgParam[] = [
    { name: 'to', type: { type: 'Address' } },
    { name: 'amount', type: uint256 },
  ];
  const d = argumentsDecoder(params, 'Token.transfer');

  test('named and positional', () => {
    expect(d.decode({ amount: '5', to: 'ab' })).toEqual(['0'.repeat(38) + 'ab', 5n]);
    expect(d.decode(['ab', 5])).toEqual(['0'.repeat(38) + 'ab', 5n]);
    expect(() => d.decode(['ab'])).toThrow('Token.transfer takes 2 arguments (address to, uint256 amount), got 1');
    expect(() => d.decode({ to: 'ab' })).toThrow('missing argument amount (uint256) of Token.transfer');
    expect(() => d.decode({ to: 'ab', amount: 1, x: 1 })).toThrow('Token.transfer has no parameter x');
  });

  test('overloads: by names or count, then the first whose arguments decode', () => {
    const f = [
      { id: 'f(uint256)', d: argumentsDecoder([{ name: 'a', type: uint256 }], 'f') },
      { id: 'f(string)', d: argumentsDecoder([{ name: 'a', type: { type: 'String' } }], 'f') },
      { id: 'f(uint256,uint256)', d: argumentsDecoder([{ name: 'a', type: uint256 }, { name: 'b', type: uint256 }], 'f') },
    ];
    const pick = (given: unknown) => chooseOverload('f', f, normaliseArgs(given), (c) => c.d).fn.id;
    expect(pick([1])).toBe('f(uint256)');
    expect(pick(['abc'])).toBe('f(string)');
    expect(pick({ a: 1, b: 2 })).toBe('f(uint256,uint256)');
    expect(() => pick([1, 2, 3])).toThrow('the arguments match no overload of f: f(a), f(a), f(a, b)');
    expect(() => pick({ a: [1], b: 2 })).toThrow(/argument a: expected uint256/);
  });
});
