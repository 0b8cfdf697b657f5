// The interface to the rest of the node (the "Interface" section):
// argument forms and the messages of a mismatch, the forms of results, events
// as strings, the state diff by storage path, contracts created, the xabi,
// gas metered from the versioned table (golden gasUsed values), the step limit.
// Standard-Solidity cases here also run on the EVM (their return values); the
// diffs, events and gas are SolidVM's own reporting, checked by corpus.test.ts.
import { ALICE, BOB } from '../helpers.js';
import { call, fails, sol, svm, type CorpusCall, type CorpusCase } from './types.js';

const DECODING = 'argument decoding failures are SolidVM interface messages';
const LIMITS = 'gas metering and the step limit are SolidVM protocol parameters';
const ok = (method: string, args: unknown, more: Partial<CorpusCall>): CorpusCall => ({ method, args, ...more });

export const cases: CorpusCase[] = [
  // --- argument forms -----------------------------------------------------------------
  sol(
    'raw form with nested arrays and a struct',
    `struct P { uint a; string b; } function f(uint[][] memory xs, P memory p) public pure returns (uint, string memory) { return (xs[0][1] + xs[1][0] + p.a, p.b); }`,
    [call('f', '([[1, 2], [3]], {"a": 4, "b": "x"})', ['9', 'x'])],
  ),
  sol(
    'raw form numbers: negative, hex and beyond 2^53',
    `function f(int a, uint b, uint c) public pure returns (int, uint, uint) { return (a, b, c); }`,
    [call('f', '(-5, 0xff, 123456789012345678901234567890)', ['-5', '255', '123456789012345678901234567890'])],
  ),
  sol(
    'raw strings with commas, quotes and parentheses',
    `function f(string memory a, string memory b, string memory c) public pure returns (string memory, string memory, string memory) { return (a, b, c); }`,
    [call('f', '("a,b", "say \\"hi\\"", "(x)")', ['a,b', 'say "hi"', '(x)'])],
  ),
  sol('raw form without spaces, as the raw transaction sends it', `function f(uint a, uint b) public pure returns (uint) { return a * 10 + b; }`, [call('f', '(1,2)', '12')]),
  sol('raw form of no arguments', `function f() public pure returns (uint) { return 3; }`, [call('f', '()', '3')]),
  sol('arguments as JSON text', `function f(uint a, bool[] memory b) public pure returns (uint, uint) { return (a, b.length); }`, [call('f', '{"a": 1, "b": [true, false, true]}', ['1', '3'])]),
  sol('integers as strings and numbers alike', `function f(uint8 a, int64 b, uint c) public pure returns (uint, int, uint) { return (a, b, c); }`, [call('f', { a: '255', b: '-9007199254740993', c: 0 }, ['255', '-9007199254740993', '0'])]),
  sol('struct members by name in any order', `struct P { uint a; bool b; string c; } function f(P memory p) public pure returns (uint, bool, string memory) { return (p.a, p.b, p.c); }`, [call('f', { p: { c: 'z', a: 2, b: true } }, ['2', 'true', 'z'])]),
  sol('array of structs and nested struct arguments', `struct I { uint v; } struct O { I i; I[] list; } function f(O memory o) public pure returns (uint s) { s = o.i.v; for (uint k = 0; k < o.list.length; k++) s += o.list[k].v; }`, [call('f', [{ i: { v: 1 }, list: [{ v: 2 }, { v: 3 }] }], '6')]),
  sol('bytes and bytesN arguments as hex', `function f(bytes memory b, bytes4 s) public pure returns (uint, bytes1, bytes4) { return (b.length, b[0], s); }`, [call('f', ['0xcafe00', '0xdeadbeef'], ['3', 'ca', 'deadbeef'])]),
  svm('mapping argument keyed by numbers', `function f(mapping(uint => bool) m) public returns (bool, bool) { return (m[1], m[2]); }`, [call('f', [{ '1': true, '3': true }], ['true', 'false'])]),
  svm('mapping argument of structs', `struct P { uint a; } function f(mapping(string => P) m) public returns (uint) { return m["x"].a + m["y"].a; }`, [call('f', { m: { "'x'": { a: 4 }, "'y'": { a: 5 } } }, '9')]),
  sol('enum argument by index', `enum E { A, B, C } function f(E e) public pure returns (uint) { return uint(e) * 10; }`, [call('f', [2], '20'), fails('f', [3])], { evm: 'an enum out of range is a SolidVM argument error; the EVM rejects it in its decoder' }),

  // --- a mismatch names the parameter and what was expected --------------------------------
  sol('mismatch: a struct member of the wrong type', `struct P { uint a; bool b; } function f(P memory p) public pure returns (uint) { return p.a; }`, [fails('f', [{ a: 1, b: 'yes' }], 'argument p.b: expected bool, got "yes"', 'BAD_ARGUMENTS')], { evm: DECODING }),
  sol('mismatch: an array element out of range', `function f(uint8[] memory xs) public pure returns (uint) { return xs.length; }`, [fails('f', [[1, 300]], 'argument xs[1]: 300 is out of range for uint8', 'BAD_ARGUMENTS')], { evm: DECODING }),
  sol('mismatch: a fixed array of the wrong length', `function f(uint[3] memory a) public pure returns (uint) { return a[0]; }`, [fails('f', [[1, 2]], 'argument a: expected 3 elements (uint256[3]), got 2', 'BAD_ARGUMENTS')], { evm: DECODING }),
  sol('mismatch: not an array', `function f(uint[][] memory a) public pure returns (uint) { return a.length; }`, [fails('f', [[5]], 'argument a[0]: expected uint256[], got 5', 'BAD_ARGUMENTS')], { evm: DECODING }),
  sol('mismatch: an address that is not hex', `function f(address to) public pure returns (address) { return to; }`, [fails('f', { to: '0xZZ' }, 'argument to: expected address, got "0xZZ"', 'BAD_ARGUMENTS')], { evm: DECODING }),
  sol('mismatch: bytes32 too long', `function f(bytes32 h) public pure returns (bytes32) { return h; }`, [fails('f', ['0x' + '11'.repeat(33)], /^argument h: expected bytes32, got "0x1111/, 'BAD_ARGUMENTS')], { evm: DECODING }),
  sol('mismatch: a number for a bool', `function f(bool b) public pure returns (bool) { return b; }`, [fails('f', [1], 'argument b: expected bool, got 1', 'BAD_ARGUMENTS'), call('f', ['True'], 'true')], { evm: DECODING }),
  sol('mismatch: too many positional arguments', `function f(uint a) public pure returns (uint) { return a; }`, [fails('f', [1, 2], 'C.f takes 1 argument (uint256 a), got 2', 'BAD_ARGUMENTS')], { evm: DECODING }),
  sol('mismatch: an unknown parameter name', `function f(uint a) public pure returns (uint) { return a; }`, [fails('f', { a: 1, z: 2 }, 'C.f has no parameter z', 'BAD_ARGUMENTS')], { evm: DECODING }),
  sol('mismatch: a negative unsigned integer', `function f(uint a) public pure returns (uint) { return a; }`, [fails('f', [-1], 'argument a: -1 is out of range for uint256', 'BAD_ARGUMENTS'), fails('f', [1.5], 'argument a: expected uint256, got 1.5', 'BAD_ARGUMENTS')], { evm: DECODING }),
  svm('mismatch: a mapping key of the wrong type', `function f(mapping(uint => uint) m) public returns (uint) { return m[1]; }`, [fails('f', [{ x: 1 }], 'argument m<x>: expected uint256, got "x"', 'BAD_ARGUMENTS')]),
  svm('mismatch: decimal and account arguments', `function f(decimal d, account a) public returns (decimal, account) { return (d, a); }`, [
    fails('f', { d: 'one', a: BOB }, 'argument d: expected decimal, got "one"', 'BAD_ARGUMENTS'),
    fails('f', { d: '1.5', a: 'nope' }, 'argument a: expected account, got "nope"', 'BAD_ARGUMENTS'),
    call('f', { d: '1.5', a: `${BOB}:main` }, ['1.5', `${BOB}:main`]),
  ]),
  sol('mismatch: raw arguments that do not parse', `function f(uint a, uint b) public pure returns (uint) { return a + b; }`, [fails('f', '(1, 2', /^arguments "\(1, 2" do not parse at position \d+$/, 'BAD_ARGUMENTS')], { evm: DECODING }),
  sol('mismatch: constructor arguments', `uint public x; constructor(uint start) { x = start; }`, [], { ctorArgs: { start: 'many' }, createFail: 'argument start: expected uint256, got "many"', evm: DECODING }),
  sol('missing constructor arguments', `uint public x; constructor(uint start, string memory name) { x = start; }`, [], { ctorArgs: { start: 1 }, createFail: 'missing argument name (string) of the constructor of C', evm: DECODING }),
  sol('an unknown method', `function f() public pure {}`, [fails('g', [], 'contract C has no public function g', 'UNKNOWN_METHOD')], { evm: 'calling a method the contract lacks is a SolidVM interface failure' }),
  sol('internal functions are not callable', `function g() internal pure returns (uint) { return 1; } function f() public pure returns (uint) { return g(); }`, [fails('g', [], 'contract C has no public function g', 'UNKNOWN_METHOD'), call('f', [], '1')], { evm: 'calling a method the contract lacks is a SolidVM interface failure' }),

  // --- forms of results ------------------------------------------------------------------
  sol(
    'results: scalars as strings',
    `enum E { A, B, C } function f() public view returns (int, bool, address, string memory, bytes memory, bytes4, E, uint8) { return (-5, false, msg.sender, "as is", hex"cafe", 0xdeadbeef, E.C, 255); }`,
    [call('f', [], ['-5', 'false', ALICE, 'as is', 'cafe', 'deadbeef', '2', '255'])],
  ),
  sol('results: arrays as JSON text', `function f() public view returns (bool[] memory, string[] memory, address[] memory, uint8[2] memory) { bool[] memory b = new bool[](2); b[0] = true; string[] memory s = new string[](2); s[0] = "a"; s[1] = "b,c"; address[] memory a = new address[](1); a[0] = msg.sender; return (b, s, a, [uint8(1), 2]); }`, [
    call('f', [], ['[true,false]', '["a","b,c"]', `["${ALICE}"]`, '["1","2"]']),
  ]),
  sol('results: structs as JSON objects', `struct I { uint v; bool w; } struct O { string name; I[] items; int[2] pair; } function f() public pure returns (O memory) { O memory o; o.name = "n"; o.items = new I[](1); o.items[0] = I(3, true); o.pair = [int(-1), 2]; return o; }`, [
    call('f', [], '{"name":"n","items":[{"v":"3","w":true}],"pair":["-1","2"]}'),
  ]),
  sol('results: empty values', `function f() public pure returns (string memory, uint[] memory, bytes memory, address) { } `, [call('f', [], ['', '[]', '', '0'.repeat(40)])]),
  svm('results: decimal and account', `function f() public view returns (decimal, account, account) { return (1.25, account(msg.sender), account(msg.sender, "main")); }`, [call('f', [], ['1.25', ALICE, `${ALICE}:main`])]),
  sol('results: a function without returns gives none', `uint x; function f() public { x = 1; }`, [call('f', [], [])]),

  // --- events --------------------------------------------------------------------------
  sol(
    'events: arguments as strings, bools as True/False',
    `enum E { A, B } event Ev(uint a, int b, bool c, bool d, address e, string f, bytes32 g, E h); function f() public { emit Ev(1, -2, true, false, msg.sender, "s", bytes32(uint(1)), E.B); }`,
    [ok('f', [], { expect: [], events: [['Ev', [['a', '1'], ['b', '-2'], ['c', 'True'], ['d', 'False'], ['e', ALICE], ['f', 's'], ['g', '0'.repeat(63) + '1'], ['h', '1']]]] })],
  ),
  sol('events: arrays and structs as JSON text', `struct P { uint a; } event Ev(uint[] xs, P p); function f() public { uint[] memory xs = new uint[](2); xs[1] = 7; emit Ev(xs, P(3)); }`, [
    ok('f', [], { events: [['Ev', [['xs', '["0","7"]'], ['p', '{"a":"3"}']]]] }),
  ]),
  sol('events: indexed and anonymous events are logged alike', `event A(uint indexed x, string y); event B(uint z) anonymous; function f() public { emit A(1, "one"); emit B(2); }`, [
    ok('f', [], { events: [['A', [['x', '1'], ['y', 'one']]], ['B', [['z', '2']]]] }),
  ]),
  sol(
    'events: emission order across contracts',
    '',
    [ok('f', [], { events: [['InC', [['n', '1']]], ['InD', [['n', '2']]], ['InC', [['n', '3']]]] })],
    { src: `contract D { event InD(uint n); function f(uint n) public { emit InD(n); } }\ncontract C { event InC(uint n); D d = new D(); function f() public { emit InC(1); d.f(2); emit InC(3); } }` },
  ),
  sol('events: an inherited event', ``, [ok('f', [], { events: [['Transfer', [['from', ALICE], ['amount', '5']]]] })], {
    src: `contract Base { event Transfer(address from, uint amount); }\ncontract C is Base { function f() public { emit Transfer(msg.sender, 5); } }`,
  }),
  sol('events: none from a transaction that did nothing', `uint x; function f() public view returns (uint) { return x; }`, [ok('f', [], { events: [], diff: {} })]),
  svm('events: legacy call without emit', `event E(string s, bool b); function f() public { E("x", true); }`, [ok('f', [], { events: [['E', [['s', 'x'], ['b', 'True']]]] })]),
  sol('events: the constructor emits too', `event Born(address by, uint n); constructor() { emit Born(msg.sender, 1); }`, [], { creation: { events: [['Born', [['by', ALICE], ['n', '1']]]] } }),

  // --- state diff by storage path ------------------------------------------------------------
  sol('diff: scalars, and null when back to the default', `uint public x = 5; bool public b = true; string public s = "hi"; function f() public { x = 0; b = false; s = "ho"; }`, [ok('f', [], { diff: { '.x': null, '.b': null, '.s': 'ho' } })], {
    creation: { diff: { '.x': '5', '.b': 'true', '.s': 'hi' } },
  }),
  sol('diff: mapping keys by type', `mapping(address => uint) bal; mapping(string => uint) byName; mapping(bool => uint) flags; mapping(int => uint) ints; mapping(bytes32 => uint) hashes; mapping(uint => uint) nums;
  function f() public { bal[msg.sender] = 1; byName["alice"] = 2; flags[true] = 3; ints[-4] = 4; hashes[bytes32(uint(255))] = 5; nums[6] = 6; }`, [
    ok('f', [], { diff: { [`.bal<${ALICE}>`]: '1', '.byName<"alice">': '2', '.flags<true>': '3', '.ints<-4>': '4', [`.hashes<${'0'.repeat(62)}ff>`]: '5', '.nums<6>': '6' } }),
  ]),
  sol('diff: nested mappings and struct members in mappings', `struct U { string name; uint bal; } mapping(address => mapping(address => uint)) allow; mapping(address => U) users;
  function f(address s) public { allow[msg.sender][s] = 50; users[s] = U("bob", 7); }`, [
    ok('f', [BOB], { diff: { [`.allow<${ALICE}><${BOB}>`]: '50', [`.users<${BOB}>.name`]: 'bob', [`.users<${BOB}>.bal`]: '7' } }),
  ]),
  sol('diff: array elements, struct fields in arrays, and lengths', `struct Item { string name; uint qty; } Item[] items; function add(string memory n, uint q) public { items.push(Item(n, q)); } function rename(uint i, string memory n) public { items[i].name = n; } function drop() public { items.pop(); }`, [
    ok('add', ['a', 1], { diff: { '.items.length': '1', '.items[0].name': 'a', '.items[0].qty': '1' } }),
    ok('add', ['b', 0], { diff: { '.items.length': '2', '.items[1].name': 'b' } }),
    ok('rename', [1, 'c'], { diff: { '.items[1].name': 'c' } }),
    ok('drop', [], { diff: { '.items.length': '1', '.items[1].name': null } }),
  ]),
  sol('diff: deleting a mapping entry and an array', `mapping(uint => uint) m; uint[] xs; constructor() { m[1] = 1; xs.push(4); xs.push(5); } function f() public { delete m[1]; delete xs; }`, [
    ok('f', [], { diff: { '.m<1>': null, '.xs.length': null, '.xs[0]': null, '.xs[1]': null } }),
  ]),
  sol('diff: a value written back to what it was is no change', `uint x = 1; uint y; function f() public { x = 2; x = 1; y = 3; }`, [ok('f', [], { diff: { '.y': '3' } })]),
  sol('diff: struct fields by path', `struct Meta { string note; uint version; } Meta meta; function f() public { meta = Meta("first", 1); meta.version++; }`, [ok('f', [], { diff: { '.meta.note': 'first', '.meta.version': '2' } })]),
  sol('diff: fixed arrays and nested arrays', `uint[2] pair; uint[][] grid; function f() public { pair[1] = 9; grid.push(); grid[0].push(3); }`, [
    ok('f', [], { diff: { '.pair[1]': '9', '.grid.length': '1', '.grid[0].length': '1', '.grid[0][0]': '3' } }),
  ]),
  sol('diff: stored text of each value type', `enum E { A, B, C } E e; bytes b; bytes4 s4; int i; address a; function f() public { e = E.C; b = hex"0102"; s4 = 0xdeadbeef; i = -3; a = msg.sender; }`, [
    ok('f', [], { diff: { '.e': '2', '.b': '0102', '.s4': 'deadbeef', '.i': '-3', '.a': ALICE } }),
  ]),
  svm('diff: decimal and account values', `decimal d; account a; function f() public { d = 2.5; a = account(msg.sender, "main"); }`, [ok('f', [], { diff: { '.d': '2.5', '.a': `${ALICE}:main` } })]),
  sol(
    'diff: contracts created by a call are reported',
    ``,
    [ok('make', [7], { created: ['D'], diff: { '.n': '1' } })],
    { src: `contract D { uint public v; constructor(uint x) { v = x; } }\ncontract C { uint n; function make(uint v) public returns (uint) { n++; D d = new D(v); return d.v(); } }` },
  ),
  sol('diff: a creation reports the contract it created', ``, [], { src: `contract D { }\ncontract C { D d = new D(); }`, creation: { created: ['C', 'D'] } }),

  // --- xabi ---------------------------------------------------------------------------
  sol('xabi: functions, arguments, returns, mutability and modifiers', `modifier onlyPositive(uint v) { require(v > 0); _; } function f(uint a, string memory b) public pure onlyPositive(a) returns (bool ok, uint) { return (bytes(b).length > 0, a); } function g() external view returns (address) { return msg.sender; } function h() internal {}`, [call('f', [1, 'x'], ['true', '1'])], {
    xabi: {
      kind: 'ContractKind',
      funcs: {
        f: { args: { a: { type: 'Int', signed: false, bytes: 32, index: 0 }, b: { type: 'String', dynamic: true, index: 1 } }, vals: { ok: { type: 'Bool' }, '#1': { type: 'Int', signed: false, bytes: 32 } }, stateMutability: 'pure', visibility: 'public', modifiers: ['onlyPositive'] },
        g: { args: {}, vals: { '#0': { type: 'Address' } }, stateMutability: 'view', visibility: 'external' },
      },
      modifiers: { onlyPositive: { args: { v: { type: 'Int', signed: false, bytes: 32, index: 0 } } } },
    },
  }),
  sol('xabi: state variables, types and the constructor', `struct P { uint8 a; bytes4 b; } enum S { On, Off } uint public constant K = 3; uint immutable imm; string public name = "n"; mapping(address => P[]) ps; S s; C self; constructor(uint x) { imm = x; }`, [], {
    ctorArgs: [1],
    xabi: {
      constr: { args: { x: { type: 'Int', signed: false, bytes: 32, index: 0 } } },
      vars: {
        K: { type: 'Int', public: true, constant: true, initialValue: '3' },
        imm: { type: 'Int', public: false, immutable: true },
        name: { type: 'String', public: true, initialValue: 'n' },
        ps: { type: 'Mapping', key: { type: 'Address' }, value: { type: 'Array', entry: { type: 'Struct', typedef: 'P' } } },
        s: { type: 'Enum', typedef: 'S', names: ['On', 'Off'] },
        self: { type: 'Contract', typedef: 'C' },
      },
      types: { P: { type: 'Struct', fields: { a: { type: 'Int', signed: false, bytes: 1, index: 0 }, b: { type: 'Bytes', dynamic: false, bytes: 4, index: 1 } } }, S: { type: 'Enum', names: ['On', 'Off'] } },
    },
  }),
  sol('xabi: events and inherited members', ``, [], {
    src: `contract A { event Moved(address indexed who, uint amount, bool ok); uint public a; function fa() public {} }\ncontract C is A { uint public c; }`,
    xabi: { events: { Moved: { anonymous: false, logs: [['who', { type: 'Address' }], ['amount', { type: 'Int', signed: false, bytes: 32 }], ['ok', { type: 'Bool' }]] } }, vars: { a: { type: 'Int' }, c: { type: 'Int' } }, funcs: { fa: { visibility: 'public' } } },
  }),
  svm('xabi: SolidVM types', `decimal public d; account public a; function f(account x) public returns (decimal) { return d; }`, [], {
    xabi: { vars: { d: { type: 'Decimal' }, a: { type: 'Account' } }, funcs: { f: { args: { x: { type: 'Account', index: 0 } }, vals: { '#0': { type: 'Decimal' } } } } },
  }),

  // --- gas: golden values from table version 1, and the limits -------------------------------
  sol('gas: a creation and a storage write', `uint public x; function set(uint v) public { x = v; }`, [ok('set', [5], { gasUsed: 26010 }), ok('set', [6], { gasUsed: 26010 }), ok('x', [], { gasUsed: 21200 })], {
    ctx: { gasEnabled: true },
    creation: { gasUsed: 53000 },
    evm: LIMITS,
  }),
  sol('gas: a token transfer with an event', `mapping(address => uint) bal; event T(address to, uint v); constructor() { bal[msg.sender] = 100; } function transfer(address to, uint v) public { require(bal[msg.sender] >= v, "low"); bal[msg.sender] -= v; bal[to] += v; emit T(to, v); }`, [
    ok('transfer', [BOB, 10], { gasUsed: 32115 }),
  ], { ctx: { gasEnabled: true }, evm: LIMITS }),
  sol('gas: a loop', `function spin(uint n) public pure returns (uint s) { for (uint i = 0; i < n; i++) s += i; }`, [ok('spin', [10], { gasUsed: 21120 }), ok('spin', [100], { gasUsed: 22020 })], { ctx: { gasEnabled: true }, evm: LIMITS }),
  sol('gas: a call to another contract and a creation', ``, [ok('f', [], { gasUsed: 58920 })], {
    src: `contract D { uint public v = 1; }\ncontract C { function f() public returns (uint) { D d = new D(); return d.v(); } }`,
    ctx: { gasEnabled: true },
    evm: LIMITS,
  }),
  sol('gas: hashing is charged per byte', `function h(string memory s) public pure returns (bytes32) { return keccak256(bytes(s)); }`, [ok('h', ['a'], { gasUsed: 21016 }), ok('h', ['a'.repeat(101)], { gasUsed: 21616 })], { ctx: { gasEnabled: true }, evm: LIMITS }),
  sol('gas: out of gas fails the transaction and keeps nothing', `uint public x; function f(uint n) public { x = n; for (uint i = 0; i < n; i++) {} }`, [fails('f', [100000], 'out of gas', 'OUT_OF_GAS'), call('x', [], '0'), call('f', [1], [])], {
    ctx: { gasEnabled: true, gasLimit: 100000 },
    evm: LIMITS,
  }),
  sol('step limit ends a runaway loop', `function f(uint n) public pure returns (uint s) { for (uint i = 0; i < n; i++) s += i; } function g() public pure { while (true) {} }`, [
    call('f', [10], '45'),
    fails('f', [100000], 'step limit exceeded (1000 steps)', 'STEP_LIMIT'),
    fails('g', [], 'step limit exceeded (1000 steps)', 'STEP_LIMIT'),
  ], { ctx: { stepLimit: 1000 }, evm: LIMITS }),
  sol('step limit cannot be caught by try/catch', ``, [fails('f', [], 'step limit exceeded (2000 steps)', 'STEP_LIMIT')], {
    src: `contract D { function spin() public pure { while (true) {} } }\ncontract C { D d = new D(); function f() public returns (bool) { try d.spin() { return true; } catch { return false; } } }`,
    ctx: { stepLimit: 2000 },
    evm: LIMITS,
  }),
  sol('deep recursion is bounded by the call depth', `function r(uint n) public pure returns (uint) { return n == 0 ? 0 : 1 + r(n - 1); }`, [call('r', [200], '200'), fails('r', [5000], 'call depth exceeds 256', 'CALL_DEPTH')], { evm: 'the call depth limit is SolidVM\'s (the EVM runs out of stack elsewhere)' }),
];
