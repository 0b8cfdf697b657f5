// `npm run bench -- stops`: a 3-node network on loopback whose nodes are
// stopped one at a time, never the proposer's, and started again
// (`STOPS_BENCH_STOPS`, default 6; the one stopped alternates between the
// two others). After each stop both nodes left take calls one after the
// other for 10 s; each stop prints the slowest call on each, and the rows
// are the median and the worst of the stops' slowest calls. A stop loses and
// forks nothing (the fault tests in test-e2e/test/network.e2e.test.ts); this
// measures how long calls wait meanwhile (docs/network.md "Calls while a
// node stops"): a pull or a consumer the stopped server held is lost with
// it. The block service's warnings during each stop are printed.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { removeDataDir, startNetwork } from '@platform/launcher';
import { devToken } from '../test/harness.js';
import { COUNTER, benchEnv, callsUntil, networkPorts, post, roles, type Client } from './network-probes.js';
import type { Row } from './probes.js';

const STOPS = Number(process.env.STOPS_BENCH_STOPS ?? 6);
/** how long calls go on after each stop */
const AFTER_STOP_MS = 10_000;
/** after a node is started again: time for it to catch up before the next stop */
const SETTLE_MS = 5_000;

export async function run(): Promise<Row[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'platform-bench-stops-'));
  const ports = await networkPorts(3);
  let stopping = false;
  let stopStarted = 0;
  const onLine = (node: string, name: string, line: string) => {
    // the block services' warnings while calls go on after a stop
    if (stopping && name === 'block' && /"level":(40|50|60)/.test(line)) {
      const record = JSON.parse(line) as { msg?: string; err?: { message?: string } };
      console.log(`     ${((performance.now() - stopStarted) / 1000).toFixed(1)} s ${node}: ${record.msg}${record.err?.message ? ` (${record.err.message})` : ''}`);
    }
  };
  const net = await startNetwork({ size: 3, env: benchEnv(dataDir), ports: (i) => ports.get(i)!, onLine, readyTimeoutMs: 240_000 });
  const slowest: number[] = [];
  try {
    const client = async (i: number): Promise<Client> => {
      const node = net.running.get(i)!;
      return { node, token: await devToken(node, `bench-stops-${i}`) };
    };
    const clients = await Promise.all([1, 2, 3].map(client));
    for (const c of clients) await post(c, '/platform/v2.3/key');
    const [created] = await post(clients[0]!, '/platform/v2.3/transaction?resolve=true', { txs: [{ type: 'CONTRACT', payload: { contract: 'Counter', src: COUNTER, args: {}, metadata: { VM: 'SolidVM' } } }] });
    const counter: string = created.data.contents.address;
    for (let stop = 1; stop <= STOPS; stop++) {
      const { proposer, leader } = await roles(clients);
      const others = [1, 2, 3].filter((i) => i !== proposer);
      const victim = others[stop % others.length]!;
      const callers = clients.filter((_, i) => i + 1 !== victim);
      console.log(`   [stop ${stop}: node${victim} (proposer node${proposer}, blocks leader node${leader})]`);
      stopStarted = performance.now();
      stopping = true;
      await net.stopNode(victim);
      const stopped = performance.now();
      const each = await Promise.all(callers.map((c) => callsUntil(c, counter, stopped + AFTER_STOP_MS)));
      stopping = false;
      const names = [1, 2, 3].filter((i) => i !== victim);
      console.log(`   [stop ${stop}: ${each.map((e, i) => `node${names[i]} ${e.calls} calls, the slowest ${Math.round(e.slowest)} ms`).join('; ')}]`);
      slowest.push(Math.max(...each.map((e) => e.slowest)));
      await net.startNode(victim);
      clients[victim - 1] = await client(victim);
      await new Promise((r) => setTimeout(r, SETTLE_MS));
    }
  } finally {
    await net.stop();
    for (let i = 1; i <= 3; i++) removeDataDir(join(dataDir, `node${i}`));
    removeDataDir(dataDir);
  }
  const sorted = [...slowest].sort((a, b) => a - b);
  return [
    { name: `a node stopped (${STOPS} stops): the slowest call of the 10 s after, median of the stops`, value: sorted[Math.floor(sorted.length / 2)]!, unit: 'ms' },
    { name: `a node stopped (${STOPS} stops): the slowest call of the 10 s after, worst stop`, value: sorted[sorted.length - 1]!, unit: 'ms' },
    { name: `a node stopped (${STOPS} stops): stops with a call over 1 s`, value: slowest.filter((s) => s > 1_000).length, unit: 'stops' },
  ];
}
