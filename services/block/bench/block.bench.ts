// The block service against a real NATS: SolidVM function calls admitted on
// tx.admitted.main until their results are on exec.main, published in batches
// of 100 by several accounts at once (the transaction service's shape), and
// the latency of a lone call on an idle chain; then the whole chain executed
// again from the blocks stream on an empty store (a catch-up, a rebuild).
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { cpus } from 'node:os';
import { jetstream } from '@nats-io/jetstream';
import { createLogger, loadConfig, type ExecResult, type Transaction } from '@platform/common';
import { STREAMS, connectBus, encodeJson, ensureStream, streamManager } from '@platform/bus';
import { contractAddress } from '@platform/crypto';
import { startTestInfra } from '@platform/launcher';
import { chainStoreDirs, startBlockService } from '../src/index.js';
import { Account, COUNTER, writeGenesis } from '../test/helpers.js';

/**
 * BLOCK_BENCH_PROFILE_DIR: a CPU profile of the re-execution phase is written
 * there (`replay.cpuprofile`, for Chrome's DevTools or `speedscope`).
 */
async function startProfile(): Promise<{ stop(name: string): Promise<void> }> {
  const dir = process.env.BLOCK_BENCH_PROFILE_DIR;
  if (!dir) return { stop: async () => {} };
  const session = new Session();
  session.connect();
  const post = (method: string, params?: object) => new Promise<any>((resolve, reject) => session.post(method, params, (err, result) => (err ? reject(err) : resolve(result))));
  await post('Profiler.enable');
  await post('Profiler.setSamplingInterval', { interval: 200 });
  await post('Profiler.start');
  return {
    async stop(name) {
      const { profile } = await post('Profiler.stop');
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, `${name}.cpuprofile`), JSON.stringify(profile));
      session.disconnect();
    },
  };
}

const CLIENTS = 4;
const BATCH = 100;
const CALLS = 6_000;
const LONE = 50;

export async function run(): Promise<Array<{ name: string; value: number; unit: string }>> {
  const infra = await startTestInfra({ nats: true });
  const nc = await connectBus({ url: infra.nats!.url, name: 'block-bench' });
  try {
    const jsm = await streamManager(nc);
    for (const spec of [STREAMS.tx, STREAMS.blocks, STREAMS.exec]) await ensureStream(jsm, spec);
    const js = jetstream(nc);
    const dataDir = join(infra.dataDir, 'node');
    writeGenesis(dataDir);
    const service = await startBlockService({
      config: loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }),
      logger: createLogger('block', 'silent'),
      natsUrl: infra.nats!.url,
      dataDir,
    });
    // every receipt seen on exec.main, by transaction hash → when it arrived
    const seen = new Map<string, number>();
    let blocks = 0;
    const waiters = new Set<() => void>();
    const execs = await (await js.consumers.get(STREAMS.exec.name, { filter_subjects: 'exec.main' })).consume();
    void (async () => {
      for await (const m of execs) {
        const now = performance.now();
        const e = m.json<ExecResult>();
        blocks++;
        for (const r of e.receipts) seen.set(r.transactionHash, now);
        for (const w of waiters) w();
      }
    })();
    const until = async (hashes: string[]) => {
      while (!hashes.every((h) => seen.has(h))) await new Promise<void>((r) => waiters.add(r)).finally(() => waiters.clear());
    };
    const publish = (tx: Transaction) => js.publish('tx.admitted.main', encodeJson(tx), { msgID: tx.hash });

    const clients = Array.from({ length: CLIENTS }, () => new Account());
    const creations = clients.map((c) => c.create(COUNTER, 'Counter', { start: 0 }));
    await Promise.all(creations.map(publish));
    await until(creations.map((t) => t.hash));
    const addresses = clients.map((c) => contractAddress(c.address, 0n));

    // batched calls: each client publishes its batches one after the other, the clients at once
    const perClient = CALLS / CLIENTS;
    const txs = clients.map((c, i) => Array.from({ length: perClient }, () => c.call(addresses[i], 'add', { n: 1 })));
    const blocksBefore = blocks;
    const started = performance.now();
    await Promise.all(
      txs.map(async (mine) => {
        for (let b = 0; b < mine.length; b += BATCH) await Promise.all(mine.slice(b, b + BATCH).map(publish));
      }),
    );
    await until(txs.flat().map((t) => t.hash));
    const batchedRate = (CALLS * 1000) / (performance.now() - started);
    const blockCount = blocks - blocksBefore;

    // a lone call on an idle chain: admitted → result published
    const latencies: number[] = [];
    for (let i = 0; i < LONE; i++) {
      await new Promise((r) => setTimeout(r, 20));
      const tx = clients[0].call(addresses[0], 'add', { n: 1 });
      const t0 = performance.now();
      await publish(tx);
      await until([tx.hash]);
      latencies.push(seen.get(tx.hash)! - t0);
    }
    latencies.sort((a, b) => a - b);
    execs.stop();
    const head = service.head();
    await service.stop();

    // re-execution, as a node catching up or rebuilt runs it: the same chain applied again from the blocks stream by a service on an empty store
    for (const dir of chainStoreDirs(dataDir)) rmSync(dir, { recursive: true, force: true });
    const profile = await startProfile();
    const replayStarted = performance.now();
    const again = await startBlockService({ config: loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }), logger: createLogger('block', 'silent'), natsUrl: infra.nats!.url, dataDir });
    while (again.head().header.number < head.header.number) await new Promise((r) => setTimeout(r, 5));
    const replaySeconds = (performance.now() - replayStarted) / 1000;
    await profile.stop('replay');
    if (again.head().hash !== head.hash) throw new Error('the chain executed again is not the same chain');
    await again.stop();
    const replayedTxs = CALLS + LONE + CLIENTS;
    return [
      { name: `SolidVM calls, ${CLIENTS} clients × batches of ${BATCH} (${cpus().length} cores)`, value: batchedRate, unit: 'tx/s' },
      { name: 'transactions per block in that run', value: CALLS / Math.max(1, blockCount), unit: 'tx/block' },
      { name: 'lone call on an idle chain, p50', value: latencies[Math.floor(LONE / 2)], unit: 'ms' },
      { name: 'lone call on an idle chain, p99', value: latencies[Math.floor(LONE * 0.99)], unit: 'ms' },
      { name: 'block service peak RSS (in-process with the driver)', value: process.resourceUsage().maxRSS / 1024, unit: 'MiB' },
      { name: `the same ${head.header.number} blocks executed again from the stream (catch-up, rebuild), start included`, value: head.header.number / replaySeconds, unit: 'blocks/s' },
      { name: 'the same, transactions', value: replayedTxs / replaySeconds, unit: 'tx/s' },
    ];
  } finally {
    await nc.close();
    await infra.stop();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const row of await run()) console.log(`${row.name}: ${row.value.toFixed(1)} ${row.unit}`);
}
