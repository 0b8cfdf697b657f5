// vault.sign over NATS against real infrastructure (embedded NATS and
// PostgreSQL): requests per second one at a time (the latency bound) and with
// 32 in flight (what the transaction service's concurrency can get).
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { createLogger, loadConfig } from '@platform/common';
import { VAULT, call, connectBus } from '@platform/bus';
import { startTestInfra } from '@platform/launcher';
import { startVault } from '../src/index.js';

const SECONDS = 2;

/** Runs `op` with `concurrency` requests in flight for about SECONDS; requests per second. */
async function rate(concurrency: number, op: (i: number) => Promise<unknown>): Promise<number> {
  let done = 0;
  const until = performance.now() + SECONDS * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) await op(done++);
    }),
  );
  return Math.round((done * 1000) / (performance.now() - started));
}

export async function run(): Promise<Record<string, number>> {
  const infra = await startTestInfra({ nats: true, postgres: true });
  try {
    const config = loadConfig({ DATA_DIR: join(infra.dataDir, 'node'), VAULT_PORT: '0', LOG_LEVEL: 'silent' });
    const vault = await startVault({
      config,
      logger: createLogger('vault', 'silent'),
      natsUrl: infra.nats!.url,
      databaseUrl: await infra.postgres!.createDatabase('vault_bench'),
    });
    const nc = await connectBus({ url: infra.nats!.url, name: 'vault-bench' });
    try {
      await call(nc, VAULT.keyCreate, { username: 'bench' });
      const sign = (i: number) => call(nc, VAULT.sign, { username: 'bench', msgHash: i.toString(16).padStart(64, '0') });
      await rate(8, sign); // warm up: JIT, connections, the key cache
      return {
        'vault.sign over NATS, sequential (req/s)': await rate(1, sign),
        'vault.sign over NATS, 32 concurrent (req/s)': await rate(32, sign),
      };
    } finally {
      await nc.close();
      await vault.stop();
    }
  } finally {
    await infra.stop();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const [name, value] of Object.entries(await run())) console.log(`${name}: ${value}`);
}
