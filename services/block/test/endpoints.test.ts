// The block service's request/reply endpoints over a real NATS: the account
// lookup follows the applied state (balances from the genesis, nonces, code,
// gas fees and transfers), and compilation answers code hashes that match
// what execution stores, or the compiler's messages.
import { refusal } from '@platform/common/testing';
import { BLOCK, call } from '@platform/bus';
import { bytesToHex, contractAddress, keccak256Hex } from '@platform/crypto';
import { codeHashOf } from '@platform/solidvm';
import { EMPTY_ROOT } from '../src/state/root.js';
import { Account, COUNTER, blockFixture, receiptFor, type BlockFixture } from './helpers.js';

const STORE = `
pragma solidity ^0.8.0;
interface IStore { function set(uint256 v) external returns (uint256); }
contract Store is IStore {
  uint256 public value;
  function set(uint256 v) public returns (uint256) { value = v; return v * 2; }
}`;

const TOKENS = 10n ** 18n;
const hex = (s: string) => Buffer.from(s, 'utf8').toString('hex');

let f: BlockFixture;
beforeEach(async () => {
  f = await blockFixture();
});
afterEach(async () => {
  await f.stop();
});

describe('block.account', () => {
  test('genesis balances, unknown accounts, nonces, contracts and the heights that wrote them', async () => {
    const alice = new Account();
    await f.start({ accounts: [{ address: alice.address, balance: 7n * TOKENS }] });
    expect(await call(f.nc, BLOCK.nodeAccount, { address: `0x${alice.address.toUpperCase()}` })).toEqual({
      address: alice.address,
      chainId: '',
      balance: (7n * TOKENS).toString(),
      nonce: 0,
      codeHash: null,
      contractRoot: bytesToHex(EMPTY_ROOT),
      latestBlockNum: 0,
      blockNumber: 0,
    });
    // the platform's lookup answers an empty list for an account the state does not hold
    expect(await call(f.nc, BLOCK.nodeAccount, { address: new Account().address, chainId: '' })).toBeNull();

    const address = contractAddress(alice.address, 0n);
    const create = alice.create(COUNTER, 'Counter', { start: 1 });
    await f.publish(create);
    await f.execs.until((e) => receiptFor(e, create.hash) !== undefined);
    const created = await call(f.nc, BLOCK.nodeAccount, { address });
    // a contract's own nonce starts at 1 (EIP-161), as SolidVM gives it
    expect(created).toMatchObject({ address, nonce: 1, balance: '0', codeHash: codeHashOf(COUNTER), kind: 'SolidVM', contractName: 'Counter' });
    expect(created!.contractRoot).not.toBe(bytesToHex(EMPTY_ROOT));
    const afterCreate = await call(f.nc, BLOCK.nodeAccount, { address: alice.address });
    expect(afterCreate).toMatchObject({ nonce: 1, latestBlockNum: created!.latestBlockNum, blockNumber: created!.latestBlockNum });

    // a call changes only the contract's storage: its height moves with it
    const add = alice.call(address, 'add', { n: 2 });
    await f.publish(add);
    await f.execs.until((e) => receiptFor(e, add.hash) !== undefined);
    const called = await call(f.nc, BLOCK.nodeAccount, { address });
    expect(called!.latestBlockNum).toBeGreaterThan(created!.latestBlockNum!);
    expect(called!.contractRoot).not.toBe(created!.contractRoot);
  });

  test('with gas: fees and transfers show in the balances', async () => {
    const alice = new Account();
    const bob = new Account();
    await f.start({ env: { GAS_ENABLED: 'true' }, accounts: [{ address: alice.address, balance: 10n * TOKENS }] });
    const transfer = alice.tx({ to: bob.address, value: 3n * TOKENS, gasPrice: 2n, gasLimit: 100_000n });
    await f.publish(transfer);
    const receipt = receiptFor(await f.execs.until((e) => receiptFor(e, transfer.hash) !== undefined), transfer.hash)!;
    expect(receipt.status).toBe('Success');
    const fee = BigInt(receipt.gasUsed) * 2n;
    expect(fee).toBe(42_000n);
    expect((await call(f.nc, BLOCK.nodeAccount, { address: alice.address }))!.balance).toBe((7n * TOKENS - fee).toString());
    expect(await call(f.nc, BLOCK.nodeAccount, { address: bob.address })).toMatchObject({ balance: (3n * TOKENS).toString(), nonce: 0 });
  });

  test('bad addresses are 400 naming the field; a chain the node does not hold is 404', async () => {
    await f.start();
    expect(await refusal(call(f.nc, BLOCK.nodeAccount, { address: 'xyz' }))).toMatchObject({ code: 'BAD_HEX', details: { field: 'address' } });
    expect(await refusal(call(f.nc, BLOCK.nodeAccount, { address: 'ab' }))).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'address' } });
    expect(await refusal(call(f.nc, BLOCK.nodeAccount, {} as never))).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'address' } });
    expect(await refusal(call(f.nc, BLOCK.nodeAccount, { address: 'ab'.repeat(20), chainId: 'cd'.repeat(32) }))).toMatchObject({ code: 'CHAIN_NOT_FOUND', status: 404 });
  });
});

describe('block.compile', () => {
  test('SolidVM: every contract of a source, or the one named, with the code hash an upload gets', async () => {
    await f.start();
    const two = `${COUNTER}\ncontract Other { uint x; }`;
    expect(await call(f.nc, BLOCK.compile, [{ source: two, vm: 'SolidVM' }])).toEqual([
      { contractName: 'Counter', codeHash: codeHashOf(two) },
      { contractName: 'Other', codeHash: codeHashOf(two) },
    ]);
    const files = { 'b.sol': 'contract B { uint y; }', 'a.sol': COUNTER };
    expect(await call(f.nc, BLOCK.compile, [{ contractName: 'Counter', source: COUNTER, vm: 'SolidVM' }, { contractName: 'B', source: files, vm: 'SolidVM' }])).toEqual([
      { contractName: 'Counter', codeHash: codeHashOf(COUNTER) },
      { contractName: 'B', codeHash: codeHashOf(files) },
    ]);

    // the hash is the one execution stores
    const alice = new Account();
    const create = alice.create(COUNTER, 'Counter', { start: 0 });
    await f.publish(create);
    const receipt = receiptFor(await f.execs.until((e) => receiptFor(e, create.hash) !== undefined), create.hash)!;
    expect(receipt.contractsCreated[0].codeHash).toBe(codeHashOf(COUNTER));
  });

  test('EVM (the default): code hashes of contracts with code, equal to the deployed code hash', async () => {
    await f.start();
    const all = await call(f.nc, BLOCK.compile, [{ source: STORE }]);
    // the interface has no code
    expect(all.map((c) => c.contractName)).toEqual(['Store']);
    expect(all[0].codeHash).toMatch(/^[0-9a-f]{64}$/);
    expect(await call(f.nc, BLOCK.compile, [{ source: STORE, contractName: 'Store', vm: 'EVM' }])).toEqual(all);

    const alice = new Account();
    const create = alice.tx({ to: null, initOrData: hex(STORE), metadata: { VM: 'EVM', name: 'Store' } });
    await f.publish(create);
    await f.execs.until((e) => receiptFor(e, create.hash) !== undefined, 60_000);
    const deployed = await call(f.nc, BLOCK.nodeAccount, { address: contractAddress(alice.address, 0n) });
    expect(deployed).toMatchObject({ kind: 'EVM', contractName: 'Store', codeHash: all[0].codeHash });
    expect(all[0].codeHash).not.toBe(keccak256Hex(new Uint8Array(0)));
  }, 90_000);

  test('solc works off the event loop: blocks go on while a new source compiles', async () => {
    await f.start();
    const alice = new Account();
    const counter = alice.create(COUNTER, 'Counter', { start: 1 });
    await f.publish(counter);
    await f.execs.until((e) => receiptFor(e, counter.hash) !== undefined);
    // a source solc has not seen (0.3–2 s of compiling), asked first; then a SolidVM call
    const fresh = STORE.replace('contract Store', `contract Store${Date.now()}`);
    let compiledAt = 0;
    const compiled = call(f.nc, BLOCK.compile, [{ source: fresh }], { timeoutMs: 60_000 }).then((r) => {
      compiledAt = performance.now();
      return r;
    });
    const bump = alice.call(contractAddress(alice.address, 0n), 'add', { n: 2 });
    await f.publish(bump);
    await f.execs.until((e) => receiptFor(e, bump.hash) !== undefined, 60_000);
    const executedAt = performance.now();
    expect(await compiled).toHaveLength(1);
    // on the service's own thread the call would have waited for solc
    expect(executedAt).toBeLessThan(compiledAt);
  }, 90_000);

  test("source that does not compile is 422 with the compiler's messages; a missing contract names the field", async () => {
    await f.start();
    const solid = await refusal(call(f.nc, BLOCK.compile, [{ source: 'contract A { uint x = ; }', vm: 'SolidVM' }]));
    expect(solid).toMatchObject({ code: 'COMPILE_FAILED', status: 422, details: { field: '[0].source', vm: 'SolidVM' } });
    expect((solid.details!.errors as unknown[]).length).toBeGreaterThan(0);
    expect(solid.message).toMatch(/^\[0\]\.source: the source does not compile: /);

    const evm = await refusal(call(f.nc, BLOCK.compile, [{ source: STORE }, { source: 'pragma solidity ^0.8.0; contract B { function f() public { undefinedThing(); } }' }]));
    expect(evm).toMatchObject({ code: 'COMPILE_FAILED', details: { field: '[1].source', vm: 'EVM' } });
    expect(evm.details!.errors).toEqual([expect.objectContaining({ severity: 'error', type: 'DeclarationError', formatted: expect.stringContaining('undefinedThing') })]);
    expect(evm.message).toMatch(/DeclarationError/);

    for (const vm of ['EVM', 'SolidVM'] as const) {
      const missing = await refusal(call(f.nc, BLOCK.compile, [{ source: vm === 'EVM' ? STORE : COUNTER, contractName: 'Nope', vm }]));
      expect(missing).toMatchObject({ code: 'COMPILE_FAILED', details: { field: '[0].contractName', vm } });
      expect(missing.message).toMatch(/no contract named Nope/);
    }
  }, 60_000);

  test('malformed requests are 400 naming the field', async () => {
    await f.start();
    const cases: Array<[unknown, string]> = [
      [{}, 'body'],
      [[], 'body'],
      [['text'], '[0]'],
      [[{ contractName: 'A' }], '[0].source'],
      [[{ source: '' }], '[0].source'],
      [[{ source: {} }], '[0].source'],
      [[{ source: { 'a.sol': 1 } }], '[0].source.a.sol'],
      [[{ source: 'contract A {}', vm: 'WASM' }], '[0].vm'],
      [[{ source: 'contract A {}', contractName: 5 }], '[0].contractName'],
    ];
    for (const [body, field] of cases) {
      expect(await refusal(call(f.nc, BLOCK.compile, body as never))).toMatchObject({ code: 'VALIDATION_FAILED', status: 400, details: { field } });
    }
  });
});
