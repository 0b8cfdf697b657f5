// Test fixtures of the vault: real NATS and PostgreSQL, a minimal OpenID
// issuer (discovery + JWKS, ES256, built from jose and node:http only), and a
// log destination that keeps every line for inspection.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { SignJWT, exportJWK, generateKeyPair, type JWTPayload } from 'jose';
import { createLogger, loadConfig, type Logger, type NodeConfig } from '@platform/common';
import { startTestInfra, type TestInfra } from '@platform/launcher';
import { startVault, type RunningVault } from '../src/index.js';

export interface Issuer {
  discoveryUrl: string;
  token(claims: JWTPayload, options?: { expiresIn?: string | number }): Promise<string>;
  stop(): Promise<void>;
}

export async function startIssuer(): Promise<Issuer> {
  const { publicKey, privateKey } = await generateKeyPair('ES256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'vault-test', alg: 'ES256', use: 'sig' };
  let issuer = '';
  const server = createServer((req, res) => {
    const body =
      req.url === '/.well-known/openid-configuration' ? { issuer, jwks_uri: `${issuer}/jwks` } : req.url === '/jwks' ? { keys: [jwk] } : null;
    res.writeHead(body ? 200 : 404, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body ?? {}));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    discoveryUrl: `${issuer}/.well-known/openid-configuration`,
    token: (claims, options = {}) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: 'ES256', kid: 'vault-test' })
        .setIssuer(issuer)
        .setIssuedAt()
        .setExpirationTime(options.expiresIn ?? '1h')
        .sign(privateKey),
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

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
