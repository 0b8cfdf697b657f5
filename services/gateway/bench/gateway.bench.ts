// The gateway's request path on a whole node as `npm start` runs it: an
// authenticated GET of a user's key (token check, NATS round trip to the
// vault) and /health as the HTTP floor, under 32 concurrent connections.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { freePort, startNode } from '@platform/launcher';

interface Row {
  name: string;
  value: number;
  unit: string;
}

async function load(url: string, headers: Record<string, string>, seconds = 5): Promise<{ rps: number; p50: number; p99: number; errors: number }> {
  const result = await autocannon({ url, headers, connections: 32, duration: seconds });
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, errors: result.errors + result.non2xx };
}

export async function run(): Promise<Row[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'platform-bench-'));
  const env: Record<string, string | undefined> = { ...process.env, PORT: String(await freePort()), VAULT_PORT: String(await freePort()), IDP_PORT: String(await freePort()), DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
  for (const name of ['NATS_URL', 'DATABASE_URL', 'OAUTH_DISCOVERY_URL']) delete env[name];
  const node = await startNode({ env, onLine: () => {} });
  try {
    const discovery = (await (await fetch(node.discoveryUrl)).json()) as { token_endpoint: string };
    const form = new URLSearchParams({ grant_type: 'password', client_id: 'platform-cli', username: 'bench', password: 'x' });
    const { access_token: token } = (await (await fetch(discovery.token_endpoint, { method: 'POST', body: form })).json()) as { access_token: string };
    const auth = { authorization: `Bearer ${token}` };
    await fetch(`${node.gatewayUrl}/platform/v2.3/key`, { method: 'POST', headers: auth });
    const health = await load(`${node.gatewayUrl}/health`, {});
    const key = await load(`${node.gatewayUrl}/platform/v2.3/key`, auth);
    return [
      { name: 'GET /health', value: health.rps, unit: 'req/s' },
      { name: 'GET /platform/v2.3/key (token + vault over NATS)', value: key.rps, unit: 'req/s' },
      { name: 'GET /platform/v2.3/key p50 latency', value: key.p50, unit: 'ms' },
      { name: 'GET /platform/v2.3/key p99 latency', value: key.p99, unit: 'ms' },
      { name: 'GET /platform/v2.3/key errors', value: key.errors, unit: 'responses' },
    ];
  } finally {
    await node.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
