import { call, fails, sol, type CorpusCase } from './types.js';

export const cases: CorpusCase[] = [
  sol('if else', `function f(uint x) public pure returns (string memory) { if (x < 10) return "small"; else if (x < 100) return "medium"; else return "large"; }`, [call('f', [5], 'small'), call('f', [50], 'medium'), call('f', [500], 'large')]),
  sol('for loop sum', `function f(uint n) public pure returns (uint s) { for (uint i = 1; i <= n; i++) s += i; }`, [call('f', [100], '5050'), call('f', [0], '0')]),
  sol('while loop', `function f(uint n) public pure returns (uint c) { while (n > 1) { n = n % 2 == 0 ? n / 2 : 3 * n + 1; c++; } }`, [call('f', [27], '111'), call('f', [1], '0')]),
  sol('do while runs once', `function f(uint n) public pure returns (uint c) { do { c++; } while (c < n); }`, [call('f', [0], '1'), call('f', [5], '5')]),
  sol('break and continue', `function f() public pure returns (uint s) { for (uint i = 0; i < 100; i++) { if (i % 2 == 0) continue; if (i > 10) break; s += i; } }`, [call('f', [], '25')]),
  sol('nested loops break inner', `function f() public pure returns (uint c) { for (uint i = 0; i < 5; i++) { for (uint j = 0; j < 5; j++) { if (j == i) break; c++; } } }`, [call('f', [], '10')]),
  sol('ternary', `function max(int a, int b) public pure returns (int) { return a > b ? a : b; }`, [call('max', [-3, 2], '2'), call('max', [7, 2], '7')]),
  sol('nested ternary', `function sign(int a) public pure returns (int) { return a > 0 ? int(1) : a < 0 ? -1 : int(0); }`, [call('sign', [5], '1'), call('sign', [-5], '-1'), call('sign', [0], '0')]),
  sol(
    'short circuit and',
    `uint public hits; function side() internal returns (bool) { hits++; return true; }
     function f(bool a) public returns (bool) { return a && side(); }
     function h() public view returns (uint) { return hits; }`,
    [call('f', [false], 'false'), call('h', [], '0'), call('f', [true], 'true'), call('h', [], '1')],
  ),
  sol(
    'short circuit or',
    `uint public hits; function side() internal returns (bool) { hits++; return false; }
     function f(bool a) public returns (bool) { return a || side(); }`,
    [call('f', [true], 'true'), call('hits', [], '0'), call('f', [false], 'false'), call('hits', [], '1')],
  ),
  sol('short circuit guards revert', `function f(uint a) public pure returns (bool) { return a != 0 && 10 / a > 2; }`, [call('f', [0], 'false'), call('f', [3], 'true')]),
  sol('multiple returns', `function f() public pure returns (uint a, bool b, string memory c) { a = 1; b = true; c = "x"; }`, [call('f', [], ['1', 'true', 'x'])]),
  sol('return tuple', `function f(uint x) public pure returns (uint, uint) { return (x / 3, x % 3); }`, [call('f', [10], ['3', '1'])]),
  sol(
    'tuple destructuring',
    `function g() internal pure returns (uint, uint, uint) { return (1, 2, 3); }
     function f() public pure returns (uint, uint) { (uint a, , uint c) = g(); return (a, c); }`,
    [call('f', [], ['1', '3'])],
  ),
  sol('swap with tuple', `function f(uint a, uint b) public pure returns (uint, uint) { (a, b) = (b, a); return (a, b); }`, [call('f', [1, 2], ['2', '1'])]),
  sol('named returns default', `function f(bool x) public pure returns (uint r) { if (x) r = 5; }`, [call('f', [false], '0'), call('f', [true], '5')]),
  sol('early return in loop', `function find(uint[] memory a, uint v) public pure returns (int) { for (uint i = 0; i < a.length; i++) if (a[i] == v) return int(i); return -1; }`, [call('find', [[4, 5, 6], 6], '2'), call('find', [[4, 5, 6], 7], '-1')]),
  sol('block scoping', `function f() public pure returns (uint) { uint x = 1; { uint y = 2; x += y; } { uint y = 10; x += y; } return x; }`, [call('f', [], '13')]),
  sol('loop variable re-initialised', `function f() public pure returns (uint s) { for (uint i = 0; i < 3; i++) { uint t; t += i; s += t; } }`, [call('f', [], '3')]),
  sol('for without parts', `function f() public pure returns (uint i) { for (;;) { i++; if (i == 7) break; } }`, [call('f', [], '7')]),
  sol('fibonacci recursive', `function fib(uint n) public pure returns (uint) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }`, [call('fib', [15], '610')]),
  sol('fibonacci iterative', `function fib(uint n) public pure returns (uint a) { uint b = 1; for (uint i = 0; i < n; i++) { (a, b) = (b, a + b); } }`, [call('fib', [90], '2880067194370816120')]),
  sol('gcd', `function gcd(uint a, uint b) public pure returns (uint) { while (b != 0) { (a, b) = (b, a % b); } return a; }`, [call('gcd', [1071, 462], '21')]),
  sol('primes count', `function f(uint n) public pure returns (uint c) { for (uint i = 2; i < n; i++) { bool p = true; for (uint j = 2; j * j <= i; j++) if (i % j == 0) { p = false; break; } if (p) c++; } }`, [call('f', [100], '25')]),
  sol('boolean ops', `function f(bool a, bool b) public pure returns (bool, bool, bool, bool) { return (a && b, a || b, !a, a != b); }`, [call('f', [true, false], ['false', 'true', 'false', 'true'])]),
  sol('overflow inside loop reverts', `function f(uint8 n) public pure returns (uint8 s) { for (uint8 i = 0; i < n; i++) s += 100; }`, [call('f', [2], '200'), fails('f', [3], 'arithmetic overflow')]),
  sol('continue in while', `function f() public pure returns (uint s) { uint i; while (i < 10) { i++; if (i % 3 != 0) continue; s += i; } }`, [call('f', [], '18')]),
  sol('do while with break', `function f() public pure returns (uint i) { do { i += 2; if (i > 5) break; } while (true); }`, [call('f', [], '6')]),
  sol('conditional with side effects', `uint public x; function f(bool c) public returns (uint) { c ? (x += 1) : (x += 10); return x; }`, [call('f', [true], '1'), call('f', [false], '11')]),
  sol('deep expressions', `function f(uint a) public pure returns (uint) { return ((a + 1) * (a + 2) - (a * 3)) / ((a % 4) + 1) ** 2; }`, [call('f', [5], '6'), call('f', [0], '2')]),
];
