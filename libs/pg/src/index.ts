// What every service that owns a PostgreSQL schema does the same way
// (docs/architecture.md "State and storage": each service its own schema, migrated
// by that service at start): its pool, its transactions, its append-only
// migrations under an advisory lock, and telling a database that is down (the
// client should retry: 503) from a query that is wrong.
import pg from 'pg';
import { PlatformError } from '@platform/common';

export type Db = pg.Pool;
export type Client = pg.PoolClient;

export interface PoolOptions {
  /** shows in pg_stat_activity */
  applicationName: string;
  max?: number;
  /** false for writes whose loss in a database crash costs only a repeat: commits do not wait for the WAL flush */
  synchronousCommit?: boolean;
  /** further settings of every session (`-c name=value` at connection): plain names and values only */
  settings?: Record<string, string>;
  /** how long an idle connection is kept; 0: for good (no timer per query); default 10 s */
  idleTimeoutMs?: number;
  /**
   * An idle connection failed (the server restarted, an administrator ended
   * it): the pool has already dropped it and the next query opens another.
   * Without a listener such an error would end the process.
   */
  onIdleError?: (err: Error) => void;
}

export function createPool(databaseUrl: string, options: PoolOptions): Db {
  const settings = { ...(options.synchronousCommit === false ? { synchronous_commit: 'off' } : {}), ...options.settings };
  for (const [name, value] of Object.entries(settings)) {
    if (!/^[a-z_.]+$/.test(name) || !/^[A-Za-z0-9_.-]+$/.test(value)) throw new Error(`not a plain setting: ${name}=${value}`);
  }
  const sessionOptions = Object.entries(settings)
    .map(([name, value]) => `-c ${name}=${value}`)
    .join(' ');
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: options.max ?? 10,
    // a bounded wait for a connection, so that requests fail with 503 when the database is down instead of hanging
    connectionTimeoutMillis: 5_000,
    application_name: options.applicationName,
    ...(options.idleTimeoutMs !== undefined ? { idleTimeoutMillis: options.idleTimeoutMs } : {}),
    ...(sessionOptions ? { options: sessionOptions } : {}),
  });
  pool.on('error', (err) => options.onIdleError?.(err));
  return pool;
}

/** A connection failure (as opposed to a bad query): the database is down or going away. */
export function isUnavailable(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown };
  const code = typeof e?.code === 'string' ? e.code : '';
  if (code.startsWith('08') || ['57P01', '57P02', '57P03', '53300', 'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EPIPE'].includes(code)) return true;
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(String(e?.message ?? ''));
}

/** `err` as a 503 UNAVAILABLE naming whose database is down when it is a connection failure; otherwise `err` itself. */
export function unavailableOr(err: unknown, owner: string): unknown {
  if (err instanceof PlatformError || !isUnavailable(err)) return err;
  return new PlatformError('UNAVAILABLE', `${owner}'s database is not available; try again shortly`, undefined, { cause: err });
}

/**
 * One statement on the pool; a connection failure becomes a 503 naming `owner`.
 * `prepared`: a name for the statement, prepared once per connection and
 * then only bound and executed (for a long statement run on every request:
 * its parse and plan were a fifth of its time).
 */
export async function query<R extends pg.QueryResultRow>(pool: Db, text: string, values: unknown[], owner: string, prepared?: string): Promise<pg.QueryResult<R>> {
  try {
    return await (prepared ? pool.query<R>({ name: prepared, text, values }) : pool.query<R>(text, values));
  } catch (err) {
    throw unavailableOr(err, owner);
  }
}

/**
 * JSON texts as one parameter: a JSON list of them, unpacked in SQL by
 * `jsonTexts($n)` (or `json_array_elements($n::json) WITH ORDINALITY`), each
 * element the very text given, since the `json` type keeps its input as it
 * is. As a `text[]` parameter, pg would copy every element escaping each
 * quote and backslash: the largest part of binding a batch of transaction
 * bodies or results. Every text must be JSON; a null is JSON `null`.
 */
export function jsonList(texts: ReadonlyArray<string | null>): string {
  return `[${texts.map((text) => text ?? 'null').join(',')}]`;
}

/** The SQL of a `text[]`, in order, from a `jsonList` parameter (`param`: `$7`). */
export function jsonTexts(param: string): string {
  return `ARRAY(SELECT e::text FROM json_array_elements(${param}::json) WITH ORDINALITY AS x(e, i) ORDER BY i)`;
}

/**
 * Runs `work` in one database transaction: committed when it returns, rolled
 * back when it throws. With `owner`, a connection failure becomes a 503.
 */
export async function inTransaction<T>(pool: Db, work: (client: Client) => Promise<T>, owner?: string): Promise<T> {
  const mapped = (err: unknown) => (owner === undefined ? err : unavailableOr(err, owner));
  let client: Client;
  try {
    client = await pool.connect();
  } catch (err) {
    throw mapped(err);
  }
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw mapped(err);
  } finally {
    client.release();
  }
}

export interface Migration {
  sql: string;
  /**
   * The model's shape changed in a way its rows cannot follow: an existing
   * schema is dropped and every migration applied again (the owner rebuilds
   * its rows, e.g. by replaying a stream).
   */
  rebuild?: boolean;
}

export interface SchemaSpec {
  schema: string;
  /** the advisory lock every instance of the owner takes (arbitrary but fixed) */
  lock: number;
  /** append only: an applied migration is never edited; a change is a new entry */
  migrations: ReadonlyArray<string | Migration>;
}

/**
 * Brings `schema` up to date inside the caller's transaction, under the
 * advisory lock: instances starting together migrate one after the other,
 * the later ones finding nothing to do. Answers whether the schema was
 * rebuilt (see `Migration.rebuild`).
 */
export async function migrateSchema(client: Client, spec: SchemaSpec): Promise<{ rebuilt: boolean }> {
  checkSchemaName(spec.schema);
  await client.query('SELECT pg_advisory_xact_lock($1)', [spec.lock]);
  await client.query(`CREATE SCHEMA IF NOT EXISTS ${spec.schema}`);
  await client.query(`CREATE TABLE IF NOT EXISTS ${spec.schema}.migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
  const { rows } = await client.query<{ version: number | null }>(`SELECT max(version) AS version FROM ${spec.schema}.migrations`);
  const current = rows[0].version ?? 0;
  const migrations = spec.migrations.map((m) => (typeof m === 'string' ? { sql: m } : m));
  const rebuilt = current > 0 && migrations.slice(current).some((m) => m.rebuild);
  if (rebuilt) await recreateSchema(client, spec.schema);
  for (let version = rebuilt ? 1 : current + 1; version <= migrations.length; version++) {
    await client.query(migrations[version - 1].sql);
    await client.query(`INSERT INTO ${spec.schema}.migrations (version) VALUES ($1)`, [version]);
  }
  return { rebuilt };
}

/** The schema dropped with everything in it and created empty, under the lock (the caller's transaction). */
export async function dropSchema(client: Client, spec: Pick<SchemaSpec, 'schema' | 'lock'>): Promise<void> {
  checkSchemaName(spec.schema);
  await client.query('SELECT pg_advisory_xact_lock($1)', [spec.lock]);
  await recreateSchema(client, spec.schema);
}

async function recreateSchema(client: Client, schema: string): Promise<void> {
  await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await client.query(`CREATE SCHEMA ${schema}`);
  await client.query(`CREATE TABLE ${schema}.migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
}

/** Schema names are the owners' constants, spliced into DDL: plain lowercase identifiers only. */
function checkSchemaName(schema: string): void {
  if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`not a plain schema name: ${JSON.stringify(schema)}`);
}
