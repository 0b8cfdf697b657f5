// Live events under load (`npm run bench -- events`): SolidVM calls in
// batches of 100 from a few clients with resolve=true, each phase for
// EVENTS_BENCH_SECONDS (default 8), in EVENTS_BENCH_ROUNDS rounds (default
// 3; each figure is the median of the rounds), first with no subscriber, then with
// EVENTS_BENCH_SUBSCRIBERS (default 1,000) connected to
// `GET /platform/v2.3/events`, taking blocks only (`kinds=block`, what a
// dashboard's overview follows), then all of it (every transaction and
// event: the heaviest stream a client can ask for). Per phase: transactions
// per second (the cost of the subscribers is the drop against the phase
// without), the gateway's CPU seconds, and the delivery lag of each block to
// each subscriber — from the moment this process sees the block's execution
// result appear on the bus (`exec.<chain>`, the observer's plain
// subscription) to the moment that subscriber has read the block's message —
// p50 and p99 over every (subscriber, block).
// The subscribers run in a worker thread of this process (one socket each,
// the block's hash found in the text without parsing the rest), so that their
// reading does not hold up the load's requests; on the node's machine, it
// competes with the node for the same cores.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { connectBus, type NatsConnection } from '@platform/bus';
import { startNode } from '@platform/launcher';
import { benchNodeEnv, cpuSecondsOf, gatewayClient, percentile, token, withCpuReport, type Post, type Row } from './probes.js';

const BATCH = 100;
const CLIENTS = 4;
const SECONDS = Number(process.env.EVENTS_BENCH_SECONDS ?? 8);
const SUBSCRIBERS = Number(process.env.EVENTS_BENCH_SUBSCRIBERS ?? 1_000);
const ROUNDS = Number(process.env.EVENTS_BENCH_ROUNDS ?? 3);

const COUNTER = `
contract Counter {
  uint public count;
  event Bumped(uint by, uint count);
  function bump(uint by) { count += by; emit Bumped(by, count); }
}`;

interface Subscribers {
  /** per subscriber: block hash → when it read the block's message (ms since the epoch) */
  stop(): Promise<{ reads: Array<Map<string, number>>; bytes: number; lagged: number }>;
}

/** `count` subscribers with `query`, reading in a worker thread (events-subscribers.mjs); resolves once all are connected. */
function subscribeAll(gatewayUrl: string, bearer: string, count: number, query: string): Promise<Subscribers> {
  const worker = new Worker(new URL('./events-subscribers.mjs', import.meta.url), { workerData: { gatewayUrl, bearer, count, query } });
  return new Promise((resolve, reject) => {
    worker.once('error', reject);
    worker.once('message', (first: { type: string; message?: string }) => {
      if (first.type !== 'ready') return reject(new Error(`the subscribers could not connect: ${first.message}`));
      resolve({
        stop: () =>
          new Promise((done) => {
            worker.once('message', (last: { reads: Array<Array<[string, number]>>; bytes: number; lagged: number }) => {
              void worker.terminate();
              done({ reads: last.reads.map((r) => new Map(r)), bytes: last.bytes, lagged: last.lagged });
            });
            worker.postMessage('stop');
          }),
      });
    });
  });
}

const now = () => performance.timeOrigin + performance.now();

export async function run(): Promise<Row[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'platform-bench-events-'));
  const problems: string[] = [];
  const node = await startNode({ env: await benchNodeEnv(dataDir), onLine: (name, line) => /"level":(50|60)/.test(line) && problems.length < 20 && problems.push(`${name} | ${line.slice(0, 300)}`) });
  const gateway = gatewayClient(node.gatewayUrl, 64);
  const ok: Post = gateway.ok;
  const rows: Row[] = [];
  let observer: NatsConnection | undefined;
  try {
    const tokens = await Promise.all(Array.from({ length: CLIENTS }, (_, i) => token(node, `bench-events-${i}`)));
    for (const t of tokens) await ok('/platform/v2.3/key', t, undefined);
    const [up] = await ok('/platform/v2.3/transaction?resolve=true', tokens[0], { txs: [{ type: 'CONTRACT', payload: { contract: 'Counter', src: COUNTER, args: {}, metadata: { VM: 'SolidVM' } } }] });
    if (up.status !== 'Success') throw new Error(`upload failed: ${JSON.stringify(up).slice(0, 300)}`);
    const bump = (i: number) => ({ type: 'FUNCTION', payload: { contractAddress: up.data.contents.address, method: 'bump', args: { by: 1 + (i % 3) }, metadata: { VM: 'SolidVM' } } });
    const bearer = `Bearer ${await token(node, 'bench-events-reader')}`;

    // when each block's execution result appeared on the bus, in this process's clock
    const applied = new Map<string, number>();
    observer = await connectBus({ url: node.natsUrl, name: 'events-bench-observer', credentials: node.busCredentials('observer') });
    observer.subscribe('exec.>', {
      callback: (_err, msg) => {
        const hash = /"hash":"([0-9a-f]{64})"/.exec(new TextDecoder().decode(msg.data.subarray(0, 4096)))?.[1];
        if (hash) applied.set(hash, now());
      },
    });
    await observer.flush();

    const load = async (): Promise<{ rate: number; failures: number }> => {
      let txs = 0;
      let failures = 0;
      const started = performance.now();
      const until = started + SECONDS * 1000;
      await Promise.all(
        tokens.map(async (t) => {
          while (performance.now() < until) {
            const results = (await ok('/platform/v2.3/transaction?resolve=true', t, { txs: Array.from({ length: BATCH }, (_, i) => bump(i)) })) as Array<{ status: string }>;
            txs += results.length;
            failures += results.filter((r) => r.status !== 'Success').length;
          }
        }),
      );
      return { rate: (txs * 1000) / (performance.now() - started), failures };
    };
    await load(); // warm-up

    const gatewayPid = node.processes.get('gateway')!.pid!;
    const phases = [
      ['no subscribers', 0, ''],
      [`${SUBSCRIBERS} subscribers, blocks`, SUBSCRIBERS, '?kinds=block'],
      [`${SUBSCRIBERS} subscribers, everything`, SUBSCRIBERS, ''],
    ] as const;
    /** each phase's figures, one per round: the rounds interleave the phases, so that the host's swings fall on all of them */
    const figures = new Map<string, { value: number[]; unit: string }>();
    const note = (name: string, value: number, unit: string) => {
      const entry = figures.get(name) ?? { value: [], unit };
      entry.value.push(value);
      figures.set(name, entry);
    };
    for (let round = 1; round <= ROUNDS; round++) {
      for (const [label, count, query] of phases) {
        const subs = await subscribeAll(node.gatewayUrl, bearer, count, query);
        // connected, and past what came before: the phase's blocks are the ones measured
        await new Promise((resolve) => setTimeout(resolve, 500));
        applied.clear();
        const cpuBefore = cpuSecondsOf(gatewayPid) ?? 0;
        const result = await withCpuReport(node, `${label}, round ${round}`, load);
        // the last blocks' messages may still be on their way
        await new Promise((resolve) => setTimeout(resolve, 2_000));
        note(`${label}: transactions per second`, result.rate, 'tx/s');
        note(`${label}: gateway CPU`, (cpuSecondsOf(gatewayPid) ?? 0) - cpuBefore, 's');
        note(`${label}: failed transactions`, result.failures, 'tx');
        if (count > 0) {
          const { reads, bytes, lagged } = await subs.stop();
          const lags: number[] = [];
          let missing = 0;
          for (const read of reads) {
            for (const [hash, at] of applied) {
              const readAt = read.get(hash);
              if (readAt === undefined) missing++;
              else lags.push(readAt - at);
            }
          }
          lags.sort((a, b) => a - b);
          note(`${label}: delivery lag p50`, percentile(lags, 50), 'ms');
          note(`${label}: delivery lag p99`, percentile(lags, 99), 'ms');
          note(`${label}: blocks × subscribers not delivered`, missing, '');
          note(`${label}: MiB read by all subscribers`, bytes / 1024 / 1024, 'MiB');
          note(`${label}: subscribers cut off as too slow (event: lagged)`, lagged, '');
        } else await subs.stop();
      }
    }
    for (const [name, { value, unit }] of figures) {
      const sorted = [...value].sort((a, b) => a - b);
      rows.push({ name: `${name} (median of ${sorted.length})`, value: sorted[Math.floor(sorted.length / 2)], unit });
    }
  } finally {
    await observer?.close();
    await gateway.close();
    await node.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  for (const line of problems) console.log(`   ${line}`);
  return rows;
}
