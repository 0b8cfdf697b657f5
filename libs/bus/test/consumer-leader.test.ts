// A pull consumer of a network stream whose leader's server stops, on three
// real NATS servers in a cluster (as a network's nodes run them). The pull
// waiting at the old leader is lost; renewPullOnNewLeader sends another as
// soon as the new leader is announced, where nats.js alone waits for two
// missed heartbeats (NETWORK_PULL_EXPIRES_MS: 5 to 7.5 s).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AckPolicy, type JsMsg } from '@nats-io/jetstream';
import { freePort, removeDataDir, startNats, type RunningNats } from '@platform/launcher';
import { NETWORK_PULL_EXPIRES_MS, STREAMS, SUBJECTS, busJetStream, connectBus, encodeJson, ensureBusCredentials, natsAccounts, readBusCredentials, renewPullOnNewLeader, type BusUser, type NatsConnection } from '../src/index.js';

const NODES = ['node1', 'node2', 'node3'] as const;
const ROUTE = { user: 'route', password: 'the-network-route-secret' };
const root = mkdtempSync(join(tmpdir(), 'platform-consumer-leader-'));
const servers = new Map<string, RunningNats>();
const clusterPorts = new Map<string, number>();
const connections: NatsConnection[] = [];
const credentialsDir = (node: string) => join(root, node, 'nats-credentials');

async function startServer(node: string): Promise<void> {
  servers.set(
    node,
    await startNats({
      dataDir: join(root, node),
      node,
      accounts: natsAccounts({ node, users: ensureBusCredentials(credentialsDir(node)), otherNodes: [...NODES] }),
      cluster: { name: 'platform', port: clusterPorts.get(node)!, user: ROUTE.user, password: ROUTE.password, routes: NODES.filter((n) => n !== node).map((n) => `127.0.0.1:${clusterPorts.get(n)}`) },
    }),
  );
}

async function as(node: string, user: BusUser): Promise<NatsConnection> {
  const nc = await connectBus({ url: servers.get(node)!.url, name: `${node}-${user}`, credentials: readBusCredentials(credentialsDir(node), user) });
  connections.push(nc);
  return nc;
}

async function retried<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await work();
    } catch (err) {
      if (attempt > 60) throw err;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

beforeAll(async () => {
  for (const node of NODES) clusterPorts.set(node, await freePort());
  await Promise.all(NODES.map(startServer));
}, 90_000);

afterAll(async () => {
  for (const nc of connections) await nc.close().catch(() => {});
  for (const server of [...servers.values()].reverse()) await server.stop();
  for (const node of NODES) removeDataDir(join(root, node));
  removeDataDir(root);
}, 60_000);

test("a pull lost with its consumer's leader is renewed when the new leader is announced, not two heartbeats later", async () => {
  const setup = await busJetStream(await as('node1', 'block'), { node: 'node1', replicas: 3 });
  // the network's streams need the cluster's meta leader: retried while the servers elect it
  await retried(() => setup.ensure(STREAMS.tx));
  const durable = 'block-main-node1';
  await retried(() => setup.network.jsm.consumers.add(STREAMS.tx.name, { durable_name: durable, ack_policy: AckPolicy.Explicit, filter_subject: SUBJECTS.tx.admitted(''), num_replicas: 3 }));
  const leader = (await retried(async () => {
    const info = await setup.network.jsm.consumers.info(STREAMS.tx.name, durable);
    if (!info.cluster?.leader) throw new Error('no leader yet');
    return info;
  })).cluster!.leader!;
  // the consumer's client on a server that stays, the publisher on the third
  const [consumerNode, publisherNode] = NODES.filter((n) => n !== leader);
  const nc = await as(consumerNode!, 'block');
  const bus = await busJetStream(nc, { node: consumerNode!, replicas: 3 });
  const publisher = await busJetStream(await as(publisherNode!, 'transaction'), { node: publisherNode!, replicas: 3 });
  const messages = await (await bus.network.js.consumers.get(STREAMS.tx.name, durable)).consume({ expires: NETWORK_PULL_EXPIRES_MS });
  let renewals = 0;
  const renewal = renewPullOnNewLeader(nc, STREAMS.tx.name, durable, messages, () => renewals++);
  const delivered: Array<{ data: string; at: number }> = [];
  void (async () => {
    for await (const m of messages as AsyncIterable<JsMsg>) {
      delivered.push({ data: m.string(), at: performance.now() });
      m.ack();
    }
  })();
  const deliveredAt = async (data: string, withinMs: number): Promise<number> => {
    const until = performance.now() + withinMs;
    while (performance.now() < until) {
      const found = delivered.find((d) => d.data === data);
      if (found) return found.at;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(`${data} was not delivered within ${withinMs} ms`);
  };
  await publisher.network.js.publish(SUBJECTS.tx.admitted(''), encodeJson('before'), { msgID: 'before' });
  await deliveredAt(JSON.stringify('before'), 5_000);
  // the pull now waits at the leader; its server stops
  await servers.get(leader)!.stop();
  const stopped = performance.now();
  // the stream elects a leader among the two left before it takes the next append
  await retried(() => publisher.network.js.publish(SUBJECTS.tx.admitted(''), encodeJson('after'), { msgID: 'after' }));
  const after = (await deliveredAt(JSON.stringify('after'), 15_000)) - stopped;
  renewal.unsubscribe();
  messages.stop();
  expect(renewals).toBeGreaterThanOrEqual(1);
  // two missed heartbeats alone take NETWORK_PULL_EXPIRES_MS at least
  expect(after).toBeLessThan(NETWORK_PULL_EXPIRES_MS / 2);
}, 120_000);
