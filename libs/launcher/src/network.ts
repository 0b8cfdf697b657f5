// A network of nodes on this machine (`npm start -- --nodes 3`): one node per
// organization, each with its own processes, PostgreSQL, NATS server and data
// under `<DATA_DIR>/node<n>`; their NATS servers form one cluster whose
// routes authenticate with a password the network's nodes share; one genesis
// lists every node's CA, faucet and block-signing key (docs/network.md).
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ensureNetworkGenesis } from './genesis.js';
import { NETWORK_CLUSTER_NAME, NETWORK_ROUTE_USER, networkReplicas } from './nats.js';
import { startNode, type RunningNode } from './node.js';
import { removeDataDir } from './postgres.js';

export interface NodePorts {
  gateway: number;
  vault: number;
  idp: number;
  nats: number;
  /** where the node's NATS server accepts the other servers' routes */
  cluster: number;
  /** the files service and the embedded object store (FILES_PORT, FILES_S3_PORT); absent: those settings as given */
  files?: number;
  objectStore?: number;
}

export interface NetworkNode {
  /** 1-based */
  index: number;
  name: string;
  organization: string;
  dataDir: string;
  ports: NodePorts;
}

export interface NetworkOptions {
  /** how many nodes the network has */
  size: number;
  /** every node's settings (`IDENTITY_REQUIRED`, …); DATA_DIR is the network's root */
  env: Record<string, string | undefined>;
  /** the nodes this launcher runs (1-based): the others run elsewhere, or stay down; default all */
  only?: number[];
  /** remove the network's data first */
  reset?: boolean;
  /** rebuild what the nodes started here derived from the network's blocks (NodeOptions.rebuild) */
  rebuild?: boolean;
  /** node n's ports; default PORT, VAULT_PORT, IDP_PORT, FILES_PORT and FILES_S3_PORT plus 100·(n−1), NATS 4222 + (n−1), routes 6222 + (n−1) */
  ports?: (index: number) => NodePorts;
  /** where the other nodes reach node n's routes (`host:port`), and what its server advertises; default its cluster port on 127.0.0.1 (a test puts a proxy there) */
  routeAddress?: (index: number) => string;
  onLine: (node: string, name: string, line: string) => void;
  readyTimeoutMs?: number;
}

export interface RunningNetwork {
  nodes: NetworkNode[];
  /** the nodes running now, by index */
  running: Map<number, RunningNode>;
  /** starts node n (again): it rejoins the cluster and catches up; `env` adds settings of this start only; `rebuild`: NodeOptions.rebuild */
  startNode(index: number, env?: Record<string, string>, options?: { rebuild?: boolean }): Promise<RunningNode>;
  stopNode(index: number): Promise<void>;
  /** stops every running node, the last first */
  stop(): Promise<void>;
}

function defaultPorts(env: Record<string, string | undefined>): (index: number) => NodePorts {
  const base = (name: string, fallback: number) => Number(env[name] ?? fallback);
  return (index) => ({
    gateway: base('PORT', 8080) + 100 * (index - 1),
    vault: base('VAULT_PORT', 8090) + 100 * (index - 1),
    idp: base('IDP_PORT', 8081) + 100 * (index - 1),
    nats: 4222 + (index - 1),
    cluster: 6222 + (index - 1),
    files: base('FILES_PORT', 8082) + 100 * (index - 1),
    objectStore: base('FILES_S3_PORT', 8083) + 100 * (index - 1),
  });
}

export async function startNetwork(options: NetworkOptions): Promise<RunningNetwork> {
  if (!Number.isInteger(options.size) || options.size < 1 || options.size > 9) throw new Error(`a network on one machine has 1 to 9 nodes, not ${options.size}`);
  const root = resolve(options.env.DATA_DIR ?? '.data');
  const portsOf = options.ports ?? defaultPorts(options.env);
  const baseOrg = options.env.NODE_ORG ?? 'Org';
  const nodes: NetworkNode[] = Array.from({ length: options.size }, (_, i) => ({
    index: i + 1,
    name: `node${i + 1}`,
    // distinct organizations: a node is an organization's
    organization: `${baseOrg}${i + 1}`,
    dataDir: join(root, `node${i + 1}`),
    ports: portsOf(i + 1),
  }));
  if (options.reset) {
    for (const node of nodes) removeDataDir(node.dataDir);
    removeDataDir(root);
  }
  mkdirSync(root, { recursive: true });
  ensureNetworkGenesis(root, nodes);
  const routePassword = readOrCreateSecret(join(root, 'network', 'route-password'));

  const routeAddress = options.routeAddress ?? ((index: number) => `127.0.0.1:${portsOf(index).cluster}`);
  const running = new Map<number, RunningNode>();
  const nodeOf = (index: number) => {
    const node = nodes[index - 1];
    if (!node) throw new Error(`the network has nodes 1 to ${nodes.length}, not ${index}`);
    return node;
  };
  const startOne = async (index: number, extraEnv: Record<string, string> = {}, startOptions: { rebuild?: boolean } = {}): Promise<RunningNode> => {
    const node = nodeOf(index);
    if (running.has(index)) throw new Error(`${node.name} is running`);
    const started = await startNode({
      env: {
        ...options.env,
        DATA_DIR: node.dataDir,
        NODE_NAME: node.name,
        NODE_ORG: node.organization,
        PORT: String(node.ports.gateway),
        VAULT_PORT: String(node.ports.vault),
        IDP_PORT: String(node.ports.idp),
        ...(node.ports.files ? { FILES_PORT: String(node.ports.files) } : {}),
        ...(node.ports.objectStore ? { FILES_S3_PORT: String(node.ports.objectStore) } : {}),
        NETWORK_REPLICAS: String(networkReplicas(nodes.length)),
        ...extraEnv,
      },
      natsPort: node.ports.nats,
      ...(startOptions.rebuild ? { rebuild: true } : {}),
      network: {
        nodes: nodes.map((n) => n.name),
        cluster: {
          name: NETWORK_CLUSTER_NAME,
          port: node.ports.cluster,
          user: NETWORK_ROUTE_USER,
          password: routePassword,
          routes: nodes.filter((n) => n !== node).map((n) => routeAddress(n.index)),
          ...(options.routeAddress ? { advertise: routeAddress(node.index) } : {}),
        },
      },
      onLine: (name, line) => options.onLine(node.name, name, line),
      ...(options.readyTimeoutMs ? { readyTimeoutMs: options.readyTimeoutMs } : {}),
    });
    running.set(index, started);
    return started;
  };
  const stopOne = async (index: number): Promise<void> => {
    const node = running.get(index);
    running.delete(index);
    await node?.stop();
  };
  const network: RunningNetwork = {
    nodes,
    running,
    startNode: startOne,
    stopNode: stopOne,
    async stop() {
      for (const index of [...running.keys()].sort((a, b) => b - a)) await stopOne(index);
    },
  };
  // together: a node's streams need a majority of the cluster's servers before its services can start
  const wanted = options.only ?? nodes.map((n) => n.index);
  const results = await Promise.allSettled(wanted.map((index) => startOne(index, {}, { rebuild: options.rebuild ?? false })));
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) {
    await network.stop();
    throw failed.reason;
  }
  return network;
}

/** A secret the network's nodes share (here: in one file of the network's root, mode 0600), created at the first start. */
function readOrCreateSecret(path: string): string {
  if (!existsSync(path)) {
    mkdirSync(join(path, '..'), { recursive: true, mode: 0o700 });
    writeFileSync(path, `${randomBytes(24).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
    chmodSync(path, 0o600);
  }
  return readFileSync(path, 'utf8').trim();
}
