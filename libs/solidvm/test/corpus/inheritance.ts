import { call, fails, sol, type CorpusCase } from './types.js';

const c = (name: string, src: string, calls: ReturnType<typeof call>[], extra = {}) => sol(name, '', calls, { src, ...extra });

export const cases: CorpusCase[] = [
  c('inherits state and functions', `contract A { uint public x = 1; function inc() public { x++; } }\ncontract C is A { function twice() public { inc(); inc(); } }`, [call('twice', [], []), call('x', [], '3')]),
  c('virtual override', `contract A { function f() public pure virtual returns (uint) { return 1; } function g() public pure returns (uint) { return f(); } }\ncontract C is A { function f() public pure override returns (uint) { return 2; } }`, [call('g', [], '2'), call('f', [], '2')]),
  c('super call', `contract A { function f() public pure virtual returns (uint) { return 1; } }\ncontract C is A { function f() public pure override returns (uint) { return super.f() + 10; } }`, [call('f', [], '11')]),
  c(
    'diamond C3 with super',
    `contract A { function f() public pure virtual returns (string memory) { return "A"; } }
contract B is A { function f() public pure virtual override returns (string memory) { return string.concat("B", super.f()); } }
contract D is A { function f() public pure virtual override returns (string memory) { return string.concat("D", super.f()); } }
contract C is B, D { function f() public pure override(B, D) returns (string memory) { return string.concat("C", super.f()); } }`,
    [call('f', [], 'CDBA')],
  ),
  c(
    'linearization order reversed bases',
    `contract A { function f() public pure virtual returns (string memory) { return "A"; } }
contract B is A { function f() public pure virtual override returns (string memory) { return string.concat("B", super.f()); } }
contract D is A { function f() public pure virtual override returns (string memory) { return string.concat("D", super.f()); } }
contract C is D, B { function f() public pure override(B, D) returns (string memory) { return string.concat("C", super.f()); } }`,
    [call('f', [], 'CBDA')],
  ),
  c('base constructor args in inheritance list', `contract A { uint public a; constructor(uint x) { a = x; } }\ncontract C is A(7) { }`, [call('a', [], '7')]),
  c('base constructor args in constructor', `contract A { uint public a; constructor(uint x) { a = x; } }\ncontract C is A { uint public b; constructor(uint y) A(y * 2) { b = y; } }`, [call('a', [], '10'), call('b', [], '5')], { ctorArgs: [5] }),
  c(
    'constructor order base first',
    `contract A { uint[] public log; constructor() { log.push(1); } }\ncontract B is A { constructor() { log.push(2); } }\ncontract C is B { constructor() { log.push(3); } function all() public view returns (uint[] memory) { return log; } }`,
    [call('all', [], '["1","2","3"]')],
  ),
  c('state initializers before constructor', `contract A { uint public x = 5; uint public y; constructor() { y = x + 1; } }\ncontract C is A { uint public z = 10; constructor() { z += y; } }`, [call('z', [], '16'), call('y', [], '6')]),
  c('abstract base', `abstract contract A { function v() internal view virtual returns (uint); function f() public view returns (uint) { return v() * 2; } }\ncontract C is A { function v() internal pure override returns (uint) { return 21; } }`, [call('f', [], '42')]),
  c('interface implementation', `interface I { function f() external view returns (uint); }\ncontract C is I { function f() external pure override returns (uint) { return 3; } }`, [call('f', [], '3')]),
  c('modifier inheritance', `contract A { modifier pos(uint x) { require(x > 0, "zero"); _; } }\ncontract C is A { function f(uint x) public pure pos(x) returns (uint) { return x; } }`, [call('f', [1], '1'), fails('f', [0], 'zero')]),
  c('virtual modifier override', `contract A { modifier m() virtual { require(false, "A"); _; } function f() public pure m returns (uint) { return 1; } }\ncontract C is A { modifier m() override { _; } }`, [call('f', [], '1')]),
  c('explicit base call', `contract A { function f() public pure virtual returns (uint) { return 1; } }\ncontract B is A { function f() public pure virtual override returns (uint) { return 2; } }\ncontract C is B { function f() public pure override returns (uint) { return A.f() * 100 + B.f(); } }`, [call('f', [], '102')]),
  c('inherited events', `contract A { event E(uint x); }\ncontract C is A { function f() public { emit E(1); } }`, [call('f', [], [])]),
  c('inherited struct type', `contract A { struct P { uint a; } }\ncontract C is A { P p; function f() public returns (uint) { p.a = 4; return p.a; } }`, [call('f', [], '4')]),
  c('multi level state', `contract A { uint a = 1; }\ncontract B is A { uint b = 2; }\ncontract C is B { uint c = 3; function f() public view returns (uint) { return a * 100 + b * 10 + c; } }`, [call('f', [], '123')]),
  c('override public state var getter', `contract A { function v() external view virtual returns (uint) { return 1; } }\ncontract C is A { uint public override v = 5; }`, [call('v', [], '5')]),
  c('ownable pattern', `contract Ownable { address public owner; constructor() { owner = msg.sender; } modifier onlyOwner() { require(msg.sender == owner, "Ownable: caller is not the owner"); _; } function transferOwnership(address n) public onlyOwner { owner = n; } }\ncontract C is Ownable { uint public v; function set(uint x) public onlyOwner { v = x; } }`, [
    call('set', [1], []),
    call('transferOwnership', ['b0b0000000000000000000000000000000000002'], []),
    fails('set', [2], 'Ownable: caller is not the owner'),
    { method: 'set', args: [3], expect: [], caller: 'b0b0000000000000000000000000000000000002' },
    call('v', [], '3'),
  ]),
  c('super through three levels', `contract A { uint public n; function inc() public virtual { n += 1; } }\ncontract B is A { function inc() public virtual override { n += 10; super.inc(); } }\ncontract C is B { function inc() public override { n += 100; super.inc(); } }`, [call('inc', [], []), call('n', [], '111')]),
  c('private members serve the base\'s own code, modifiers included', `contract A { uint private secret = 7; function peek() private view returns (uint) { return secret; } modifier known() { require(secret == 7, "lost"); _; } function reveal() public view returns (uint) { return peek(); } }\ncontract C is A { function f() public view known returns (uint) { return reveal() + 1; } }`, [call('f', [], '8')]),
  c('internal virtual dispatch from base constructor', `contract A { uint public x; constructor() { x = val(); } function val() internal pure virtual returns (uint) { return 1; } }\ncontract C is A { function val() internal pure override returns (uint) { return 2; } }`, [call('x', [], '2')]),
];
