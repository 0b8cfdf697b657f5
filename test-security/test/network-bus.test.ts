// The bus of a network (docs/network.md): three nodes' NATS servers in one
// cluster, each node's services in its own account. A server without the
// route password stays out; one node's credentials reach nothing of another
// node's; the network's streams are shared by all.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nkeyAuthenticator } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import { STREAMS, SUBJECTS, busJetStream, connectBus, encodeJson, ensureBusCredentials, natsAccounts, readBusCredentials, type BusUser, type NatsConnection } from '@platform/bus';
import { freePort, removeDataDir, startNats, type RunningNats } from '@platform/launcher';

const NODES = ['node1', 'node2', 'node3'] as const;
type Node = (typeof NODES)[number];
const ROUTE = { user: 'route', password: 'the-network-route-secret' };

const root = mkdtempSync(join(tmpdir(), 'platform-netbus-'));
const servers = new Map<string, RunningNats>();
const logs = new Map<string, string[]>();
const clusterPorts = new Map<string, number>();
const connections: NatsConnection[] = [];

const credentialsDir = (node: string) => join(root, node, 'nats-credentials');

async function startServer(node: string, routeTo: string[], password = ROUTE.password): Promise<RunningNats> {
  const lines: string[] = [];
  logs.set(node, lines);
  const server = await startNats({
    dataDir: join(root, node),
    node,
    accounts: natsAccounts({ node, users: ensureBusCredentials(credentialsDir(node)), otherNodes: [...NODES] }),
    cluster: { name: 'platform', port: clusterPorts.get(node)!, user: ROUTE.user, password, routes: routeTo.map((n) => `127.0.0.1:${clusterPorts.get(n)}`) },
    onLog: (line) => lines.push(line),
  });
  servers.set(node, server);
  return server;
}

async function as(node: Node, user: BusUser): Promise<NatsConnection> {
  const nc = await connectBus({ url: servers.get(node)!.url, name: `${node}-${user}`, credentials: readBusCredentials(credentialsDir(node), user) });
  connections.push(nc);
  return nc;
}

beforeAll(async () => {
  for (const node of [...NODES, 'rogue']) clusterPorts.set(node, await freePort());
  await Promise.all(NODES.map((node) => startServer(node, NODES.filter((n) => n !== node))));
  // the network's streams need the cluster's meta leader: retried while the servers elect it
  const block = await as('node1', 'block');
  const bus = await busJetStream(block, { node: 'node1', replicas: 3 });
  for (let attempt = 0; ; attempt++) {
    try {
      await bus.ensure(STREAMS.tx);
      break;
    } catch (err) {
      if (attempt > 60) throw err;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}, 90_000);

afterAll(async () => {
  for (const nc of connections) await nc.close().catch(() => {});
  for (const server of [...servers.values()].reverse()) await server.stop();
  for (const node of [...NODES, 'rogue']) removeDataDir(join(root, node));
  removeDataDir(root);
}, 60_000);

test('a server without the route password is refused by the cluster', async () => {
  await startServer('rogue', ['node1'], 'not-the-password');
  const deadline = Date.now() + 10_000;
  const refused = () => logs.get('node1')!.some((line) => /authentication error|authorization violation/i.test(line));
  while (!refused() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
  expect(refused()).toBe(true);
  // the rogue's route is closed as soon as it tries to authenticate: every connection it made was refused
  // (the rogue logs the refusal once node1's answer reaches it: a moment after node1 logs it)
  const rogue = () => ({
    routes: logs.get('rogue')!.filter((line) => /Route connection created/.test(line)).length,
    refusals: logs.get('rogue')!.filter((line) => /Route Error 'Authorization Violation'/.test(line)).length,
  });
  let seen = rogue();
  while (seen.refusals < seen.routes && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    seen = rogue();
  }
  expect(seen.routes).toBeGreaterThan(0);
  expect(seen.refusals).toBeGreaterThanOrEqual(seen.routes);
  expect(logs.get('node1')!.some((line) => /Router connection closed: Authentication Failure/.test(line))).toBe(true);
});

test("node3's credentials reach nothing of node1's: its vault, its results, its server", async () => {
  const vault1 = await as('node1', 'vault');
  vault1.subscribe(SUBJECTS.vault.sign, { callback: (_err, msg) => void msg.respond('signed by node1') });
  await vault1.flush();
  // the control: node1's own transaction service is answered
  const tx1 = await as('node1', 'transaction');
  expect((await tx1.request(SUBJECTS.vault.sign, 'hash', { timeout: 2_000 })).string()).toBe('signed by node1');
  // node3's transaction service, on its own server, asks the same subject: nobody in its account answers
  const tx3 = await as('node3', 'transaction');
  await expect(tx3.request(SUBJECTS.vault.sign, 'hash', { timeout: 2_000 })).rejects.toThrow(/no responders|timeout/i);
  // node1's execution results are in node1's account: node3's consumers of EXEC find their own stream, not node1's
  const block1 = await as('node1', 'block');
  const bus1 = await busJetStream(block1, { node: 'node1', replicas: 3 });
  await bus1.ensure(STREAMS.exec);
  await bus1.node.js.publish(SUBJECTS.exec.results(''), encodeJson({ secret: 'node1 only' }), { msgID: 'secret-1' });
  const cirrus3 = await as('node3', 'cirrus');
  const bus3 = await busJetStream(cirrus3, { node: 'node3', replicas: 3 });
  await expect(bus3.node.jsm.streams.info(STREAMS.exec.name)).rejects.toThrow(/not found/i);
  // node3's credentials on node1's server: not a user there
  const seed = new TextEncoder().encode(readBusCredentials(credentialsDir('node3'), 'transaction').seed);
  await expect(connect({ servers: servers.get('node1')!.url, reconnect: false, authenticator: nkeyAuthenticator(seed) })).rejects.toThrow(/Authorization Violation/i);
});

test('the network streams are shared: what node1 appends, node3 reads', async () => {
  const tx1 = await as('node1', 'transaction');
  const bus1 = await busJetStream(tx1, { node: 'node1', replicas: 3 });
  const ack = await bus1.network.js.publish(SUBJECTS.tx.admitted(''), encodeJson({ hash: 'shared' }), { msgID: 'shared-1' });
  // node3's block service reads it as it reads admitted transactions: with a consumer of the network's stream
  const block3 = await as('node3', 'block');
  const bus3 = await busJetStream(block3, { node: 'node3', replicas: 3 });
  const consumer = await bus3.network.js.consumers.get(STREAMS.tx.name, { opt_start_seq: ack.seq });
  const stored = await consumer.next({ expires: 5_000 });
  expect(stored?.json()).toEqual({ hash: 'shared' });
  const info = await bus3.network.jsm.streams.info(STREAMS.tx.name);
  expect(info.config.num_replicas).toBe(3);
  expect([info.cluster?.leader, ...(info.cluster?.replicas ?? []).map((r) => r.name)].sort()).toEqual([...NODES]);
});

// last: it stops a server
test("a chain's blocks are read by sequence from any server holding the stream, with its leader stopped", async () => {
  // a node whose block consumer went down with a stopped server fetches the blocks it misses so (services/block, worker.ts)
  const block1 = await as('node1', 'block');
  const bus1 = await busJetStream(block1, { node: 'node1', replicas: 3 });
  await bus1.ensure(STREAMS.blocks);
  const main = SUBJECTS.block.ordered('');
  const other = SUBJECTS.block.ordered('a'.repeat(64));
  const appended: number[] = [];
  for (let height = 1; height <= 3; height++) {
    appended.push((await bus1.network.js.publish(main, encodeJson({ height }), { msgID: `main-${height}` })).seq);
    await bus1.network.js.publish(other, encodeJson({ height }), { msgID: `other-${height}` });
  }
  const info = await bus1.network.jsm.streams.info(STREAMS.blocks.name);
  expect(info.config.allow_direct).toBe(true);
  const leader = info.cluster!.leader! as Node;
  const reader = NODES.find((n) => n !== leader)!;
  await servers.get(leader)!.stop();
  const bus = await busJetStream(await as(reader, 'block'), { node: reader, replicas: 3 });
  const started = Date.now();
  const read: Array<{ seq: number; height: number }> = [];
  for (let next = appended[0]!; ; ) {
    const m = await bus.network.jsm.direct.getMessage(STREAMS.blocks.name, { seq: next, next_by_subj: main });
    if (!m) break;
    read.push({ seq: m.seq, height: m.json<{ height: number }>().height });
    next = m.seq + 1;
  }
  // the chain's own blocks, in order, none of the other chain's; answered by the servers left, without waiting for a new leader
  expect(read).toEqual(appended.map((seq, i) => ({ seq, height: i + 1 })));
  expect(Date.now() - started).toBeLessThan(2_000);
}, 60_000);
