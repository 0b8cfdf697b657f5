// Nodes that join a network as they would from other machines (docs/network.md
// "Joining a network"): the network's keys and genesis made once by
// `npm run deploy -- init`, then each node started alone by the launcher with
// NETWORK_GENESIS, NODE_KEYS_DIR and NATS_ROUTES naming the other's route
// port. They form one network: what is made on one is read on the other.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, removeDataDir, startNode, type RunningNode } from '@platform/launcher';
import { initNetwork } from '../../deploy/src/network-init.js';
import { api, busViolations, devToken, isolatedEnv } from './harness.js';

const START_MS = 300_000;
const COUNTER = 'contract Counter { uint public n = 5; function bump(uint by) public returns (uint) { n += by; return n; } }';

let root: string;
const nodes: RunningNode[] = [];
const logs: string[] = [];

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'platform-join-'));
  const keys = join(root, 'keys');
  initNetwork([{ name: 'node1', organization: 'Org1' }, { name: 'node2', organization: 'Org2' }], keys);
  const clusterPorts = [await freePort(), await freePort()];
  const envOf = async (i: number) => ({
    ...isolatedEnv(),
    LOG_LEVEL: 'info',
    DATA_DIR: join(root, `data${i + 1}`),
    PORT: String(await freePort()),
    VAULT_PORT: String(await freePort()),
    IDP_PORT: String(await freePort()),
    NODE_NAME: `node${i + 1}`,
    NODE_ORG: `Org${i + 1}`,
    NETWORK_GENESIS: join(keys, 'genesis.json'),
    NODE_KEYS_DIR: join(keys, `node${i + 1}`),
    NATS_CLUSTER_HOST: '127.0.0.1',
    NATS_CLUSTER_PORT: String(clusterPorts[i]),
    NATS_ROUTES: `127.0.0.1:${clusterPorts[1 - i]}`,
  });
  const envs = [await envOf(0), await envOf(1)];
  // together: the network's streams need both servers of two
  const started = await Promise.allSettled(envs.map((env, i) => startNode({ env, onLine: (name, line) => logs.push(`node${i + 1}/${name} | ${line}`), readyTimeoutMs: 180_000 })));
  for (const s of started) if (s.status === 'fulfilled') nodes.push(s.value);
  const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) throw failed.reason;
}, START_MS);

afterAll(async () => {
  for (const node of nodes.reverse()) await node.stop();
  for (const i of [1, 2]) removeDataDir(join(root, `data${i}`));
  rmSync(root, { recursive: true, force: true });
  expect(busViolations(logs)).toEqual([]);
}, START_MS);

test('two nodes started alone from the keys of `deploy init` form one network: a contract made on node1 is read on node2', async () => {
  const [node1, node2] = nodes as [RunningNode, RunningNode];
  expect(logs.some((l) => l.startsWith('node2/launcher | joining the network of node1, node2 as node2'))).toBe(true);
  const token1 = await devToken(node1, 'alice');
  const token2 = await devToken(node2, 'bob');
  expect((await api(node1, 'POST', '/platform/v2.3/key', token1)).status).toBe(200);
  const created = await api(node1, 'POST', '/platform/v2.3/transaction?resolve=true', token1, { txs: [{ type: 'CONTRACT', payload: { contract: 'Counter', src: COUNTER, args: {}, metadata: { VM: 'SolidVM' } } }] });
  expect(created.body[0]).toMatchObject({ status: 'Success' });
  const address = created.body[0].data.contents.address;
  for (let i = 0; ; i++) {
    const rows = await api(node2, 'GET', `/cirrus/search/Counter?address=eq.${address}`, token2);
    if (rows.status === 200 && rows.body.length === 1) {
      expect(rows.body[0]).toMatchObject({ address, n: 5 });
      break;
    }
    if (i > 120) throw new Error(`node2 did not index the contract: ${JSON.stringify(rows.body)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  const [m1, m2] = await Promise.all([api(node1, 'GET', '/platform-api/eth/v1.2/metadata', token1), api(node2, 'GET', '/platform-api/eth/v1.2/metadata', token2)]);
  expect(m1.body.networkID).toBe(m2.body.networkID);
  expect(m2.body.validators.map((v: { node: string; organization: string }) => `${v.node}:${v.organization}`)).toEqual(['node1:Org1', 'node2:Org2']);
  expect((await api(node2, 'GET', '/platform-api/eth/v1.2/peers', token2)).body).toEqual([expect.objectContaining({ node: 'node1', organization: 'Org1', connected: true })]);
});
