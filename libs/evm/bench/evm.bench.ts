// @platform/evm: token-transfer calls per second through callContract (JSON
// arguments encoded by the ABI, the EVM over a WorldState, results, events and
// state changes decoded), the same with raw calldata, and compilation: a cold
// solc run against a cache hit. With `decodeStorage` (the block service's
// INDEX_EVM), the same transfer and a call writing a mapping of structs, a
// nested mapping and array elements, against the same call without it.
import type { ExecutionContext } from '@platform/common';
import { MemoryWorldState } from '@platform/solidvm';
import { createEvm, selectorOf } from '../src/index.js';

// one EVM as the block service keeps one, and one decoding storage (INDEX_EVM) over the same caches
const evm = createEvm();
const indexing = createEvm({ decodeStorage: true, caches: evm.caches });

const SRC = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;
contract Token {
  mapping(address => uint) public balances;
  uint public total;
  event Transfer(address indexed from, address indexed to, uint amount);
  constructor(uint supply) { balances[msg.sender] = supply; total = supply; }
  function transfer(address to, uint amount) public returns (bool) {
    require(balances[msg.sender] >= amount, "insufficient balance");
    balances[msg.sender] -= amount;
    balances[to] += amount;
    emit Transfer(msg.sender, to, amount);
    return true;
  }
}`;

// writes what the decoding attributes: entries of a mapping of structs (a
// string member), a nested mapping, a constant key (hashed by solc), an array
// element; the array does not grow, so every call costs the same
const LEDGER = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;
contract Ledger {
  struct Entry { uint amount; string memo; address who; }
  mapping(uint => Entry) entries;
  mapping(address => mapping(uint => bool)) seen;
  mapping(uint => uint) totals;
  uint[8] recent;
  uint count;
  function add(uint amount, string memory memo) public {
    count += 1;
    entries[count % 100] = Entry(amount, memo, msg.sender);
    seen[msg.sender][count % 100] = true;
    totals[0] += amount;
    recent[count % 8] = amount;
  }
}`;

const ALICE = 'a11ce00000000000000000000000000000000001';
const BOB = 'b0b0000000000000000000000000000000000002';

function ctx(gasEnabled: boolean): ExecutionContext {
  return {
    chainId: '',
    block: { number: 1, timestamp: 1_700_000_000, coinbase: '00'.repeat(20) },
    tx: { hash: '00'.repeat(32), origin: ALICE, gasPrice: 1n, gasLimit: 1_000_000n, value: 0n },
    identity: null,
    protocol: { stepLimit: 10_000_000, gasTableVersion: 1 },
    gasEnabled,
  };
}

async function rate(seconds: number, fn: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 1000; i++) await fn(); // warm up: the EVM's code paths get compiled
  const start = performance.now();
  const end = start + seconds * 1000;
  let n = 0;
  while (performance.now() < end) {
    for (let i = 0; i < 50; i++) await fn();
    n += 50;
  }
  return n / ((performance.now() - start) / 1000);
}

export async function run(): Promise<Array<{ name: string; value: number; unit: string }>> {
  const seconds = Number(process.env.BENCH_SECONDS ?? '2');

  const state = new MemoryWorldState();
  const created = await evm.createContract(state, ctx(false), { creator: ALICE, src: SRC, contractName: 'Token', args: { supply: '1000000000000' } });
  if (!created.ok) throw new Error(created.message);
  const address = created.address!;
  const args = { to: BOB, amount: 1 };
  const byName = await rate(seconds, async () => {
    const r = await evm.callContract(state, ctx(false), { caller: ALICE, address, method: 'transfer', args });
    if (!r.ok) throw new Error(r.message);
  });
  const metered = await rate(seconds, async () => {
    const r = await evm.callContract(state, ctx(true), { caller: ALICE, address, method: 'transfer', args });
    if (!r.ok) throw new Error(r.message);
  });
  const decoded = await rate(seconds, async () => {
    const r = await indexing.callContract(state, ctx(false), { caller: ALICE, address, method: 'transfer', args });
    if (!r.ok) throw new Error(r.message);
  });
  const ledger = await evm.createContract(state, ctx(false), { creator: ALICE, src: LEDGER, contractName: 'Ledger', args: {}, nonce: 1n });
  if (!ledger.ok) throw new Error(ledger.message);
  const entry = { amount: 5, memo: 'a memo of a few words' };
  const add = (decodeStorage: boolean) => async () => {
    const r = await (decodeStorage ? indexing : evm).callContract(state, ctx(false), { caller: ALICE, address: ledger.address!, method: 'add', args: entry });
    if (!r.ok) throw new Error(r.message);
  };
  const ledgerPlain = await rate(seconds, add(false));
  const ledgerDecoded = await rate(seconds, add(true));
  const data = selectorOf({ name: 'transfer', inputs: [{ name: 'to', type: 'address' }, { name: 'amount', type: 'uint256' }] }) + BOB.padStart(64, '0') + '1'.padStart(64, '0');
  const raw = await rate(seconds, async () => {
    const r = await evm.callContract(state, ctx(false), { caller: ALICE, address, data });
    if (!r.ok) throw new Error(r.message);
  });

  // compilation last, its garbage after the calls; solc is loaded by now (by
  // the creation above), so a miss measures a compile, not the load
  evm.clearCaches();
  let t = performance.now();
  evm.compileSolidity(SRC);
  const cold = performance.now() - t;
  const hits = 1000;
  t = performance.now();
  for (let i = 0; i < hits; i++) evm.compileSolidity(SRC);
  const hitRate = hits / ((performance.now() - t) / 1000);
  if (evm.compileCacheStats().hits < hits) throw new Error('the compile cache missed');

  return [
    { name: 'evm token transfer (method + JSON args)', value: Math.round(byName), unit: 'calls/s' },
    { name: 'evm token transfer (gas enabled)', value: Math.round(metered), unit: 'calls/s' },
    { name: 'evm token transfer (raw calldata)', value: Math.round(raw), unit: 'calls/s' },
    { name: 'evm token transfer (storage decoded, INDEX_EVM)', value: Math.round(decoded), unit: 'calls/s' },
    { name: 'evm ledger write: struct entry, nested mapping, array', value: Math.round(ledgerPlain), unit: 'calls/s' },
    { name: 'evm ledger write (storage decoded, INDEX_EVM)', value: Math.round(ledgerDecoded), unit: 'calls/s' },
    { name: 'solc compile, cache miss', value: Math.round(cold), unit: 'ms' },
    { name: 'solc compile, cache hit', value: Math.round(hitRate), unit: 'compiles/s' },
  ];
}

const isMain = import.meta.url === `file://${process.argv[1]}`;
if (isMain) {
  run().then((rows) => console.table(rows));
}
