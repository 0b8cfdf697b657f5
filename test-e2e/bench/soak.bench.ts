// Memory over a node's history: rounds of the raw workload (50 senders each
// sending 200 raw SolidVM counter calls in nonce order, every round new
// senders: 10,000 transactions, all Success) on one node, and after each
// round the memory (PSS) of every service, nats-server and PostgreSQL (all
// its processes). A bounded node is flat after the first rounds: every
// in-memory structure is bounded by count or bytes, and what must be kept
// for ever is on disk. `npm run bench -- soak`; `SOAK_ROUNDS` (default 8);
// `SOAK_NODE_OPTIONS` is every node process's NODE_OPTIONS.
// Memory is read twice a round: 2 s after its last call, and at rest,
// `SOAK_REST_MS` (20,000) later, as the peer bench does. The first still
// holds the round's garbage and whatever has not settled, and moves with
// when the host lets the parts finish; the second is what the node keeps.
// Each round also prints the size of the block service's stores on disk
// (`DATA_DIR/block`), which grows with the state and the record of executed
// transactions, not with every block's rewrites.
// `SOAK_HEAP_SNAPSHOTS=2,6` takes a heap snapshot of every service after
// rounds 2 and 6 and prints each one's live heap (the sum of its objects'
// sizes): growth of PSS with a flat live heap is garbage not yet collected,
// not memory kept. A snapshot costs its process memory of its own, so the
// PSS of the rounds after the first snapshot is not comparable.
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Wallet } from 'ethers';
import { startNode, type RunningNode } from '@platform/launcher';
import { BENCH_ADMIN, benchNodeEnv, enrolRawKey, finalResults, gatewayClient, memoryByPart, memoryLine, nodeCpuSeconds, nodeProcesses, rawCall, submitInOrder, token, type PartMemory, type Row } from './probes.js';

const SENDERS = 50;
const PER_SENDER = 200;
const ROUNDS = Number(process.env.SOAK_ROUNDS ?? 8);
/** rounds before the memory is taken as settled (caches filling, JIT, pools) */
const SETTLING = 2;
/** from 2 s after a round's last call to the reading at rest: the services' idle collection, the pools' 10 s idle timeout, nats-server's caches (peer.bench.ts REST_MS) */
const REST_MS = Number(process.env.SOAK_REST_MS ?? 20_000);

const COUNTER = 'contract Counter { uint public count; function bump(uint by) returns (uint) { count += by; return count; } }';

/** the rounds after which every service's live heap is read (SOAK_HEAP_SNAPSHOTS) */
const SNAPSHOT_ROUNDS = new Set((process.env.SOAK_HEAP_SNAPSHOTS ?? '').split(',').filter(Boolean).map(Number));

/**
 * Each Node.js service's live heap now, in MB: a heap snapshot of each
 * (`--heapsnapshot-signal=SIGUSR2`, written to `dir`), the sum of its
 * objects' sizes. The snapshots are deleted once read.
 */
async function liveHeaps(node: RunningNode, dir: string): Promise<Map<string, number>> {
  const services = [...nodeProcesses(node)].filter(([, { part }]) => part !== 'nats-server' && part !== 'postgres' && !part.startsWith('other'));
  for (const [pid] of services) process.kill(pid, 'SIGUSR2');
  const live = new Map<string, number>();
  for (const [pid, { part }] of services) {
    const pattern = new RegExp(`^Heap\\.[0-9.]+\\.${pid}\\.0\\.\\d+\\.heapsnapshot$`);
    // written when the process gets to it; complete once its size stops changing
    let file: string | undefined;
    let size = -1;
    for (let waited = 0; waited < 60_000; waited += 500) {
      await new Promise((r) => setTimeout(r, 500));
      file = readdirSync(dir).find((name) => pattern.test(name));
      if (!file) continue;
      const now = statSync(join(dir, file)).size;
      if (now > 0 && now === size) break;
      size = now;
    }
    if (!file) continue;
    const snapshot = JSON.parse(readFileSync(join(dir, file), 'utf8')) as { snapshot: { meta: { node_fields: string[] } }; nodes: number[] };
    const fields = snapshot.snapshot.meta.node_fields;
    const selfSize = fields.indexOf('self_size');
    let bytes = 0;
    for (let i = selfSize; i < snapshot.nodes.length; i += fields.length) bytes += snapshot.nodes[i]!;
    live.set(part, (live.get(part) ?? 0) + bytes / 1e6);
    rmSync(join(dir, file));
  }
  return live;
}

/** bytes of the files under `dir` (the block stores: lmdb files and the node key) */
function diskBytes(dir: string): number {
  let bytes = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    bytes += entry.isDirectory() ? diskBytes(path) : statSync(path).size;
  }
  return bytes;
}

const sum = (memory: Map<string, PartMemory>): PartMemory => [...memory.values()].reduce((a, m) => ({ all: a.all + m.all, anon: a.anon + m.anon }), { all: 0, anon: 0 });

export async function run(): Promise<Row[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'platform-bench-soak-'));
  const env = await benchNodeEnv(dataDir);
  // e.g. a heap limit, to tell a live set that grows from garbage not yet collected
  if (process.env.SOAK_NODE_OPTIONS) env.NODE_OPTIONS = process.env.SOAK_NODE_OPTIONS;
  const snapshots = join(dataDir, 'heap-snapshots');
  if (SNAPSHOT_ROUNDS.size > 0) {
    mkdirSync(snapshots);
    env.NODE_OPTIONS = `${env.NODE_OPTIONS ?? ''} --heapsnapshot-signal=SIGUSR2 --diagnostic-dir=${snapshots}`.trim();
  }
  const liveByRound = new Map<number, Map<string, number>>();
  const problems: string[] = [];
  const node = await startNode({ env, onLine: (name, line) => /"level":(50|60)|heap|fatal/i.test(line) && problems.length < 20 && problems.push(`${name} | ${line}`) });
  const gateway = gatewayClient(node.gatewayUrl, 128);
  const ok = gateway.ok;
  try {
    const user = await token(node, 'soak');
    await ok('/platform/v2.3/key', user, undefined);
    const admin = await token(node, BENCH_ADMIN);
    const [upload] = await ok('/platform/v2.3/transaction?resolve=true', user, { txs: [{ type: 'CONTRACT', payload: { contract: 'Counter', src: COUNTER, args: {}, metadata: { VM: 'SolidVM' } } }] });
    if (upload.status !== 'Success') throw new Error(`the counter was not uploaded: ${JSON.stringify(upload).slice(0, 300)}`);
    const counter: string = upload.data.contents.address;
    const perRound: Array<Map<string, PartMemory>> = [];
    const atRest: Array<Map<string, PartMemory>> = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const wallets = Array.from({ length: SENDERS }, () => Wallet.createRandom());
      await Promise.all(wallets.map((w, n) => enrolRawKey(ok, w, admin, round * 1000 + n)));
      // the CPU a round costs, which the host's other load leaves alone better than the rate does
      const cpu0 = nodeCpuSeconds(node);
      const t0 = performance.now();
      const signed = wallets.map((w) => Array.from({ length: PER_SENDER }, (_, n) => rawCall(w, n + 1, counter, { VM: 'SolidVM', funcName: 'bump', args: '(1)' })));
      const hashes = await submitInOrder(ok, () => user, signed);
      const finals = await finalResults(ok, user, hashes);
      const failed = finals.filter((r) => r.status !== 'Success').length;
      if (failed > 0) throw new Error(`round ${round}: ${failed} transactions did not succeed`);
      const rate = (hashes.length * 1000) / (performance.now() - t0);
      const cpuMsPerTx = ((nodeCpuSeconds(node) - cpu0) * 1000) / hashes.length;
      // what settles after a burst (timers, pools going idle) is not growth
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      const memory = memoryByPart(node);
      perRound.push(memory);
      const total = sum(memory);
      console.log(`   round ${round}: ${hashes.length} tx at ${Math.round(rate)} tx/s, ${cpuMsPerTx.toFixed(2)} CPU-ms/tx (whole node); PSS MiB (anonymous part): total ${Math.round(total.all)} (${Math.round(total.anon)}), ${memoryLine(memory)}`);
      await new Promise((resolve) => setTimeout(resolve, REST_MS));
      const rested = memoryByPart(node);
      atRest.push(rested);
      const restedTotal = sum(rested);
      console.log(`   round ${round}, at rest: PSS MiB (anonymous part): total ${Math.round(restedTotal.all)} (${Math.round(restedTotal.anon)}), ${memoryLine(rested)}; block stores on disk ${(diskBytes(join(dataDir, 'block')) / 2 ** 20).toFixed(1)} MiB`);
      if (SNAPSHOT_ROUNDS.has(round)) {
        const live = await liveHeaps(node, snapshots);
        liveByRound.set(round, live);
        console.log(`   round ${round}: live heaps MB (heap snapshots): ${[...live].sort((a, b) => b[1] - a[1]).map(([p, mb]) => `${p} ${mb.toFixed(1)}`).join(', ')}`);
      }
    }
    const rows: Row[] = [];
    const growth = (from: number, to: number) => ((to - from) / from) * 100;
    for (const [when, readings] of [['2 s after the round', perRound], ['at rest', atRest]] as const) {
      const settled = readings[Math.min(SETTLING, readings.length) - 1]!;
      const last = readings[readings.length - 1]!;
      for (const part of [...last.keys()].sort()) {
        const from = settled.get(part) ?? { all: 0, anon: 0 };
        const to = last.get(part)!;
        rows.push({ name: `PSS after round ${ROUNDS}, ${when}: ${part}`, value: to.all, unit: 'MiB' });
        if (from.all > 20) rows.push({ name: `  ${part}: growth from round ${SETTLING}`, value: growth(from.all, to.all), unit: '%' }, { name: `  ${part}: growth from round ${SETTLING}, anonymous`, value: growth(from.anon, to.anon), unit: '%' });
      }
      const [from, to] = [sum(settled), sum(last)];
      rows.push(
        { name: `PSS of the whole node after round ${ROUNDS} (${(ROUNDS * SENDERS * PER_SENDER).toLocaleString('en')} transactions), ${when}`, value: to.all, unit: 'MiB' },
        { name: `  of which anonymous`, value: to.anon, unit: 'MiB' },
        { name: `  growth of the whole node from round ${SETTLING}`, value: growth(from.all, to.all), unit: '%' },
        { name: `  growth of its anonymous memory from round ${SETTLING}`, value: growth(from.anon, to.anon), unit: '%' },
      );
    }
    const snapshotted = [...liveByRound.keys()].sort((a, b) => a - b);
    if (snapshotted.length > 1) {
      const [first, lastSnapshot] = [liveByRound.get(snapshotted[0]!)!, liveByRound.get(snapshotted[snapshotted.length - 1]!)!];
      for (const [part, mb] of [...lastSnapshot].sort()) {
        rows.push({ name: `live heap after round ${snapshotted[snapshotted.length - 1]}: ${part} (round ${snapshotted[0]}: ${(first.get(part) ?? 0).toFixed(1)} MB)`, value: mb, unit: 'MB' });
      }
    }
    if (problems.length > 0) console.log(`   node errors during the run (first ${problems.length}):\n${problems.map((p) => `     ${p.slice(0, 300)}`).join('\n')}`);
    return rows;
  } finally {
    await gateway.close();
    await node.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
