// abi.encode / abi.encodePacked / abi.decode with Solidity's layouts: the
// lengths and bytes here are checked against solc's on the EVM.
import { call, fails, sol, type CorpusCase } from './types.js';

export const cases: CorpusCase[] = [
  sol('encode: static values take a word each', `function f() public pure returns (bytes memory) { return abi.encode(uint8(1), true, address(0x10), bytes2(0xabcd)); }`, [
    call('f', [], '0'.repeat(63) + '1' + '0'.repeat(63) + '1' + '0'.repeat(62) + '10' + 'abcd' + '0'.repeat(60)),
  ]),
  sol('encode: negative integers are two\'s complement words', `function f() public pure returns (bytes memory) { return abi.encode(int8(-1)); }`, [call('f', [], 'f'.repeat(64))]),
  sol('encode: dynamic values go to the tail', `function f() public pure returns (bytes memory) { return abi.encode(uint(1), "ab"); }`, [
    call('f', [], '0'.repeat(63) + '1' + '0'.repeat(62) + '40' + '0'.repeat(63) + '2' + '6162' + '0'.repeat(60)),
  ]),
  sol('encode: arrays, fixed and dynamic', `function f() public pure returns (uint, uint, uint) { uint[2] memory a = [uint(1), 2]; uint[] memory b = new uint[](2); string[] memory c = new string[](1); c[0] = "x"; return (abi.encode(a).length, abi.encode(b).length, abi.encode(c).length); }`, [
    call('f', [], ['64', '128', '160']),
  ]),
  sol('encodePacked: values at their own width', `function f() public pure returns (bytes memory) { return abi.encodePacked(uint16(0x0102), int8(-2), true, address(0x11), bytes3(0x616263), "de", hex"ff"); }`, [
    call('f', [], '0102' + 'fe' + '01' + '0'.repeat(38) + '11' + '616263' + '6465' + 'ff'),
  ]),
  sol('encodePacked: array elements are padded to words', `function f() public pure returns (uint) { uint8[] memory a = new uint8[](3); return abi.encodePacked(a).length; }`, [call('f', [], '96')]),
  sol('encodePacked collisions that encode avoids', `function f() public pure returns (bool, bool) { return (keccak256(abi.encodePacked("a", "bc")) == keccak256(abi.encodePacked("ab", "c")), keccak256(abi.encode("a", "bc")) == keccak256(abi.encode("ab", "c"))); }`, [call('f', [], ['true', 'false'])]),
  sol('decode: several types at once', `function f(bytes32 h, int16 i, string memory s, address a) public pure returns (bytes32, int16, string memory, address) { return abi.decode(abi.encode(h, i, s, a), (bytes32, int16, string, address)); }`, [
    call('f', ['0x' + '12'.repeat(32), -300, 'hé', '0x00000000000000000000000000000000000000aa'], ['12'.repeat(32), '-300', 'hé', '00000000000000000000000000000000000000aa']),
  ]),
  sol('decode: a struct', `struct P { uint a; string b; uint[] c; } function f() public pure returns (uint, string memory, uint) { P memory p = P(1, "x", new uint[](2)); p.c[1] = 5; P memory q = abi.decode(abi.encode(p), (P)); return (q.a, q.b, q.c[1]); }`, [call('f', [], ['1', 'x', '5'])]),
  sol('decode: bytes and fixed arrays', `function f() public pure returns (bytes memory, uint) { uint[3] memory a = [uint(7), 8, 9]; (bytes memory b, uint[3] memory c) = abi.decode(abi.encode(hex"0102", a), (bytes, uint[3])); return (b, c[2]); }`, [call('f', [], ['0102', '9'])]),
  sol('decode: data too short reverts', `function f(bytes memory b) public pure returns (uint) { return abi.decode(b, (uint)); }`, [call('f', ['0x' + '00'.repeat(31) + '07'], '7'), fails('f', ['0x0102'])]),
  sol('decode: a value out of range for the type reverts', `function f() public pure returns (uint8) { return abi.decode(abi.encode(uint(256)), (uint8)); }`, [fails('f', [])]),
  sol('decode: a bool that is not 0 or 1 reverts', `function f() public pure returns (bool) { return abi.decode(abi.encode(uint(2)), (bool)); }`, [fails('f', [])]),
  sol('encode then hash matches across contracts', ``, [call('f', [], 'true')], {
    src: `contract D { function h(uint a, string memory b) public pure returns (bytes32) { return keccak256(abi.encode(a, b)); } }\ncontract C { D d = new D(); function f() public view returns (bool) { return d.h(1, "x") == keccak256(abi.encode(uint(1), "x")); } }`,
  }),
  sol('abi.encode of an empty list', `function f() public pure returns (uint) { return abi.encode().length; }`, [call('f', [], '0')]),
];
