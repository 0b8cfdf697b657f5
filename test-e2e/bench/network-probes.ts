// What the benches of a 3-node network on loopback share (network.bench.ts,
// stops.bench.ts): each node's ports, the nodes' environment, a client of a
// node's REST interface, who proposes and who leads the blocks stream, and
// the counter their calls bump.
import { freePort, type NodePorts, type RunningNode } from '@platform/launcher';
import { isolatedEnv } from '../test/harness.js';

export const COUNTER = 'contract Counter { uint public n; function bump(uint by) public returns (uint) { n += by; return n; } }';

/** one call of the counter's bump(1), on SolidVM */
export const bump = (counter: string) => ({ type: 'FUNCTION', payload: { contractAddress: counter, method: 'bump', args: { by: 1 }, metadata: { VM: 'SolidVM' } } });

/** A user of one node: its gateway and a bearer token. */
export interface Client {
  node: RunningNode;
  token: string;
}

export function benchEnv(dataDir: string): Record<string, string | undefined> {
  // the clients go far past the default limit of 2000 nonces per account
  const env: Record<string, string | undefined> = { ...isolatedEnv(), DATA_DIR: dataDir, LOG_LEVEL: 'warn', ACCOUNT_NONCE_LIMIT: '1000000000' };
  delete env.NODE_OPTIONS;
  return env;
}

/** Free ports for the nodes 1 to `size`. */
export async function networkPorts(size: number): Promise<Map<number, NodePorts>> {
  const ports = new Map<number, NodePorts>();
  for (let i = 1; i <= size; i++) {
    ports.set(i, { gateway: await freePort(), vault: await freePort(), idp: await freePort(), nats: await freePort(), cluster: await freePort(), files: await freePort(), objectStore: await freePort() });
  }
  return ports;
}

export async function post(client: Client, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${client.node.gatewayUrl}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${client.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const parsed = await response.json().catch(() => null);
  if (response.status !== 200) throw new Error(`POST ${path}: ${response.status} ${JSON.stringify(parsed).slice(0, 300)}`);
  return parsed;
}

export async function metadata(client: Client): Promise<{ orderingLeader: string | null; chains: Array<{ chainId: string; height: number; proposer: boolean }> }> {
  const response = await fetch(`${client.node.gatewayUrl}/platform-api/eth/v1.2/metadata`, { headers: { authorization: `Bearer ${client.token}` } });
  return (await response.json()) as never;
}

/** Which node (1–3) holds the main chain's proposer lease, and whose NATS server leads the blocks stream: 0 when none says so. */
export async function roles(clients: readonly Client[]): Promise<{ proposer: number; leader: number }> {
  const views = await Promise.all(clients.map((c) => metadata(c)));
  const proposer = views.findIndex((v) => v.chains.find((c) => c.chainId === '')!.proposer) + 1;
  const leader = Number((views[0]!.orderingLeader ?? '').replace('node', '')) || 0;
  return { proposer, leader };
}

/** Calls one after the other until `until` (performance.now()): how many, and the slowest. */
export async function callsUntil(client: Client, counter: string, until: number): Promise<{ calls: number; slowest: number }> {
  let slowest = 0;
  let calls = 0;
  while (performance.now() < until) {
    const sent = performance.now();
    await post(client, '/platform/v2.3/transaction?resolve=true', { txs: [bump(counter)] });
    slowest = Math.max(slowest, performance.now() - sent);
    calls++;
  }
  return { calls, slowest };
}
