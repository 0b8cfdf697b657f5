// The ABI codec and the JSON argument forms, with ethers v6 as the outside
// oracle: our encoding of the same values must be byte-identical to its, and
// ours must decode what it encodes.
import { AbiCoder, Interface, id } from 'ethers';
import { abiDecode, abiEncode, abiType, encodeArguments, selectorOf, type AbiParam } from '../src/index.js';
import { AbiDecodeError } from '../src/abi-codec.js';
import { normaliseArgs, toAbiValue } from '../src/args.js';
import { ExecFailure } from '../src/errors.js';

const coder = AbiCoder.defaultAbiCoder();
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const p = (type: string, components?: AbiParam[], name = ''): AbiParam => (components ? { name, type, components } : { name, type });

describe('encoding agrees with ethers', () => {
  const ADDR = 'a11ce00000000000000000000000000000000001';
  const cases: Array<{ what: string; params: AbiParam[]; json: unknown[]; ethers: unknown[] }> = [
    { what: 'integers of every width and sign', params: [p('uint8'), p('int8'), p('int256'), p('uint256')], json: [255, -128, '-123456789012345678901234567890', '0xff'], ethers: [255, -128, -123456789012345678901234567890n, 255] },
    { what: 'address, bool, bytes4', params: [p('address'), p('bool'), p('bytes4')], json: ['0x' + ADDR.toUpperCase(), 'true', '0xdeadbeef'], ethers: ['0x' + ADDR, true, '0xdeadbeef'] },
    { what: 'dynamic bytes and strings (multi-word, UTF-8)', params: [p('bytes'), p('string'), p('string')], json: ['0x' + 'ab'.repeat(70), 'héllo wörld ✓', ''], ethers: ['0x' + 'ab'.repeat(70), 'héllo wörld ✓', ''] },
    { what: 'dynamic and fixed arrays', params: [p('uint256[]'), p('bool[3]'), p('string[]')], json: [[1, 2, 3], [true, false, true], ['a', 'bc']], ethers: [[1, 2, 3], [true, false, true], ['a', 'bc']] },
    { what: 'nested arrays', params: [p('uint16[][]'), p('bytes32[2][]')], json: [[[1], [], [2, 3]], [['0x' + '11'.repeat(32), '0x' + '22'.repeat(32)]]], ethers: [[[1], [], [2, 3]], [['0x' + '11'.repeat(32), '0x' + '22'.repeat(32)]]] },
    {
      what: 'structs by member name, arrays of structs',
      params: [p('tuple', [p('uint256', undefined, 'id'), p('string', undefined, 'label')], 'item'), p('tuple[]', [p('address', undefined, 'who'), p('uint8[]', undefined, 'xs')], 'list')],
      json: [{ id: 7, label: 'seven' }, [{ who: ADDR, xs: [1, 2] }, { who: ADDR, xs: [] }]],
      ethers: [[7, 'seven'], [['0x' + ADDR, [1, 2]], ['0x' + ADDR, []]]],
    },
  ];
  for (const c of cases) {
    test(c.what, () => {
      const ours = hex(encodeArguments(c.params, c.json, 'f'));
      const theirs = coder.encode(c.params.map((x) => (x.type.startsWith('tuple') ? `tuple(${x.components!.map((y) => y.type).join(',')})${x.type.slice(5)}` : x.type)), c.ethers).slice(2);
      expect(ours).toBe(theirs);
      // and what we encode decodes back to the same bytes
      const types = c.params.map((x) => abiType(x));
      const decoded = abiDecode(types, Buffer.from(ours, 'hex'));
      expect(hex(abiEncode(types, decoded))).toBe(ours);
    });
  }

  test('random uint/int/string/array values (seeded)', () => {
    let seed = 42;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const bigRand = (bits: number) => {
      let v = 0n;
      for (let i = 0; i < bits; i += 30) v = (v << 30n) | BigInt(Math.floor(rnd() * 2 ** 30));
      return BigInt.asUintN(bits, v);
    };
    for (let i = 0; i < 200; i++) {
      const bits = 8 * (1 + Math.floor(rnd() * 32));
      const u = bigRand(bits);
      const s = BigInt.asIntN(bits, bigRand(bits));
      const str = Array.from({ length: Math.floor(rnd() * 80) }, () => String.fromCharCode(32 + Math.floor(rnd() * 90))).join('');
      const arr = Array.from({ length: Math.floor(rnd() * 5) }, () => bigRand(64));
      const params = [p(`uint${bits}`), p(`int${bits}`), p('string'), p('uint64[]')];
      const ours = hex(encodeArguments(params, [u.toString(), s.toString(), str, arr.map(String)], 'f'));
      expect(ours).toBe(coder.encode(params.map((x) => x.type), [u, s, str, arr]).slice(2));
    }
  });

  test('selectors are Keccak-256 of the canonical signature, tuples spelled out', () => {
    const fn = { name: 'submit', inputs: [p('tuple[]', [p('uint256'), p('string')]), p('address')] };
    expect(selectorOf(fn)).toBe(id('submit((uint256,string)[],address)').slice(2, 10));
    const iface = new Interface(['function transfer(address to, uint256 amount)']);
    expect(selectorOf({ name: 'transfer', inputs: [p('address'), p('uint256')] })).toBe(iface.getFunction('transfer')!.selector.slice(2));
  });

  test('ethers-encoded data decodes to the values', () => {
    const data = coder.encode(['int24', 'bytes', 'tuple(bool,string)[]'], [-5, '0x0102', [[true, 'x']]]);
    const [n, b, list] = abiDecode([abiType(p('int24')), abiType(p('bytes')), abiType(p('tuple[]', [p('bool'), p('string')]))], Buffer.from(data.slice(2), 'hex'));
    expect(n).toBe(-5n);
    expect(hex(b as Uint8Array)).toBe('0102');
    expect(list).toEqual([[true, 'x']]);
  });
});

describe('malformed data and bad arguments', () => {
  test('truncated or hostile data is an AbiDecodeError, not a crash or a huge allocation', () => {
    expect(() => abiDecode([abiType(p('uint256'))], new Uint8Array(31))).toThrow(AbiDecodeError);
    const hostile = new Uint8Array(64);
    hostile[31] = 32;
    hostile.fill(0xff, 32); // length 2^256-1
    expect(() => abiDecode([abiType(p('string'))], hostile)).toThrow(AbiDecodeError);
    expect(() => abiDecode([abiType(p('uint8[]'))], hostile)).toThrow(AbiDecodeError);
  });

  const fails = (param: AbiParam, v: unknown) => {
    try {
      toAbiValue(param, v, param.name);
    } catch (e) {
      expect(e).toBeInstanceOf(ExecFailure);
      expect((e as ExecFailure).code).toBe('BAD_ARGUMENTS');
      return (e as Error).message;
    }
    throw new Error('accepted');
  };

  test('messages name the parameter and the expected type', () => {
    expect(fails(p('uint8', undefined, 'small'), 256)).toBe('argument small: 256 is out of range for uint8');
    expect(fails(p('uint256', undefined, 'amount'), 'abc')).toBe('argument amount: expected uint256, got "abc"');
    expect(fails(p('uint256', undefined, 'amount'), 1.5)).toBe('argument amount: expected uint256, got 1.5');
    expect(fails(p('address', undefined, 'to'), 'xyz')).toContain('argument to: expected address');
    expect(fails(p('uint256[2]', undefined, 'pair'), [1])).toBe('argument pair: expected 2 elements (uint256[2]), got 1');
    expect(fails(p('tuple', [p('uint256', undefined, 'a')], 's'), { b: 1 })).toContain('has no member b');
  });

  test('accepted integer forms: numbers, decimal and hex strings, 1e18', () => {
    const u = p('uint256', undefined, 'x');
    expect(toAbiValue(u, 5, 'x')).toBe(5n);
    expect(toAbiValue(u, '123456789012345678901234567890', 'x')).toBe(123456789012345678901234567890n);
    expect(toAbiValue(u, '0x10', 'x')).toBe(16n);
    expect(toAbiValue(u, '1.5e18', 'x')).toBe(1_500_000_000_000_000_000n);
    // an integral JSON number, however large: lossless JSON keeps any number it cannot hold exactly as text
    expect(toAbiValue(u, 2 ** 60, 'x')).toBe(2n ** 60n);
  });

  test('enum arguments by member name', () => {
    const e: AbiParam = { name: 'c', type: 'uint8', internalType: 'enum Shop.Color' };
    expect(toAbiValue(e, 'Green', 'c', (n) => (n === 'Color' ? ['Red', 'Green'] : undefined))).toBe(1n);
    expect(toAbiValue(e, 'Color.Red', 'c', () => ['Red', 'Green'])).toBe(0n);
  });

  test("argument containers: JSON text, and SolidVM's raw form (1,\"x\",[1,2])", () => {
    expect(normaliseArgs('{"to":"ab","amount":"5"}')).toEqual({ to: 'ab', amount: '5' });
    expect(normaliseArgs('[1, 2]')).toEqual([1, 2]);
    expect(normaliseArgs('(12345678901234567890123, "a,b\\"c", [1, 2], true, {"x": "}"}, ())')).toEqual(['12345678901234567890123', 'a,b"c', ['1', '2'], true, { x: '}' }, []]);
    expect(normaliseArgs('()')).toEqual([]);
    expect(() => normaliseArgs('(1,')).toThrow(/do not parse at position 3/);
    expect(() => normaliseArgs('(1, {"x": })')).toThrow(ExecFailure);
    expect(() => normaliseArgs('not json')).toThrow(/not valid JSON/);
  });
});
