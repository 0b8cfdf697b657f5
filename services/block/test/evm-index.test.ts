// INDEX_EVM in the block service: EVM transactions' state changes carry the
// decoded storage paths (mapping entries, array elements, struct members) and
// the structs and changed arrays in `state`, as SolidVM's do, in the
// execution results cirrus consumes; without the flag they name simple
// variables only.
import { contractAddress } from '@platform/crypto';
import type { ContractStateChange, ExecResult } from '@platform/common';
import { Account, blockFixture, receiptFor, type BlockFixture } from './helpers.js';

const LEDGER = `
pragma solidity ^0.8.0;
contract Ledger {
  struct Entry { uint amount; string memo; }
  uint public count;
  mapping(address => uint) public balances;
  mapping(uint => Entry) entries;
  Entry last;
  address[] holders;
  function add(address who, uint amount, string memory memo) public {
    count += 1; balances[who] += amount; entries[count] = Entry(amount, memo); last = Entry(amount, memo); holders.push(who);
  }
}`;

const hex = (s: string) => Buffer.from(s, 'utf8').toString('hex');

async function run(f: BlockFixture, env: Record<string, string>): Promise<{ created: ContractStateChange; added: ContractStateChange; who: string }> {
  await f.start({ env });
  const alice = new Account();
  const who = new Account().address;
  const create = alice.tx({ to: null, initOrData: hex(LEDGER), metadata: { VM: 'EVM', name: 'Ledger' } });
  const address = contractAddress(alice.address, 0n);
  const add = alice.tx({ to: address, metadata: { funcName: 'add', args: JSON.stringify({ who, amount: 5, memo: 'first' }) } });
  await f.publish(create, add);
  const execs: ExecResult[] = await f.execs.until((e) => receiptFor(e, add.hash) !== undefined, 60_000);
  const [created, added] = [receiptFor(execs, create.hash)!, receiptFor(execs, add.hash)!];
  expect([created.status, added.status]).toEqual(['Success', 'Success']);
  return { created: created.stateChanges[0], added: added.stateChanges[0], who };
}

const named = (diff: Record<string, unknown>) => Object.fromEntries(Object.entries(diff).filter(([k]) => k.startsWith('.')));

let f: BlockFixture;
beforeEach(async () => {
  f = await blockFixture();
});
afterEach(async () => {
  await f.stop();
});

test('with INDEX_EVM: every changed path and the structs and changed arrays, as SolidVM reports them', async () => {
  const { created, added, who } = await run(f, { INDEX_EVM: 'true' });
  expect(created.state).toEqual({ count: '0', last: { amount: '0', memo: '' }, holders: [] });
  expect(named(added.diff)).toEqual({
    '.count': '1',
    [`.balances<${who}>`]: '5',
    '.entries<1>.amount': '5',
    '.entries<1>.memo': 'first',
    '.last.amount': '5',
    '.last.memo': 'first',
    '.holders[0]': who,
    '.holders.length': '1',
  });
  expect(added.state).toEqual({ count: '1', last: { amount: '5', memo: 'first' }, holders: [who] });
}, 90_000);

test('without INDEX_EVM: simple variables only', async () => {
  const { created, added } = await run(f, {});
  expect(created.state).toEqual({ count: '0' });
  expect(named(added.diff)).toEqual({ '.count': '1' });
  expect(added.state).toEqual({ count: '1' });
}, 90_000);
