// A search: the requested name is resolved to a table (an exact API name,
// else a bare contract name standing for its only family the caller may see:
// 409 when several such families have it), its catalogue entry read from
// `cirrus.tables` (so tables and columns the indexer added are visible at
// once, on every instance and on every reader), then @platform/query parses,
// checks against it, plans with the caller's visible chains, runs and shapes.
// Nothing of the request reaches SQL but bound values. The same code answers
// cirrus's `cirrus.search` endpoint and the gateway's read path.
import pg from 'pg';
import { PlatformError, type Logger } from '@platform/common';
import { catalogueOf, parseQuery, planQuery, runQueryJson, type CatalogueRelation, type CatalogueTable, type QueryPlan, type SelectItem } from '@platform/query';
import type { SearchRequest, SearchResponse } from '@platform/bus';
import { bareReadings } from './naming.js';
import { CATALOGUE_CHANNEL, catalogueTable, contractTablesOf, familiesOf, qualified, tableNamed, type TableRec } from './catalogue.js';
import { textRowsOf } from './text-rows.js';

/** What the searches read with: a pool (the LISTEN connection of TableResolver is its own). */
export type Db = pg.Pool;

const sharedStart = (a: string, b: string): number => {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return i;
};

/** PostgREST's embedding depth the planner allows */
const MAX_EMBED_DEPTH = 8;

type Embed = Extract<SelectItem, { kind: 'embed' }>;

/** The contract name an embed's name may designate: `Order`, `Acme-Order`, `Acme-Order@1` → `Order`. */
function contractOf(name: string): string {
  const base = name.replace(/@[1-9][0-9]*$/, '');
  return base.slice(base.lastIndexOf('-') + 1);
}

/** A table version with the API name that designates it: the family's name for its newest version, `<family>@<n>` for older ones. */
interface Version {
  readonly name: string;
  readonly rec: TableRec;
}

/** A relation and the versions it reads, whose tables the catalogue needs too. */
interface Found {
  readonly relation: CatalogueRelation;
  readonly versions: readonly Version[];
}

function relationOver(versions: readonly Version[], relation: Omit<CatalogueRelation, 'target' | 'alsoIn'>): Found {
  const [first, ...older] = versions;
  return { relation: { ...relation, target: first.name, ...(older.length ? { alsoIn: older.map((v) => v.name) } : {}) }, versions };
}

/**
 * The catalogue one query needs: its table, and for each embed the tables it
 * reads, recursively, each with the chains its rows lie on (as far as
 * deciding visibility needs them: an embedded table the caller may not see
 * reads like one that does not exist).
 *
 * Relations come from contract-typed variables (`Item last;`), joining the
 * variable's value to the referred contract's `address` on the same chain:
 * - forward, to one: from a table of the referring contract (and its history)
 *   to the referred family, named by the contract (`Item`), by the family
 *   (`Acme-Item`) and by the variable (`last`, PostgREST's column embed),
 *   hint the variable;
 * - reverse, to many: from a contract table of the referred family to the
 *   referring family's tables, named by that contract (`Order`) and family
 *   (`Acme-Order`), hint the variable (`Order!buyer`);
 * - a family referring to itself follows PostgREST's self-relationship
 *   convention: the contract's name embeds the rows that refer to this one
 *   (reverse), the variable's name the row this one refers to.
 * A relation reads every version of the family that has the row (forward) or
 * the variable (reverse): contracts keep the version they were created in.
 */
class QueryCatalogue {
  private readonly tables = new Map<string, CatalogueTable>();
  private readonly byContract = new Map<string, Promise<TableRec[]>>();

  constructor(
    private readonly pool: Db,
    private readonly visible: readonly string[],
    private readonly chainsOf: (rec: TableRec, visible: readonly string[]) => Promise<ReadonlySet<string> | undefined>,
  ) {}

  list(): CatalogueTable[] {
    return [...this.tables.values()];
  }

  private contractTables(contract: string): Promise<TableRec[]> {
    let found = this.byContract.get(contract);
    if (!found) {
      found = contractTablesOf(this.pool, contract);
      this.byContract.set(contract, found);
    }
    return found;
  }

  /**
   * The family of `contract` a table of family `from` refers to: of the
   * families of that contract name, the one whose name shares the longest
   * start with `from` (same organization, same application), or the only one.
   */
  private async referredFamily(from: string, contract: string): Promise<string | undefined> {
    const families = [...new Set((await this.contractTables(contract)).map((r) => r.family))];
    if (families.length <= 1) return families[0];
    const ranked = families.map((f) => [f, sharedStart(f, from)] as const).sort((x, y) => y[1] - x[1]);
    return ranked[0][1] > ranked[1][1] ? ranked[0][0] : undefined;
  }

  private async versions(family: string, contract: string): Promise<Version[]> {
    const recs = (await this.contractTables(contract)).filter((r) => r.family === family);
    return recs.map((rec, i) => ({ name: i === 0 ? family : `${family}@${rec.version}`, rec }));
  }

  /** Adds a table with the relations its embeds (`select`) use, and the tables they read. */
  async add(name: string, rec: TableRec, select: readonly SelectItem[], depth = 0): Promise<void> {
    const embeds = select.filter((item): item is Embed => item.kind === 'embed');
    const found = embeds.length > 0 && depth < MAX_EMBED_DEPTH ? [...(await this.references(rec, embeds)), ...(await this.referrers(rec, embeds))] : [];
    const seen = this.tables.get(name);
    if (seen) {
      const relations = [...(seen.relations ?? [])];
      for (const { relation } of found) if (!relations.some((r) => JSON.stringify(r) === JSON.stringify(relation))) relations.push(relation);
      this.tables.set(name, { ...seen, relations });
    } else {
      const chains = await this.chainsOf(rec, this.visible);
      const table = catalogueTable(name, rec, found.map((f) => f.relation));
      this.tables.set(name, chains ? { ...table, chains } : table);
    }
    for (const { relation, versions } of found) {
      const nested = embeds.filter((e) => e.relation === relation.name).flatMap((e) => e.select);
      for (const v of versions) if (nested.length > 0 || !this.tables.has(v.name)) await this.add(v.name, v.rec, nested, depth + 1);
    }
  }

  /** Forward relations: the contracts this table's variables refer to. */
  private async references(rec: TableRec, embeds: readonly Embed[]): Promise<Found[]> {
    if (rec.kind !== 'contract' && rec.kind !== 'history') return [];
    // a history table's variables are those of the contract table of its version
    const vars = rec.kind === 'contract' ? rec.vars : ((await this.contractTables(rec.contract)).find((r) => r.family === rec.family && r.version === rec.version)?.vars ?? []);
    const out: Found[] = [];
    for (const v of vars) {
      if (!v.ref || !v.column || !embeds.some((e) => e.relation === v.name || contractOf(e.relation) === v.ref)) continue;
      const family = await this.referredFamily(rec.family, v.ref);
      if (family === undefined) continue;
      const versions = await this.versions(family, v.ref);
      // a history table has no reverse relations, so its contract's name stays the forward one
      const self = family === rec.family && rec.kind === 'contract';
      for (const name of new Set([v.name, ...(self ? [] : [v.ref, family])])) {
        out.push(relationOver(versions, { name, on: [[v.name, 'address'], ['chainId', 'chainId']], cardinality: 'one' }));
      }
    }
    return out;
  }

  /** Reverse relations: the contracts whose variables refer to this table's (contract tables only). */
  private async referrers(rec: TableRec, embeds: readonly Embed[]): Promise<Found[]> {
    if (rec.kind !== 'contract') return [];
    const out: Found[] = [];
    for (const contract of new Set(embeds.map((e) => contractOf(e.relation)))) {
      // (family, variable) → the versions of that family where the variable refers to this contract
      const groups = new Map<string, { family: string; variable: string; recs: Set<TableRec> }>();
      for (const t of await this.contractTables(contract)) {
        for (const v of t.vars) {
          if (v.ref !== rec.contract || !v.column) continue;
          const key = JSON.stringify([t.family, v.name]);
          const group = groups.get(key) ?? { family: t.family, variable: v.name, recs: new Set<TableRec>() };
          group.recs.add(t);
          groups.set(key, group);
        }
      }
      // as a requested table's name: a family named exactly so takes the bare name, else it stands for every family of it
      const exact = [...groups.values()].some((g) => g.family === contract);
      for (const { family, variable, recs } of groups.values()) {
        if ((await this.referredFamily(family, rec.contract)) !== rec.family) continue;
        const versions = (await this.versions(family, contract)).filter((v) => recs.has(v.rec));
        for (const name of new Set(exact ? [family] : [contract, family])) {
          out.push(relationOver(versions, { name, on: [['address', variable], ['chainId', 'chainId']], cardinality: 'many', hint: variable }));
        }
      }
    }
    return out;
  }
}

/**
 * Enough of the chains a table's rows lie on to decide whether the caller
 * may know the table exists (docs/conventions.md "Cirrus": a table all of whose
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

/**
 * What a requested name designates before the caller is known: the table of
 * exactly that name, or, for each reading of it with a bare contract name,
 * the families of that contract name, each with its contract table (whose
 * rows decide whether a caller may know of the family) and the table the
 * name stands for in it, if that family has one.
 */
export type Designation =
  | { readonly exact: TableRec }
  | { readonly bare: ReadonlyArray<{ readonly contract: string; readonly families: ReadonlyArray<{ readonly family: string; readonly contractTable: TableRec; readonly rec: TableRec | undefined }> }> };

export async function designationOf(pool: Db, name: string): Promise<Designation> {
  const exact = await tableNamed(pool, name);
  if (exact) return { exact };
  const bare: Array<{ contract: string; families: Array<{ family: string; contractTable: TableRec; rec: TableRec | undefined }> }> = [];
  for (const reading of bareReadings(name)) {
    const families: Array<{ family: string; contractTable: TableRec; rec: TableRec | undefined }> = [];
    for (const family of await familiesOf(pool, reading.contract)) {
      const contractTable = await tableNamed(pool, family);
      if (contractTable) families.push({ family, contractTable, rec: await tableNamed(pool, reading.rebuild(family)) });
    }
    if (families.length > 0) bare.push({ contract: reading.contract, families });
  }
  return { bare };
}

/**
 * The table a designation names for a caller who may know of the tables for
 * which `mayKnow` is true. An exact name is itself (whether the caller may
 * see it is the planner's question: 404 as for a missing one). A bare
 * contract name resolves among the families whose contract table the caller
 * may know of only, so that neither its answer nor a 409's list of names
 * tells of a table the caller may not see; TABLE_AMBIGUOUS when several remain.
 */
export async function pickTable(designation: Designation, name: string, mayKnow: (rec: TableRec) => Promise<boolean>): Promise<TableRec | undefined> {
  if ('exact' in designation) return designation.exact;
  for (const { contract, families } of designation.bare) {
    const known: typeof families[number][] = [];
    for (const f of families) if (await mayKnow(f.contractTable)) known.push(f);
    if (known.length === 0) continue;
    if (known.length > 1) {
      const names = known.map((f) => f.family);
      throw new PlatformError('TABLE_AMBIGUOUS', `${contract} names the contract of more than one table; use one of ${names.join(', ')}`, { table: name, tables: names });
    }
    return known[0].rec;
  }
  return undefined;
}

/** designationOf then pickTable, unremembered (by default for a caller who may know of every table). */
export async function resolveTable(pool: Db, name: string, mayKnow: (rec: TableRec) => Promise<boolean> = async () => true): Promise<TableRec | undefined> {
  return pickTable(await designationOf(pool, name), name, mayKnow);
}

/**
 * Names resolved to tables, and the plans of queries, remembered while a
 * connection LISTENs to the catalogue's change notices (the indexer notifies
 * in the transaction that changes it; PostgreSQL delivers at commit). A
 * notice clears everything; a resolution or plan that raced a notice is not
 * remembered; without the listening connection nothing is remembered, so a
 * change is never missed. A plan also depends on the chains the tables it
 * reads have rows on (rowChains, remembered ROW_CHAINS_TTL_MS): it is
 * remembered no longer than the earliest of those it was made with.
 */
const ROW_CHAINS_TTL_MS = 1_000;
/** plans remembered at most (then all are forgotten, as a notice does); queries longer than MAX_PLAN_QUERY are planned every time */
const MAX_PLANS = 2_000;
const MAX_PLAN_QUERY = 2_048;
/**
 * Statements run as prepared statements (as PostgREST does), where the
 * resolver is asked to (`prepare`): parsed and analysed once per connection
 * instead of at every query, still planned for each query's values (custom
 * plans). A statement's text
 * depends on the query's shape, not its values, so a few names serve most
 * queries; past this many texts, further ones run unprepared, which bounds
 * what each connection keeps.
 */
const MAX_STATEMENTS = 256;

/** The earliest moment a fact a plan was made from may have changed. */
interface Freshness {
  until: number;
}

export class TableResolver {
  private readonly cache = new Map<string, Designation>();
  private readonly chains = new Map<string, { chains: Promise<ReadonlySet<string> | undefined>; until: number }>();
  private readonly plans = new Map<string, { plan: QueryPlan; generation: number; until: number }>();
  /** statement text → its prepared statement's name (never reused for another text) */
  private readonly statements = new Map<string, string>();
  private statementsNamed = 0;
  private generation = 0;
  private listening = false;
  private listener: pg.Client | undefined;
  private retry: NodeJS.Timeout | undefined;
  private stopped = false;

  private readonly applicationName: string;
  private readonly prepare: boolean;

  constructor(
    private readonly pool: Db,
    private readonly databaseUrl: string,
    private readonly logger: Logger,
    options: {
      /** the LISTEN connection's name in pg_stat_activity; default `cirrus-catalogue` */
      applicationName?: string;
      /**
       * run queries as prepared statements (statementName); only on a pool
       * whose sessions have `plan_cache_mode=force_custom_plan`: a generic
       * plan, made once for every caller, can be ruinous for another (a
       * private chain's few rows read through the plan of the main chain's
       * many: seconds instead of a fraction of a millisecond)
       */
      prepare?: boolean;
    } = {},
  ) {
    this.applicationName = options.applicationName ?? 'cirrus-catalogue';
    this.prepare = options.prepare ?? false;
  }

  /** Connects and LISTENs; a failure here fails the start (and is retried every second), later losses reconnect every second. */
  async start(): Promise<void> {
    const client = new pg.Client({ connectionString: this.databaseUrl, application_name: this.applicationName });
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
    this.chains.clear();
    this.plans.clear();
  }

  /** The plan remembered for this key, while nothing it was made from may have changed. */
  plan(key: string): QueryPlan | undefined {
    if (!this.listening) return undefined;
    const hit = this.plans.get(key);
    if (!hit) return undefined;
    if (hit.generation === this.generation && hit.until > Date.now()) return hit.plan;
    this.plans.delete(key);
    return undefined;
  }

  /** The prepared statement's name for a plan's statement, while fewer than MAX_STATEMENTS have one. */
  statementName(sql: string): string | undefined {
    if (!this.prepare) return undefined;
    let name = this.statements.get(sql);
    if (name === undefined && this.statements.size < MAX_STATEMENTS) {
      name = `${this.applicationName.replace(/[^a-z0-9]/g, '_')}_q${++this.statementsNamed}`;
      this.statements.set(sql, name);
    }
    return name;
  }

  /** A statement whose prepared form PostgreSQL refused: its text gets a new name (a new PREPARE) next time. */
  forgetStatement(sql: string): void {
    this.statements.delete(sql);
  }

  /** The catalogue's state a plan about to be made will reflect (pass it to remember). */
  get catalogueGeneration(): number {
    return this.generation;
  }

  /** Remembers a plan made at `generation` from facts fresh until `fresh.until`. */
  remember(key: string, plan: QueryPlan, generation: number, fresh: Freshness): void {
    if (!this.listening || generation !== this.generation || fresh.until <= Date.now()) return;
    if (this.plans.size >= MAX_PLANS) this.plans.clear();
    this.plans.set(key, { plan, generation, until: fresh.until });
  }

  /**
   * rowChains, remembered for ROW_CHAINS_TTL_MS per table and set of visible
   * chains: it is a query of its own, and every search needs it. For that
   * long, a table whose last row on a chain was just deleted may still
   * answer an empty list where it would answer 404; a table that just got
   * its first visible row may still answer 404.
   */
  rowChains(rec: TableRec, visible: readonly string[], fresh?: Freshness): Promise<ReadonlySet<string> | undefined> {
    const key = `${rec.sqlName}\n${visible.join(',')}`;
    const now = Date.now();
    const hit = this.chains.get(key);
    if (hit && hit.until > now) {
      if (fresh && hit.until < fresh.until) fresh.until = hit.until;
      return hit.chains;
    }
    const chains = rowChains(this.pool, rec, visible);
    if (this.chains.size >= 10_000) this.chains.clear();
    this.chains.set(key, { chains, until: now + ROW_CHAINS_TTL_MS });
    if (fresh && now + ROW_CHAINS_TTL_MS < fresh.until) fresh.until = now + ROW_CHAINS_TTL_MS;
    // a failure is not remembered
    chains.catch(() => this.chains.delete(key));
    return chains;
  }

  /** The table `name` designates for a caller who sees the rows of the chains `visible` (see pickTable). */
  async resolve(name: string, visible: readonly string[], fresh?: Freshness): Promise<TableRec | undefined> {
    let designation = this.listening ? this.cache.get(name) : undefined;
    if (!designation) {
      const generation = this.generation;
      designation = await designationOf(this.pool, name);
      const found = 'exact' in designation || designation.bare.length > 0;
      if (found && this.listening && generation === this.generation) {
        if (this.cache.size >= 10_000) this.cache.clear();
        this.cache.set(name, designation);
      }
    }
    // as the planner decides a table's visibility: no rows at all, or rows on a chain the caller sees
    return pickTable(designation, name, async (rec) => {
      const chains = await this.rowChains(rec, visible, fresh);
      return chains === undefined || visible.some((chain) => chains.has(chain));
    });
  }
}

// eslint-disable-next-line no-control-regex -- control characters are what they look for
const CONTROL = /[\u0000-\u001f\u007f]/;
// eslint-disable-next-line no-control-regex -- as above
const CONTROL_ALL = /[\u0000-\u001f\u007f]/g;

/** `visible`: the chains whose rows the caller may see (the chains service's answer; '' is the main chain). */
export async function search(pool: Db, resolver: TableResolver, request: SearchRequest, visible: readonly string[]): Promise<SearchResponse> {
  if (typeof request?.table !== 'string' || typeof request.query !== 'string') {
    throw new PlatformError('BAD_QUERY', 'a search needs a table name and a query string');
  }
  // a name is looked up as a bound value, but PostgreSQL's text refuses a NUL (a 500), and no table has a control character
  if (CONTROL.test(request.table)) throw new PlatformError('BAD_QUERY', 'a table name has no control characters (%00 to %1F, %7F)', { table: request.table.replace(CONTROL_ALL, '?') });
  // the same request of a caller who sees the same chains, while the catalogue and the tables' chains are as they were: the same plan
  const key = request.query.length <= MAX_PLAN_QUERY ? JSON.stringify([request.table, request.query, request.prefer ?? null, visible]) : undefined;
  let plan = key === undefined ? undefined : resolver.plan(key);
  if (!plan) {
    const generation = resolver.catalogueGeneration;
    const fresh: Freshness = { until: Date.now() + ROW_CHAINS_TTL_MS };
    const ast = parseQuery(request.query, request.prefer === undefined ? {} : { prefer: request.prefer });
    const rec = await resolver.resolve(request.table, visible, fresh);
    const tables = new QueryCatalogue(pool, visible, (r, chains) => resolver.rowChains(r, chains, fresh));
    if (rec) await tables.add(request.table, rec, ast.select);
    const catalogue = catalogueOf(tables.list());
    plan = planQuery(ast, catalogue, { table: request.table, visibleChains: visible });
    if (key !== undefined) resolver.remember(key, plan, generation, fresh);
  }
  const statementName = resolver.statementName(plan.sql);
  // the rows as PostgreSQL's text, written to JSON as they are (text-rows.ts)
  const rows = textRowsOf(pool);
  let result;
  try {
    result = await runQueryJson(rows, plan, statementName === undefined ? {} : { statementName });
  } catch (err) {
    // 0A000 "cached plan must not change result type": a table of that name was dropped and made again
    // with other column types (a rebuilt read model) since this connection prepared the text
    if (statementName === undefined || (err as { code?: unknown } | null)?.code !== '0A000') throw err;
    resolver.forgetStatement(plan.sql);
    result = await runQueryJson(rows, plan);
  }
  return {
    rows: result.json,
    status: result.status as SearchResponse['status'],
    ...(result.contentRange ? { contentRange: result.contentRange } : {}),
    ...(result.message ? { message: result.message } : {}),
  };
}
