// A whole node as `npm start` runs it (every service its own process, the
// embedded NATS and PostgreSQL), measured only through the gateway's REST
// interface — issue 4's four figures:
//   1. SolidVM function calls in batches of 100, several clients, each request
//      with resolve=true: transactions per second from the first submission
//      until the last one is Success;
//   2. raw transactions signed by ethers (keys the vault never held), one per
//      request, many clients: admission per second, and per second to Success;
//   3. a lone resolve=true call on an idle node: p50 and p99 latency;
//   4. EVM function calls in batches of 100: transactions per second.
// And the latency of one resolve=true call at a time from each of a few
// clients at once: a busy chain's gathering window, on a node with CPU to spare.
// Plus the machine's core count, the peak RSS of each service process, and
// the host's own speed before and after (hostReference): on a shared host the
// figures of two runs compare only beside those.
// The client runs on the same machine, so every figure includes its cost;
// raw transactions are signed before their clock starts.
//
// Besides the table, it prints each phase's CPU time per process (services,
// nats-server, PostgreSQL, this client), to show where the time goes.
// `NODE_BENCH_PHASES=lone,few,solidvm,raw,evm` runs a subset; `NODE_BENCH_SECONDS`
// sets each throughput phase's submission time (default 8);
// `NODE_BENCH_LONE_CALLS` the lone phase's number of calls (default 200);
// `NODE_BENCH_NODE_OPTIONS` is passed to every node process as NODE_OPTIONS:
// `--import <abs path>/cpu-profile.mjs` with CPU_PROFILE_DIR writes a CPU
// profile of each service per phase (see that file).
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Wallet, type SigningKey } from 'ethers';
import { connectBus, type NatsConnection } from '@platform/bus';
import { hostReference, processes, startNode } from '@platform/launcher';
import { BENCH_ADMIN, addHopTimes, benchNodeEnv, enrolRawKey, finalResults, gatewayClient, hopRows, loneCalls, submitInOrder, lastPhaseCpu, peakRssMiB, percentile, rawCall, token, watchHops, withCpuReport, type Post, type Row } from './probes.js';

const BATCH = 100;
const BATCH_CLIENTS = 8;
const RAW_CLIENTS = 64;
const LONE_CALLS = Number(process.env.NODE_BENCH_LONE_CALLS ?? 200);
const FEW_CLIENTS = 4;
const FEW_CALLS = 100;
const SECONDS = Number(process.env.NODE_BENCH_SECONDS ?? 8);
const PHASES = new Set((process.env.NODE_BENCH_PHASES ?? 'lone,few,solidvm,raw,evm').split(','));

const COUNTER = `
contract Counter {
  uint public count;
  function bump(uint by) returns (uint) {
    count += by;
    return count;
  }
}`;

const EVM_STORE = `
// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;
contract Store {
  uint256 public value;
  function set(uint256 v) public returns (uint256) { value = v; return v * 2; }
}`;

let ok: Post;

// --- the phases --------------------------------------------------------------------


/** `clients` loops, each sending batches of BATCH calls with resolve=true for SECONDS; tx/s from first submission to last Success. */
async function batched(tokens: string[], item: (i: number) => unknown, seconds: number): Promise<{ rate: number; txs: number; failures: number }> {
  let txs = 0;
  let failures = 0;
  const started = performance.now();
  const until = started + seconds * 1000;
  await Promise.all(
    tokens.map(async (t) => {
      while (performance.now() < until) {
        const results = (await ok('/platform/v2.3/transaction?resolve=true', t, { txs: Array.from({ length: BATCH }, (_, i) => item(i)) })) as Array<{ status: string }>;
        txs += results.length;
        failures += results.filter((r) => r.status !== 'Success').length;
      }
    }),
  );
  return { rate: (txs * 1000) / (performance.now() - started), txs, failures };
}

const bump = (wallet: { signingKey: SigningKey }, nonce: number, to: string) => rawCall(wallet, nonce, to, { VM: 'SolidVM', funcName: 'bump', args: '(1)' });

/** The host's speed as two rows (hostReference, in @platform/launcher). */
async function hostRows(when: string): Promise<Row[]> {
  const host = await hostReference();
  return [
    { name: `host, ${when}: fixed JavaScript work (JSON, SHA-256)`, value: host.jsWorkMs, unit: 'ms' },
    { name: `host, ${when}: loopback round trip, CPU of both ends`, value: host.roundTripCpuUs, unit: 'µs' },
  ];
}

export async function run(): Promise<Row[]> {
  const hostBefore = await hostRows('before');
  const dataDir = mkdtempSync(join(tmpdir(), 'platform-bench-node-'));
  const env = await benchNodeEnv(dataDir);
  if (process.env.NODE_BENCH_NODE_OPTIONS) env.NODE_OPTIONS = process.env.NODE_BENCH_NODE_OPTIONS;
  const problems: string[] = [];
  const node = await startNode({ env, onLine: (name, line) => /"level":(50|60)|error|fatal/i.test(line) && problems.length < 20 && problems.push(`${name} | ${line}`) });
  const gateway = gatewayClient(node.gatewayUrl, 512);
  ok = gateway.ok;
  const rows: Row[] = [...hostBefore];
  const cores = cpus().length;
  let observer: NatsConnection | undefined;
  try {
    const tokens = await Promise.all(Array.from({ length: BATCH_CLIENTS }, (_, i) => token(node, `bench-${i}`)));
    for (const t of tokens) await ok('/platform/v2.3/key', t, undefined);
    const [counterUp] = await ok('/platform/v2.3/transaction?resolve=true', tokens[0], {
      txs: [{ type: 'CONTRACT', payload: { contract: 'Counter', src: COUNTER, args: {}, metadata: { VM: 'SolidVM' } } }],
    });
    const [storeUp] = await ok('/platform/v2.3/transaction?resolve=true', tokens[0], { txs: [{ type: 'CONTRACT', payload: { contract: 'Store', src: EVM_STORE } }] });
    if (counterUp.status !== 'Success' || storeUp.status !== 'Success') throw new Error(`uploads failed: ${JSON.stringify([counterUp, storeUp]).slice(0, 500)}`);
    const counter: string = counterUp.data.contents.address;
    const store: string = storeUp.data.contents.address;
    // blocks appended, counted (not read) on the bus: how full the blocks of each phase were
    observer = await connectBus({ url: node.natsUrl, name: 'node-bench-blocks', credentials: node.busCredentials('observer') });
    let blocks = 0;
    observer.subscribe('block.>', {
      callback: () => {
        blocks++;
      },
    });
    await observer.flush();
    const solidCall = (i: number) => ({ type: 'FUNCTION', payload: { contractAddress: counter, method: 'bump', args: { by: 1 + (i % 3) }, metadata: { VM: 'SolidVM' } } });
    const evmCall = (i: number) => ({ type: 'FUNCTION', payload: { contractAddress: store, method: 'set', args: { v: i } } });
    let profiled = 0;
    let lastPhaseBlocks = 0;
    // the machine is shared: the CPU each transaction cost is what another run can be compared by
    const blockSizeRow = (what: string, txs: number): Row => ({ name: `  ${what}: transactions per block`, value: txs / Math.max(1, lastPhaseBlocks), unit: 'tx' });
    const cpuRows = (what: string, txs: number): Row[] => [
      blockSizeRow(what, txs),
      { name: `  ${what}: CPU per tx, node processes`, value: (lastPhaseCpu.node * 1000) / txs, unit: 'CPU-ms' },
      { name: `  ${what}: ceiling if ${cores} cores were the node's + client's`, value: (cores * txs) / (lastPhaseCpu.node + lastPhaseCpu.client), unit: 'tx/s' },
    ];
    const phase = async <T>(label: string, body: () => Promise<T>): Promise<T> => {
      // with cpu-profile.mjs loaded in the node's processes: a profile of each service per phase
      const profiling = Boolean(process.env.CPU_PROFILE_DIR && env.NODE_OPTIONS?.includes('cpu-profile'));
      const toggle = async () => {
        for (const proc of node.processes.values()) proc.signal('SIGUSR2');
        await new Promise((resolve) => setTimeout(resolve, 300));
      };
      if (profiling) await toggle();
      const blocksBefore = blocks;
      try {
        return await withCpuReport(node, label, body);
      } finally {
        lastPhaseBlocks = blocks - blocksBefore;
        if (profiling) {
          await toggle();
          console.log(`   profiles of "${label}": ${process.env.CPU_PROFILE_DIR}/<service>-${++profiled}.cpuprofile`);
        }
      }
    };

    if (PHASES.has('lone')) {
      // warm every path once, then one call at a time on the otherwise idle node
      for (let i = 0; i < 20; i++) await ok('/platform/v2.3/transaction?resolve=true', tokens[0], { txs: [solidCall(i)] });
      const { seen, nc } = await watchHops(node);
      const calls = await phase('lone resolve=true calls', () => loneCalls(ok, tokens[0], LONE_CALLS, solidCall));
      await nc.close();
      const latencies = calls.map((c) => c.answered - c.sent).sort((a, b) => a - b);
      rows.push(
        { name: `lone SolidVM call, resolve=true, idle node: p50 (${cores} cores)`, value: percentile(latencies, 50), unit: 'ms' },
        { name: `lone SolidVM call, resolve=true, idle node: p99 (${cores} cores)`, value: percentile(latencies, 99), unit: 'ms' },
      );
      // each hop's share of a lone call, from the moments its messages appeared on the bus (p50 of each hop)
      const hops = new Map<string, number[]>();
      addHopTimes(hops, calls, seen);
      rows.push(...hopRows(hops));
    }

    if (PHASES.has('few')) {
      const latencies = await phase('few resolve=true clients', async () => {
        const taken: number[] = [];
        await Promise.all(
          tokens.slice(0, FEW_CLIENTS).map(async (t) => {
            for (let i = 0; i < FEW_CALLS; i++) {
              const sent = performance.now();
              const [result] = await ok('/platform/v2.3/transaction?resolve=true', t, { txs: [solidCall(i)] });
              taken.push(performance.now() - sent);
              if (result.status !== 'Success') throw new Error(`a call failed: ${JSON.stringify(result).slice(0, 300)}`);
            }
          }),
        );
        return taken.sort((a, b) => a - b);
      });
      rows.push(
        { name: `${FEW_CLIENTS} clients, one resolve=true SolidVM call at a time each: p50 (${cores} cores)`, value: percentile(latencies, 50), unit: 'ms' },
        { name: `${FEW_CLIENTS} clients, one resolve=true SolidVM call at a time each: p99 (${cores} cores)`, value: percentile(latencies, 99), unit: 'ms' },
        blockSizeRow('those calls', latencies.length),
      );
    }

    if (PHASES.has('solidvm')) {
      await batched(tokens, solidCall, 1); // warm-up
      const r = await phase('SolidVM batches', () => batched(tokens, solidCall, SECONDS));
      rows.push({ name: `SolidVM calls, ${BATCH_CLIENTS} clients × ${BATCH}/request, to Success (${cores} cores)`, value: r.rate, unit: 'tx/s' }, ...cpuRows('SolidVM calls', r.txs));
      if (r.failures > 0) rows.push({ name: 'SolidVM calls that did not succeed', value: r.failures, unit: 'tx' });
    }

    if (PHASES.has('raw')) {
      // keys the vault never held, each with its own nonces; signed before the clock starts
      const wallets = Array.from({ length: RAW_CLIENTS }, () => Wallet.createRandom());
      const adminToken = await token(node, BENCH_ADMIN);
      await Promise.all(wallets.map((w, n) => enrolRawKey(ok, w, adminToken, n)));
      const perClient = Math.max(20, Math.ceil((2_000 * SECONDS) / RAW_CLIENTS));
      const signed = wallets.map((w) => Array.from({ length: perClient + 5 }, (_, n) => bump(w, n + 1, counter)));
      // warm-up: the first five of each wallet
      await submitInOrder(ok, () => tokens[0], signed.map((list) => list.slice(0, 5)));
      let hashes: string[] = [];
      const { admitted, total } = await phase('raw transactions', async () => {
        const t0 = performance.now();
        hashes = await submitInOrder(ok, (client) => tokens[client % tokens.length], signed.map((list) => list.slice(5)));
        const lastAdmission = performance.now();
        const finals = await finalResults(ok, tokens[0], hashes);
        const failed = finals.filter((r) => r.status !== 'Success').length;
        if (failed > 0) rows.push({ name: 'raw transactions that did not succeed', value: failed, unit: 'tx' });
        return { admitted: (hashes.length * 1000) / (lastAdmission - t0), total: (hashes.length * 1000) / (performance.now() - t0) };
      });
      rows.push(
        { name: `raw SolidVM calls, ${RAW_CLIENTS} clients × 1/request, admission (${cores} cores)`, value: admitted, unit: 'tx/s' },
        { name: `raw SolidVM calls, ${RAW_CLIENTS} clients × 1/request, to Success (${cores} cores)`, value: total, unit: 'tx/s' },
        ...cpuRows('raw calls', hashes.length),
      );
    }

    if (PHASES.has('evm')) {
      await batched(tokens, evmCall, 1); // warm-up
      const r = await phase('EVM batches', () => batched(tokens, evmCall, SECONDS));
      rows.push({ name: `EVM calls, ${BATCH_CLIENTS} clients × ${BATCH}/request, to Success (${cores} cores)`, value: r.rate, unit: 'tx/s' }, ...cpuRows('EVM calls', r.txs));
      if (r.failures > 0) rows.push({ name: 'EVM calls that did not succeed', value: r.failures, unit: 'tx' });
    }

    rows.push({ name: 'cores (os.cpus().length)', value: cores, unit: 'cores' });
    for (const [name, proc] of node.processes) {
      const peak = proc.pid === null ? null : peakRssMiB(proc.pid);
      if (peak !== null) rows.push({ name: `peak RSS: ${name}`, value: peak, unit: 'MiB' });
    }
    const nats = processes().find((p) => p.comm.startsWith('nats-server') && p.ppid === process.pid);
    const natsPeak = nats ? peakRssMiB(nats.pid) : null;
    if (natsPeak !== null) rows.push({ name: 'peak RSS: nats-server', value: natsPeak, unit: 'MiB' });
    rows.push(...(await hostRows('after')));
    if (problems.length > 0) console.log(`   node errors during the run (first ${problems.length}):\n${problems.map((p) => `     ${p.slice(0, 300)}`).join('\n')}`);
    return rows;
  } finally {
    await observer?.close();
    await gateway.close();
    await node.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
