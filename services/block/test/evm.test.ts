// EVM transactions through the VmExecutor seam: @platform/evm when wired, and
// a clean Failure on a node without it.
import { contractAddress } from '@platform/crypto';
import { EVM_UNAVAILABLE, createBlockVms, unavailableEvm } from '../src/index.js';
import { Account, blockFixture, receiptFor, type BlockFixture } from './helpers.js';

const STORE = `
pragma solidity ^0.8.0;
contract Store {
  uint256 public value;
  constructor(uint256 v) { value = v; }
  function set(uint256 v) public returns (uint256) { require(v != 13, "unlucky"); value = v; return v * 2; }
}`;

const hex = (s: string) => Buffer.from(s, 'utf8').toString('hex');

let f: BlockFixture;
beforeEach(async () => {
  f = await blockFixture();
});
afterEach(async () => {
  await f.stop();
});

test('an EVM contract created from Solidity source and called by name', async () => {
  await f.start();
  const alice = new Account();
  const create = alice.tx({ to: null, initOrData: hex(STORE), metadata: { VM: 'EVM', name: 'Store', args: '{"v":7}' } });
  const address = contractAddress(alice.address, 0n);
  const set = alice.tx({ to: address, metadata: { funcName: 'set', args: '{"v":21}' } });
  const bad = alice.tx({ to: address, metadata: { funcName: 'set', args: '{"v":13}' } });
  await f.publish(create, set, bad);
  const execs = await f.execs.until((e) => receiptFor(e, bad.hash) !== undefined, 60_000);
  const created = receiptFor(execs, create.hash)!;
  expect(created).toMatchObject({ status: 'Success', kind: 'EVM' });
  expect(created.contractsCreated[0]).toMatchObject({ address, name: 'Store', vm: 'EVM' });
  expect(receiptFor(execs, set.hash)).toMatchObject({ status: 'Success', kind: 'EVM', returnValues: ['42'] });
  expect(receiptFor(execs, bad.hash)).toMatchObject({ status: 'Failure', message: 'unlucky' });
}, 90_000);

test('a node without the EVM answers EVM transactions with a clean Failure', async () => {
  await f.start({ executors: { ...createBlockVms().executors, EVM: unavailableEvm } });
  const alice = new Account();
  const create = alice.tx({ to: null, initOrData: hex(STORE), metadata: { VM: 'EVM', name: 'Store' } });
  const next = alice.tx({ to: new Account().address });
  await f.publish(create, next);
  const execs = await f.execs.until((e) => receiptFor(e, next.hash) !== undefined);
  expect(receiptFor(execs, create.hash)).toMatchObject({ status: 'Failure', message: EVM_UNAVAILABLE, kind: 'EVM' });
  // the nonce was consumed: the next transaction went through
  expect(receiptFor(execs, next.hash)!.status).toBe('Success');
});
