// The block service against a real NATS: SolidVM function calls admitted on
// tx.admitted.main until their results are on exec.main, published in batches
// of 100 by several accounts at once (the transaction service's shape), and
// the latency of a lone call on an idle chain.
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { cpus } from 'node:os';
import { jetstream } from '@nats-io/jetstream';
import { createLogger, loadConfig, type ExecResult, type Transaction } from '@platform/common';
import { STREAMS, connectBus, encodeJson, ensureStream, streamManager } from '@platform/bus';
import { contractAddress } from '@platform/crypto';
import { startTestInfra } from '@platform/launcher';
import { startBlockService } from '../src/index.js';
import { Account, COUNTER, writeGenesis } from '../test/helpers.js';

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
    await service.stop();
    return [
      { name: `SolidVM calls, ${CLIENTS} clients × batches of ${BATCH} (${cpus().length} cores)`, value: batchedRate, unit: 'tx/s' },
      { name: 'transactions per block in that run', value: CALLS / Math.max(1, blockCount), unit: 'tx/block' },
      { name: 'lone call on an idle chain, p50', value: latencies[Math.floor(LONE / 2)], unit: 'ms' },
      { name: 'lone call on an idle chain, p99', value: latencies[Math.floor(LONE * 0.99)], unit: 'ms' },
      { name: 'block service peak RSS (in-process with the driver)', value: process.resourceUsage().maxRSS / 1024, unit: 'MiB' },
    ];
  } finally {
    await nc.close();
    await infra.stop();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const row of await run()) console.log(`${row.name}: ${row.value.toFixed(1)} ${row.unit}`);
}
