// Sources that must be rejected at upload, with line and column.
import type { CorpusCase } from './types.js';

const bad = (name: string, body: string, compileError: string | RegExp): CorpusCase => ({ name, body, compileError, evm: false });

export const cases: CorpusCase[] = [
  { name: 'syntax error', src: 'contract C { function f( public {} }', compileError: /^1:\d+: /, evm: false },
  bad('unknown identifier', `function f() public pure returns (uint) { return y; }`, 'undeclared identifier y'),
  bad('unknown function', `function f() public pure { g(); }`, 'undeclared function g'),
  bad('unknown type', `Foo x;`, 'unknown type Foo'),
  bad('type mismatch assignment', `function f() public pure { uint x = "a"; }`, 'not implicitly convertible'),
  bad('literal too big for type', `function f() public pure { uint8 x = 256; }`, 'does not fit in uint8'),
  bad('bool from int', `function f() public pure { bool b = 1; }`, 'not implicitly convertible'),
  bad('wrong argument count', `function g(uint a) internal pure {} function f() public pure { g(1, 2); }`, /takes 2 arguments/),
  bad('duplicate state variable', `uint x; uint x;`, 'duplicate declaration of x'),
  bad('duplicate local', `function f() public pure { uint a; uint a; }`, 'duplicate declaration of a'),
  bad('unknown member', `struct P { uint a; } function f() public pure { P memory p; p.b; }`, 'has no member b'),
  bad('break outside loop', `function f() public pure { break; }`, 'outside a loop'),
  bad('unknown modifier', `function f() public nope {}`, 'unknown modifier nope'),
  bad('inline assembly', `function f() public pure { assembly { } }`, 'inline assembly is not supported'),
  bad('signed unsigned mix', `function f(int a, uint b) public pure returns (int) { return a + b; }`, /not defined for int256 and uint256/),
  bad('return count mismatch', `function f() public pure returns (uint, uint) { return (1, 2, 3); }`, /returns 2 values/),
  { name: 'unknown base contract', src: 'contract C is Nope {}', compileError: 'unknown base contract Nope', evm: false },
  { name: 'missing base constructor arguments', src: 'contract A { constructor(uint x) {} }\ncontract C is A {}', compileError: 'missing arguments for the constructor of A', evm: false },
  bad('undeclared event', `function f() public { emit Nope(); }`, 'undeclared event Nope'),
  bad('storage pointer from memory', `struct P { uint a; } function f() public pure { P storage p = P(1); }`, 'storage pointer'),
  bad('string to uint', `function f(string memory s) public pure returns (uint) { return s; }`, 'not implicitly convertible'),
  bad('non-exact constant division', `function f() public pure returns (uint) { return 7 / 2; }`, 'invalid constant expression'),
  bad('error position', `\n\n  function f() public pure { return zz; }`, /^4:\d+: /),
];
