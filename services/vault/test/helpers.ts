// Test fixtures of the vault: real NATS and PostgreSQL, and a log destination
// that keeps every line for inspection. Tokens come from the minimal OpenID
// issuer of `@platform/auth/testing`.
import { join } from 'node:path';
import { createLogger, loadConfig, type Logger, type NodeConfig } from '@platform/common';
import { startTestInfra, type TestInfra } from '@platform/launcher';
import { startVault, type RunningVault } from '../src/index.js';

/** A logger whose JSON lines are kept in `lines`. */
export function capturingLogger(level = 'debug'): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  return { logger: createLogger('vault', level, { write: (line: string) => void lines.push(line) }), lines };
}

export interface VaultFixture {
  infra: TestInfra;
  natsUrl: string;
  /** a fresh database of the test server */
  database(name: string): Promise<string>;
  /** config of a vault on port 0 with a data dir of its own, under the infra's dir */
  config(env?: Record<string, string>): NodeConfig;
  start(options: { databaseUrl: string; env?: Record<string, string>; logger?: Logger; dataDir?: string }): Promise<RunningVault>;
  stop(): Promise<void>;
}

export async function vaultFixture(): Promise<VaultFixture> {
  const infra = await startTestInfra({ nats: true, postgres: true });
  const running: RunningVault[] = [];
  const fixture: VaultFixture = {
    infra,
    natsUrl: infra.nats!.url,
    database: (name) => infra.postgres!.createDatabase(name),
    config: (env = {}) => loadConfig({ DATA_DIR: join(infra.dataDir, 'node'), VAULT_PORT: '0', LOG_LEVEL: 'silent', ...env }),
    async start({ databaseUrl, env = {}, logger, dataDir }) {
      const config = fixture.config({ ...(dataDir ? { DATA_DIR: dataDir } : {}), ...env });
      const vault = await startVault({ config, logger: logger ?? createLogger('vault', 'silent'), natsUrl: fixture.natsUrl, databaseUrl });
      running.push(vault);
      return vault;
    },
    async stop() {
      for (const vault of running) await vault.stop();
      await infra.stop();
    },
  };
  return fixture;
}
