// Storage references alias, memory values copy: the data-location rules of
// Solidity 0.8 for structs and arrays, in storage, memory and across calls.
import { call, fails, sol, type CorpusCase } from './types.js';

export const cases: CorpusCase[] = [
  sol('a storage reference into a mapping aliases', `struct S { uint a; uint[] xs; } mapping(uint => S) m; function f() public returns (uint, uint) { S storage s = m[1]; s.a = 4; s.xs.push(9); return (m[1].a, m[1].xs[0]); }`, [call('f', [], ['4', '9'])]),
  sol('a memory copy of a storage array does not alias', `uint[] a; function f() public returns (uint, uint) { a.push(1); uint[] memory m = a; m[0] = 9; return (a[0], m[0]); }`, [call('f', [], ['1', '9'])]),
  sol('memory arrays assigned to each other alias', `function f() public pure returns (uint) { uint[] memory a = new uint[](1); uint[] memory b = a; b[0] = 5; return a[0]; }`, [call('f', [], '5')]),
  sol('a storage reference can be rebound', `uint[] a; uint[] b; function f() public returns (uint, uint) { uint[] storage r = a; r.push(1); r = b; r.push(2); r.push(3); return (a.length, b.length); }`, [call('f', [], ['1', '2'])]),
  sol('assigning an array element copies the struct', `struct P { uint v; } P[] ps; function f() public returns (uint, uint) { ps.push(P(1)); ps.push(P(2)); ps[0] = ps[1]; ps[1].v = 7; return (ps[0].v, ps[1].v); }`, [call('f', [], ['2', '7'])]),
  sol('delete through a storage reference', `struct P { uint v; string s; } P[] ps; function f() public returns (uint, string memory, uint) { ps.push(P(3, "x")); P storage p = ps[0]; delete p.s; p.v++; return (ps[0].v, ps[0].s, ps.length); }`, [call('f', [], ['4', '', '1'])]),
  sol('a struct copied out of storage is independent', `struct P { uint v; uint[] xs; } P p; function f() public returns (uint, uint, uint) { p.v = 1; p.xs.push(1); P memory c = p; c.v = 2; c.xs[0] = 2; return (p.v, p.xs[0], c.xs[0]); }`, [call('f', [], ['1', '1', '2'])]),
  sol('a memory struct written to storage twice makes two copies', `struct P { uint v; } P a; P b; function f() public returns (uint, uint) { P memory m = P(1); a = m; m.v = 2; b = m; a.v += 10; return (a.v, b.v); }`, [call('f', [], ['11', '2'])]),
  sol('a nested memory struct is a reference inside its parent', `struct I { uint v; } struct O { I i; } function f() public pure returns (uint, uint) { O memory o; I memory i = o.i; i.v = 5; O memory p = o; p.i.v += 1; return (o.i.v, i.v); }`, [call('f', [], ['6', '6'])]),
  sol('storage struct members passed to an internal function by reference', `struct Acc { uint bal; } mapping(address => Acc) accs; function credit(Acc storage a, uint v) internal { a.bal += v; } function f() public returns (uint) { credit(accs[msg.sender], 5); credit(accs[msg.sender], 6); return accs[msg.sender].bal; }`, [call('f', [], '11')]),
  sol('memory parameters of internal functions alias, value types copy', `struct P { uint v; } function g(P memory p, uint n) internal pure { p.v = 9; n = 9; } function f() public pure returns (uint, uint) { P memory p = P(1); uint n = 1; g(p, n); return (p.v, n); }`, [call('f', [], ['9', '1'])]),
  sol('an external call copies its arguments', ``, [call('f', [], ['1', '2'])], {
    src: `struct P { uint v; }\ncontract D { function g(P memory p) public pure returns (uint) { p.v = 2; return p.v; } }\ncontract C { D d = new D(); function f() public view returns (uint, uint) { P memory p = P(1); uint r = d.g(p); return (p.v, r); } }`,
  }),
  sol('a fixed-size memory array copies into storage', `uint[3] s; function f() public returns (uint, uint) { uint[3] memory m = [uint(1), 2, 3]; s = m; m[0] = 9; return (s[0], m[0]); }`, [call('f', [], ['1', '9'])]),
  sol('fixed-size arrays of arrays index outer last', `uint[2][3] grid; function f() public returns (uint, uint, uint) { grid[2][1] = 7; return (grid.length, grid[0].length, grid[2][1]); }`, [call('f', [], ['3', '2', '7']), call('f', [], ['3', '2', '7'])]),
  sol('fixed-size memory arrays start zeroed', `function f() public pure returns (uint, bool, address) { uint[4] memory a; bool[2] memory b; address[1] memory c; return (a[3], b[1], c[0]); }`, [call('f', [], ['0', 'false', '0'.repeat(40)])]),
  sol('a struct holding a fixed array', `struct S { uint[3] xs; uint n; } S s; function f() public returns (uint, uint) { s.xs[2] = 4; s.n = s.xs.length; S memory m = s; return (m.xs[2], m.n); }`, [call('f', [], ['4', '3'])]),
  sol('mapping of arrays of structs', `struct P { uint v; } mapping(address => P[]) m; function add(uint v) public returns (uint) { m[msg.sender].push(P(v)); return m[msg.sender].length; } function sum() public view returns (uint s) { P[] storage ps = m[msg.sender]; for (uint i = 0; i < ps.length; i++) s += ps[i].v; }`, [
    call('add', [2], '1'),
    call('add', [3], '2'),
    call('sum', [], '5'),
  ]),
  sol('an array of arrays copied from storage to memory', `uint[][] g; function f() public returns (uint, uint) { g.push(); g[0].push(1); g[0].push(2); uint[][] memory m = g; m[0][0] = 9; return (g[0][0], m[0][1]); }`, [call('f', [], ['1', '2'])]),
  sol('returning a storage struct returns a copy', `struct P { uint v; } P p; function get() internal view returns (P memory) { return p; } function f() public returns (uint, uint) { p.v = 1; P memory c = get(); c.v = 5; return (p.v, c.v); }`, [call('f', [], ['1', '5'])]),
  sol('pop after a reference was taken', `uint[] a; function f() public returns (uint) { a.push(1); a.push(2); uint[] storage r = a; a.pop(); return r.length; }`, [call('f', [], '1')]),
  sol('delete of a struct with a nested mapping leaves the mapping', `struct S { uint n; mapping(uint => uint) m; } S s; function f() public returns (uint, uint) { s.n = 1; s.m[1] = 2; delete s; return (s.n, s.m[1]); }`, [call('f', [], ['0', '2'])]),
  sol('push to a memory array is not allowed in Solidity; a new array is', `function f(uint n) public pure returns (uint[] memory a) { a = new uint[](n); for (uint i = 0; i < n; i++) a[i] = n - i; }`, [call('f', [3], '["3","2","1"]'), call('f', [0], '[]')]),
  sol('reading past a storage array reverts, also in a loop', `uint[] a; function f(uint n) public returns (uint s) { a.push(1); for (uint i = 0; i < n; i++) s += a[i]; }`, [call('f', [1], '1'), fails('f', [3], 'array index out of bounds')]),
];
