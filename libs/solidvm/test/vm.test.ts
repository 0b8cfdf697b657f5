// The interface to the rest of the node: outcomes, events, state changes,
// rollback, limits, gas, xabi, state reading, caching, addresses.
import { ALICE, BOB, Chain, makeCtx, vm } from './helpers.js';
import { MemoryWorldState, codeHashOf, compile, createContract, createSolidVm, xabiOf, readContractState } from '../src/index.js';
import { contractAddress, saltedContractAddress } from '../src/hash.js';

const TOKEN = `
contract Token {
  string public name = "Tok";
  uint public total;
  mapping(address => uint) public balances;
  struct Meta { string note; uint version; }
  Meta public meta;
  uint[] public history;
  enum State { Open, Closed }
  State public state;
  event Transfer(address from, address to, uint amount, bool big);
  constructor(uint supply) { balances[msg.sender] = supply; total = supply; meta = Meta("first", 1); }
  function transfer(address to, uint amount) public returns (bool) {
    require(balances[msg.sender] >= amount, "insufficient balance");
    balances[msg.sender] -= amount;
    balances[to] += amount;
    history.push(amount);
    emit Transfer(msg.sender, to, amount, amount > 100);
    return true;
  }
  function close() public { state = State.Closed; }
  function spin(uint n) public pure returns (uint s) { for (uint i = 0; i < n; i++) s += i; }
}`;

function token(chain = new Chain()): { chain: Chain; address: string } {
  const r = chain.create(TOKEN, 'Token', { supply: 1000 });
  expect(r.ok).toBe(true);
  return { chain, address: r.address! };
}

describe('SolidVM outcomes', () => {
  test('creation reports the created contract, its xabi and its state', () => {
    const chain = new Chain();
    const r = chain.create(TOKEN, 'Token', { supply: 1000 });
    expect(r.ok).toBe(true);
    expect(r.message).toBe('Success!');
    expect(r.address).toBe(contractAddress(ALICE, 0n));
    expect(r.contractsCreated).toHaveLength(1);
    expect(r.contractsCreated[0]).toMatchObject({ address: r.address, name: 'Token', vm: 'SolidVM', creatorOrg: 'Acme', appName: null, codeHash: codeHashOf(TOKEN) });
    expect(r.contractsCreated[0].xabi.funcs.transfer.args).toEqual({ to: { type: 'Address', index: 0 }, amount: { type: 'Int', signed: false, bytes: 32, index: 1 } });
    const sc = r.stateChanges[0];
    expect(sc).toMatchObject({ address: r.address, contractName: 'Token', created: true, deleted: false, vm: 'SolidVM' });
    expect(sc.state).toEqual({ name: 'Tok', total: '1000', meta: { note: 'first', version: '1' }, history: [], state: '0' });
    expect(sc.diff).toEqual({ '.name': 'Tok', '.total': '1000', [`.balances<${ALICE}>`]: '1000', '.meta.note': 'first', '.meta.version': '1' });
    const acct = chain.state.getAccount(r.address!)!;
    expect(acct).toMatchObject({ vm: 'SolidVM', contractName: 'Token', codeHash: codeHashOf(TOKEN), nonce: 1n });
    expect(new TextDecoder().decode(chain.state.getCode(acct.codeHash!))).toBe(TOKEN);
  });

  test('a call reports return values, events and the diff of what changed', () => {
    const { chain, address } = token();
    const r = chain.call(address, 'transfer', { to: BOB, amount: 150 });
    expect(r.ok).toBe(true);
    expect(r.returnValues).toEqual(['true']);
    expect(r.response).toBe('[true]');
    expect(r.events).toEqual([
      { address, chainId: '', contractName: 'Token', name: 'Transfer', args: [['from', ALICE], ['to', BOB], ['amount', '150'], ['big', 'True']], index: 0 },
    ]);
    expect(r.stateChanges).toHaveLength(1);
    expect(r.stateChanges[0].diff).toEqual({ [`.balances<${ALICE}>`]: '850', [`.balances<${BOB}>`]: '150', '.history.length': '1', '.history[0]': '150' });
    expect(r.stateChanges[0].created).toBe(false);
  });

  test('a failure rolls back every change and reports the require text', () => {
    const { chain, address } = token();
    const before = readContractState(chain.state, address);
    const r = chain.call(address, 'transfer', { to: BOB, amount: 5000 });
    expect(r).toMatchObject({ ok: false, code: 'REVERT', message: 'insufficient balance', events: [], stateChanges: [], returnValues: [] });
    expect(readContractState(chain.state, address)).toEqual(before);
  });

  test('readContractState returns every variable, mappings with their entries', () => {
    const { chain, address } = token();
    chain.call(address, 'transfer', { to: BOB, amount: 1 });
    chain.call(address, 'close', {});
    expect(chain.read(address)).toEqual({
      name: 'Tok',
      total: '1000',
      balances: { [ALICE]: '999', [BOB]: '1' },
      meta: { note: 'first', version: '1' },
      history: ['1'],
      state: '1',
    });
  });

  test('string mapping keys read back single-quoted', () => {
    const chain = new Chain();
    const r = chain.create(`contract C { mapping(string => mapping(uint => bool)) m; constructor() { m["a'b"][3] = true; m["x"][1] = true; } }`, 'C');
    expect(chain.read(r.address!)).toEqual({ m: { "'a'b'": { '3': true }, "'x'": { '1': true } } });
  });

  test('unknown methods, addresses and bad arguments are failures naming them', () => {
    const { chain, address } = token();
    expect(chain.call(address, 'nope', {})).toMatchObject({ ok: false, code: 'UNKNOWN_METHOD', message: 'contract Token has no public function nope' });
    expect(chain.call(BOB, 'transfer', {})).toMatchObject({ ok: false, code: 'NO_CONTRACT' });
    expect(chain.call(address, 'transfer', { to: BOB, amount: 'lots' })).toMatchObject({ ok: false, code: 'BAD_ARGUMENTS', message: 'argument amount: expected uint256, got "lots"' });
    expect(chain.call(address, 'transfer', { to: 'xyz', amount: 1 })).toMatchObject({ ok: false, code: 'BAD_ARGUMENTS', message: 'argument to: expected address, got "xyz"' });
    expect(chain.create(TOKEN, 'Token', {})).toMatchObject({ ok: false, code: 'BAD_ARGUMENTS', message: 'missing argument supply (uint256) of the constructor of Token' });
    expect(chain.create(TOKEN, 'Nope', {})).toMatchObject({ ok: false, code: 'NO_CONTRACT' });
    expect(chain.create('contract {', 'C', {})).toMatchObject({ ok: false, code: 'COMPILE_ERROR' });
  });

  test('raw argument form and JSON text are accepted', () => {
    const { chain, address } = token();
    expect(chain.call(address, 'transfer', `("${BOB}", 5)`).ok).toBe(true);
    expect(chain.call(address, 'transfer', JSON.stringify({ to: BOB, amount: '5' })).ok).toBe(true);
    expect(chain.call(address, 'balances', `(${BOB})`).returnValues).toEqual(['10']);
  });

  test('step limit ends runaway loops; the limit is a protocol parameter', () => {
    const { chain, address } = token();
    chain.ctx = makeCtx({ protocol: { stepLimit: 1000, gasTableVersion: 1 } });
    expect(chain.call(address, 'spin', [100]).ok).toBe(true);
    const r = chain.call(address, 'spin', [100000]);
    expect(r).toMatchObject({ ok: false, code: 'STEP_LIMIT', message: 'step limit exceeded (1000 steps)' });
    const loop = chain.create(`contract L { function f() public { while (true) {} } }`, 'L');
    expect(chain.call(loop.address!, 'f', {})).toMatchObject({ ok: false, code: 'STEP_LIMIT' });
  });

  test('step limit cannot be caught by try/catch', () => {
    const chain = new Chain();
    chain.ctx = makeCtx({ protocol: { stepLimit: 5000, gasTableVersion: 1 } });
    const r = chain.create(`contract D { function f() public pure { while (true) {} } }\ncontract C { D d = new D(); function g() public returns (bool) { try d.f() { return true; } catch { return false; } } }`, 'C');
    expect(chain.call(r.address!, 'g', {})).toMatchObject({ ok: false, code: 'STEP_LIMIT' });
  });

  test('gas: metered from the versioned table; golden values', () => {
    const chain = new Chain();
    chain.ctx = makeCtx({ gasEnabled: true });
    const c = chain.create(TOKEN, 'Token', { supply: 1000 });
    expect(c.gasUsed).toBe(78030n);
    const t = chain.call(c.address!, 'transfer', { to: BOB, amount: 10 });
    expect(t.gasUsed).toBe(42435n);
    const s = chain.call(c.address!, 'spin', [100]);
    expect(s.gasUsed).toBe(22020n);
  });

  test('out of gas fails the transaction', () => {
    const chain = new Chain();
    chain.ctx = makeCtx({ gasEnabled: true });
    const c = chain.create(TOKEN, 'Token', { supply: 1000 });
    chain.ctx = makeCtx({ gasEnabled: true, tx: { ...makeCtx().tx, gasLimit: 30000n } });
    const r = chain.call(c.address!, 'spin', [10000]);
    expect(r).toMatchObject({ ok: false, code: 'OUT_OF_GAS', message: 'out of gas', gasUsed: 30000n });
    const t = chain.call(c.address!, 'transfer', { to: BOB, amount: 10 });
    expect(t).toMatchObject({ ok: false, code: 'OUT_OF_GAS' });
    expect(chain.call(c.address!, 'balances', [BOB]).returnValues).toEqual(['0']);
  });

  test('contracts created by contracts: addresses from creator and nonce, and salted', () => {
    const chain = new Chain();
    const src = `contract D { uint public v; constructor(uint x) { v = x; } }\ncontract C { D public a; D public b; function make() public { a = new D(1); b = new D{salt: bytes32(uint(7))}(2); } }`;
    const r = chain.create(src, 'C');
    const m = chain.call(r.address!, 'make', {});
    expect(m.ok).toBe(true);
    const a = contractAddress(r.address!, 1n);
    const salt = new Uint8Array(32);
    salt[31] = 7;
    const b = saltedContractAddress(r.address!, salt, 'D', codeHashOf(src));
    expect(chain.call(r.address!, 'a', {}).returnValues).toEqual([a]);
    expect(chain.call(r.address!, 'b', {}).returnValues).toEqual([b]);
    expect(m.contractsCreated.map((c) => [c.address, c.name, c.appName])).toEqual([
      [a, 'D', 'C'],
      [b, 'D', 'C'],
    ]);
    expect(m.stateChanges.map((s) => s.address).sort()).toEqual([r.address!, a, b].sort());
    // the same salt again collides
    expect(chain.call(r.address!, 'make', {})).toMatchObject({ ok: false });
  });

  test('selfdestruct deletes the contract and its storage', () => {
    const chain = new Chain();
    const r = chain.create(`contract C { uint x = 5; function kill() public { selfdestruct(payable(msg.sender)); } }`, 'C');
    const k = chain.call(r.address!, 'kill', {});
    expect(k).toMatchObject({ ok: true, contractsDeleted: [r.address] });
    expect(chain.state.getAccount(r.address!)).toBeUndefined();
    expect([...chain.state.storageEntries(r.address!)]).toEqual([]);
  });

  test('try/catch discards events of the failed call', () => {
    const chain = new Chain();
    const r = chain.create(`contract D { event E(uint x); function f() public { emit E(1); revert("x"); } }\ncontract C { event F(string s); D d = new D(); function g() public { try d.f() {} catch Error(string memory s) { emit F(s); } } }`, 'C');
    const g = chain.call(r.address!, 'g', {});
    expect(g.events.map((e) => [e.name, e.args])).toEqual([['F', [['s', 'x']]]]);
  });

  test('identity hooks: getUserCert', () => {
    const chain = new Chain({ hooks: { getUserCert: (a) => (a === BOB ? { commonName: 'bob', organization: 'Org' } : undefined) } });
    const r = chain.create(`contract C { function f(address a) public returns (string memory) { return getUserCert(a)["commonName"] + "@" + getUserCert(a)["organization"]; } }`, 'C');
    expect(chain.call(r.address!, 'f', [BOB]).returnValues).toEqual(['bob@Org']);
  });

  test('a failed creation leaves no account', () => {
    const chain = new Chain();
    const r = chain.create(`contract C { constructor() { require(false, "nope"); } }`, 'C');
    expect(r).toMatchObject({ ok: false, message: 'nope' });
    expect(chain.state.getAccount(r.address!)).toBeUndefined();
  });
});

describe('SolidVM interface details', () => {
  test('execution is deterministic: the same transactions give the same outcomes on a fresh state', () => {
    const run = () => {
      const chain = new Chain();
      const r = chain.create(TOKEN, 'Token', { supply: 1000 });
      const outs = [r, chain.call(r.address!, 'transfer', { to: BOB, amount: 7 }), chain.call(r.address!, 'spin', [50]), chain.call(r.address!, 'transfer', { to: BOB, amount: 5000 })];
      // the whole outcomes (gas, events, diffs, addresses) and the final state, as JSON
      return JSON.stringify(outs, (_, v) => (typeof v === 'bigint' ? v.toString() : v)) + JSON.stringify(chain.read(r.address!));
    };
    expect(run()).toBe(run());
  });

  test('account(a, "parent") asks the node for the parent chain', () => {
    const src = `contract C { function f(address a) public view returns (account) { return account(a, "parent"); } }`;
    const child = new Chain({ hooks: { parentChain: () => 'cd'.repeat(32) } });
    const r = child.create(src, 'C');
    expect(child.call(r.address!, 'f', [BOB]).returnValues).toEqual([`${BOB}:${'cd'.repeat(32)}`]);
    const ofMain = new Chain({ hooks: { parentChain: () => '' } });
    const m = ofMain.create(src, 'C');
    expect(ofMain.call(m.address!, 'f', [BOB]).returnValues).toEqual([`${BOB}:main`]);
  });

  test('ecrecover uses the node\'s hook when it gives one', () => {
    const seen: number[] = [];
    const chain = new Chain({ hooks: { ecrecover: (_h, v) => (seen.push(v), BOB) } });
    const r = chain.create(`contract C { function f() public pure returns (address) { return ecrecover(bytes32(0), 27, bytes32(uint(1)), bytes32(uint(2))); } }`, 'C');
    expect(chain.call(r.address!, 'f', []).returnValues).toEqual([BOB]);
    expect(seen).toEqual([27]);
  });

  test('value sent to a non-payable function of another contract is refused', () => {
    const chain = new Chain();
    chain.ctx = makeCtx({ gasEnabled: true });
    const r = chain.create(`contract D { function pay() public payable returns (uint) { return msg.value; } function free() public pure returns (uint) { return 1; } }
contract C { D d = new D(); function a() public returns (uint) { return d.pay{value: 5}(); } function b() public returns (uint) { return d.free{value: 5}(); } function bal() public view returns (uint, uint) { return (address(this).balance, address(d).balance); } }`, 'C');
    expect(r.ok).toBe(true);
    // fund the contract directly in the world state (the faucet's job on a node)
    chain.state.putAccount(r.address!, { ...chain.state.getAccount(r.address!)!, balance: 100n });
    expect(chain.call(r.address!, 'a', []).returnValues).toEqual(['5']);
    expect(chain.call(r.address!, 'b', [])).toMatchObject({ ok: false, code: 'REVERT', message: 'function free is not payable' });
    expect(chain.call(r.address!, 'bal', []).returnValues).toEqual(['95', '5']);
  });
});

describe('compile', () => {
  test('is cached by code hash', () => {
    const a = vm.compile(TOKEN);
    expect(vm.compile(TOKEN)).toBe(a);
    // each SolidVM keeps its own units; the module's compile keeps none
    const other = createSolidVm({ compileCacheSize: 1 });
    expect(other.compile(TOKEN)).not.toBe(a);
    expect(other.cacheSize()).toBe(1);
    other.compile('contract Z {}');
    expect(other.cacheSize()).toBe(1);
    other.clearCaches();
    expect(other.cacheSize()).toBe(0);
    expect(compile(TOKEN)).not.toBe(compile(TOKEN));
    expect(a.codeHash).toBe(codeHashOf(TOKEN));
  });

  test('errors carry line and column and the stable code', () => {
    try {
      compile('contract C {\n  function f() public { x = 1; }\n}');
      throw new Error('expected an error');
    } catch (e: any) {
      expect(e.code).toBe('SOLIDVM_COMPILE_ERROR');
      expect(e.line).toBe(2);
      expect(e.column).toBe(25);
      expect(e.message).toBe('2:25: undeclared identifier x');
    }
  });

  test('several files form one namespace', () => {
    const chain = new Chain();
    const r = chain.create({ 'a.sol': 'contract A { function v() public pure returns (uint) { return 2; } }', 'b.sol': 'import "a.sol";\ncontract B is A {}' }, 'B');
    expect(r.ok).toBe(true);
    expect(chain.call(r.address!, 'v', {}).returnValues).toEqual(['2']);
  });

  test('xabi of a contract', () => {
    const x = xabiOf(compile(TOKEN), 'Token');
    expect(x.kind).toBe('ContractKind');
    expect(x.constr?.args).toEqual({ supply: { type: 'Int', signed: false, bytes: 32, index: 0 } });
    expect(x.vars.balances).toMatchObject({ type: 'Mapping', key: { type: 'Address' }, value: { type: 'Int', signed: false, bytes: 32 }, public: true });
    expect(x.vars.name).toMatchObject({ type: 'String', initialValue: 'Tok' });
    expect(x.types.Meta).toEqual({ type: 'Struct', fields: { note: { type: 'String', dynamic: true, index: 0 }, version: { type: 'Int', signed: false, bytes: 32, index: 1 } } });
    expect(x.types.State).toEqual({ type: 'Enum', names: ['Open', 'Closed'] });
    expect(x.events.Transfer.logs[3]).toEqual(['big', { type: 'Bool' }]);
    expect(x.funcs.spin).toMatchObject({ stateMutability: 'pure', visibility: 'public', vals: { s: { type: 'Int', signed: false, bytes: 32 } } });
  });
});

describe('MemoryWorldState', () => {
  test('nested checkpoints commit into the parent and revert all', () => {
    const s = new MemoryWorldState();
    s.checkpoint();
    s.putStorage('a', 'k', '1');
    s.checkpoint();
    s.putStorage('a', 'k', '2');
    s.commit();
    expect(s.getStorage('a', 'k')).toBe('2');
    s.revert();
    expect(s.getStorage('a', 'k')).toBeUndefined();
  });

  test('createContract works against any WorldState', () => {
    const s = new MemoryWorldState();
    const r = createContract(s, makeCtx(), { creator: ALICE, src: 'contract C { uint public x = 1; }', contractName: 'C' });
    expect(r.ok).toBe(true);
    expect(readContractState(s, r.address!)).toEqual({ x: '1' });
  });
});
