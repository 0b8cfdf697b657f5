// The query endpoint: the requested name is resolved to a table (an exact API
// name, else a bare contract name standing for its only family: 409 when
// several families have it), its catalogue entry read from `cirrus.tables`
// (so tables and columns the indexer added are visible at once, on every
// instance), then @platform/query parses, checks against it, plans with the
// caller's visible chains, runs and shapes. Nothing of the request reaches
// SQL but bound values.
import pg from 'pg';
import { PlatformError, type Logger } from '@platform/common';
import { catalogueOf, columnsOf, parseQuery, planQuery, runQuery, toJson, type CatalogueRelation, type CatalogueTable, type OrderSpec, type SelectItem } from '@platform/query';
import type { SearchRequest, SearchResponse } from '@platform/bus';
import type { Db } from './db.js';
import { bareReadings } from './naming.js';
import { CATALOGUE_CHANNEL, SCHEMA, familiesOf, qualified, tableNamed, type TableRec } from './tables.js';

const DEFAULT_ORDER: Record<TableRec['kind'], OrderSpec[]> = {
  contract: [{ column: 'block_number' }, { column: 'address' }],
  // most recent first; rows of one block in reverse transaction order (the write order)
  history: [
    { column: 'block_number', direction: 'desc' },
    { column: 'h_seq', internal: true, direction: 'desc' },
  ],
  event: [{ column: 'id' }],
  side: [{ column: 'address' }, { column: 'chainId' }],
};

export function catalogueTable(name: string, rec: TableRec, relations: readonly CatalogueRelation[] = []): CatalogueTable {
  const columns = columnsOf(rec.columns.map(([api, sql, type]) => [api, sql, type] as const));
  const defaultOrder = rec.kind === 'side' ? [...DEFAULT_ORDER.side, { column: rec.columns[2][0] }] : DEFAULT_ORDER[rec.kind];
  return { name, sql: { schema: SCHEMA, name: rec.sqlName }, columns, chainColumn: 'chainId', defaultOrder, ...(relations.length ? { relations } : {}) };
}

const sharedStart = (a: string, b: string): number => {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return i;
};

/**
 * The table a contract-typed variable's rows embed from: of the tables of
 * that contract name, the one whose name shares the longest start with this
 * table's (same organization, same application), or the only one.
 */
async function referredFamily(pool: Db, from: TableRec, contract: string): Promise<string | undefined> {
  const families = await familiesOf(pool, contract);
  if (families.length <= 1) return families[0];
  const ranked = families.map((f) => [f, sharedStart(f, from.family)] as const).sort((x, y) => y[1] - x[1]);
  return ranked[0][1] > ranked[1][1] ? ranked[0][0] : undefined;
}

/**
 * The catalogue one query needs: its table, and for each embed the table of
 * the contract a variable refers to (`Item(*)` through a variable typed
 * `Item`), recursively. A relation joins the variable's value (the contract's
 * address) to the target's `address`, on the same chain.
 */
async function catalogueFor(pool: Db, resolver: TableResolver, name: string, rec: TableRec, select: readonly SelectItem[], depth = 0): Promise<CatalogueTable[]> {
  const embeds = select.filter((item): item is Extract<SelectItem, { kind: 'embed' }> => item.kind === 'embed');
  const relations: CatalogueRelation[] = [];
  const more: CatalogueTable[] = [];
  if (embeds.length > 0 && depth < MAX_EMBED_DEPTH && (rec.kind === 'contract' || rec.kind === 'history')) {
    for (const v of rec.vars) {
      if (!v.ref || !v.column || !embeds.some((e) => e.relation === v.ref)) continue;
      const target = await referredFamily(pool, rec, v.ref);
      const targetRec = target === undefined ? undefined : await resolver.resolve(target);
      if (!target || !targetRec) continue;
      relations.push({ name: v.ref, target, on: [[v.name, 'address'], ['chainId', 'chainId']], cardinality: 'one' });
      const nested = embeds.filter((e) => e.relation === v.ref).flatMap((e) => e.select);
      more.push(...(await catalogueFor(pool, resolver, target, targetRec, nested, depth + 1)));
    }
  }
  return [catalogueTable(name, rec, relations), ...more];
}

/** One entry per name (a contract referring to its own kind appears twice), with the relations of both. */
function merged(tables: CatalogueTable[]): CatalogueTable[] {
  const byName = new Map<string, CatalogueTable>();
  for (const t of tables) {
    const seen = byName.get(t.name);
    if (!seen) {
      byName.set(t.name, t);
      continue;
    }
    const relations = [...(seen.relations ?? [])];
    for (const r of t.relations ?? []) if (!relations.some((x) => x.name === r.name && x.on[0][0] === r.on[0][0])) relations.push(r);
    byName.set(t.name, { ...seen, relations });
  }
  return [...byName.values()];
}

/** PostgREST's embedding depth the planner allows */
const MAX_EMBED_DEPTH = 8;

/**
 * Enough of the chains a table's rows lie on to decide whether the caller
 * may know the table exists (CONVENTIONS.md "Cirrus": a table all of whose
 * rows lie on chains the caller cannot see is a 404): a visible chain with
 * rows if there is one, else another chain with rows, else nothing (an empty
 * table is no one's secret). Each look stops at the first row: for the main
 * chain's tables, the first row answers.
 */
async function rowChains(pool: Db, rec: TableRec, visible: readonly string[]): Promise<ReadonlySet<string> | undefined> {
  const table = qualified(rec.sqlName);
  const mine = await pool.query<{ chain_id: string }>(`SELECT chain_id FROM ${table} WHERE chain_id = ANY($1) LIMIT 1`, [visible]);
  if (mine.rows[0]) return new Set([mine.rows[0].chain_id]);
  const others = await pool.query<{ chain_id: string }>(`SELECT chain_id FROM ${table} WHERE chain_id <> ALL($1) LIMIT 1`, [visible]);
  return others.rows[0] ? new Set([others.rows[0].chain_id]) : undefined;
}

/** The table a requested name designates; CONFLICT when a bare contract name is ambiguous. */
export async function resolveTable(pool: Db, name: string): Promise<TableRec | undefined> {
  const exact = await tableNamed(pool, name);
  if (exact) return exact;
  for (const reading of bareReadings(name)) {
    const families = await familiesOf(pool, reading.contract);
    if (families.length === 0) continue;
    if (families.length > 1) {
      throw new PlatformError('CONFLICT', `${reading.contract} names the contract of more than one table; use one of ${families.join(', ')}`, {
        table: name,
        tables: families,
      });
    }
    return tableNamed(pool, reading.rebuild(families[0]));
  }
  return undefined;
}

/**
 * Names resolved to tables, remembered while a connection LISTENs to the
 * catalogue's change notices (the indexer notifies in the transaction that
 * changes it; PostgreSQL delivers at commit). A notice clears everything; a
 * resolution that raced a notice is not remembered; without the listening
 * connection nothing is remembered, so a change is never missed.
 */
export class TableResolver {
  private readonly cache = new Map<string, TableRec>();
  private generation = 0;
  private listening = false;
  private listener: pg.Client | undefined;
  private retry: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly pool: Db,
    private readonly databaseUrl: string,
    private readonly logger: Logger,
  ) {}

  /** Connects and LISTENs; a failure here fails the start, later losses reconnect every second. */
  async start(): Promise<void> {
    const client = new pg.Client({ connectionString: this.databaseUrl, application_name: 'cirrus-catalogue' });
    const lost = (err?: unknown) => {
      if (this.listener !== client) return;
      this.listening = false;
      this.listener = undefined;
      this.forget();
      client.end().catch(() => {});
      if (this.stopped) return;
      this.logger.warn({ err }, 'the catalogue notice connection failed; tables are looked up on every request until it is back');
      this.reconnect();
    };
    this.listener = client;
    client.on('notification', () => this.forget());
    client.on('error', lost);
    client.on('end', () => lost());
    try {
      await client.connect();
      await client.query(`LISTEN ${CATALOGUE_CHANNEL}`);
    } catch (err) {
      lost(err);
      throw err;
    }
    this.forget();
    this.listening = true;
  }

  private reconnect(): void {
    if (this.retry !== undefined || this.stopped) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      // a failed attempt has already scheduled the next one (lost → reconnect)
      this.start().catch(() => {});
    }, 1_000);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    const client = this.listener;
    this.listener = undefined;
    this.listening = false;
    await client?.end().catch(() => {});
  }

  private forget(): void {
    this.generation++;
    this.cache.clear();
  }

  async resolve(name: string): Promise<TableRec | undefined> {
    const hit = this.listening ? this.cache.get(name) : undefined;
    if (hit) return hit;
    const generation = this.generation;
    const rec = await resolveTable(this.pool, name);
    if (rec && this.listening && generation === this.generation) {
      if (this.cache.size >= 10_000) this.cache.clear();
      this.cache.set(name, rec);
    }
    return rec;
  }
}

/** `visible`: the chains whose rows the caller may see (the chains service's answer; '' is the main chain). */
export async function search(pool: Db, resolver: TableResolver, request: SearchRequest, visible: readonly string[]): Promise<SearchResponse> {
  if (typeof request?.table !== 'string' || typeof request.query !== 'string') {
    throw new PlatformError('BAD_QUERY', 'a search needs a table name and a query string');
  }
  const ast = parseQuery(request.query, request.prefer === undefined ? {} : { prefer: request.prefer });
  const rec = await resolver.resolve(request.table);
  const tables = rec ? merged(await catalogueFor(pool, resolver, request.table, rec, ast.select)) : [];
  const chains = rec ? await rowChains(pool, rec, visible) : undefined;
  const catalogue = catalogueOf(tables.map((t) => (t.name === request.table && chains ? { ...t, chains } : t)));
  const plan = planQuery(ast, catalogue, { table: request.table, visibleChains: visible });
  const result = await runQuery(pool, plan);
  return {
    rows: toJson(result.rows),
    status: result.status as SearchResponse['status'],
    ...(result.contentRange ? { contentRange: result.contentRange } : {}),
    ...(result.message ? { message: result.message } : {}),
  };
}
