// SolidVM's own types and built-ins (docs/conventions.md "SolidVM: where it
// differs"): `account` with its chain forms, `decimal`, strings compared and
// concatenated, parsing casts, `address.nonce`, legacy syntax. Not standard
// Solidity: solc rejects these sources, so they run on SolidVM only.
import { contractAddress } from '../../src/hash.js';
import { ALICE, BOB } from '../helpers.js';
import { call, fails, svm, type CorpusCase } from './types.js';

const CHAIN = 'ab'.repeat(32);
const SELF = contractAddress(ALICE, 0n);

export const cases: CorpusCase[] = [
  // --- account -------------------------------------------------------------------------
  svm('account: every chain form', `function f(address a) public view returns (account, account, account, account, account) { return (account(a), account(a, 0), account(a, 255), account(a, "0x1f"), account(a, "main")); }`, [
    call('f', [BOB], [BOB, `${BOB}:main`, `${BOB}:${'0'.repeat(62)}ff`, `${BOB}:${'0'.repeat(62)}1f`, `${BOB}:main`]),
  ]),
  // Account values (issue 23 §5). Spec, "Type mapping of state variables": account(address) is "string of the
  // address"; account(address, chainId) "string <address>:<chainId>; a chain resolving to the main chain is written
  // <address>:main". docs/conventions.md, SolidVM: account(a, chainId | "main" | "self" | "<hex>"), .chainId (0 on
  // the main chain), printed <40hex>, <40hex>:main or <40hex>:<64-hex chain id>; a number literal is the address it writes.
  svm('account: built from number literals', `function f() public pure returns (account, account, account, account) { return (account(0x1234), account(0x1234, 5), account(0, "main"), account(0xb0b0000000000000000000000000000000000002, "0x1f")); }`, [
    call('f', [], [`${'0'.repeat(36)}1234`, `${'0'.repeat(36)}1234:${'0'.repeat(63)}5`, `${'0'.repeat(40)}:main`, `${BOB}:${'0'.repeat(62)}1f`]),
  ]),
  svm('account: .chainId of each chain form', `function f(address a) public view returns (uint, uint, uint, uint, uint, uint) { return (account(a).chainId, account(a, "main").chainId, account(a, 5).chainId, account(a, "0xff").chainId, account(a, "self").chainId, account(a, 0).chainId); }`, [
    call('f', [BOB], ['0', '0', '5', '255', '0', '0']),
  ]),
  svm('account: .chainId on a private chain: this chain for account(a) and "self", 0 for "main"', `function f(address a) public view returns (bool, bool, uint) { return (account(a).chainId == uint(0x${CHAIN}), account(a, "self").chainId == uint(0x${CHAIN}), account(a, "main").chainId); }`, [
    call('f', [BOB], ['true', 'true', '0']),
  ], { ctx: { chainId: CHAIN } }),
  svm('account: the string form', `function f(address a) public view returns (string memory, string memory, string memory, string memory, string memory) { return (string(account(a)), string(account(a, "main")), string(account(a, 5)), string(account(a, "self")), "at " + string(account(a, 0))); }`, [
    call('f', [BOB], [BOB, `${BOB}:main`, `${BOB}:${'0'.repeat(63)}5`, `${BOB}:main`, `at ${BOB}:main`]),
  ]),
  svm('account: the string form on a private chain', `function f(address a) public view returns (string memory, string memory) { return (string(account(a)), string(account(a, "self"))); }`, [
    call('f', [BOB], [BOB, `${BOB}:${CHAIN}`]),
  ], { ctx: { chainId: CHAIN } }),
  svm('account: a string form parsed back', `function f(string memory s) public pure returns (account, uint, address) { account x = account(s); return (x, x.chainId, x.address); }`, [
    call('f', [`${BOB}:ff`], [`${BOB}:${'0'.repeat(62)}ff`, '255', BOB]),
    call('f', [`${BOB}:main`], [`${BOB}:main`, '0', BOB]),
    call('f', [BOB], [BOB, '0', BOB]),
  ]),
  svm('account: self on the main chain and on a private chain', `function f(address a) public view returns (account, uint) { account x = account(a, "self"); return (x, x.chainId); }`, [call('f', [BOB], [`${BOB}:main`, '0'])]),
  svm('account: self on a private chain', `function f(address a) public view returns (account, bool) { account x = account(a, "self"); return (x, x.chainId == uint(0x${CHAIN})); }`, [call('f', [BOB], [`${BOB}:${CHAIN}`, 'true'])], { ctx: { chainId: CHAIN } }),
  svm('account: parent of the main chain fails', `function f(address a) public view returns (account) { return account(a, "parent"); }`, [fails('f', [BOB], 'account(…, "parent"): this chain has no parent')]),
  svm('account: an invalid chain id fails', `function f(address a, string memory c) public view returns (account) { return account(a, c); }`, [fails('f', [BOB, 'xyz'], 'invalid chain id xyz'), call('f', [BOB, '0x2'], `${BOB}:${'0'.repeat(63)}2`)]),
  svm('account: equality depends on the chain', `function f(address a) public pure returns (bool, bool, bool) { return (account(a) == account(a), account(a, "main") == account(a, 0), account(a, 1) == account(a, 2)); }`, [call('f', [BOB], ['true', 'true', 'false'])]),
  svm('account: stored, read back and passed as an argument', `account public who; mapping(address => account) byAddr; function set(account a) public { who = a; byAddr[address(a)] = a; } function get(address k) public view returns (account, address) { return (byAddr[k], address(who)); }`, [
    { method: 'set', args: [`${BOB}:main`], expect: [], diff: { '.who': `${BOB}:main`, [`.byAddr<${BOB}>`]: `${BOB}:main` } },
    call('who', [], `${BOB}:main`),
    call('get', [BOB], [`${BOB}:main`, BOB]),
  ]),
  svm('account: balance, codehash and address of a contract', `function f() public view returns (uint, bool, address) { account me = account(address(this)); return (me.balance, me.codehash != bytes32(0), me.address); }`, [call('f', [], ['0', 'true', SELF])]),
  svm('account: state of an account on this chain is read; of another chain the read fails naming both chains', `function f() public view returns (uint, uint) { return (account(address(this), "main").balance, account(address(this), "self").balance); } function g() public view returns (uint) { return account(address(this), 5).balance; }`, [
    call('f', [], ['0', '0']),
    fails('g', [], `account(…).balance: the account is on chain ${'0'.repeat(63)}5, and a transaction reads only the state of its own chain (the main chain)`),
  ]),
  svm('account: on a private chain, the main chain\'s accounts are another chain\'s', `function g(address a) public view returns (uint) { return account(a, "main").balance; } function h(address a) public view returns (uint) { return account(a).balance + account(a, "self").balance; }`, [
    fails('g', [BOB], `account(…).balance: the account is on the main chain, and a transaction reads only the state of its own chain (${CHAIN})`),
    call('h', [BOB], '0'),
  ], { ctx: { chainId: CHAIN } }),
  svm('account: a contract reached through an account', '', [call('f', [], '5')], {
    src: `contract D { uint public v = 5; }\ncontract C { D d = new D(); function f() public view returns (uint) { account a = account(address(d)); return D(address(a)).v(); } }`,
  }),

  // --- free functions and `this` (issue 23 §5; the spec is silent — docs/conventions.md, SolidVM: `this` in a free
  // function is the calling contract's address; solc rejects `this` there) ----------------------------------------
  svm('free function: this is the calling contract', '', [call('f', [], [SELF, SELF, SELF, 'true'])], {
    src: `function me() view returns (address) { return address(this); }
function meToo() view returns (address) { return this; }
library L { function viaLib() internal view returns (address) { return me(); } }
contract C {
  address made;
  constructor() { made = me(); }
  function f() public view returns (address, address, address, bool) { return (me(), meToo(), L.viaLib(), made == address(this)); }
}`,
  }),
  svm('free function: this in another contract is that contract', '', [call('f', [], ['true', 'true'])], {
    src: `function me() view returns (address) { return address(this); }
function bal() view returns (uint) { return address(this).balance; }
contract D { function who() public view returns (address) { return me(); } }
contract C { D d = new D(); function f() public view returns (bool, bool) { return (d.who() == address(d), bal() == address(this).balance); } }`,
  }),
  svm('free function: this reaches the calling contract\'s functions through an interface', '', [call('h', [], '7')], {
    src: `interface I { function f() external view returns (uint); }
function g() view returns (uint) { return I(this).f(); }
contract C { function f() public pure returns (uint) { return 7; } function h() public view returns (uint) { return g(); } }`,
  }),
  { name: 'free function: this is an address, not a contract with functions', src: `function g() view returns (uint) { return this.f(); }\ncontract C { function f() public pure returns (uint) { return 1; } function h() public view returns (uint) { return g(); } }`, compileError: 'has no function f', evm: false },

  // --- decimal -------------------------------------------------------------------------
  // docs/conventions.md, SolidVM: a literal constant expression is exact; one that is not an integer is a decimal (18 digits, truncated)
  svm('decimal: a fractional constant expression is a decimal', `function f() public pure returns (decimal, decimal, decimal, decimal) { decimal d = 7 / 2; return (d, 1 / 3, 15e-1, 1.0 / 3.0 * 3.0); }
     function g() public pure returns (bool, bool, bool) { return (1.5 < 2, 2e-1 + 3e-1 == 0.5, 5.5 % 2 == 1.5); }`, [call('f', [], ['3.5', '0.333333333333333333', '1.5', '1.0']), call('g', [], ['true', 'true', 'true'])]),
  svm('decimal: comparisons', `function f(decimal a, decimal b) public pure returns (bool, bool, bool) { return (a < b, a == b, a >= b); }`, [call('f', ['1.5', '1.50'], ['false', 'true', 'true']), call('f', ['0.1', '0.2'], ['true', 'false', 'false'])]),
  svm('decimal: negative values and subtraction', `function f(decimal a, decimal b) public pure returns (decimal) { return a - b; }`, [call('f', ['1.25', '2.5'], '-1.25')]),
  svm('decimal: division by zero fails', `function f(decimal a, decimal b) public pure returns (decimal) { return a / b; }`, [call('f', ['1', '8'], '0.125'), fails('f', ['1', '0'], 'division by zero')]),
  svm('decimal: 18 fractional digits, truncating', `function f() public pure returns (decimal, decimal) { decimal x = 2.0; return (x / 3.0, 0.000000000000000001 / 2.0); }`, [call('f', [], ['0.666666666666666666', '0.0'])]),
  svm('decimal: mixed with integers', `function f(uint n) public pure returns (decimal, uint) { decimal price = 1.5; decimal total = price * decimal(n); return (total, uint(total)); }`, [call('f', [3], ['4.5', '4'])]),
  svm('decimal: as text and parsed from text', `function f(string memory s) public pure returns (decimal, string memory) { decimal d = decimal(s); return (d * 2.0, string(d)); }`, [call('f', ['0.75'], ['1.5', '0.75']), fails('f', ['abc'], /cannot convert/)]),
  svm('decimal: in mappings and events', `mapping(uint => decimal) prices; event Priced(uint id, decimal p); function set(uint id, decimal p) public { prices[id] = p; emit Priced(id, p); } function get(uint id) public view returns (decimal) { return prices[id]; }`, [
    { method: 'set', args: [1, '9.99'], expect: [], events: [['Priced', [['id', '1'], ['p', '9.99']]]], diff: { '.prices<1>': '9.99' } },
    call('get', [1], '9.99'),
    call('get', [2], '0.0'),
  ]),

  // --- strings and casts ---------------------------------------------------------------
  svm('string: equality in storage and with literals', `string name = "ann"; function is_(string memory s) public view returns (bool, bool) { return (name == s, "ann" != s); }`, [call('is_', ['ann'], ['true', 'false']), call('is_', ['Ann'], ['false', 'true'])]),
  svm('string: + with numbers, bools and addresses on either side', `function f(uint n, bool b, address a) public pure returns (string memory) { return "n=" + n + ", b=" + b + ", a=" + a; }`, [call('f', [7, true, BOB], `n=7, b=true, a=${BOB}`)]),
  svm('string: += in a loop', `function f(uint n) public pure returns (string memory s) { for (uint i = 0; i < n; i++) s += string(i); }`, [call('f', [5], '01234')]),
  svm('string: length is the UTF-8 byte length', `function f(string memory s) public pure returns (uint) { return s.length; }`, [call('f', ['añb'], '4')]),
  svm('string: parsing casts of each base', `function f() public pure returns (uint, uint, int, bool, bool) { return (uint("0", 10), uint("FF", 16), int("-12", 10), bool("false"), bool("true")); }`, [call('f', [], ['0', '255', '-12', 'false', 'true'])]),
  // uint(string) and uint(string, radix) (issue 23 §5; the spec is silent — docs/conventions.md, SolidVM: without a
  // radix the platform's SolidVM reads hexadecimal; a radix from 2 to 36; a string that does not parse fails the transaction)
  svm('string: uint(s) without a radix reads hexadecimal', `function f(string memory s) public pure returns (uint) { return uint(s); }
     function g() public pure returns (uint, uint, uint, int, uint8) { return (uint("ff"), uint("0x10"), uint("10"), int("-a"), uint8("FF")); }`, [
    call('g', [], ['255', '16', '16', '-10', '255']),
    call('f', [' 1F '], '31'),
    fails('f', ['xyz'], 'cannot convert "xyz" to uint256'),
    fails('f', [''], 'cannot convert "" to uint256'),
    fails('f', ['0x'], 'cannot convert "0x" to uint256'),
  ]),
  svm('string: uint(s, radix) in any radix from 2 to 36', `function f(string memory s, uint r) public pure returns (int) { return int(s, r); }
     function g() public pure returns (uint, uint, uint, uint, int, uint) { return (uint("777", 8), uint("101", 2), uint("z", 36), uint("Zz", 36), int("-12", 3), uint("0x1f", 16)); }`, [
    call('g', [], ['511', '5', '35', '1295', '-5', '31']),
    call('f', ['123', 10], '123'),
    fails('f', ['8', 8], 'cannot convert "8" to int256'),
    fails('f', ['1', 37], 'cannot convert "1" to int256'),
    fails('f', ['1', 1], 'cannot convert "1" to int256'),
    fails('f', ['0x1f', 10], 'cannot convert "0x1f" to int256'),
  ]),
  svm('string: a parsed number out of the type\'s range fails as an overflow', `function f(string memory s) public pure returns (uint8, uint8) { return (uint8(uint(s, 10)), uint8(s, 10)); }`, [
    fails('f', ['300'], 'arithmetic overflow'),
    fails('f', ['-1'], 'arithmetic overflow'),
    call('f', ['255'], ['255', '255']),
  ]),
  svm('string: a parsed number can be truncated explicitly', `function f(string memory s) public pure returns (uint8) { return uint8(uint(s, 10)); }`, [call('f', ['300'], '44')]),
  svm('string: string(x) of each type', `enum E { A, B } function f() public view returns (string memory, string memory, string memory, string memory) { return (string(int(-3)), string(false), string(account(msg.sender, "main")), string(1.5)); }`, [
    call('f', [], ['-3', 'false', 'a11ce00000000000000000000000000000000001:main', '1.5']),
  ]),

  // --- error handling beyond Solidity: try blocks, named catch clauses, throw -----------------
  svm('try block: catch DivideByZero', `function f(uint a, uint b) public pure returns (uint r) { try { r = a / b; } catch DivideByZero { r = 999; } }`, [call('f', [6, 3], '2'), call('f', [1, 0], '999')]),
  svm('try block: what the block wrote is rolled back when it fails', `uint public n; function f(bool boom) public returns (uint) { try { n = 5; uint z = boom ? 0 : 1; n = n / z; } catch DivideByZero { } return n; }`, [
    { method: 'f', args: [true], expect: ['0'], diff: {} },
    { method: 'f', args: [false], expect: ['5'], diff: { '.n': '5' } },
  ]),
  svm('try block: throw and catch a custom error with its arguments', `error Err(uint a, string b); function f(uint x) public pure returns (string memory) { try { if (x > 0) throw Err(x, "big"); return "none"; } catch Err(uint a, string memory b) { return b + string(a); } }`, [
    call('f', [0], 'none'),
    call('f', [3], 'big3'),
  ]),
  svm('try block: a failure no clause takes goes on', `function f() public pure { try { require(false, "no"); } catch DivideByZero { } }`, [fails('f', [], 'no')]),
  svm('try block: clauses in order, Error and the catch-all', `function f(uint k) public pure returns (string memory) { uint8 x = 255; try { if (k == 0) revert("r"); if (k == 1) x++; if (k == 2) assert(false); } catch DivideByZero { return "div"; } catch ArithmeticOverflow { return "overflow"; } catch Error(string memory m) { return m; } catch { return "other"; } return "ok"; }`, [
    call('f', [0], 'r'),
    call('f', [1], 'overflow'),
    call('f', [2], 'other'),
    call('f', [3], 'ok'),
  ]),
  svm('try block: built-in names for the panics', `uint[] xs; enum E { A } function f(uint k) public returns (string memory) { try { if (k == 0) xs[5] = 1; if (k == 1) xs.pop(); if (k == 2) { E e = E(k); } if (k == 3) assert(false); } catch IndexOutOfBounds { return "index"; } catch EmptyArrayPop { return "pop"; } catch InvalidEnumValue { return "enum"; } catch AssertionFailed { return "assert"; } return "none"; }`, [
    call('f', [0], 'index'),
    call('f', [1], 'pop'),
    call('f', [2], 'enum'),
    call('f', [3], 'assert'),
  ]),
  svm('try block: a return inside returns from the function', `function f(uint a) public pure returns (uint) { try { if (a > 1) return a * 2; } catch { return 0; } return 1; }`, [call('f', [5], '10'), call('f', [1], '1')]),
  svm('throw of a custom error fails the transaction with its arguments', `error Err(uint a, string b); function f() public pure { throw Err(1, "x"); }`, [fails('f', [], 'Err(1, x)')]),
  svm('named catch of a custom error on an external call', ``, [call('g', [4], '4'), call('g', [0], '100')], {
    src: `contract D { error Bad(uint n); function f(uint n) public pure returns (uint) { if (n == 0) revert Bad(100); return n; } }\ncontract C { D d = new D(); function g(uint n) public view returns (uint) { try d.f(n) returns (uint r) { return r; } catch Bad(uint code) { return code; } } }`,
  }),
  svm('try block: the step limit is not caught', `function f() public pure returns (uint) { try { while (true) {} } catch { return 1; } }`, [fails('f', [], 'step limit exceeded (500 steps)', 'STEP_LIMIT')], { ctx: { stepLimit: 500 } }),

  // --- legacy syntax and platform built-ins ---------------------------------------------------
  svm('legacy: parameters without data location', `struct P { uint a; } function f(string s, uint[] xs, P p) public returns (uint) { return bytes(s).length + xs.length + p.a; }`, [call('f', ['ab', [1, 2, 3], { a: 10 }], '15')]),
  svm('legacy: local mappings', `function f() public returns (uint) { mapping(uint => uint) m; m[1] = 5; return m[1] + m[2]; }`, [call('f', [], '5')]),
  svm('legacy: a memory array that can push and pop', `function f() public pure returns (uint, uint) { uint[] memory a = new uint[](0); a.push(4); a.push(5); a.pop(); a.push(6); return (a.length, a[1]); }`, [call('f', [], ['2', '6'])]),
  svm('legacy: var with tuples', `function g() internal pure returns (uint, string memory) { return (2, "b"); } function f() public pure returns (uint, string memory) { var (n, s) = g(); return (n * 2, s); }`, [call('f', [], ['4', 'b'])]),
  // `>>>`: SolidVM's unsigned shift (spec silent; docs/conventions.md, SolidVM: the bits of the declared width, zeros shifted in, read back in the type)
  svm('>>>: an unsigned shift of signed integers', `function f(int8 a, uint8 n) public pure returns (int8, int8, int) { return (a >>> n, a >> n, int(a) >>> n); }
     function g(uint16 a) public pure returns (uint16, string memory) { return (a >>> 4, "a>>>b"); }`, [
    call('f', [-16, 2], ['60', '-4', (2n ** 254n - 4n).toString()]),
    call('f', [-1, 1], ['127', '-1', (2n ** 255n - 1n).toString()]),
    call('f', [16, 2], ['4', '4', '4']),
    call('f', [-1, 8], ['0', '-1', (2n ** 248n - 1n).toString()]),
    call('f', [-128, 255], ['0', '-1', '1']),
    call('g', [0xfff0], ['4095', 'a>>>b']),
  ]),
  svm('>>>=: compound unsigned shift, storage and locals; with literals', `int16 public s = -2; function f() public returns (int16, int, int) { s >>>= 1; int x = -1; x >>>= 255; return (s, x, -16 >>> 252); }`, [
    call('f', [], ['32767', '1', '15']),
    call('s', [], '32767'),
  ]),
  svm('legacy: 1eN literals and old units', `function f() public pure returns (uint, uint) { return (1e3 * 1 szabo, 2 finney); }`, [call('f', [], ['1000000000000000', '2000000000000000'])]),
  svm('address.nonce of an account that sent nothing', `function f(address a) public view returns (uint) { return a.nonce; }`, [call('f', [BOB], '0')]),
  svm('tx.certificate and the identity of the sender', `function f() public view returns (string memory, bool) { return (tx.username, bytes(tx.certificate).length > 0); }`, [call('f', [], ['alice', 'true'])]),
  svm('identity built-ins without the registry read as empty', `function f(address a) public view returns (string memory, bool, bool, string memory) { return (parseCert("pem")["organization"], verifyCert("c", "k"), verifySignature("h", "s", "k"), getUserCert(a)["userAddress"]); }`, [
    call('f', [BOB], ['', 'false', 'false', '']),
  ]),
  svm('a pragma solidvm line with other pragmas', ``, [call('f', [], '2')], { src: `pragma solidvm 3.2;\npragma experimental ABIEncoderV2;\ncontract C { function f() public pure returns (uint) { return 2; } }` }),
];
