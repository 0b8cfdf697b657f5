// A whole node for end-to-end tests, as `npm start` runs it, isolated: free
// ports, a temporary data dir, and none of the caller's NATS_URL,
// DATABASE_URL or OAUTH_DISCOVERY_URL unless the test passes them.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, removeDataDir, startNetwork, startNode, type NodePorts, type RunningNetwork, type RunningNode } from '@platform/launcher';
import { startRouteRecorder, type RouteRecorder } from './route-recorder.js';

export interface TestNode extends RunningNode {
  /** every log line of every process, `name | line` */
  logs: string[];
  /**
   * stops the node and removes its data dir; then fails if the NATS server
   * refused any service a subject (the permission table missed a grant),
   * unless the test provoked refusals itself
   */
  destroy(options?: { busViolationsExpected?: boolean }): Promise<void>;
}

/** The log lines where NATS refused a subject to a connection. */
export function busViolations(logs: string[]): string[] {
  return logs.filter((line) => /Permissions? Violation|Publish Violation|Subscription Violation/i.test(line));
}

/** the caller's environment without what would point a test's node at the caller's own services */
export function isolatedEnv(): Record<string, string | undefined> {
  const base: Record<string, string | undefined> = { ...process.env };
  for (const name of ['NATS_URL', 'DATABASE_URL', 'CIRRUS_READ_DATABASE_URL', 'CIRRUS_READ_ROLE', 'OAUTH_DISCOVERY_URL', 'VAULT_PASSWORD', 'HOST', 'NODE_NAME', 'NODE_ORG', 'NETWORK_REPLICAS']) delete base[name];
  return base;
}

export interface TestNetwork extends RunningNetwork {
  /** every log line of every process of every node, `node/name | line` */
  logs: string[];
  /** with `recordRoutes`: every route connection of the cluster, and the markers seen on it */
  routes: RouteRecorder | null;
  /** stops every node and removes the data; fails as TestNode.destroy does on refused subjects */
  destroy(): Promise<void>;
}

/**
 * A network of `size` nodes on loopback, as `npm start -- --nodes <size>`
 * runs it, on free ports in a temporary data dir. `recordRoutes`: every
 * route goes through a proxy that searches it for these markers (label →
 * bytes).
 */
export async function startTestNetwork(size: number, env: Record<string, string> = {}, options: { recordRoutes?: ReadonlyMap<string, Buffer> } = {}): Promise<TestNetwork> {
  const dataDir = mkdtempSync(join(tmpdir(), 'platform-net-'));
  const ports = new Map<number, NodePorts>();
  for (let i = 1; i <= size; i++) {
    ports.set(i, { gateway: await freePort(), vault: await freePort(), idp: await freePort(), nats: await freePort(), cluster: await freePort(), files: await freePort(), objectStore: await freePort() });
  }
  const routes = options.recordRoutes ? await startRouteRecorder(new Map([...ports].map(([i, p]) => [i, p.cluster])), options.recordRoutes) : null;
  const logs: string[] = [];
  const network = await startNetwork({
    size,
    env: { ...isolatedEnv(), DATA_DIR: dataDir, LOG_LEVEL: 'info', ...env },
    ports: (index) => ports.get(index)!,
    ...(routes ? { routeAddress: (index: number) => routes.address(index) } : {}),
    onLine: (node, name, line) => logs.push(`${node}/${name} | ${line}`),
    readyTimeoutMs: 180_000,
  });
  return Object.assign(network, {
    logs,
    routes,
    async destroy() {
      await network.stop();
      await routes?.stop();
      for (const node of network.nodes) removeDataDir(node.dataDir);
      removeDataDir(dataDir);
      const violations = busViolations(logs);
      if (violations.length > 0) throw new Error(`the bus refused subjects the network needs:\n${violations.slice(0, 10).join('\n')}`);
    },
  });
}

export async function startTestNode(env: Record<string, string> = {}, dataDir = mkdtempSync(join(tmpdir(), 'platform-e2e-'))): Promise<TestNode> {
  const base = isolatedEnv();
  const [port, vaultPort, idpPort, filesPort, objectStorePort] = [await freePort(), await freePort(), await freePort(), await freePort(), await freePort()];
  const logs: string[] = [];
  const node = await startNode({
    env: { ...base, PORT: String(port), VAULT_PORT: String(vaultPort), IDP_PORT: String(idpPort), FILES_PORT: String(filesPort), FILES_S3_PORT: String(objectStorePort), DATA_DIR: dataDir, LOG_LEVEL: 'info', ...env },
    onLine: (name, line) => logs.push(`${name} | ${line}`),
  });
  return {
    ...node,
    logs,
    async destroy(options = {}) {
      await node.stop();
      removeDataDir(dataDir);
      const violations = busViolations(logs);
      if (!options.busViolationsExpected && violations.length > 0) throw new Error(`the bus refused subjects the node needs:\n${violations.slice(0, 10).join('\n')}`);
    },
  };
}

/** `read` polled until `ok` holds (another node, or a restarted process, catches up a little later); thrown with the last value read after `timeoutMs`. */
export async function eventually<T>(read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms; last ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** A token of the development identity provider (password grant: any username). */
export async function devToken(node: RunningNode, username: string, org?: string): Promise<string> {
  const discovery = (await (await fetch(node.discoveryUrl)).json()) as { token_endpoint: string };
  const form = new URLSearchParams({ grant_type: 'password', client_id: 'platform-cli', username, password: 'development' });
  if (org) form.set('organization', org);
  const response = await fetch(discovery.token_endpoint, { method: 'POST', body: form });
  const body = (await response.json()) as { access_token?: string };
  if (!response.ok || !body.access_token) throw new Error(`token request failed: ${response.status} ${JSON.stringify(body)}`);
  return body.access_token;
}

export async function api(node: RunningNode, method: string, path: string, token?: string, body?: unknown): Promise<{ status: number; headers: Headers; body: any }> {
  return request(node.gatewayUrl, method, path, token ? `Bearer ${token}` : undefined, body);
}

/** A JSON request to any base URL (the gateway, the vault) with a raw Authorization value; the body of the answer parsed when it is JSON. */
export async function request(base: string, method: string, path: string, authorization?: string, body?: unknown): Promise<{ status: number; headers: Headers; body: any }> {
  const headers: Record<string, string> = {};
  if (authorization !== undefined) headers.authorization = authorization;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, headers: response.headers, body: parsed };
}
