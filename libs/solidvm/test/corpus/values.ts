// Value types beyond arithmetic: conversions between integers, bytes and
// addresses as Solidity 0.8 truncates and pads them, fixed bytes operators,
// bytes and string in storage and memory, enums.
import { call, fails, sol, type CorpusCase } from './types.js';

export const cases: CorpusCase[] = [
  sol(
    'signed narrowing keeps the low bits',
    `function f(int x) public pure returns (int8, int16, uint8) { return (int8(x), int16(x), uint8(uint(x))); }`,
    [call('f', [300], ['44', '300', '44']), call('f', [-129], ['127', '-129', '127']), call('f', [-1], ['-1', '-1', '255'])],
  ),
  sol('same-width sign changes reinterpret', `function f(int8 a, uint8 b) public pure returns (uint8, int8) { return (uint8(a), int8(b)); }`, [call('f', [-128, 128], ['128', '-128']), call('f', [-1, 255], ['255', '-1'])]),
  sol('widening a signed value sign-extends', `function f(int8 a) public pure returns (int256, int64) { return (int256(a), int64(a)); }`, [call('f', [-5], ['-5', '-5'])]),
  sol(
    'bytesN narrowing keeps the left bytes, widening pads right',
    `function f(bytes4 x) public pure returns (bytes2, bytes8, bytes32) { return (bytes2(x), bytes8(x), bytes32(x)); }`,
    [call('f', ['0xaabbccdd'], ['aabb', 'aabbccdd00000000', 'aabbccdd' + '0'.repeat(56)])],
  ),
  sol('uint to bytesN and back', `function f(uint32 x) public pure returns (bytes4, uint32, uint8) { bytes4 b = bytes4(x); return (b, uint32(b), uint8(b[3])); }`, [call('f', [0x01020304], ['01020304', '16909060', '4'])]),
  sol('address to and from bytes20 and uint160', `function f(address a) public pure returns (bytes20, uint160, address) { return (bytes20(a), uint160(a), address(bytes20(a))); }`, [
    call('f', ['0x00000000000000000000000000000000000000ff'], ['00000000000000000000000000000000000000ff', '255', '00000000000000000000000000000000000000ff']),
  ]),
  sol('address literal and comparison', `function f(address a) public pure returns (bool, bool) { return (a == 0x00000000000000000000000000000000DeaDBeef, a < address(0x1000)); }`, [
    call('f', ['0x00000000000000000000000000000000deadbeef'], ['true', 'false']),
    call('f', ['0x0000000000000000000000000000000000000fff'], ['false', 'true']),
  ]),
  sol(
    'fixed bytes bitwise operators and shifts',
    `function f(bytes2 a, bytes2 b) public pure returns (bytes2, bytes2, bytes2, bytes2, bytes2, bytes2) { return (a & b, a | b, a ^ b, ~a, a << 4, a >> 12); }`,
    [call('f', ['0xf0f0', '0x0ff0'], ['00f0', 'fff0', 'ff00', '0f0f', '0f00', '000f'])],
  ),
  sol('fixed bytes compare as unsigned numbers', `function f(bytes1 a, bytes1 b) public pure returns (bool, bool, bool) { return (a < b, a == b, a > b); }`, [call('f', ['0x7f', '0x80'], ['true', 'false', 'false']), call('f', ['0xff', '0xff'], ['false', 'true', 'false'])]),
  sol('fixed bytes index out of range', `function f(bytes4 x, uint i) public pure returns (bytes1) { return x[i]; }`, [call('f', ['0x01020304', 3], '04'), fails('f', ['0x01020304', 4], 'array index out of bounds')]),
  sol('bytes1 from uint8 and characters', `function f(uint8 n) public pure returns (bytes1, bool) { bytes1 b = bytes1(n); return (b, b == "A"); }`, [call('f', [65], ['41', 'true']), call('f', [66], ['42', 'false'])]),
  sol(
    'storage bytes push, pop and index write',
    `bytes data; function f() public returns (uint, bytes memory) { data.push(0x61); data.push(0x62); data.push(0x63); data.pop(); data[0] = 0x7a; return (data.length, data); }`,
    [call('f', [], ['2', '7a62'])],
  ),
  sol('storage string through bytes', `string s = "hello"; function f() public returns (string memory, uint) { bytes(s)[0] = "j"; return (s, bytes(s).length); }`, [call('f', [], ['jello', '5'])]),
  sol('long storage strings survive', `string s; function set(string memory v) public { s = v; } function get() public view returns (string memory, uint) { return (s, bytes(s).length); }`, [
    call('set', ['x'.repeat(100)], []),
    call('get', [], ['x'.repeat(100), '100']),
    call('set', ['short'], []),
    call('get', [], ['short', '5']),
  ]),
  sol('utf-8 strings pass through', `function f(string memory s) public pure returns (string memory, uint) { return (string.concat(s, unicode"✓"), bytes(s).length); }`, [call('f', ['naïve'], ['naïve✓', '6'])]),
  sol('hex and unicode literals', `function f() public pure returns (bytes memory, string memory, bytes2) { return (hex"00ff", unicode"é", hex"beef"); }`, [call('f', [], ['00ff', 'é', 'beef'])]),
  sol('bytes memory from string and back', `function f(string memory s) public pure returns (string memory) { bytes memory b = bytes(s); b[0] = "X"; return string(b); }`, [call('f', ['abc'], 'Xbc')]),
  sol('enum bounds and conversions', `enum E { A, B, C } function f() public pure returns (E, E, uint8) { return (type(E).min, type(E).max, uint8(E.C)); }`, [call('f', [], ['0', '2', '2'])]),
  sol('enum ordering', `enum E { Low, Mid, High } function f(E a, E b) public pure returns (bool, bool) { return (a < b, a == b); }`, [call('f', [0, 2], ['true', 'false']), call('f', [1, 1], ['false', 'true'])]),
  sol('enum keys and values in storage', `enum S { None, Active, Closed } mapping(S => uint) counts; S[] history; function f(S s) public returns (uint, uint) { counts[s]++; history.push(s); return (counts[s], history.length); } function last() public view returns (S) { return history[history.length - 1]; }`, [
    call('f', [1], ['1', '1']),
    call('f', [1], ['2', '2']),
    call('f', [2], ['1', '3']),
    call('last', [], '2'),
  ]),
  sol('conversion of a negative literal through a cast', `function f() public pure returns (uint8, int8) { return (uint8(int8(-1)), int8(int16(200))); }`, [call('f', [], ['255', '-56'])]),
  sol('max values survive round trips', `function f() public pure returns (uint256, int256) { uint256 a = type(uint256).max; int256 b = type(int256).max; return (uint256(int256(int128(type(int128).max))) , int256(uint256(b))); }`, [
    call('f', [], ['170141183460469231731687303715884105727', '57896044618658097711785492504343953926634992332820282019728792003956564819967']),
  ]),
  sol('booleans: no conversion, only logic', `function f(uint a) public pure returns (bool, bool) { bool b = a != 0; return (b, !b == (a == 0)); }`, [call('f', [0], ['false', 'true']), call('f', [5], ['true', 'true'])]),
  sol('user-defined value types in storage', `type Id is uint64; Id last; function next() public returns (uint64) { last = Id.wrap(Id.unwrap(last) + 1); return Id.unwrap(last); }`, [call('next', [], '1'), call('next', [], '2')]),
  sol('constants and immutables in expressions', `uint constant A = 2 ** 10; bytes32 constant H = keccak256("x"); uint immutable B; constructor() { B = A * 2; } function f() public view returns (uint, bool) { return (B, H == keccak256(bytes("x"))); }`, [call('f', [], ['2048', 'true'])]),
  sol('pure code may read an immutable with an initialiser', `uint immutable x = 6; function f() public pure returns (uint) { return x * 7; }`, [call('f', [], '42')]),
  sol('exact literal arithmetic beyond 256 bits', `function f() public pure returns (uint) { return (2 ** 300) / (2 ** 290); }`, [call('f', [], '1024')]),
  sol('scientific notation and underscores', `function f() public pure returns (uint, uint) { return (2.5e3, 1_000_000); }`, [call('f', [], ['2500', '1000000'])]),
];
