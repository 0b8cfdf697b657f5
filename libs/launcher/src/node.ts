// One node on this machine: the embedded NATS and PostgreSQL (unless
// NATS_URL / DATABASE_URL name existing ones), the development identity
// provider (unless OAUTH_DISCOVERY_URL names one), and every service as its
// own supervised process. Used by `npm start` and by the end-to-end tests.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { credentialsFile, ensureBusCredentials, natsAccounts, readBusCredentials, type BusCredentials, type BusUser } from '@platform/bus';
import { loadConfig, type NodeConfig } from '@platform/common';
import { ensureMainGenesis } from './genesis.js';
import { claimDataDir } from './leftovers.js';
import { prepareJoin } from './join.js';
import { startNats, type NatsClusterOptions, type RunningNats } from './nats.js';
import { removeDataDir, startPostgres, type RunningPostgres } from './postgres.js';
import { builtEntry } from './build.js';
import { memoryEnv } from './memory.js';
import { waitForPort } from './ports.js';
import { runToEnd, supervise, type Supervised } from './supervisor.js';

/** The read-only role the gateway reads cirrus's schema as, in the embedded PostgreSQL (docs/architecture.md "State and storage"). */
export const CIRRUS_READ_ROLE = 'cirrus_reader';

/** The node's services, in start order; the gateway last, as it routes to the others. */
export const NODE_SERVICES = ['vault', 'transaction', 'block', 'cirrus', 'chains', 'files', 'gateway'] as const;

/**
 * What each service's first start gets when the node is rebuilt from the
 * network, after the block service's `--rebuild` step (docs/network.md
 * "Rebuilding a node from the network"); the Helm chart gives the same (a
 * chart test keeps the two equal).
 */
export const REBUILD_FIRST_ARGS: Readonly<Partial<Record<(typeof NODE_SERVICES)[number], readonly string[]>>> = { transaction: ['--rebuild'], chains: ['--rebuild'], cirrus: ['--reindex'] };

export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** The TypeScript entry of a service (or `idp`), relative to the repository's root. */
export function serviceEntry(part: string): string {
  return `services/${part}/src/main.ts`;
}

export interface NodeOptions {
  env: Record<string, string | undefined>;
  /** remove the data dir first, and the PostgreSQL cluster it records elsewhere */
  reset?: boolean;
  /** cirrus drops its read model and rebuilds it from the execution results (its first start only: a restart after a crash resumes the rebuild) */
  reindex?: boolean;
  /**
   * rebuild everything this node derived from the network's blocks (docs/network.md
   * "Rebuilding a node from the network"): the block service's `--rebuild` runs to its end
   * before any service starts (chain stores and the node's results emptied), then the
   * transaction service forgets its final results, the chains service resets membership
   * to the geneses and cirrus reindexes, on their first start only
   */
  rebuild?: boolean;
  /** every log line of every part, with the part's name */
  onLine: (name: string, line: string) => void;
  /** how long to wait for /ready; default 120 s */
  readyTimeoutMs?: number;
  /** part of a network (network.ts): its nodes' names and this node's server's routes */
  network?: { nodes: string[]; cluster: NatsClusterOptions };
  /** the embedded NATS server's client port; default a free one */
  natsPort?: number;
}

export interface RunningNode {
  config: NodeConfig;
  dataDir: string;
  gatewayUrl: string;
  vaultUrl: string;
  discoveryUrl: string;
  /** set when the development identity provider runs */
  idpUrl: string | null;
  natsUrl: string;
  /** where each bus user's nkey seed is (`<user>.nk`, 0600) */
  natsCredentialsDir: string;
  /** a bus user's credentials, for tools that watch the node (`observer`) */
  busCredentials(user: BusUser): BusCredentials;
  databaseUrl: string;
  /** the gateway's URL of the database as the read role (CIRRUS_READ_DATABASE_URL), null when it asks cirrus over NATS */
  cirrusReadDatabaseUrl: string | null;
  /** the supervised processes by name (`idp`, `object-store` when embedded, and each of NODE_SERVICES) */
  processes: ReadonlyMap<string, Supervised>;
  /** the embedded NATS server (null with NATS_URL): a test kills it and starts it again on the same port and store */
  nats: { kill(): Promise<void>; restart(): Promise<void> } | null;
  stop(): Promise<void>;
}

export async function startNode(options: NodeOptions): Promise<RunningNode> {
  const config = loadConfig(options.env);
  const dataDir = resolve(config.dataDir);
  mkdirSync(dataDir, { recursive: true });
  // one launcher per data dir: a second would open the first one's store and cluster (src/leftovers.ts)
  let releaseDataDir = claimDataDir(dataDir);
  if (options.reset) {
    removeDataDir(dataDir);
    mkdirSync(dataDir, { recursive: true });
    releaseDataDir = claimDataDir(dataDir);
  }
  let node: RunningNode;
  try {
    node = await startClaimed(options, config, dataDir);
  } catch (err) {
    releaseDataDir();
    throw err;
  }
  return {
    ...node,
    async stop() {
      await node.stop();
      releaseDataDir();
    },
  };
}

/** startNode's work once the data dir is this process's. */
async function startClaimed(options: NodeOptions, initial: NodeConfig, dataDir: string): Promise<RunningNode> {
  let config = initial;
  // a node joining a network of other machines (NETWORK_GENESIS): the network's genesis and its keys first, then the NATS cluster's routes
  let network = options.network;
  let env = options.env;
  if (config.join && !network) {
    const joined = prepareJoin(config.join, config.nodeName, dataDir);
    network = { nodes: joined.nodes, cluster: joined.cluster };
    if (options.env.NETWORK_REPLICAS === undefined) env = { ...options.env, NETWORK_REPLICAS: String(joined.replicas) };
    config = loadConfig(env);
    options.onLine('launcher', `joining the network of ${joined.nodes.join(', ')} as ${config.nodeName}; routes to ${joined.cluster.routes.join(', ') || 'none (the others route here)'}`);
  }
  // before any service: the block service reads the genesis, the transaction
  // service signs the faucet's transfers with the key the genesis funds
  const chain = ensureMainGenesis(dataDir, { organization: config.nodeOrg, ca: { cert: config.nodeCaCert, key: config.nodeCaKey } });
  if (chain.created) options.onLine('launcher', `wrote the main chain's genesis ${chain.genesisPath}; faucet account ${chain.faucetAddress}`);
  if (!chain.caTrusted) {
    options.onLine('launcher', `the genesis ${chain.genesisPath} does not list this node's CA among its trusted roots: certificates this node issues register once the network's validators vote it in as a trusted root (docs/network.md)`);
  }
  if (config.gasEnabled && !chain.faucetFunded) {
    options.onLine('launcher', `GAS_ENABLED: the genesis ${chain.genesisPath} does not fund the faucet key's account: the faucet's transfers will fail`);
  }

  // each service's last lines: what a node that never becomes ready says about why
  const tails = new LogTails(8);
  const stops: Array<() => Promise<void>> = [];
  const processes = new Map<string, Supervised>();
  const stopAll = async () => {
    for (const stop of stops.splice(0).reverse()) await stop().catch(() => {});
  };
  try {
    // every service connects as its own NATS user: generated into the data dir
    // at the first start, or the operator's (NATS_CREDENTIALS_DIR) for a NATS of theirs
    const natsCredentialsDir = config.natsCredentialsDir ? resolve(config.natsCredentialsDir) : join(dataDir, 'nats-credentials');
    const busUsers = ensureBusCredentials(natsCredentialsDir, { create: !config.natsCredentialsDir });
    const accounts = natsAccounts({ node: config.nodeName, users: busUsers, ...(network ? { otherNodes: network.nodes } : {}) });
    let natsUrl = config.natsUrl;
    let natsControl: RunningNode['nats'] = null;
    if (!natsUrl) {
      const natsOptions = {
        dataDir,
        node: config.nodeName,
        accounts,
        ...(network ? { cluster: network.cluster } : {}),
        ...(options.natsPort ? { port: options.natsPort } : {}),
        onLog: (line: string) => options.onLine('nats', line),
      };
      let nats: RunningNats = await startNats(natsOptions);
      stops.push(() => nats.stop());
      natsUrl = nats.url;
      const port = nats.port;
      natsControl = {
        kill: () => nats.kill(),
        async restart() {
          await nats.kill();
          nats = await startNats({ ...natsOptions, port });
        },
      };
    } else if (!config.natsCredentialsDir) {
      const file = join(natsCredentialsDir, 'accounts.conf');
      writeFileSync(file, accounts, { mode: 0o600 });
      options.onLine('launcher', `NATS_URL: the services connect with the nkeys in ${natsCredentialsDir}; the server must have the accounts in ${file}`);
    }
    let databaseUrl = config.databaseUrl;
    // the gateway's read path (docs/architecture.md "State and storage"): cirrus grants its schema to the
    // read role, the gateway reads as it. An existing database (DATABASE_URL) has them from the operator, or not at all.
    let cirrusRead: { CIRRUS_READ_ROLE?: string; CIRRUS_READ_DATABASE_URL?: string } = {
      ...(config.cirrusReadRole ? { CIRRUS_READ_ROLE: config.cirrusReadRole } : {}),
      ...(config.cirrusReadDatabaseUrl ? { CIRRUS_READ_DATABASE_URL: config.cirrusReadDatabaseUrl } : {}),
    };
    if (!databaseUrl) {
      const postgres: RunningPostgres = await startPostgres({ dataDir, onLog: (line) => options.onLine('postgres', line) });
      stops.push(() => postgres.stop());
      databaseUrl = await postgres.createDatabase('platform');
      cirrusRead = { CIRRUS_READ_ROLE: CIRRUS_READ_ROLE, CIRRUS_READ_DATABASE_URL: await postgres.createReadRole(CIRRUS_READ_ROLE, 'platform') };
    }

    // a part of the node as a process: its built entry, with its memory settings
    const partProcess = async (name: string, entry: string, env: Record<string, string | undefined>) => ({
      name,
      command: process.execPath,
      args: [await builtEntry(REPO_ROOT, entry)],
      cwd: REPO_ROOT,
      env: { ...env, ...memoryEnv(name, env) },
    });
    const run = async (name: string, entry: string, env: Record<string, string | undefined>, firstArgs?: readonly string[]): Promise<Supervised> => {
      const child = supervise({
        ...(await partProcess(name, entry, env)),
        ...(firstArgs ? { firstArgs } : {}),
        onLine: (part, line) => {
          tails.add(part, line);
          options.onLine(part, line);
        },
      });
      stops.push(() => child.stop());
      processes.set(name, child);
      return child;
    };

    let discoveryUrl = config.oauthDiscoveryUrl;
    let idpUrl: string | null = null;
    if (!discoveryUrl) {
      idpUrl = `http://127.0.0.1:${config.idpPort}`;
      discoveryUrl = `${idpUrl}/.well-known/openid-configuration`;
      await run('idp', serviceEntry('idp'), { ...env, DATA_DIR: dataDir });
      await waitForPort('127.0.0.1', config.idpPort, 60_000);
    }

    // the files service's object store: the embedded one unless FILES_S3_ENDPOINT names another
    if (!config.files.s3.endpoint) {
      await run('object-store', 'libs/launcher/bin/object-store.ts', { ...env, DATA_DIR: dataDir });
      await waitForPort('127.0.0.1', config.files.s3.embeddedPort, 60_000);
    }

    // each service sees only its own side of the read path: cirrus the role's name, the gateway its URL (a password)
    const { CIRRUS_READ_ROLE: _role, CIRRUS_READ_DATABASE_URL: _url, ...envWithoutRead } = env;
    const serviceEnv = {
      ...envWithoutRead,
      DATA_DIR: dataDir,
      NATS_URL: natsUrl,
      DATABASE_URL: databaseUrl,
      OAUTH_DISCOVERY_URL: discoveryUrl,
      ...(chain.faucetKeyFile ? { FAUCET_KEY_FILE: chain.faucetKeyFile } : {}),
    };
    // the node CA's key is the vault's alone
    const caEnv = { NODE_CA_CERT: chain.ca.cert, NODE_CA_KEY: chain.ca.key };
    const envOf = (service: (typeof NODE_SERVICES)[number]): Record<string, string | undefined> => {
      const readEnv = service === 'cirrus' && cirrusRead.CIRRUS_READ_ROLE ? { CIRRUS_READ_ROLE: cirrusRead.CIRRUS_READ_ROLE } : service === 'gateway' && cirrusRead.CIRRUS_READ_DATABASE_URL ? { CIRRUS_READ_DATABASE_URL: cirrusRead.CIRRUS_READ_DATABASE_URL } : {};
      return { ...serviceEnv, NATS_CREDENTIALS: credentialsFile(natsCredentialsDir, service), ...readEnv, ...(service === 'vault' ? caEnv : {}) };
    };
    // before any consumer of the node's results runs: none may read a result the rebuild removes
    if (options.rebuild) {
      const step = await partProcess('block', serviceEntry('block'), envOf('block'));
      await runToEnd({ ...step, args: [...step.args, '--rebuild'], onLine: options.onLine });
    }
    const firstArgsOf: Partial<Record<(typeof NODE_SERVICES)[number], readonly string[]>> = {
      ...(options.reindex ? { cirrus: ['--reindex'] } : {}),
      ...(options.rebuild ? REBUILD_FIRST_ARGS : {}),
    };
    for (const service of NODE_SERVICES) await run(service, serviceEntry(service), envOf(service), firstArgsOf[service]);

    const gatewayUrl = `http://${urlHost(config.host)}:${config.port}`;
    await waitUntilReady(`${gatewayUrl}/ready`, options.readyTimeoutMs ?? 120_000, () => tails.report(processes));
    // the gateway's routes to the files service answer once it listens too
    await waitForPort('127.0.0.1', config.files.port, options.readyTimeoutMs ?? 120_000);
    return {
      config,
      dataDir,
      gatewayUrl,
      vaultUrl: `http://${urlHost(config.host)}:${config.vaultPort}`,
      discoveryUrl,
      idpUrl,
      natsUrl,
      natsCredentialsDir,
      busCredentials: (user) => readBusCredentials(natsCredentialsDir, user),
      databaseUrl,
      cirrusReadDatabaseUrl: cirrusRead.CIRRUS_READ_DATABASE_URL ?? null,
      processes,
      nats: natsControl,
      stop: stopAll,
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}

function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '::') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

/** The last lines of each part's output, kept to explain a start that fails. */
class LogTails {
  private readonly lines = new Map<string, string[]>();
  constructor(private readonly keep: number) {}

  add(part: string, line: string): void {
    const tail = this.lines.get(part) ?? [];
    tail.push(line);
    if (tail.length > this.keep) tail.shift();
    this.lines.set(part, tail);
  }

  /** the parts that restarted, and the gateway, each with its restarts and last lines */
  report(processes: ReadonlyMap<string, Supervised>): string {
    const parts = [...processes.values()].filter((p) => p.restarts > 0 || p.name === 'gateway');
    return parts.map((p) => `${p.name} (${p.restarts} restarts):\n${(this.lines.get(p.name) ?? ['(no output)']).map((l) => `  ${l}`).join('\n')}`).join('\n');
  }
}

async function waitUntilReady(url: string, timeoutMs: number, explain: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  while (Date.now() < deadline) {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(3_000) });
      if (response.ok) return;
      last = `${response.status} ${await response.text()}`;
    } catch (err) {
      last = err instanceof Error ? err.message : String(err);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`the node did not become ready within ${timeoutMs / 1000} s (${url}: ${last})\n${explain()}`);
}
