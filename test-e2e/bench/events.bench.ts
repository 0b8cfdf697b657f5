// Live events under load (`npm run bench -- events`): SolidVM calls in
// batches of 100 from a few clients with resolve=true, each phase for
// EVENTS_BENCH_SECONDS (default 8), first with no subscriber, then with
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
// The subscribers run in this process (one socket each, the block's hash
// found in the text without parsing the rest), on the node's machine, so
// their reading competes with the node for the same cores.
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectBus, type NatsConnection } from '@platform/bus';
import { startNode } from '@platform/launcher';
import { benchNodeEnv, cpuSecondsOf, gatewayClient, percentile, token, withCpuReport, type Post, type Row } from './probes.js';

const BATCH = 100;
const CLIENTS = 4;
const SECONDS = Number(process.env.EVENTS_BENCH_SECONDS ?? 8);
const SUBSCRIBERS = Number(process.env.EVENTS_BENCH_SUBSCRIBERS ?? 1_000);

const COUNTER = `
contract Counter {
  uint public count;
  event Bumped(uint by, uint count);
  function bump(uint by) { count += by; emit Bumped(by, count); }
}`;

const BLOCK_HASH = /event: block\ndata: \{"hash":"([0-9a-f]{64})"/g;

interface Subscriber {
  /** block hash → when this subscriber read its message (performance.now()) */
  read: Map<string, number>;
  bytes: number;
  close(): void;
}

/** A subscriber that notes when each block's message arrives, and reads the rest without looking at it. */
function subscribe(gatewayUrl: string, bearer: string, query: string): Promise<Subscriber> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${gatewayUrl}/platform/v2.3/events${query}`, { agent: false, headers: { authorization: bearer, accept: 'text/event-stream' } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`events: ${res.statusCode}`));
      const sub: Subscriber = { read: new Map(), bytes: 0, close: () => req.destroy() };
      let tail = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        const now = performance.now();
        sub.bytes += chunk.length;
        // a block's line may be split between two chunks: the last 200 characters are looked at again
        const text = tail + chunk;
        for (const match of text.matchAll(BLOCK_HASH)) if (!sub.read.has(match[1])) sub.read.set(match[1], now);
        tail = text.slice(-200);
      });
      res.on('error', () => undefined);
      resolve(sub);
    });
    req.on('error', reject);
    req.end();
  });
}

async function subscribeAll(gatewayUrl: string, bearer: string, count: number, query: string): Promise<Subscriber[]> {
  const subs: Subscriber[] = [];
  for (let i = 0; i < count; i += 100) subs.push(...(await Promise.all(Array.from({ length: Math.min(100, count - i) }, () => subscribe(gatewayUrl, bearer, query)))));
  return subs;
}

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
        if (hash) applied.set(hash, performance.now());
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
    for (const [label, count, query] of [
      ['no subscribers', 0, ''],
      [`${SUBSCRIBERS} subscribers, blocks`, SUBSCRIBERS, '?kinds=block'],
      [`${SUBSCRIBERS} subscribers, everything`, SUBSCRIBERS, ''],
    ] as const) {
      const subs = await subscribeAll(node.gatewayUrl, bearer, count, query);
      // connected, and past what came before: the phase's blocks are the ones measured
      await new Promise((resolve) => setTimeout(resolve, 500));
      applied.clear();
      const cpuBefore = cpuSecondsOf(gatewayPid) ?? 0;
      const result = await withCpuReport(node, label, load);
      // the last blocks' messages may still be on their way
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      const gatewayCpu = (cpuSecondsOf(gatewayPid) ?? 0) - cpuBefore;
      rows.push({ name: `${label}: transactions per second`, value: result.rate, unit: 'tx/s' });
      rows.push({ name: `${label}: gateway CPU`, value: gatewayCpu, unit: 's' });
      if (result.failures > 0) rows.push({ name: `${label}: failed transactions`, value: result.failures, unit: 'tx' });
      if (count > 0) {
        const lags: number[] = [];
        let missing = 0;
        for (const sub of subs) {
          for (const [hash, at] of applied) {
            const read = sub.read.get(hash);
            if (read === undefined) missing++;
            else lags.push(read - at);
          }
        }
        lags.sort((a, b) => a - b);
        rows.push({ name: `${label}: delivery lag p50`, value: percentile(lags, 50), unit: 'ms' });
        rows.push({ name: `${label}: delivery lag p99`, value: percentile(lags, 99), unit: 'ms' });
        rows.push({ name: `${label}: blocks × subscribers not delivered`, value: missing, unit: '' });
        rows.push({ name: `${label}: MiB read by all subscribers`, value: subs.reduce((n, s) => n + s.bytes, 0) / 1024 / 1024, unit: 'MiB' });
      }
      for (const sub of subs) sub.close();
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
