import { call, fails, sol, type CorpusCase } from './types.js';

export const cases: CorpusCase[] = [
  sol('internal call', `function sq(uint x) internal pure returns (uint) { return x * x; } function f(uint x) public pure returns (uint) { return sq(x) + sq(x + 1); }`, [call('f', [3], '25')]),
  sol('private call', `function p() private pure returns (uint) { return 4; } function f() public pure returns (uint) { return p(); }`, [call('f', [], '4')]),
  sol('overloads by type count', `function g(uint a) internal pure returns (uint) { return a; } function g(uint a, uint b) internal pure returns (uint) { return a + b; } function f() public pure returns (uint) { return g(1) * 10 + g(2, 3); }`, [call('f', [], '15')]),
  sol('overloads by type', `function g(uint a) internal pure returns (string memory) { return "uint"; } function g(string memory a) internal pure returns (string memory) { return a; } function f() public pure returns (string memory) { return g("str"); }`, [call('f', [], 'str')]),
  sol('named arguments', `function g(uint a, uint b) internal pure returns (uint) { return a - b; } function f() public pure returns (uint) { return g({b: 1, a: 10}); }`, [call('f', [], '9')]),
  sol('modifier basic', `address owner; constructor() { owner = msg.sender; } modifier onlyOwner() { require(msg.sender == owner, "not owner"); _; } uint public x; function set(uint v) public onlyOwner { x = v; }`, [
    call('set', [5], []),
    { method: 'set', args: [6], fail: 'not owner', caller: 'b0b0000000000000000000000000000000000002' },
    call('x', [], '5'),
  ]),
  sol('modifier with args', `modifier atLeast(uint a, uint min) { require(a >= min, "too small"); _; } function f(uint a) public pure atLeast(a, 10) returns (uint) { return a * 2; }`, [call('f', [10], '20'), fails('f', [9], 'too small')]),
  sol('modifier runs code after', `uint public log; modifier wrap() { log = log * 10 + 1; _; log = log * 10 + 3; } function f() public wrap { log = log * 10 + 2; }`, [call('f', [], []), call('log', [], '123')]),
  sol('multiple modifiers order', `uint public log; modifier a() { log = log * 10 + 1; _; } modifier b() { log = log * 10 + 2; _; } function f() public a b { log = log * 10 + 3; }`, [call('f', [], []), call('log', [], '123')]),
  sol('modifier placeholder twice', `uint public n; modifier twice() { _; _; } function f() public twice { n++; }`, [call('f', [], []), call('n', [], '2')]),
  sol('return from body inside modifier', `uint public done; modifier m() { _; done = 1; } function f() public m returns (uint) { return 7; }`, [call('f', [], '7'), call('done', [], '1')]),
  sol('modifier skips body', `modifier never() { if (false) { _; } } function f() public pure never returns (uint) { return 7; }`, [call('f', [], '0')]),
  sol('reentrancy guard', `bool locked; modifier nonReentrant() { require(!locked, "reentrant"); locked = true; _; locked = false; } uint public n; function f() public nonReentrant { n++; }`, [call('f', [], []), call('f', [], []), call('n', [], '2')]),
  sol('recursion depth', `function f(uint n) public pure returns (uint) { return n == 0 ? 0 : 1 + f(n - 1); }`, [call('f', [100], '100')]),
  sol('view reads state', `uint x = 3; function f() public view returns (uint) { return x * 2; }`, [call('f', [], '6')]),
  sol('memory params alias across internal calls', `function g(uint[] memory a) internal pure { a[0] = 9; } function f() public pure returns (uint) { uint[] memory a = new uint[](1); g(a); return a[0]; }`, [call('f', [], '9')]),
  sol('storage params alias', `uint[] a; function g(uint[] storage s) internal { s.push(4); } function f() public returns (uint) { g(a); g(a); return a.length; }`, [call('f', [], '2')]),
  sol('internal returns storage ref', `struct P { uint a; } P p; function ref() internal view returns (P storage) { return p; } function f() public returns (uint) { ref().a = 8; return p.a; }`, [call('f', [], '8')]),
  sol('value params copy', `function g(uint a) internal pure returns (uint) { a += 1; return a; } function f() public pure returns (uint, uint) { uint x = 1; uint y = g(x); return (x, y); }`, [call('f', [], ['1', '2'])]),
  sol('external function', `function f(uint a) external pure returns (uint) { return a + 1; }`, [call('f', [1], '2')]),
  sol('public getter array', `uint[] public xs; constructor() { xs.push(10); xs.push(20); }`, [call('xs', [1], '20'), fails('xs', [2])]),
  sol('public getter nested mapping', `mapping(uint => mapping(uint => bool)) public m; constructor() { m[1][2] = true; }`, [call('m', [1, 2], 'true'), call('m', [2, 1], 'false')]),
  sol('free function', `function f(uint a) public pure returns (uint) { return dbl(a); }`, [call('f', [4], '8')], { src: `function dbl(uint x) pure returns (uint) { return 2 * x; }\ncontract C { function f(uint a) public pure returns (uint) { return dbl(a); } }` }),
  sol('file level constant', ``, [call('f', [], '42')], { src: `uint constant ANSWER = 42;\ncontract C { function f() public pure returns (uint) { return ANSWER; } }` }),
  sol('library internal', ``, [call('f', [3, 4], '25')], {
    src: `library M { function sq(uint x) internal pure returns (uint) { return x * x; } }\ncontract C { function f(uint a, uint b) public pure returns (uint) { return M.sq(a) + M.sq(b); } }`,
  }),
  sol('using for', ``, [call('f', [5], '26')], {
    src: `library M { function sq(uint x) internal pure returns (uint) { return x * x; } function inc(uint x) internal pure returns (uint) { return x + 1; } }\ncontract C { using M for uint; function f(uint a) public pure returns (uint) { return a.sq().inc(); } }`,
  }),
  sol('using for storage struct', ``, [call('f', [], '3')], {
    src: `library Counter { struct Data { uint n; } function inc(Data storage d) internal { d.n++; } }\ncontract C { using Counter for Counter.Data; Counter.Data c; function f() public returns (uint) { c.inc(); c.inc(); c.inc(); return c.n; } }`,
  }),
  sol('library with array', ``, [call('f', [], '6')], {
    src: `library A { function sum(uint[] memory a) internal pure returns (uint s) { for (uint i = 0; i < a.length; i++) s += a[i]; } }\ncontract C { using A for uint[]; function f() public pure returns (uint) { uint[] memory a = new uint[](3); a[0] = 1; a[1] = 2; a[2] = 3; return a.sum(); } }`,
  }),
  sol('library constant', ``, [call('f', [], '7')], { src: `library L { uint constant X = 7; function x() internal pure returns (uint) { return X; } }\ncontract C { function f() public pure returns (uint) { return L.x(); } }` }),
  sol('struct from other contract', ``, [call('f', [], '5')], { src: `contract T { struct P { uint a; } }\ncontract C { function f() public pure returns (uint) { T.P memory p = T.P(5); return p.a; } }` }),
  sol('enum from file level', ``, [call('f', [], '2')], { src: `enum Color { R, G, B }\ncontract C { function f() public pure returns (Color) { return Color.B; } }` }),
  sol('struct named constructor', `struct P { uint a; uint b; } function f() public pure returns (uint) { P memory p = P({b: 2, a: 1}); return p.a * 10 + p.b; }`, [call('f', [], '12')]),
  sol('delete struct field', `struct P { uint a; uint b; } P p; function f() public returns (uint, uint) { p = P(1, 2); delete p.a; return (p.a, p.b); }`, [call('f', [], ['0', '2'])]),
  sol('delete whole struct', `struct P { uint a; uint[] b; } P p; function f() public returns (uint, uint) { p.a = 1; p.b.push(1); delete p; return (p.a, p.b.length); }`, [call('f', [], ['0', '0'])]),
  sol('user defined value type', `type Price is uint128; function f(uint128 x) public pure returns (uint128) { Price p = Price.wrap(x); return Price.unwrap(p) + 1; }`, [call('f', [5], '6')]),
  sol('arguments by name', `function f(uint a, string memory b) public pure returns (string memory, uint) { return (b, a); }`, [call('f', { a: 1, b: 'z' }, ['z', '1'])]),

  // Internal function types (issue 23 §5). Solidity docs, "Types › Function
  // Types": "Function types are the types of functions. Variables of function
  // type can be assigned from functions and function parameters of function
  // type can be used to pass functions to and return functions from function
  // calls"; "pure functions can be converted to view and non-payable
  // functions"; "If a function type variable is not initialised, calling it
  // results in a Panic error"; "Internal functions can only be called inside
  // the current contract"; internal types are not allowed in public functions.
  sol('function types: a function passed as a value and called', `function dbl(uint x) internal pure returns (uint) { return 2 * x; }
     function sq(uint x) internal pure returns (uint) { return x * x; }
     function map(uint[] memory a, function (uint) pure returns (uint) g) internal pure returns (uint[] memory r) { r = new uint[](a.length); for (uint i = 0; i < a.length; i++) r[i] = g(a[i]); }
     function f(uint[] memory a, bool square) public pure returns (uint[] memory) { return map(a, square ? sq : dbl); }`, [
    call('f', [[1, 2, 3], true], '["1","4","9"]'),
    call('f', [[1, 2, 3], false], '["2","4","6"]'),
  ]),
  sol('function types: returned from a function, kept in a local, reassigned', `function add(uint a, uint b) internal pure returns (uint) { return a + b; }
     function sub(uint a, uint b) internal pure returns (uint) { return a - b; }
     function pick(bool p) internal pure returns (function (uint, uint) pure returns (uint)) { return p ? add : sub; }
     function f(bool p, uint a, uint b) public pure returns (uint, uint) { function (uint, uint) pure returns (uint) op = pick(p); uint first = op(a, b); op = add; return (first, op(a, b)); }`, [
    call('f', [true, 5, 3], ['8', '8']),
    call('f', [false, 5, 3], ['2', '8']),
    fails('f', [false, 1, 2], 'arithmetic overflow'),
  ]),
  sol('function types: a virtual function as a value is the most derived override', '', [call('get', [], '2')], {
    src: `contract A { function v() internal view virtual returns (uint) { return 1; } function get() public view returns (uint) { function () view returns (uint) g = v; return g(); } }\ncontract C is A { function v() internal pure override returns (uint) { return 2; } }`,
  }),
  sol('function types: calling a value never assigned is a panic', `function f() public pure returns (uint) { function () pure returns (uint) g; return g(); }`, [fails('f', [], true, 'PANIC')]),
  sol('function types: in structs and arrays, pure as view, a state-changing one, a free function', '', [call('f', [], ['42', '2', '7', '1'])], {
    src: `function triple(uint x) pure returns (uint) { return 3 * x; }
contract C {
  struct Op { function (uint) pure returns (uint) fn; uint arg; }
  uint n;
  function inc(uint x) internal pure returns (uint) { return x + 1; }
  function bump() internal returns (uint) { return ++n; }
  function f() public returns (uint, uint, uint, uint) {
    Op memory o = Op(inc, 41);
    function (uint) pure returns (uint)[2] memory fs = [inc, triple];
    function (uint) view returns (uint) v = inc;
    function () returns (uint) b = bump;
    return (o.fn(o.arg), fs[0](1), v(fs[1](2)) - 0, b());
  }
}`,
  }),
  { name: 'function types: not in a public function\'s parameters', body: `function f(function (uint) pure returns (uint) g) public pure returns (uint) { return g(1); }`, compileError: 'internal function types are not allowed in the parameters or results of a public function' },
  { name: 'function types: a view function is not a pure function value', body: `uint n; function r() internal view returns (uint) { return n; } function f() public view returns (uint) { function () pure returns (uint) g = r; return g(); }`, compileError: 'not implicitly convertible' },
  { name: 'function types: an overloaded function is not a value', body: `function g(uint a) internal pure returns (uint) { return a; } function g(bool) internal pure returns (uint) { return 0; } function f() public pure returns (uint) { function (uint) pure returns (uint) h = g; return h(1); }`, compileError: 'overloaded' },
  { name: 'function types: not in storage', body: `function (uint) internal pure returns (uint) op; function f() public pure returns (uint) { return 1; }`, compileError: 'internal function types cannot be stored', evm: 'SolidVM keeps function values in memory only (docs/conventions.md)' },
  { name: 'function types: external function types', body: `function f(function (uint) external returns (uint) g) internal pure { }`, compileError: 'external function types are not supported', evm: 'SolidVM has internal function types only (docs/conventions.md)' },
];
