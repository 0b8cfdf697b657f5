// try/catch on external calls and `new`, and what each catch clause sees:
// the revert data is the EVM's (Error(string), Panic(uint256), custom errors
// behind their selector, nothing for a bare revert), so the EVM must agree.
import { call, fails, sol, svm, type CorpusCase } from './types.js';

const c = (name: string, src: string, calls: ReturnType<typeof call>[], extra = {}) => sol(name, '', calls, { src, ...extra });

const THROWER = `error Low(uint have, string why);
contract D {
  function reason() public pure { revert("because"); }
  function bare() public pure { revert(); }
  function req() public pure { require(false); }
  function div(uint x) public pure returns (uint) { return 1 / x; }
  function custom() public pure { revert Low(3, "few"); }
  function ok() public pure returns (uint) { return 7; }
}
`;

export const cases: CorpusCase[] = [
  c(
    'catch bytes gets the Error(string) data',
    THROWER + `contract C { D d = new D(); function f() public view returns (uint, bytes4) { try d.reason() { return (0, 0); } catch (bytes memory b) { return (b.length, bytes4(b)); } } }`,
    [call('f', [], ['100', '08c379a0'])],
  ),
  c(
    'catch bytes gets the Panic data',
    THROWER + `contract C { D d = new D(); function f() public view returns (uint, bytes4, uint) { try d.div(0) returns (uint) { return (0, 0, 0); } catch (bytes memory b) { return (b.length, bytes4(b), uint8(b[35])); } } }`,
    [call('f', [], ['36', '4e487b71', '18'])],
  ),
  c(
    'catch bytes gets a custom error with its selector',
    THROWER + `contract C { D d = new D(); function f() public view returns (uint, bool) { try d.custom() { return (0, false); } catch (bytes memory b) { return (b.length, bytes4(b) == Low.selector); } } }`,
    [call('f', [], ['132', 'true'])],
  ),
  c(
    'catch bytes of a bare revert is empty',
    THROWER + `contract C { D d = new D(); function f() public view returns (uint) { try d.bare() { return 99; } catch (bytes memory b) { return b.length; } } }`,
    [call('f', [], '0')],
  ),
  c(
    'catch Error does not see require without a message',
    THROWER + `contract C { D d = new D(); function f() public view returns (string memory) { try d.req() { return "ok"; } catch Error(string memory r) { return r; } catch { return "other"; } } }`,
    [call('f', [], 'other')],
  ),
  c(
    'catch Error does not see a bare revert, and nothing else catches it',
    THROWER + `contract C { D d = new D(); function f() public view returns (string memory) { try d.bare() { return "ok"; } catch Error(string memory r) { return r; } } }`,
    [fails('f', [])],
  ),
  c(
    'catch Panic does not see a reason',
    THROWER + `contract C { D d = new D(); function f() public view returns (uint) { try d.reason() { return 0; } catch Panic(uint c) { return c; } catch Error(string memory) { return 1; } } }`,
    [call('f', [], '1')],
  ),
  c(
    'custom errors fall to the catch-all',
    THROWER + `contract C { D d = new D(); function f() public view returns (uint) { try d.custom() { return 0; } catch Error(string memory) { return 1; } catch Panic(uint) { return 2; } catch { return 3; } } }`,
    [call('f', [], '3')],
  ),
  c(
    'a custom error propagates with its arguments',
    THROWER + `contract C { D d = new D(); function f() public view { d.custom(); } }`,
    [fails('f', [], 'Low(3, few)')],
  ),
  c(
    'panic codes of overflow, bounds and enum',
    `contract D { enum E { A } uint8 n = 255; uint[] xs;
  function over() public { n++; }
  function bounds() public view returns (uint) { return xs[1]; }
  function en(uint i) public pure returns (E) { return E(i); } }
contract C { D d = new D();
  function f(uint which) public returns (uint code) {
    if (which == 0) { try d.over() {} catch Panic(uint c) { code = c; } }
    else if (which == 1) { try d.bounds() returns (uint) {} catch Panic(uint c) { code = c; } }
    else { try d.en(5) returns (D.E) {} catch Panic(uint c) { code = c; } }
  } }`,
    [call('f', [0], '17'), call('f', [1], '50'), call('f', [2], '33')],
  ),
  c(
    'a failure evaluating the arguments is not caught',
    THROWER + `contract C { D d = new D(); function f(uint x) public view returns (uint) { try d.div(10 / x) returns (uint r) { return r; } catch { return 999; } } }`,
    [call('f', [10], '1'), fails('f', [0], 'division by zero')],
  ),
  c(
    'a failure in the success block is not caught',
    THROWER + `contract C { D d = new D(); function f() public view returns (uint) { try d.ok() returns (uint r) { require(r != 7, "seven"); return r; } catch { return 0; } } }`,
    [fails('f', [], 'seven')],
  ),
  c(
    'state written before a caught failure stays',
    `contract D { uint public n; function bump(bool fail) public { n++; require(!fail, "no"); } }
contract C { D public d = new D(); uint public tries;
  function f(bool fail) public returns (uint, uint) { tries++; try d.bump(fail) {} catch {} return (tries, d.n()); } }`,
    [call('f', [false], ['1', '1']), call('f', [true], ['2', '1']), call('f', [false], ['3', '2'])],
  ),
  c(
    'nested try inside the callee',
    `contract E { function boom() public pure { revert("deep"); } }
contract D { E e = new E(); function g() public view returns (string memory) { try e.boom() { return "none"; } catch Error(string memory r) { return string.concat("D caught ", r); } } }
contract C { D d = new D(); function f() public view returns (string memory) { try d.g() returns (string memory s) { return s; } catch { return "C caught"; } } }`,
    [call('f', [], 'D caught deep')],
  ),
  c(
    'rethrow from a catch clause',
    THROWER + `contract C { D d = new D(); function f() public view { try d.reason() {} catch Error(string memory r) { revert(string.concat("wrapped: ", r)); } } }`,
    [fails('f', [], 'wrapped: because')],
  ),
  c(
    'try on this',
    `contract C { function inner(uint x) public pure returns (uint) { require(x < 10, "big"); return x * 2; }
  function f(uint x) public view returns (uint, string memory) { try this.inner(x) returns (uint r) { return (r, ""); } catch Error(string memory e) { return (0, e); } } }`,
    [call('f', [4], ['8', '']), call('f', [40], ['0', 'big'])],
  ),
  c(
    'try new with a failing constructor rolls back what it created',
    `contract K { }
contract D { K public k; constructor(bool fail) { k = new K(); require(!fail, "ctor"); } }
contract C { uint public made;
  function f(bool fail) public returns (string memory) { try new D(fail) returns (D) { made++; return "made"; } catch Error(string memory r) { return r; } } }`,
    [call('f', [true], 'ctor'), call('made', [], '0'), call('f', [false], 'made'), call('made', [], '1')],
  ),
  c(
    'catch Panic of an assert in the callee',
    `contract D { function f(uint x) public pure returns (uint) { assert(x != 0); return x; } }
contract C { D d = new D(); function g(uint x) public view returns (uint) { try d.f(x) returns (uint r) { return r; } catch Panic(uint code) { return 100 + code; } } }`,
    [call('g', [3], '3'), call('g', [0], '101')],
  ),
  c(
    'catch clauses that ignore the value',
    THROWER + `contract C { D d = new D(); function f() public view returns (uint) { try d.reason() { return 0; } catch Error(string memory) { return 1; } } }`,
    [call('f', [], '1')],
  ),
  c(
    'the success block sees the named return values',
    `contract D { function pair() public pure returns (uint a, string memory b) { return (4, "four"); } }
contract C { D d = new D(); function f() public view returns (string memory) { try d.pair() returns (uint n, string memory s) { return n == 4 ? s : "?"; } catch { return "failed"; } } }`,
    [call('f', [], 'four')],
  ),
  c(
    'abi.decode of the Error data',
    THROWER + `contract C { D d = new D(); function f() public view returns (string memory) { try d.reason() {} catch (bytes memory b) { bytes memory body = new bytes(b.length - 4); for (uint i = 4; i < b.length; i++) body[i - 4] = b[i]; return abi.decode(body, (string)); } return ""; } }`,
    [call('f', [], 'because')],
  ),
  c(
    'a function the callee lacks fails without reason data',
    `interface I { function nope() external; }\ncontract D { }\ncontract C { D d = new D(); function f() public returns (uint) { try I(address(d)).nope() { return 0; } catch Error(string memory) { return 1; } catch (bytes memory b) { return 2 + b.length; } } }`,
    [call('f', [], '2')],
  ),

  // SolidVM's `throw ErrorName(args)` and `catch ErrorName(a, b) { … }` (issue 23 §5). The spec is silent;
  // docs/conventions.md, SolidVM ("Error handling beyond Solidity"): `catch Err(a, b) { }` binds the error's
  // arguments — bare names take the error's declared types — in the block form and on external calls alike;
  // `throw Err(args)` raises it, as `revert Err(args)` does.
  svm('SolidVM: throw Err(args) outside a try fails the transaction with the error and its arguments', `error Err(uint a, string b); function f(uint x) public pure { throw Err(x, "big"); }`, [fails('f', [3], 'Err(3, big)', 'REVERT')]),
  svm('SolidVM: catch Err(a, b) binds the arguments by bare name, in a try block', `error Err(uint a, string b); function f(uint x) public pure returns (string memory) { try { if (x > 0) throw Err(x, "big"); return "none"; } catch Err(a, b) { return b + string(a + 1); } }`, [
    call('f', [0], 'none'),
    call('f', [3], 'big4'),
  ]),
  svm('SolidVM: catch Err(a, b) on an external call; typed and bare names mixed', '', [call('f', [4], 'big4'), call('f', [0], '1'), call('g', [5], 'm5')], {
    src: `contract D { error Err(uint a, string b); function h(uint x) public pure returns (uint) { if (x > 0) throw Err(x, "big"); return 1; } }
contract C {
  error Err(uint a, string b);
  D d = new D();
  function f(uint x) public view returns (string memory) { try d.h(x) returns (uint v) { return string(v); } catch Err(a, b) { return b + string(a); } }
  function g(uint x) public pure returns (string memory) { try { throw Err(x, "m"); } catch Err(uint a, b) { return b + string(a); } }
}`,
  }),
  svm('SolidVM: a bare name in catch Err(…) may be the name of a type elsewhere only if it is not one here', `struct S { uint z; } error Err(uint a); function f(uint x) public pure returns (uint) { try { throw Err(x); } catch Err(q) { return q * 2; } }`, [call('f', [5], '10')]),
  { name: 'SolidVM: catch Err(a) with the wrong number of names', body: `error Err(uint a, uint b); function f() public pure { try { } catch Err(a) { } }`, compileError: 'error Err has 2 parameters', evm: false },
];
