import { call, fails, sol, type CorpusCase } from './types.js';

export const cases: CorpusCase[] = [
  sol('require message', `function f(uint x) public pure returns (uint) { require(x > 5, "x too small"); return x; }`, [call('f', [6], '6'), fails('f', [5], 'x too small')]),
  sol('require without message', `function f(uint x) public pure { require(x > 5); }`, [fails('f', [1])]),
  sol('revert message', `function f() public pure { revert("nope"); }`, [fails('f', [], 'nope')]),
  sol('revert in branch', `function f(uint x) public pure returns (uint) { if (x == 0) revert("zero"); return 1 / x; }`, [fails('f', [0], 'zero'), call('f', [1], '1')]),
  sol('assert', `function f(uint x) public pure { assert(x != 3); }`, [call('f', [2], []), fails('f', [3], 'assertion failed')]),
  sol('custom error', `error Insufficient(uint have, uint want); function f(uint a) public pure { if (a < 10) revert Insufficient(a, 10); }`, [call('f', [10], []), fails('f', [3], 'Insufficient(3, 10)')]),
  sol('custom error without args', `error Nope(); function f() public pure { revert Nope(); }`, [fails('f', [], 'Nope()')]),
  sol('file level custom error', ``, [fails('f', [], 'Bad(false)')], { src: `error Bad(bool b);\ncontract C { function f() public pure { revert Bad(false); } }` }),
  sol('require message built at run time', `function f(uint x) public pure { require(x == 0, string.concat("got ", x == 1 ? "one" : "many")); }`, [fails('f', [1], 'got one'), fails('f', [2], 'got many')]),
  sol('failure rolls back all writes', `uint public a; mapping(uint => uint) m; function f() public { a = 1; m[1] = 2; revert("x"); }`, [fails('f', [], 'x'), call('a', [], '0')]),
  sol('revert after loop of writes', `uint[] xs; function f(uint n) public { for (uint i = 0; i < n; i++) xs.push(i); require(n < 5, "too many"); } function len() public view returns (uint) { return xs.length; }`, [call('f', [3], []), fails('f', [6], 'too many'), call('len', [], '3')]),
  sol('enum out of range', `enum E { A, B } function f(uint x) public pure returns (E) { return E(x); }`, [call('f', [1], '1'), fails('f', [2], 'invalid enum value')]),
  sol('memory index out of bounds', `function f() public pure returns (uint) { uint[] memory a = new uint[](0); return a[0]; }`, [fails('f', [], 'array index out of bounds')]),
];
