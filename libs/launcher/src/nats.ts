// The embedded NATS server: Debian's nats-server with JetStream, its store in
// the data dir. Installed on demand with apt-get when missing.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { nodePlacementTag } from '@platform/bus';
import { freePort, waitForPort } from './ports.js';
import { natsServersOn, stopLeftovers } from './leftovers.js';

export interface RunningNats {
  url: string;
  port: number;
  stop(): Promise<void>;
  /** kill -9, as a crash of the machine would (a test's fault): nothing is flushed or closed */
  kill(): Promise<void>;
}

const CANDIDATES = ['/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server'];

function findNatsServer(): string | null {
  for (const path of CANDIDATES) if (existsSync(path)) return path;
  const which = spawnSync('sh', ['-c', 'command -v nats-server'], { encoding: 'utf8' });
  return which.status === 0 && which.stdout.trim() !== '' ? which.stdout.trim() : null;
}

/** Finds nats-server, installing Debian's package when it is missing and this process may. */
export function ensureNatsServer(log: (line: string) => void = () => {}): string {
  const found = findNatsServer();
  if (found) return found;
  if (process.getuid?.() !== 0) {
    throw new Error('nats-server is not installed: run `sudo apt-get install -y nats-server`, or set NATS_URL to an existing NATS with JetStream');
  }
  log('installing nats-server with apt-get …');
  let result = spawnSync('apt-get', ['install', '-y', 'nats-server'], { stdio: 'ignore' });
  if (result.status !== 0) {
    spawnSync('apt-get', ['update'], { stdio: 'ignore' });
    result = spawnSync('apt-get', ['install', '-y', 'nats-server'], { stdio: 'ignore' });
  }
  const installed = findNatsServer();
  if (result.status !== 0 || !installed) {
    throw new Error('could not install nats-server: run `apt-get install -y nats-server`, or set NATS_URL to an existing NATS with JetStream');
  }
  return installed;
}

/** The network's name, its NATS cluster's. */
export const NETWORK_CLUSTER_NAME = 'platform';
/** the user the network's servers' routes authenticate as, with the password the network shares */
export const NETWORK_ROUTE_USER = 'route';

/** copies of each network stream: every node's up to three (JetStream's Raft groups gain nothing from more on these sizes) */
export function networkReplicas(size: number): number {
  return Math.min(size, 3);
}

/** A server's place in a network's cluster: its routes to the others' servers, authenticated both ways. */
export interface NatsClusterOptions {
  /** the network's name (the cluster's) */
  name: string;
  /** where this server accepts the other servers' routes: `host` (default the client port's) and `port` */
  host?: string;
  port: number;
  /** the route credentials every server of the network shares: a route without them is refused */
  user: string;
  password: string;
  /** the other servers' route addresses (`host:port`); the cluster finds the rest by gossip */
  routes: string[];
  /** the address the other servers reach this one's routes at, when not `listen` (a proxy, a NAT): what the cluster's gossip tells them */
  advertise?: string;
  /** routes in mutual TLS: this server's certificate and key, and the CAs whose certificates the other servers must present (PEM files) */
  tls?: { certFile: string; keyFile: string; caFile: string };
}

export interface NatsOptions {
  dataDir: string;
  /** the node this server is: its server name and the tag its own streams are placed by */
  node: string;
  /**
   * the server's `accounts` block (`natsAccounts` of @platform/bus): who may
   * connect and what each user may do. Required: the server never runs open
   * to any local process.
   */
  accounts: string;
  /** part of a network: routes to the other nodes' servers; absent: a server of its own */
  cluster?: NatsClusterOptions;
  port?: number;
  host?: string;
  onLog?: (line: string) => void;
}

/** The server's configuration file: limits, name, cluster routes and accounts. */
export function natsServerConfig(options: Pick<NatsOptions, 'node' | 'accounts' | 'cluster'> & { host: string }): string {
  const lines = [
    // max_payload has no command-line flag: large contract sources need more than the 1 MB default
    'max_payload: 8MB',
    `server_name: ${JSON.stringify(options.node)}`,
    `server_tags: [${JSON.stringify(nodePlacementTag(options.node))}]`,
  ];
  const c = options.cluster;
  if (c) {
    const route = (address: string) => JSON.stringify(`nats-route://${encodeURIComponent(c.user)}:${encodeURIComponent(c.password)}@${address}`);
    lines.push(
      'cluster {',
      `  name: ${JSON.stringify(c.name)}`,
      `  listen: ${JSON.stringify(`${c.host ?? options.host}:${c.port}`)}`,
      `  authorization { user: ${JSON.stringify(c.user)}, password: ${JSON.stringify(c.password)}, timeout: 2 }`,
      `  routes: [${c.routes.map(route).join(', ')}]`,
      ...(c.advertise ? [`  advertise: ${JSON.stringify(c.advertise)}`] : []),
      // verify: a server must present a certificate the CAs signed, both ways
      ...(c.tls ? [`  tls { cert_file: ${JSON.stringify(c.tls.certFile)}, key_file: ${JSON.stringify(c.tls.keyFile)}, ca_file: ${JSON.stringify(c.tls.caFile)}, verify: true, timeout: 5 }`] : []),
      '}',
    );
  }
  return `${lines.join('\n')}\n${options.accounts}`;
}

export async function startNats(options: NatsOptions): Promise<RunningNats> {
  const binary = ensureNatsServer(options.onLog);
  const host = options.host ?? '127.0.0.1';
  const port = options.port ?? (await freePort(host));
  const storeDir = join(options.dataDir, 'nats');
  mkdirSync(storeDir, { recursive: true });
  // a server a launcher killed outright left on this store: two servers must never share one
  await stopLeftovers(natsServersOn(storeDir), 'SIGTERM', 'nats-server', options.onLog ?? (() => {}));
  // The file names users and their permissions, and the routes' password: the owner's alone, like the credentials.
  const configFile = join(options.dataDir, 'nats.conf');
  writeFileSync(configFile, natsServerConfig({ ...options, host }), { mode: 0o600 });
  chmodSync(configFile, 0o600);
  const child: ChildProcess = spawn(binary, ['-c', configFile, '-js', '-sd', storeDir, '-a', host, '-p', String(port)], {
    stdio: ['ignore', 'pipe', 'pipe'],
    // out of the terminal's process group: the launcher stops it after the services
    detached: true,
    // Go collects when its heap has grown by half, not doubled: some 15 MiB less under load (the soak bench); a GOGC given to the launcher wins
    env: { ...process.env, GOGC: process.env.GOGC ?? '50' },
  });
  const forward = (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n')) if (line.trim()) options.onLog?.(line);
  };
  child.stdout?.on('data', forward);
  child.stderr?.on('data', forward);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await Promise.race([
      waitForPort(host, port, 10_000),
      exited.then(() => {
        throw new Error(`nats-server exited during start (port ${port})`);
      }),
    ]);
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
  return {
    url: `nats://${host}:${port}`,
    port,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGKILL');
      await exited;
    },
  };
}
