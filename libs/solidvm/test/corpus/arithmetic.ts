import { call, fails, sol, type CorpusCase } from './types.js';

const U = (n: number) => `function f(uint${n} a, uint${n} b) public pure returns (uint${n}) { return a + b; }
function s(uint${n} a, uint${n} b) public pure returns (uint${n}) { return a - b; }
function m(uint${n} a, uint${n} b) public pure returns (uint${n}) { return a * b; }`;

export const cases: CorpusCase[] = [
  sol('uint8 add overflows', U(8), [call('f', [200, 55], '255'), fails('f', [200, 56], 'arithmetic overflow')]),
  sol('uint8 sub underflows', U(8), [call('s', [5, 5], '0'), fails('s', [4, 5], 'arithmetic overflow')]),
  sol('uint8 mul overflows', U(8), [call('m', [15, 17], '255'), fails('m', [16, 16], 'arithmetic overflow')]),
  sol('uint16 bounds', U(16), [call('f', [65000, 535], '65535'), fails('f', [65000, 536])]),
  sol('uint32 bounds', U(32), [call('m', [65536, 65535], '4294901760'), fails('m', [65536, 65536])]),
  sol('uint64 bounds', U(64), [call('f', ['18446744073709551615', 0], '18446744073709551615'), fails('f', ['18446744073709551615', 1])]),
  sol('uint128 bounds', U(128), [fails('m', ['340282366920938463463374607431768211455', 2])]),
  sol('uint256 add overflows', U(256), [
    call('f', ['115792089237316195423570985008687907853269984665640564039457584007913129639934', 1], '115792089237316195423570985008687907853269984665640564039457584007913129639935'),
    fails('f', ['115792089237316195423570985008687907853269984665640564039457584007913129639935', 1], 'arithmetic overflow'),
  ]),
  sol('uint256 sub underflow', U(256), [fails('s', [0, 1], 'arithmetic overflow')]),
  sol(
    'int8 bounds',
    `function f(int8 a, int8 b) public pure returns (int8) { return a + b; }
     function s(int8 a, int8 b) public pure returns (int8) { return a - b; }
     function neg(int8 a) public pure returns (int8) { return -a; }
     function d(int8 a, int8 b) public pure returns (int8) { return a / b; }`,
    [call('f', [100, 27], '127'), fails('f', [100, 28]), call('s', [-100, 28], '-128'), fails('s', [-100, 29]), call('neg', [-127], '127'), fails('neg', [-128]), fails('d', [-128, -1]), call('d', [-128, 1], '-128')],
  ),
  sol(
    'int256 min negation overflows',
    `function neg(int a) public pure returns (int) { return -a; }
     function mn() public pure returns (int) { return type(int).min; }`,
    [call('neg', [5], '-5'), call('mn', [], '-57896044618658097711785492504343953926634992332820282019728792003956564819968'), fails('neg', ['-57896044618658097711785492504343953926634992332820282019728792003956564819968'])],
  ),
  sol(
    'division rounds toward zero',
    `function d(int a, int b) public pure returns (int) { return a / b; }
     function r(int a, int b) public pure returns (int) { return a % b; }`,
    [call('d', [7, 2], '3'), call('d', [-7, 2], '-3'), call('d', [7, -2], '-3'), call('d', [-7, -2], '3'), call('r', [7, 3], '1'), call('r', [-7, 3], '-1'), call('r', [7, -3], '1'), call('r', [-7, -3], '-1')],
  ),
  sol('division by zero', `function d(uint a, uint b) public pure returns (uint) { return a / b; } function r(uint a, uint b) public pure returns (uint) { return a % b; }`, [
    fails('d', [1, 0], 'division by zero'),
    fails('r', [1, 0], 'division by zero'),
    call('d', [0, 5], '0'),
  ]),
  sol(
    'unchecked wraps',
    `function f(uint8 a, uint8 b) public pure returns (uint8) { unchecked { return a + b; } }
     function s(uint a, uint b) public pure returns (uint) { unchecked { return a - b; } }
     function m(int8 a, int8 b) public pure returns (int8) { unchecked { return a * b; } }
     function n(int8 a) public pure returns (int8) { unchecked { return -a; } }`,
    [call('f', [200, 100], '44'), call('s', [0, 1], '115792089237316195423570985008687907853269984665640564039457584007913129639935'), call('m', [100, 3], '44'), call('m', [-128, -1], '-128'), call('n', [-128], '-128')],
  ),
  sol(
    'unchecked increments',
    `function f() public pure returns (uint8 x) { x = 255; unchecked { x++; } }
     function g() public pure returns (uint8 x) { x = 255; x++; }
     function h() public pure returns (uint8 x) { x = 0; unchecked { --x; } }`,
    [call('f', [], '0'), fails('g', [], 'arithmetic overflow'), call('h', [], '255')],
  ),
  sol(
    'exponentiation',
    `function p(uint a, uint b) public pure returns (uint) { return a ** b; }
     function p8(uint8 a, uint8 b) public pure returns (uint8) { return a ** b; }
     function ps(int8 a, uint8 b) public pure returns (int8) { return a ** b; }
     function pu(uint8 a, uint8 b) public pure returns (uint8) { unchecked { return a ** b; } }`,
    [
      call('p', [2, 10], '1024'),
      call('p', [0, 0], '1'),
      call('p', [10, 77], '100000000000000000000000000000000000000000000000000000000000000000000000000000'),
      fails('p', [10, 78], 'arithmetic overflow'),
      fails('p', [2, 256]),
      call('p8', [2, 7], '128'),
      fails('p8', [2, 8]),
      call('ps', [-2, 7], '-128'),
      fails('ps', [2, 7]),
      call('pu', [2, 9], '0'),
      call('pu', [3, 5], '243'),
    ],
  ),
  sol(
    'shifts truncate',
    `function l(uint8 a, uint b) public pure returns (uint8) { return a << b; }
     function r(uint a, uint b) public pure returns (uint) { return a >> b; }
     function sr(int a, uint b) public pure returns (int) { return a >> b; }
     function big(uint a) public pure returns (uint) { return a << 300; }`,
    [call('l', [255, 1], '254'), call('l', [1, 8], '0'), call('r', [1024, 3], '128'), call('sr', [-7, 1], '-4'), call('sr', [-1, 255], '-1'), call('big', [1], '0')],
  ),
  sol(
    'bitwise operators',
    `function a(uint x, uint y) public pure returns (uint, uint, uint) { return (x & y, x | y, x ^ y); }
     function n(uint8 x) public pure returns (uint8) { return ~x; }
     function ni(int x) public pure returns (int) { return ~x; }`,
    [call('a', [12, 10], ['8', '14', '6']), call('n', [0], '255'), call('n', [170], '85'), call('ni', [0], '-1'), call('ni', [-5], '4')],
  ),
  sol(
    'conversions truncate',
    `function t8(uint x) public pure returns (uint8) { return uint8(x); }
     function ti(uint x) public pure returns (int8) { return int8(uint8(x)); }
     function tu(int x) public pure returns (uint) { return uint(x); }
     function w(uint8 x) public pure returns (uint) { return x; }
     function tu16(int16 x) public pure returns (uint16) { return uint16(x); }`,
    [call('t8', [257], '1'), call('t8', [511], '255'), call('ti', [200], '-56'), call('tu', [-1], '115792089237316195423570985008687907853269984665640564039457584007913129639935'), call('w', [255], '255'), call('tu16', [-2], '65534')],
  ),
  sol(
    'type min max',
    `function a() public pure returns (uint8, int8, uint16, int64) { return (type(uint8).max, type(int8).min, type(uint16).max, type(int64).max); }`,
    [call('a', [], ['255', '-128', '65535', '9223372036854775807'])],
  ),
  sol(
    'literals and units',
    `function a() public pure returns (uint, uint, uint, uint) { return (1 ether, 2 gwei, 1 days, 0xff); }
     function b() public pure returns (uint) { return 1e18 + 2 * 3 ** 2; }
     function c() public pure returns (uint) { return 2**255 - 1 + 2**255; }`,
    [call('a', [], ['1000000000000000000', '2000000000', '86400', '255']), call('b', [], '1000000000000000018'), call('c', [], '115792089237316195423570985008687907853269984665640564039457584007913129639935')],
  ),
  sol(
    'mixed widths widen',
    `function f(uint8 a, uint16 b) public pure returns (uint16) { return a + b; }
     function g(uint8 a, uint b) public pure returns (uint) { return a * b; }`,
    [call('f', [255, 65280], '65535'), fails('f', [255, 65281]), call('g', [255, 1000], '255000')],
  ),
  sol(
    'compound assignment',
    `function f(uint a) public pure returns (uint) { uint x = a; x += 5; x *= 3; x -= 1; x /= 2; x %= 7; x <<= 2; x |= 1; x ^= 3; x &= 0xff; return x; }
     function g() public pure returns (uint8) { uint8 x = 250; x += 10; return x; }`,
    [call('f', [10], '6'), fails('g', [], 'arithmetic overflow')],
  ),
  sol(
    'addmod mulmod',
    `function a(uint x, uint y, uint m) public pure returns (uint) { return addmod(x, y, m); }
     function b(uint x, uint y, uint m) public pure returns (uint) { return mulmod(x, y, m); }`,
    [
      call('a', ['115792089237316195423570985008687907853269984665640564039457584007913129639935', 2, 10], '7'),
      call('b', ['115792089237316195423570985008687907853269984665640564039457584007913129639935', 3, 7], '3'),
      fails('a', [1, 2, 0]),
    ],
  ),
  sol(
    'increment forms',
    `function f() public pure returns (uint, uint, uint, uint) { uint i = 5; uint a = i++; uint b = ++i; uint c = i--; uint d = --i; return (a, b, c, d); }`,
    [call('f', [], ['5', '7', '7', '5'])],
  ),
  sol(
    'signed comparisons',
    `function lt(int a, int b) public pure returns (bool) { return a < b; }
     function ge(int8 a, int8 b) public pure returns (bool) { return a >= b; }`,
    [call('lt', [-5, 3], 'true'), call('lt', [3, -5], 'false'), call('ge', [-128, -128], 'true'), call('ge', [-1, 0], 'false')],
  ),
  sol(
    'negative literal arithmetic',
    `function f() public pure returns (int) { int x = -3; return x * -4 + (-9) / 3; }`,
    [call('f', [], '9')],
  ),
  sol(
    'large products',
    `function f(uint a, uint b) public pure returns (uint) { return a * b / b; }`,
    [call('f', ['340282366920938463463374607431768211456', '340282366920938463463374607431768211455'], '340282366920938463463374607431768211456'), fails('f', ['340282366920938463463374607431768211456', '340282366920938463463374607431768211456'])],
  ),
  sol('int16 multiply', `function m(int16 a, int16 b) public pure returns (int16) { return a * b; }`, [call('m', [-181, 181], '-32761'), fails('m', [-182, 181]), call('m', [-256, 128], '-32768')]),
  sol('uint24 odd width', `function f(uint24 a) public pure returns (uint24) { return a + 1; }`, [call('f', [16777214], '16777215'), fails('f', [16777215])]),
  sol('int40 cast', `function f(int x) public pure returns (int40) { return int40(x); }`, [call('f', [549755813888], '-549755813888'), call('f', [-1], '-1')]),
  sol('exp of zero and one', `function f(uint e) public pure returns (uint, uint, uint) { return (0 ** e, 1 ** e, 2 ** 0); }`, [call('f', [0], ['1', '1', '1']), call('f', [1000], ['0', '1', '1'])]),
  sol('mod by negative', `function f(int8 a, int8 b) public pure returns (int8) { return a % b; }`, [call('f', [-128, -1], '0'), call('f', [127, -128], '127')]),
  sol('uint to int overflow cast', `function f(uint x) public pure returns (int) { return int(x); }`, [call('f', ['57896044618658097711785492504343953926634992332820282019728792003956564819968'], '-57896044618658097711785492504343953926634992332820282019728792003956564819968')]),
  sol('exponentiation is right-associative', `function f() public pure returns (uint, uint) { uint a = 2; uint b = 3; uint c = 2; return (2 ** 3 ** 2, a ** b ** c); }`, [call('f', [], ['512', '512'])]),
  sol('signed division overflow wraps in unchecked', `function f(int8 a, int8 b) public pure returns (int8) { unchecked { return a / b; } }`, [call('f', [-128, -1], '-128'), fails('f', [1, 0], 'division by zero')]),
  sol('signed shifts', `function f(int8 a, uint s) public pure returns (int8, int8) { return (a >> s, a << s); }`, [call('f', [-128, 1], ['-64', '0']), call('f', [-1, 300], ['-1', '0']), call('f', [-3, 1], ['-2', '-6']), call('f', [64, 1], ['32', '-128'])]),
  sol('comparisons across widths', `function f(uint8 a, uint256 b, int8 c, int256 d) public pure returns (bool, bool) { return (a < b, c > d); }`, [call('f', [255, 256, -1, -2], ['true', 'true'])]),
  sol('post-increment of a mapping value returns the old value', `mapping(uint => uint) m; function f() public returns (uint, uint, uint) { uint a = m[1]++; uint b = ++m[1]; return (a, b, m[1]); }`, [call('f', [], ['0', '2', '2'])]),
  sol('ternary of literals takes a common type', `function f(bool c) public pure returns (uint) { uint16 x = c ? 1 : 300; return x; }`, [call('f', [true], '1'), call('f', [false], '300')]),
  sol('delete of a memory struct resets it', `struct P { uint a; string b; } function f() public pure returns (uint, string memory) { P memory p = P(1, "x"); delete p; return (p.a, p.b); }`, [call('f', [], ['0', ''])]),
  sol('nested tuple assignment', `function f() public pure returns (uint, uint, uint) { uint a; uint b; uint c; (a, (b, c)) = (1, (2, 3)); return (a, b, c); }`, [call('f', [], ['1', '2', '3'])]),
  sol('function arguments are evaluated left to right', `uint[] log; function a() internal returns (uint) { log.push(1); return 1; } function b() internal returns (uint) { log.push(2); return 2; } function g(uint x, uint y) internal pure returns (uint) { return x * 10 + y; }
  function f() public returns (uint, uint[] memory) { uint t = g(a(), b()); return (t, log); }`, [call('f', [], ['12', '["1","2"]'])]),
  sol('operands of a binary operator are evaluated left to right', `uint[] log; function a() internal returns (uint) { log.push(1); return 1; } function b() internal returns (uint) { log.push(2); return 2; }
  function f() public returns (uint, uint[] memory) { uint s = a() + b(); return (s, log); }`, [call('f', [], ['3', '["1","2"]'])], {
    evm: "the language leaves the order unspecified; solc's legacy code generator evaluates the right operand first, SolidVM reads left to right",
  }),
  sol('compound assignment evaluates its target once', `uint[] xs; uint i; function next() internal returns (uint) { return i++; } function f() public returns (uint, uint, uint) { xs.push(1); xs.push(1); xs[next()] += 5; return (xs[0], xs[1], i); }`, [call('f', [], ['6', '1', '1'])]),
  sol('modulo and division of negative literals', `function f() public pure returns (int, int, int) { int a = -7; return (a % 3, a / 3, -a % -3); }`, [call('f', [], ['-1', '-2', '1'])]),
  sol('bitwise not of small signed and unsigned types', `function f(int8 a, uint16 b) public pure returns (int8, uint16) { return (~a, ~b); }`, [call('f', [0, 0], ['-1', '65535']), call('f', [-128, 65535], ['127', '0'])]),
  // Rational constants and scientific literals (issue 23 §5). Solidity docs,
  // "Types › Rational and Integer Literals": "Scientific notation in the form
  // of 2e10 is also supported … MeE is equivalent to M * 10**E"; "Number
  // literal expressions retain arbitrary precision until they are converted
  // to a non-literal type … (2**800 + 1) - 2**800 results in the constant 1
  // … .5 * 8 results in the integer 4"; "Units and Globally Available
  // Variables › Ether Units": "2 ether == 2000 finney" style equalities.
  sol('rational constants: fractions inside a literal expression are exact', `function f() public pure returns (uint, uint, uint, int, uint, uint) { return (15e-1 * 2, 7 / 2 * 2, (1 / 3) * 3 + 1, -15e-1 * 4, .5 * 8, 2.5 ether); }`, [
    call('f', [], ['3', '7', '2', '-6', '4', '2500000000000000000']),
  ]),
  sol('scientific literals', `function f() public pure returns (uint, uint, uint, uint, uint8, uint) { return (2.5e3, 1e-3 * 1e3, 1E18, 125e-2 * 4, 2e2, 1e77); }
     function g() public pure returns (bool, bool, bool, bool) { return (1e18 == 1 ether, 1 ether == 1e9 gwei, (2e-1 + 3e-1) * 2 == 1, 1 days == 864e2); }`, [
    call('f', [], ['2500', '1', '1000000000000000000', '5', '200', '1' + '0'.repeat(77)]),
    call('g', [], ['true', 'true', 'true', 'true']),
  ]),
  sol('rational constants: comparisons, remainders, constants and array lengths', `uint constant HALF_DOZEN = 0.5 * 12; uint[15e-1 * 2] a; function f() public view returns (uint, uint, uint, bool, uint) { return (HALF_DOZEN, 5.5 % 2 * 2, 2 ** -1 * 4, (2 ** 100 + 1) - 2 ** 100 == 1, a.length); }`, [
    call('f', [], ['6', '3', '2', 'true', '3']),
  ]),
  sol('uint max plus one in unchecked and checked', `function f(bool u) public pure returns (uint r) { uint m = type(uint).max; if (u) { unchecked { r = m + 1; } } else r = m + 1; }`, [call('f', [true], '0'), fails('f', [false], 'arithmetic overflow')]),
  sol('exponent overflow of signed bases', `function f(int16 a, uint8 e) public pure returns (int16) { return a ** e; }`, [call('f', [-2, 15], '-32768'), fails('f', [2, 15]), call('f', [-1, 255], '-1'), fails('f', [-2, 16])]),
  sol('loop with a decrementing unsigned counter', `function f(uint n) public pure returns (uint s) { for (uint i = n; i > 0; i--) s += i; }`, [call('f', [4], '10'), call('f', [0], '0')]),
  sol('while with a complex condition and early exits', `function f(uint[] memory a) public pure returns (uint i) { while (i < a.length && a[i] != 0) { if (a[i] > 100) return 999; i++; } }`, [call('f', [[1, 2, 0, 4]], '2'), call('f', [[1, 200]], '999'), call('f', [[]], '0')]),
];
