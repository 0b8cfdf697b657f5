// The chain's execution limits (protocol.limits) in the EVM: each fails the
// transaction with LIMIT and the same message SolidVM gives, nothing of it
// kept, whatever the contract's try/catch. SolidVM runs the same doubling
// loop: the two VMs fail it with one message.
import { DEFAULT_LIMITS, DEFAULT_PROTOCOL, limitMessage, type ExecutionContext, type ExecutionLimits } from '@platform/common';
import { createContract as solidCreate, callContract as solidCall } from '@platform/solidvm';
import { ALICE, callContract, context, createContract, freshState } from './helpers.js';

function ctxWith(limits: Partial<ExecutionLimits>, over: Parameters<typeof context>[0] = {}): ExecutionContext {
  return { ...context(over), protocol: { ...DEFAULT_PROTOCOL, limits: { ...DEFAULT_LIMITS, ...limits } } };
}

const HEADER = '// SPDX-License-Identifier: MIT\npragma solidity ^0.8.0;\n';

const DOUBLING = `
contract Doubling {
  function strings() public pure returns (uint) { string memory s = "ab"; while (true) s = string.concat(s, s); return 0; }
}`;

describe('EVM execution limits', () => {
  it('a string doubling loop fails at maxMemoryBytes with the message SolidVM gives for it', async () => {
    const s = freshState();
    const made = await createContract(s, context(), { creator: ALICE, src: HEADER + DOUBLING, contractName: 'Doubling' });
    expect(made.ok).toBe(true);
    const evm = await callContract(s, context(), { caller: ALICE, address: made.address!, method: 'strings', args: [] });
    const solid = freshState();
    const created = solidCreate(solid, context(), { creator: ALICE, src: DOUBLING, contractName: 'Doubling' });
    const sol = solidCall(solid, { ...context(), protocol: { ...DEFAULT_PROTOCOL, stepLimit: 10_000_000 } }, { caller: ALICE, address: created.address!, method: 'strings' });
    const message = limitMessage('maxMemoryBytes', DEFAULT_LIMITS);
    expect(evm).toMatchObject({ ok: false, code: 'LIMIT', message });
    expect(sol).toMatchObject({ ok: false, code: 'LIMIT', message });
  });

  it('memory is bounded by the limit, not by gas: a gigabyte of memory under a huge gas limit fails on the limit', async () => {
    const s = freshState();
    const src = HEADER + 'contract Big { function big() public pure returns (uint) { bytes memory b = new bytes(2**30); return b.length; } function fits() public pure returns (uint) { bytes memory b = new bytes(2**20); return b.length; } }';
    const ctx = context({ gasEnabled: true, gasLimit: 10n ** 15n });
    const made = await createContract(s, ctx, { creator: ALICE, src, contractName: 'Big' });
    expect(made.ok).toBe(true);
    expect(await callContract(s, ctx, { caller: ALICE, address: made.address!, method: 'big', args: [] })).toMatchObject({ code: 'LIMIT', message: limitMessage('maxMemoryBytes', DEFAULT_LIMITS) });
    expect((await callContract(s, ctx, { caller: ALICE, address: made.address!, method: 'fits', args: [] })).returnValues).toEqual(['1048576']);
  });

  it('state written: distinct slots, 64 bytes each; a try/catch cannot swallow it; nothing is kept', async () => {
    const src = HEADER + `
contract Store {
  uint[] public xs;
  uint public counter;
  function push(uint n) public { for (uint i = 0; i < n; i++) xs.push(i); }
  function count(uint n) public { for (uint i = 0; i < n; i++) counter++; }
}
contract Guard {
  bool public caught;
  function go(Store s, uint n) public { try s.push(n) { } catch { caught = true; } }
}`;
    // 10 slots: the array's length and 9 elements
    const ctx = ctxWith({ maxStateBytes: 640 }, { gasEnabled: true, gasLimit: 10n ** 9n });
    const s = freshState();
    const store = await createContract(s, ctx, { creator: ALICE, src, contractName: 'Store', nonce: 0n });
    const guard = await createContract(s, ctx, { creator: ALICE, src, contractName: 'Guard', nonce: 1n });
    expect((await callContract(s, ctx, { caller: ALICE, address: store.address!, method: 'push', args: [9] })).ok).toBe(true);
    const before = [...s.storageEntries(store.address!)];
    const message = limitMessage('maxStateBytes', ctx.protocol.limits as ExecutionLimits);
    expect(await callContract(s, ctx, { caller: ALICE, address: store.address!, method: 'push', args: [10] })).toMatchObject({ code: 'LIMIT', message });
    expect(await callContract(s, ctx, { caller: ALICE, address: guard.address!, method: 'go', args: [store.address, 10] })).toMatchObject({ code: 'LIMIT', message });
    expect([...s.storageEntries(store.address!)]).toEqual(before);
    expect([...s.storageEntries(guard.address!)].filter(([k]) => /^[0-9a-f]{64}$/.test(k))).toEqual([]);
    // one slot written many times is one slot
    expect((await callContract(s, ctx, { caller: ALICE, address: store.address!, method: 'count', args: [500] })).ok).toBe(true);
  });

  it('events and return data', async () => {
    const src = HEADER + `
contract Out {
  event Hit(uint i);
  event Blob(bytes b);
  function many(uint n) public { for (uint i = 0; i < n; i++) emit Hit(i); }
  function blob(uint n) public { emit Blob(new bytes(n)); }
  function ret(uint n) public pure returns (bytes memory) { return new bytes(n); }
}`;
    const ctx = ctxWith({ maxEvents: 10, maxEventBytes: 1024, maxReturnBytes: 1024 });
    const limits = ctx.protocol.limits as ExecutionLimits;
    const s = freshState();
    const out = (await createContract(s, ctx, { creator: ALICE, src, contractName: 'Out' })).address!;
    const call = (method: string, n: number) => callContract(s, ctx, { caller: ALICE, address: out, method, args: [n] });
    expect((await call('many', 10)).events).toHaveLength(10);
    expect(await call('many', 11)).toMatchObject({ code: 'LIMIT', message: limitMessage('maxEvents', limits) });
    // data: offset, length, content (32 + 32 + n rounded up to words), one topic
    expect((await call('blob', 1024 - 96)).ok).toBe(true);
    expect(await call('blob', 1024 - 95)).toMatchObject({ code: 'LIMIT', message: limitMessage('maxEventBytes', limits) });
    expect((await call('ret', 1024 - 64)).ok).toBe(true);
    expect(await call('ret', 1024 - 63)).toMatchObject({ code: 'LIMIT', message: limitMessage('maxReturnBytes', limits) });
  });
});
