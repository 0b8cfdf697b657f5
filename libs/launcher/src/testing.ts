// Real infrastructure for tests: a NATS server with JetStream and a PostgreSQL
// cluster on free ports in a temporary data dir, stopped and removed at the end.
//
// The NATS server runs the node's own accounts (every service's nkey user
// with its permissions, the network's streams in their account). A test of one service plays the other services' parts
// and connects without credentials, so by default the server also maps an
// unauthenticated connection to a user allowed everything; `openNats: false`
// leaves that user out, as a node's server is.
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBusCredentials, natsAccounts, readBusCredentials, type BusCredentials, type BusUser } from '@platform/bus';
import { DEFAULT_NODE_NAME } from '@platform/common';
import { startNats, type RunningNats } from './nats.js';
import { removeDataDir, startPostgres, type RunningPostgres } from './postgres.js';

export interface TestInfra {
  dataDir: string;
  nats?: RunningNats;
  postgres?: RunningPostgres;
  /** a service's NATS credentials on this server */
  busCredentials(user: BusUser): BusCredentials;
  stop(): Promise<void>;
}

export async function startTestInfra(parts: { nats?: boolean; postgres?: boolean; openNats?: boolean }): Promise<TestInfra> {
  const dataDir = mkdtempSync(join(tmpdir(), 'platform-test-'));
  const credentialsDir = join(dataDir, 'nats-credentials');
  const infra: TestInfra = {
    dataDir,
    busCredentials: (user) => readBusCredentials(credentialsDir, user),
    async stop() {
      await Promise.allSettled([infra.nats?.stop(), infra.postgres?.stop()]);
      removeDataDir(dataDir);
    },
  };
  try {
    if (parts.postgres) infra.postgres = await startPostgres({ dataDir });
    if (parts.nats) {
      const open = parts.openNats === false ? undefined : { user: 'tester', password: randomBytes(16).toString('hex') };
      // a node of one, named as the services' configuration names it by default
      const accounts = natsAccounts({ node: DEFAULT_NODE_NAME, users: ensureBusCredentials(credentialsDir), ...(open ? { open } : {}) });
      infra.nats = await startNats({ dataDir, node: DEFAULT_NODE_NAME, accounts });
    }
  } catch (err) {
    await infra.stop();
    throw err;
  }
  return infra;
}
