// createContract / callContract on @ethereumjs/evm over a MemoryWorldState:
// results, failures, events, created contracts, raw calldata, value, gas, and
// state kept in the WorldState across calls (and across a "restart").
import { AbiCoder, Interface, getCreateAddress } from 'ethers';
import { createContract as solidCreate } from '@platform/solidvm';
import { META_KEY, type ExecOutcome } from '../src/index.js';
import { ALICE, BOB, TOKEN, callContract, clearCaches, compileSolidity, context, createContract, freshState, readContractState } from './helpers.js';
import { CALLER, FACTORY, MATH, ONCE, SHAPES, VAULT } from './contracts.js';

const ok = (o: ExecOutcome) => {
  if (!o.ok) throw new Error(`${o.code}: ${o.message}`);
  return o;
};

async function deployToken(s = freshState(), supply: unknown = 1000) {
  const out = ok(await createContract(s, context(), { creator: ALICE, src: TOKEN, contractName: 'Token', args: { _name: 'Gold', supply } }));
  return { s, token: out.address!, out };
}

describe('a token: create, call, state kept in the WorldState', () => {
  test('creation: address from the creator and nonce, contract recorded, creator nonce untouched', async () => {
    const s = freshState();
    s.putAccount(ALICE, { nonce: 5n, balance: 0n, codeHash: null });
    const out = ok(await createContract(s, context(), { creator: ALICE, src: TOKEN, contractName: 'Token', args: ['Gold', '1000'] }));
    expect(out.address).toBe(getCreateAddress({ from: '0x' + ALICE, nonce: 5 }).slice(2).toLowerCase());
    expect(out.message).toBe('Success!');
    expect(out.returnValues).toEqual([]);
    expect(s.getAccount(ALICE)!.nonce).toBe(5n);
    const acct = s.getAccount(out.address!)!;
    expect(acct).toMatchObject({ vm: 'EVM', contractName: 'Token', nonce: 1n });
    expect(Buffer.from(s.getCode(acct.codeHash!)!).toString('hex')).toBe(compileSolidity(TOKEN).contracts.Token.binRuntime);
    expect(out.contractsCreated).toEqual([expect.objectContaining({ address: out.address, name: 'Token', codeHash: acct.codeHash, vm: 'EVM', appName: null, creatorOrg: null })]);
    expect(out.contractsCreated[0].xabi.funcs.transfer).toBeDefined();
    const change = out.stateChanges[0];
    expect(change).toMatchObject({ address: out.address, contractName: 'Token', created: true, deleted: false, vm: 'EVM' });
    expect(change.state).toEqual({ name: 'Gold', totalSupply: '1000', owner: ALICE, paused: false });
    expect(change.diff['0000000000000000000000000000000000000000000000000000000000000001']).toBe('00000000000000000000000000000000000000000000000000000000000003e8');
    expect(change.diff['.totalSupply']).toBe('1000');
  });

  test('calls: return values as strings, events, diff by slot and by name; state persists', async () => {
    const { s, token } = await deployToken();
    const t = ok(await callContract(s, context(), { caller: ALICE, address: token, method: 'transfer', args: { to: BOB, amount: 10 } }));
    expect(t.returnValues).toEqual(['true']);
    expect(t.response).toBe('00'.repeat(31) + '01');
    expect(t.events).toEqual([{ address: token, chainId: '', contractName: 'Token', name: 'Transfer', args: [['from', ALICE], ['to', BOB], ['value', '10']], index: 0 }]);
    expect(t.logs[0].topics[0]).toBe('ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef');
    expect(t.stateChanges).toHaveLength(1);
    expect(Object.keys(t.stateChanges[0].diff)).toHaveLength(2); // two balance slots; no simple variable changed
    expect(t.gasUsed).toBeGreaterThan(21_000n);

    const bal = ok(await callContract(s, context(), { caller: BOB, address: token, method: 'balanceOf', args: [BOB] }));
    expect(bal.returnValues).toEqual(['10']);
    const info = ok(await callContract(s, context(), { caller: BOB, address: '0x' + token.toUpperCase(), method: 'info' }));
    expect(info.returnValues).toEqual(['Gold', '1000', ALICE, 'false']);
    expect(info.stateChanges).toEqual([]);

    // after a restart nothing is cached: the ABI comes back from the state
    clearCaches();
    const again = ok(await callContract(s, context(), { caller: ALICE, address: token, method: 'transfer', args: ['0x' + BOB, '5'] }));
    expect(again.events[0].args[2]).toEqual(['value', '5']);
    // JSON text and the raw form, as transaction metadata carries arguments
    ok(await callContract(s, context(), { caller: ALICE, address: token, method: 'transfer', args: `{"to":"${BOB}","amount":"1"}` }));
    ok(await callContract(s, context(), { caller: ALICE, address: token, method: 'transfer', args: `(${BOB},2)` }));
    expect(ok(await callContract(s, context(), { caller: BOB, address: token, method: 'balanceOf', args: `(${BOB})` })).returnValues).toEqual(['18']);
    expect(readContractState(s, token)).toEqual({ name: 'Gold', totalSupply: '1000', owner: ALICE, paused: false });
    expect(s.getStorage(token, META_KEY)).toMatch(/^[0-9a-f]{64}\/contract\.sol:Token$/);
  });

  test('named diff for changed simple variables, long strings included', async () => {
    const { s, token } = await deployToken();
    const long = 'a name longer than thirty-one bytes, kept in hashed slots';
    const r = ok(await callContract(s, context(), { caller: ALICE, address: token, method: 'rename', args: { n: long } }));
    expect(r.stateChanges[0].diff['.name']).toBe(long);
    expect(r.stateChanges[0].state.name).toBe(long);
    expect(Object.keys(r.stateChanges[0].diff).filter((k) => k.startsWith('.'))).toEqual(['.name']);
    const p = ok(await callContract(s, context(), { caller: ALICE, address: token, method: 'setPaused', args: { p: true } }));
    expect(p.stateChanges[0].diff['.paused']).toBe(true);
  });

  test('constructor arguments: by name, positional, JSON text, ABI hex, or appended to the bytecode', async () => {
    const iface = new Interface(compileSolidity(TOKEN).contracts.Token.abi as never);
    const encoded = iface.encodeDeploy(['Gold', 77]).slice(2);
    const bin = compileSolidity(TOKEN).contracts.Token.bin;
    const forms: Array<Record<string, unknown>> = [
      { args: { supply: '77', _name: 'Gold' } },
      { args: ['Gold', 77] },
      { args: '{"_name":"Gold","supply":77}' },
      { args: '0x' + encoded },
      { bytecode: '0x' + bin + encoded },
    ];
    for (const f of forms) {
      const s = freshState();
      const out = ok(await createContract(s, context(), { creator: ALICE, src: TOKEN, contractName: 'Token', ...f }));
      expect(readContractState(s, out.address!)).toMatchObject({ name: 'Gold', totalSupply: '77' });
    }
    const missing = await createContract(freshState(), context(), { creator: ALICE, src: TOKEN, contractName: 'Token', args: { _name: 'Gold' } });
    expect(missing).toMatchObject({ ok: false, code: 'BAD_ARGUMENTS', message: 'missing argument supply (uint256) of the constructor of Token' });
  });
});

describe('failures: reasons, and nothing of the transaction remains', () => {
  test('require message', async () => {
    const { s, token } = await deployToken();
    s.checkpoint(); // an enclosing journal level, as the block service's: left balanced
    const r = await callContract(s, context(), { caller: BOB, address: token, method: 'transfer', args: { to: ALICE, amount: 1 } });
    s.commit();
    expect(r).toMatchObject({ ok: false, code: 'REVERT', message: 'insufficient balance', returnValues: [], events: [], stateChanges: [] });
    expect(r.gasUsed).toBeGreaterThan(21_000n);
    // no checkpoint left open
    expect((s as unknown as { journal: { depth: number } }).journal.depth).toBe(0);
    expect(ok(await callContract(s, context(), { caller: ALICE, address: token, method: 'balanceOf', args: [ALICE] })).returnValues).toEqual(['1000']);
  });

  test('custom errors read as Name(args)', async () => {
    const { s, token } = await deployToken();
    const r = await callContract(s, context(), { caller: BOB, address: token, method: 'setPaused', args: { p: true } });
    expect(r).toMatchObject({ ok: false, code: 'REVERT', message: `NotOwner(${BOB}, 7)` });
  });

  test('panics: overflow, division by zero, assert; a bare revert', async () => {
    const s = freshState();
    const m = ok(await createContract(s, context(), { creator: ALICE, src: MATH, contractName: 'Math' })).address!;
    expect(await callContract(s, context(), { caller: ALICE, address: m, method: 'add', args: { a: 200, b: 100 } })).toMatchObject({ ok: false, code: 'PANIC', message: 'arithmetic overflow' });
    expect(await callContract(s, context(), { caller: ALICE, address: m, method: 'div', args: [1, 0] })).toMatchObject({ code: 'PANIC', message: 'division by zero' });
    expect(await callContract(s, context(), { caller: ALICE, address: m, method: 'check', args: [13] })).toMatchObject({ code: 'PANIC', message: 'assertion failed' });
    expect(await callContract(s, context(), { caller: ALICE, address: m, method: 'bare' })).toMatchObject({ code: 'REVERT', message: 'reverted without a reason' });
    // a failed write leaves the stored value
    expect(await callContract(s, context(), { caller: ALICE, address: m, method: 'bump', args: [100] })).toMatchObject({ code: 'PANIC' });
    expect(ok(await callContract(s, context(), { caller: ALICE, address: m, method: 'small' })).returnValues).toEqual(['200']);
  });

  test('unknown address, method, arguments of the wrong shape, a SolidVM address', async () => {
    const { s, token } = await deployToken();
    expect(await callContract(s, context(), { caller: ALICE, address: BOB, method: 'x' })).toMatchObject({ ok: false, code: 'NO_CONTRACT', message: `no contract at address ${BOB}` });
    expect(await callContract(s, context(), { caller: ALICE, address: token, method: 'steal' })).toMatchObject({ code: 'UNKNOWN_METHOD', message: 'contract Token has no public function steal' });
    expect(await callContract(s, context(), { caller: ALICE, address: token, method: 'transfer', args: { to: BOB, amount: 'lots' } })).toMatchObject({ code: 'BAD_ARGUMENTS', message: 'argument amount: expected uint256, got "lots"' });
    expect(await callContract(s, context(), { caller: ALICE, address: token, method: 'transfer', args: { to: BOB } })).toMatchObject({ code: 'BAD_ARGUMENTS' });
    expect(await callContract(s, context(), { caller: 'nope', address: token, method: 'info' })).toMatchObject({ code: 'BAD_ARGUMENTS', message: 'the caller must be 40 hex digits, got "nope"' });
    const sv = solidCreate(s, context(), { creator: ALICE, src: 'contract T { uint x = 5; function get() public returns (uint) { return x; } }', contractName: 'T', nonce: 9n });
    expect(sv.ok).toBe(true);
    expect(await callContract(s, context(), { caller: ALICE, address: sv.address!, method: 'get' })).toMatchObject({ code: 'NO_CONTRACT', message: `${sv.address} is a SolidVM contract (T): call it with the VM SolidVM` });
    // and EVM code calling into a SolidVM contract fails rather than "succeeding" against no code
    const caller = ok(await createContract(s, context(), { creator: ALICE, src: CALLER, nonce: 10n })).address!;
    expect(await callContract(s, context(), { caller: ALICE, address: caller, method: 'read', args: [sv.address] })).toMatchObject({ ok: false, code: 'REVERT', message: 'cannot call a SolidVM contract from the EVM' });
  });

  test('compile errors, interfaces and unknown contract names fail the creation with solc messages', async () => {
    const s = freshState();
    const bad = await createContract(s, context(), { creator: ALICE, src: 'contract A { function f( }', contractName: 'A' });
    expect(bad).toMatchObject({ ok: false, code: 'COMPILE_ERROR' });
    expect(bad.message).toMatch(/ParserError/);
    expect(await createContract(s, context(), { creator: ALICE, src: CALLER, contractName: 'Target' })).toMatchObject({ code: 'NO_CONTRACT', message: 'Target is an interface and cannot be created' });
    expect(await createContract(s, context(), { creator: ALICE, src: TOKEN, contractName: 'Tok' })).toMatchObject({ code: 'NO_CONTRACT' });
    expect(await createContract(s, context(), { creator: ALICE, src: FACTORY })).toMatchObject({ code: 'NO_CONTRACT', message: 'name the contract to create: the source defines Child, Factory' });
  });

  test('a failed creation leaves no account, code pointer or storage', async () => {
    const s = freshState();
    const src = 'pragma solidity ^0.8.0; contract F { uint x; constructor(uint v) { x = v; require(v < 10, "too big"); } }';
    const r = await createContract(s, context(), { creator: ALICE, src, args: [11] });
    expect(r).toMatchObject({ ok: false, code: 'REVERT', message: 'too big' });
    expect(r.address).toMatch(/^[0-9a-f]{40}$/);
    expect(s.getAccount(r.address!)).toBeUndefined();
    expect([...s.storageEntries(r.address!)]).toEqual([]);
    expect(s.getAccount(ALICE)).toBeUndefined();
  });
});

describe('contracts creating contracts', () => {
  test('new in a constructor and in a call: addresses by the nonce formula, metadata, xabi, appName', async () => {
    const s = freshState();
    const f = ok(await createContract(s, context(), { creator: ALICE, src: FACTORY, contractName: 'Factory' }));
    const factory = f.address!;
    const child1 = getCreateAddress({ from: '0x' + factory, nonce: 1 }).slice(2).toLowerCase();
    expect(f.contractsCreated.map((c) => [c.address, c.name, c.appName])).toEqual([
      [factory, 'Factory', null],
      [child1, 'Child', 'Factory'],
    ]);
    expect(f.contractsCreated[1].xabi.funcs.twice).toBeDefined();
    expect(f.events).toEqual([expect.objectContaining({ address: child1, contractName: 'Child', name: 'Born', args: [['seed', '1']] })]);
    expect(s.getAccount(factory)!.nonce).toBe(2n);

    const m = ok(await callContract(s, context(), { caller: BOB, address: factory, method: 'make', args: { s: 21 } }));
    const child2 = getCreateAddress({ from: '0x' + factory, nonce: 2 }).slice(2).toLowerCase();
    expect(m.returnValues).toEqual([child2]);
    expect(m.contractsCreated).toEqual([expect.objectContaining({ address: child2, name: 'Child', appName: 'Factory' })]);
    expect(m.stateChanges.find((c) => c.address === child2)).toMatchObject({ created: true, contractName: 'Child', state: { parent: factory } });

    // the child is callable by name, with its immutable filled in
    clearCaches();
    expect(ok(await callContract(s, context(), { caller: BOB, address: child2, method: 'twice' })).returnValues).toEqual(['42']);
  });

  test('selfdestruct of a contract created in the same transaction removes it', async () => {
    const s = freshState();
    const maker = ok(await createContract(s, context(), { creator: ALICE, src: ONCE, contractName: 'Maker' })).address!;
    const r = ok(await callContract(s, context(), { caller: ALICE, address: maker, method: 'makeAndKill' }));
    const temp = r.returnValues[0];
    expect(r.contractsDeleted).toEqual([temp]);
    expect(r.contractsCreated).toEqual([]);
    expect(s.getAccount(temp)).toBeUndefined();
    expect([...s.storageEntries(temp)]).toEqual([]);
  });
});

describe('raw calldata and bare bytecode (raw transactions)', () => {
  test('selector + ABI arguments built by ethers', async () => {
    const { s, token } = await deployToken();
    const iface = new Interface(['function transfer(address to, uint256 amount) returns (bool)', 'function nothing()']);
    const r = ok(await callContract(s, context(), { caller: ALICE, address: token, data: iface.encodeFunctionData('transfer', ['0x' + BOB, 5]) }));
    expect(r.returnValues).toEqual(['true']);
    expect(r.events[0].name).toBe('Transfer');
    const none = await callContract(s, context(), { caller: ALICE, address: token, data: iface.encodeFunctionData('nothing', []) });
    expect(none).toMatchObject({ ok: false, code: 'REVERT', message: 'reverted without a reason' });
    expect(await callContract(s, context(), { caller: ALICE, address: token, data: 'zz' })).toMatchObject({ code: 'BAD_ARGUMENTS' });
  });

  test('bytecode without source: runs, results stay ABI-encoded', async () => {
    const s = freshState();
    const c = compileSolidity(TOKEN).contracts.Token;
    const args = new Interface(c.abi as never).encodeDeploy(['Raw', 9]).slice(2);
    const out = ok(await createContract(s, context(), { creator: ALICE, bytecode: c.bin + args, contractName: 'RawToken' }));
    expect(out.contractsCreated[0]).toMatchObject({ name: 'RawToken', codeHash: c.codeHash });
    expect(s.getAccount(out.address!)).toMatchObject({ vm: 'EVM', contractName: 'RawToken' });
    expect(out.stateChanges[0].state).toEqual({});
    expect(s.getStorage(out.address!, META_KEY)).toBeUndefined();
    const data = new Interface(c.abi as never).encodeFunctionData('totalSupply', []);
    const r = ok(await callContract(s, context(), { caller: ALICE, address: out.address!, data }));
    expect(r.returnValues).toEqual([]);
    expect(AbiCoder.defaultAbiCoder().decode(['uint256'], '0x' + r.response)[0]).toBe(9n);
    expect(await callContract(s, context(), { caller: ALICE, address: out.address!, method: 'totalSupply' })).toMatchObject({ code: 'UNKNOWN_METHOD' });
    expect(await createContract(s, context(), { creator: ALICE, bytecode: c.bin, args: { _name: 'x' } })).toMatchObject({ code: 'BAD_ARGUMENTS' });
    // the same creator and nonce again: the address is taken
    expect(await createContract(s, context(), { creator: ALICE, bytecode: c.bin + args })).toMatchObject({ ok: false, code: 'EVM_ERROR', message: `a contract already exists at ${out.address}` });
  });
});

describe('value and gas', () => {
  const RICH = 10n ** 21n;

  test('value moves with gas enabled; non-payable and insufficient balance fail', async () => {
    const s = freshState();
    s.putAccount(ALICE, { nonce: 0n, balance: RICH, codeHash: null });
    const vault = ok(await createContract(s, context({ gasEnabled: true, value: 100n }), { creator: ALICE, src: VAULT })).address!;
    expect(s.getAccount(vault)!.balance).toBe(100n);
    const d = ok(await callContract(s, context({ gasEnabled: true }), { caller: ALICE, address: vault, method: 'deposit', value: 1000n }));
    expect(d.stateChanges[0].diff).toBeDefined();
    expect(s.getAccount(vault)!.balance).toBe(1100n);
    expect(s.getAccount(ALICE)!.balance).toBe(RICH - 1100n); // fees are the block service's
    expect(ok(await callContract(s, context({ gasEnabled: true }), { caller: ALICE, address: vault, method: 'held' })).returnValues).toEqual(['1100']);
    ok(await callContract(s, context({ gasEnabled: true }), { caller: ALICE, address: vault, method: 'withdraw', args: [400] }));
    expect(s.getAccount(ALICE)!.balance).toBe(RICH - 700n);
    expect(await callContract(s, context({ gasEnabled: true }), { caller: ALICE, address: vault, method: 'notPayable', value: 1n })).toMatchObject({ ok: false, code: 'REVERT', message: 'function notPayable is not payable' });
    expect(await callContract(s, context({ gasEnabled: true }), { caller: BOB, address: vault, method: 'deposit', value: 1n })).toMatchObject({ ok: false, code: 'INSUFFICIENT_BALANCE' });
    // gas disabled: value is ignored (the spec)
    ok(await callContract(s, context(), { caller: ALICE, address: vault, method: 'deposit', value: 5n }));
    expect(s.getAccount(vault)!.balance).toBe(700n);
  });

  test('the gas limit is enforced when gas is enabled; gas does not depend on earlier transactions', async () => {
    const { s, token } = await deployToken();
    const transfer = (gasLimit?: bigint) => callContract(s, context({ gasEnabled: true, gasLimit }), { caller: ALICE, address: token, method: 'transfer', args: [BOB, 1] });
    const first = ok(await transfer()).gasUsed; // BOB's balance slot goes from zero: dearer
    const second = ok(await transfer()).gasUsed;
    const third = ok(await transfer()).gasUsed;
    expect(first - second).toBe(17_100n); // EIP-2200: setting a zero slot (20,000) against changing one (2,900)
    // warm addresses and slots (EIP-2929) are per transaction, not left over from the last one
    expect(third).toBe(second);
    expect(await transfer(second - 1n)).toMatchObject({ ok: false, code: 'OUT_OF_GAS', gasUsed: second - 1n });
    expect(await transfer(21_000n)).toMatchObject({ ok: false, code: 'OUT_OF_GAS', gasUsed: 21_000n });
    expect(ok(await callContract(s, context(), { caller: ALICE, address: token, method: 'balanceOf', args: [BOB] })).returnValues).toEqual(['3']);
    // without gas the limit is ignored, and gas is still reported
    expect(ok(await callContract(s, context({ gasLimit: 1n }), { caller: ALICE, address: token, method: 'transfer', args: [BOB, 1] })).gasUsed).toBe(second);
  });
});

describe('types, overloads, block values', () => {
  test('enums by name, structs by member, arrays as JSON text, overloads by argument names', async () => {
    const s = freshState();
    const a = ok(await createContract(s, context(), { creator: ALICE, src: SHAPES })).address!;
    const call = async (method: string, args?: unknown) => ok(await callContract(s, context(), { caller: ALICE, address: a, method, args }));
    expect((await call('paint', { c: 'Blue' })).returnValues).toEqual(['2']);
    expect((await call('color')).returnValues).toEqual(['2']);
    expect((await call('sum', { ps: [{ x: 1, y: -2 }, { x: '3', y: '4' }] })).returnValues).toEqual(['{"x":"4","y":"2"}']);
    expect((await call('seq', [4])).returnValues).toEqual(['["0","1","4","9"]', 'squares']);
    expect((await call('pick', { a: 1 })).returnValues).toEqual(['one']);
    expect((await call('pick', { a: 1, b: 2 })).returnValues).toEqual(['two']);
    expect((await call('pick', { s: 'str' })).returnValues).toEqual(['str']);
    expect((await call('pick(uint256,uint256)', [1, 2])).returnValues).toEqual(['two']);
    const packed = await call('pack', { a: 513, b: true, c: -7 });
    expect(packed.stateChanges[0].state).toMatchObject({ packedA: '513', packedB: true, packedC: '-7', color: '2' });
    expect(Object.keys(packed.stateChanges[0].diff).sort()).toEqual(['.packedA', '.packedB', '.packedC', '0000000000000000000000000000000000000000000000000000000000000003']);
    const tag = await call('setTag', { t: '0x' + 'ab'.repeat(32) });
    expect(tag.stateChanges[0].state.tag).toBe('ab'.repeat(32));
    expect((await call('env')).returnValues).toEqual(['7', '1700000000', ALICE, '00'.repeat(20)]);
  });

  test('block.chainid: 0 on the main chain, the chain ID on a private chain', async () => {
    const id = 'c0ffee'.padStart(64, '0');
    for (const chainId of ['', id]) {
      const s = freshState(chainId);
      const a = ok(await createContract(s, context({ chainId }), { creator: ALICE, src: SHAPES })).address!;
      const r = ok(await callContract(s, context({ chainId }), { caller: ALICE, address: a, method: 'chain' }));
      expect(r.returnValues).toEqual([chainId === '' ? '0' : String(0xc0ffee)]);
      expect(r.stateChanges).toEqual([]);
    }
  });
});
