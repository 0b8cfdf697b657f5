// SolidVM against solc + @ethereumjs/evm on the same contract, in the same
// process: calls per second of a token transfer and of a loop-heavy function.
import { EvmPeer, solcCompile } from '../test/differential/evm.js';
import { MemoryWorldState, createSolidVm } from '../src/index.js';
import type { ExecutionContext } from '@platform/common';

const SRC = `
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
  function spin(uint n) public pure returns (uint s) {
    for (uint i = 0; i < n; i++) { s += i * i % 7; }
  }
}`;

const ALICE = 'a11ce00000000000000000000000000000000001';
const BOB = 'b0b0000000000000000000000000000000000002';
const LOOP_N = 1000;

function ctx(): ExecutionContext {
  return {
    chainId: '',
    block: { number: 1, timestamp: 1_700_000_000, coinbase: '0000000000000000000000000000000000000000' },
    tx: { hash: '00'.repeat(32), origin: ALICE, gasPrice: 0n, gasLimit: 100_000_000n, value: 0n },
    identity: null,
    protocol: { stepLimit: 10_000_000, gasTableVersion: 1 },
    gasEnabled: false,
  };
}

async function rate(seconds: number, fn: () => unknown | Promise<unknown>): Promise<number> {
  // warm up, then count calls for the time given
  for (let i = 0; i < 200; i++) await fn();
  const end = performance.now() + seconds * 1000;
  let n = 0;
  const start = performance.now();
  while (performance.now() < end) {
    for (let i = 0; i < 50; i++) await fn();
    n += 50;
  }
  return n / ((performance.now() - start) / 1000);
}

function rateSync(seconds: number, fn: () => unknown): number {
  for (let i = 0; i < 2000; i++) fn();
  const start = performance.now();
  const end = start + seconds * 1000;
  let n = 0;
  while (performance.now() < end) {
    for (let i = 0; i < 100; i++) fn();
    n += 100;
  }
  return n / ((performance.now() - start) / 1000);
}

export async function run(): Promise<Array<{ name: string; value: number; unit: string }>> {
  const seconds = Number(process.env.BENCH_SECONDS ?? '2');
  // SolidVM: one VM, as the block service keeps one
  const vm = createSolidVm();
  const state = new MemoryWorldState();
  const c = ctx();
  const created = vm.createContract(state, c, { creator: ALICE, src: SRC, contractName: 'Token', args: { supply: '1000000000000' } });
  if (!created.ok) throw new Error(created.message);
  const address = created.address!;
  const transferArgs = { to: BOB, amount: 1 };
  const svmTransfer = rateSync(seconds, () => {
    const r = vm.callContract(state, c, { caller: ALICE, address, method: 'transfer', args: transferArgs });
    if (!r.ok) throw new Error(r.message);
  });
  const loopArgs = { n: LOOP_N };
  const svmLoop = rateSync(seconds, () => {
    const r = vm.callContract(state, c, { caller: ALICE, address, method: 'spin', args: loopArgs });
    if (!r.ok) throw new Error(r.message);
  });
  // solc + EVM
  const { contracts, errors } = solcCompile({ 'Token.sol': '// SPDX-License-Identifier: UNLICENSED\npragma solidity ^0.8.0;\n' + SRC });
  if (errors.length) throw new Error(errors.join('\n'));
  const token = contracts['Token.sol'].Token;
  const peer = await EvmPeer.create();
  const dep = await peer.deploy(token, ['1000000000000'], ALICE);
  if (!dep.out.ok || !dep.address) throw new Error('EVM deployment failed');
  const evmTransfer = await rate(seconds, async () => {
    const r = await peer.call(token, dep.address!, 'transfer', [BOB, 1], ALICE);
    if (!r.ok) throw new Error('EVM transfer failed');
  });
  const evmLoop = await rate(seconds, async () => {
    const r = await peer.call(token, dep.address!, 'spin', [LOOP_N], ALICE);
    if (!r.ok) throw new Error('EVM loop failed');
  });
  return [
    { name: 'solidvm token transfer', value: Math.round(svmTransfer), unit: 'calls/s' },
    { name: 'evm token transfer', value: Math.round(evmTransfer), unit: 'calls/s' },
    { name: 'solidvm/evm token transfer', value: Number((svmTransfer / evmTransfer).toFixed(1)), unit: 'x' },
    { name: `solidvm loop (${LOOP_N} iterations)`, value: Math.round(svmLoop), unit: 'calls/s' },
    { name: `evm loop (${LOOP_N} iterations)`, value: Math.round(evmLoop), unit: 'calls/s' },
    { name: 'solidvm/evm loop', value: Number((svmLoop / evmLoop).toFixed(1)), unit: 'x' },
  ];
}

const isMain = import.meta.url === `file://${process.argv[1]}`;
if (isMain) {
  run().then((rows) => console.table(rows));
}
