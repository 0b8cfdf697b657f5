// The embedded NATS server: Debian's nats-server with JetStream, its store in
// the data dir. Installed on demand with apt-get when missing.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, waitForPort } from './ports.js';

export interface RunningNats {
  url: string;
  port: number;
  stop(): Promise<void>;
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

export interface NatsOptions {
  dataDir: string;
  /**
   * the server's `authorization` block (`natsAuthorization` of @platform/bus):
   * who may connect and what each user may do. Required: the server never
   * runs open to any local process.
   */
  authorization: string;
  port?: number;
  host?: string;
  onLog?: (line: string) => void;
}

export async function startNats(options: NatsOptions): Promise<RunningNats> {
  const binary = ensureNatsServer(options.onLog);
  const host = options.host ?? '127.0.0.1';
  const port = options.port ?? (await freePort(host));
  const storeDir = join(options.dataDir, 'nats');
  mkdirSync(storeDir, { recursive: true });
  // max_payload has no command-line flag: large contract sources need more than the 1 MB default.
  // The file names users and their permissions: the owner's alone, like the credentials.
  const configFile = join(options.dataDir, 'nats.conf');
  writeFileSync(configFile, `max_payload: 8MB\n${options.authorization}`, { mode: 0o600 });
  chmodSync(configFile, 0o600);
  const child: ChildProcess = spawn(binary, ['-c', configFile, '-js', '-sd', storeDir, '-a', host, '-p', String(port)], {
    stdio: ['ignore', 'pipe', 'pipe'],
    // out of the terminal's process group: the launcher stops it after the services
    detached: true,
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
  };
}
