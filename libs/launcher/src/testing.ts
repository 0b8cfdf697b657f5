// Real infrastructure for tests: a NATS server with JetStream and a PostgreSQL
// cluster on free ports in a temporary data dir, stopped and removed at the end.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startNats, type RunningNats } from './nats.js';
import { startPostgres, type RunningPostgres } from './postgres.js';

export interface TestInfra {
  dataDir: string;
  nats?: RunningNats;
  postgres?: RunningPostgres;
  stop(): Promise<void>;
}

export async function startTestInfra(parts: { nats?: boolean; postgres?: boolean }): Promise<TestInfra> {
  const dataDir = mkdtempSync(join(tmpdir(), 'platform-test-'));
  const infra: TestInfra = {
    dataDir,
    async stop() {
      await Promise.allSettled([infra.nats?.stop(), infra.postgres?.stop()]);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  try {
    if (parts.postgres) infra.postgres = await startPostgres({ dataDir });
    if (parts.nats) infra.nats = await startNats({ dataDir });
  } catch (err) {
    await infra.stop();
    throw err;
  }
  return infra;
}
