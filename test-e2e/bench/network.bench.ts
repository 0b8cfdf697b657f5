// `npm run bench -- network`: a network of three nodes on loopback against a
// single node, in the same run (docs/network.md): vault-signed throughput
// with the clients spread over every node, a lone call's latency, how long a
// frozen proposer takes to be replaced, and how fast a node that was down
// catches up against how fast the chain grew meanwhile.
//
// The two cores of this machine carry every process of the three nodes, so
// the network's absolute figures are a floor; the ratios are what to compare.
// `NETWORK_BENCH_SECONDS` (default 8) sets each throughput phase.
// `CPU_PROFILE_DIR=<dir> NETWORK_BENCH_CATCHUP_NODE_OPTIONS="--import <abs>/test-e2e/bench/cpu-profile.mjs"`
// profiles the processes of the node that was down from their restart until they caught up.
import { mkdtempSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, removeDataDir, startNetwork, startNode, type RunningNetwork, type RunningNode } from '@platform/launcher';
import { devToken } from '../test/harness.js';
import { COUNTER, benchEnv, bump, callsUntil, metadata, networkPorts, post, roles, type Client } from './network-probes.js';
import { corePercent, cpuMeter, nodeCpuSeconds, type Row } from './probes.js';

const SECONDS = Number(process.env.NETWORK_BENCH_SECONDS ?? 8);
const CLIENTS = 8;
const PER_REQUEST = 100;
const LONE_CALLS = 60;
/** how long calls go on one after the other after a node stops */
const AFTER_STOP_MS = 10_000;
const heightOf = async (client: Client) => (await metadata(client)).chains.find((c) => c.chainId === '')!.height;

/** One client per node at least, each with a key, and the counter deployed through the first. */
async function prepare(nodes: RunningNode[]): Promise<{ clients: Client[]; counter: string }> {
  const clients: Client[] = [];
  for (let i = 0; i < CLIENTS; i++) {
    const node = nodes[i % nodes.length];
    const client = { node, token: await devToken(node, `bench-${i}`) };
    await post(client, '/platform/v2.3/key');
    clients.push(client);
  }
  const [created] = await post(clients[0], '/platform/v2.3/transaction?resolve=true', { txs: [{ type: 'CONTRACT', payload: { contract: 'Counter', src: COUNTER, args: {}, metadata: { VM: 'SolidVM' } } }] });
  if (created.status !== 'Success') throw new Error(`the counter was not created: ${JSON.stringify(created).slice(0, 300)}`);
  return { clients, counter: created.data.contents.address };
}


/** Every client posts PER_REQUEST calls per request with resolve=true, for `seconds`: final Successes, and per second. */
async function throughput(clients: Client[], counter: string, seconds: number): Promise<{ done: number; perSecond: number }> {
  const txs = Array.from({ length: PER_REQUEST }, () => bump(counter));
  const started = performance.now();
  const until = started + seconds * 1000;
  let done = 0;
  await Promise.all(
    clients.map(async (client) => {
      while (performance.now() < until) {
        const results = (await post(client, '/platform/v2.3/transaction?resolve=true', { txs })) as Array<{ status: string }>;
        done += results.filter((r) => r.status === 'Success').length;
      }
    }),
  );
  return { done, perSecond: done / ((performance.now() - started) / 1000) };
}

/**
 * `throughput` with the CPU the nodes' processes spent on it (every service,
 * nats-server and PostgreSQL of each): CPU-ms per final transaction, and the
 * machine's load meanwhile, printed. With the machine's cores busy in two
 * phases, their rates can differ by no more than their CPU per transaction.
 */
async function meteredThroughput(label: string, nodes: RunningNode[], clients: Client[], counter: string): Promise<{ perSecond: number; cpuMsPerTx: number }> {
  const meter = cpuMeter(nodes);
  const { done, perSecond } = await throughput(clients, counter, SECONDS);
  const { parts, total: cpu, machine, seconds } = meter.stop();
  const shares = [...parts].sort((a, b) => b[1] - a[1]).map(([part, used]) => `${part} ${((used * 1000) / Math.max(done, 1)).toFixed(2)}`);
  console.log(`   [${label}: ${done} tx in ${seconds.toFixed(1)} s; CPU as % of one core: machine ${corePercent(machine, seconds)} of ${cpus().length * 100}%, the nodes ${corePercent(cpu, seconds)}; CPU-ms per tx, all nodes' processes of each part: ${shares.join(', ')}]`);
  return { perSecond, cpuMsPerTx: (cpu * 1000) / Math.max(done, 1) };
}

/** One call at a time, send → final result: p50 and p99 in ms. */
async function lone(client: Client, counter: string): Promise<{ p50: number; p99: number }> {
  const times: number[] = [];
  for (let i = 0; i < LONE_CALLS; i++) {
    const started = performance.now();
    await post(client, '/platform/v2.3/transaction?resolve=true', { txs: [bump(counter)] });
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { p50: times[Math.floor(times.length / 2)], p99: times[Math.min(times.length - 1, Math.floor(times.length * 0.99))] };
}

async function singleNode(): Promise<{ tps: number; cpuMsPerTx: number; p50: number; p99: number }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'platform-bench-single-'));
  const env = { ...benchEnv(dataDir), PORT: String(await freePort()), VAULT_PORT: String(await freePort()), IDP_PORT: String(await freePort()), FILES_PORT: String(await freePort()), FILES_S3_PORT: String(await freePort()) };
  const node = await startNode({ env, onLine: () => {} });
  try {
    const { clients, counter } = await prepare([node]);
    const { p50, p99 } = await lone(clients[0], counter);
    const { perSecond, cpuMsPerTx } = await meteredThroughput('single node, batched vault-signed', [node], clients, counter);
    return { tps: perSecond, cpuMsPerTx, p50, p99 };
  } finally {
    await node.stop();
    removeDataDir(dataDir);
  }
}

/**
 * A node other than the proposer stopped (the blocks stream's leader when it
 * is not the proposer), while both nodes left take calls one after the
 * other: the slowest of each in the next AFTER_STOP_MS. The stopped server
 * may have led the proposer's consumer of admitted transactions (its pull is
 * renewed when the new leader is announced) or held the other node's block
 * consumer (replaced after two silent watchdog rounds); a call waits
 * meanwhile (docs/network.md "Calls while a node stops").
 */
async function slowestCallAfterAStop(net: RunningNetwork): Promise<Row[]> {
  const clientOf = async (i: number): Promise<Client> => {
    const node = net.running.get(i)!;
    return { node, token: await devToken(node, `bench-stop-${i}`) };
  };
  const all = await Promise.all([1, 2, 3].map(clientOf));
  const { proposer, leader } = await roles(all);
  const victim = leader > 0 && leader !== proposer ? leader : [1, 2, 3].find((i) => i !== proposer)!;
  // the proposer's node, and the other node left: a follower, whose own block consumer the stopped server may have held
  const proposing = proposer > 0 ? proposer : [1, 2, 3].find((i) => i !== victim)!;
  const follower = [1, 2, 3].find((i) => i !== victim && i !== proposing)!;
  const callers = [proposing, follower].map((i) => all[i - 1]!);
  for (const caller of callers) await post(caller, '/platform/v2.3/key');
  const [created] = await post(callers[0]!, '/platform/v2.3/transaction?resolve=true', { txs: [{ type: 'CONTRACT', payload: { contract: 'Counter', src: COUNTER, args: {}, metadata: { VM: 'SolidVM' } } }] });
  const counter: string = created.data.contents.address;
  await net.stopNode(victim);
  const stopped = performance.now();
  const [onProposer, onFollower] = await Promise.all(callers.map((caller) => callsUntil(caller, counter, stopped + AFTER_STOP_MS)));
  console.log(
    `   [node${victim} stopped (proposer node${proposer}, blocks leader node${leader}): calls one after the other for ${AFTER_STOP_MS / 1000} s on the proposer's node: ${onProposer!.calls}, the slowest ${Math.round(onProposer!.slowest)} ms; on node${follower}: ${onFollower!.calls}, the slowest ${Math.round(onFollower!.slowest)} ms]`,
  );
  return [
    { name: `network: a node stopped: the slowest call in the ${AFTER_STOP_MS / 1000} s after, on the proposer's node`, value: onProposer!.slowest, unit: 'ms' },
    { name: `network: a node stopped: the slowest call in the ${AFTER_STOP_MS / 1000} s after, on the other node left`, value: onFollower!.slowest, unit: 'ms' },
  ];
}

async function network(): Promise<Row[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'platform-bench-network-'));
  const ports = await networkPorts(3);
  let net: RunningNetwork | null = null;
  try {
    // the node stopped and caught up (chosen below); after its restart, its main chain worker says when it starts applying and from which height, and each block it applies (its log at debug)
    let catching = '';
    let chainStarted: { at: number; height: number } | null = null;
    let catchUpTarget = Number.POSITIVE_INFINITY;
    let caughtUpAt: number | null = null;
    const onLine = (node: string, name: string, line: string) => {
      if (node !== catching || name !== 'block' || !(line.includes('chain started') || line.includes('applied a block from the stream'))) return;
      const record = JSON.parse(line) as { chain?: string; height?: number; time?: string | number; msg?: string };
      const at = typeof record.time === 'string' ? Date.parse(record.time) : (record.time ?? Date.now());
      if (record.chain !== 'main' || typeof record.height !== 'number' || !Number.isFinite(at)) return;
      if (record.msg === 'chain started') chainStarted = { at, height: record.height };
      else if (record.height >= catchUpTarget && caughtUpAt === null) caughtUpAt = at;
    };
    net = await startNetwork({ size: 3, env: benchEnv(dataDir), ports: (i) => ports.get(i)!, onLine, readyTimeoutMs: 240_000 });
    const nodes = [1, 2, 3].map((i) => net!.running.get(i)!);
    const { clients, counter } = await prepare(nodes);
    const rows: Row[] = [];
    const { p50, p99 } = await lone(clients[0], counter);
    rows.push({ name: 'network: lone call p50', value: p50, unit: 'ms' }, { name: 'network: lone call p99', value: p99, unit: 'ms' });
    const batched = await meteredThroughput('network, batched vault-signed', nodes, clients, counter);
    rows.push(
      { name: 'network: batched vault-signed, clients on all nodes', value: batched.perSecond, unit: 'tx/s' },
      { name: 'network: CPU per tx, every process of the three nodes', value: batched.cpuMsPerTx, unit: 'CPU-ms' },
    );

    // the proposer frozen: how long until a call on another node is final
    const byNode = (i: number) => clients.find((c) => c.node === nodes[i - 1])!;
    const { proposer } = await roles([1, 2, 3].map(byNode));
    if (proposer > 0) {
      const other = byNode(proposer === 1 ? 2 : 1);
      const block = nodes[proposer - 1].processes.get('block')!;
      block.signal('SIGSTOP');
      const started = performance.now();
      try {
        await post(other, '/platform/v2.3/transaction?resolve=true', { txs: [bump(counter)] });
      } finally {
        block.signal('SIGCONT');
      }
      rows.push({ name: 'network: a call final after the proposer froze', value: performance.now() - started, unit: 'ms' });
    }

    // a node down while the others grow the chain; then its catch-up. Neither the proposer nor the blocks stream's leader:
    // the chain's growth is then the two others' pace, with no takeover or election in it
    const { proposer: proposerNow, leader } = await roles([1, 2, 3].map(byNode));
    const down = [3, 2, 1].find((i) => i !== proposerNow && i !== leader)!;
    const upNodes = nodes.filter((_, i) => i + 1 !== down);
    catching = `node${down}`;
    await net.stopNode(down);
    const up = clients.filter((c) => c.node !== nodes[down - 1]);
    // a stream or consumer whose leader was on the stopped server has another first: the growth is measured after a call is final
    const stopped = performance.now();
    await post(up[0], '/platform/v2.3/transaction?resolve=true', { txs: [bump(counter)] });
    console.log(`   [node${down} stopped: a call final ${Math.round(performance.now() - stopped)} ms later]`);
    const h0 = await heightOf(up[0]);
    const grownFor = performance.now();
    const producing = cpuMeter(upNodes);
    await throughput(up, counter, SECONDS);
    const grew = (await heightOf(up[0])) - h0;
    const production = producing.stop();
    const productionRate = grew / ((performance.now() - grownFor) / 1000);
    const productionCpu = production.total;
    console.log(`   [node${down} down (proposer node${proposerNow}, blocks leader node${leader}); the two others grow the chain by ${grew} blocks in ${production.seconds.toFixed(1)} s; CPU as % of one core: machine ${corePercent(production.machine, production.seconds)}, the two nodes ${corePercent(productionCpu, production.seconds)}]`);
    const target = await heightOf(up[0]);
    chainStarted = null;
    catchUpTarget = target;
    const started = Date.now();
    // NETWORK_BENCH_CATCHUP_NODE_OPTIONS with cpu-profile.mjs and CPU_PROFILE_DIR: its processes profiled from their start until caught up
    const profiling = process.env.NETWORK_BENCH_CATCHUP_NODE_OPTIONS;
    const catchingUp = cpuMeter([]);
    const restarted = await net.startNode(down, { LOG_LEVEL: 'debug', ...(profiling ? { NODE_OPTIONS: profiling, CPU_PROFILE_AUTOSTART: '1' } : {}) });
    const catcher = { node: restarted, token: await devToken(restarted, 'bench-catch-up') };
    // its log says when it reached the target (caughtUpAt): these calls only end the wait, and are few so as not to slow it
    while ((await heightOf(catcher)) < target) await new Promise((r) => setTimeout(r, 100));
    const done = Date.now();
    // every process of the node started with it: what each used so far is its catch-up, start included
    const catchUpCpu = nodeCpuSeconds(restarted);
    const catchUpMachine = catchingUp.stop();
    console.log(`   [node${down} back: caught up on ${grew} blocks ${((done - started) / 1000).toFixed(1)} s after its restart; CPU as % of one core: machine ${corePercent(catchUpMachine.machine, catchUpMachine.seconds)}, node${down} ${corePercent(catchUpCpu, catchUpMachine.seconds)}]`);
    if (profiling) for (const p of restarted.processes.values()) p.signal('SIGUSR2');
    const fromStart = grew / ((done - started) / 1000);
    rows.push(
      { name: 'network: chain growth while a node was down', value: productionRate, unit: 'blocks/s' },
      { name: 'network: its catch-up from its process start', value: fromStart, unit: 'blocks/s' },
      { name: 'network: CPU per block grown, every process of the two others', value: (productionCpu * 1000) / Math.max(grew, 1), unit: 'CPU-ms' },
      { name: 'network: CPU per block caught up, every process of the node from its start', value: (catchUpCpu * 1000) / Math.max(grew, 1), unit: 'CPU-ms' },
      { name: 'network: catch-up ÷ production that this machine allows (their CPU per block)', value: productionCpu / Math.max(catchUpCpu, 1e-9), unit: '×' },
    );
    // from the moment its chain worker started applying to the block that reached the target (its log): the blocks it had to apply over the time it took
    const worker = chainStarted as { at: number; height: number } | null;
    const end = (caughtUpAt as number | null) ?? done;
    if (worker && target > worker.height) {
      const applying = (target - worker.height) / (Math.max(end - worker.at, 20) / 1000);
      rows.push(
        { name: 'network: its catch-up from its chain worker\'s start', value: applying, unit: 'blocks/s' },
        { name: 'network: catch-up ÷ production', value: applying / Math.max(productionRate, 1e-9), unit: '×' },
      );
    }
    rows.push(...(await slowestCallAfterAStop(net)));
    return rows;
  } finally {
    await net?.stop();
    for (let i = 1; i <= 3; i++) removeDataDir(join(dataDir, `node${i}`));
    removeDataDir(dataDir);
  }
}

export async function run(): Promise<Row[]> {
  const single = await singleNode();
  const rows = await network();
  const networkTps = rows.find((r) => r.name.startsWith('network: batched'))!.value;
  const networkCpu = rows.find((r) => r.name.startsWith('network: CPU per tx'))!.value;
  return [
    { name: 'single node: lone call p50', value: single.p50, unit: 'ms' },
    { name: 'single node: lone call p99', value: single.p99, unit: 'ms' },
    { name: 'single node: batched vault-signed', value: single.tps, unit: 'tx/s' },
    ...rows,
    { name: 'single node: CPU per tx, every process', value: single.cpuMsPerTx, unit: 'CPU-ms' },
    { name: 'network ÷ single node, batched throughput', value: networkTps / single.tps, unit: '×' },
    // with the machine's cores busy in both, the network can reach no more than this on one machine
    { name: 'network ÷ single node that this machine allows (their CPU per tx)', value: single.cpuMsPerTx / networkCpu, unit: '×' },
  ];
}
