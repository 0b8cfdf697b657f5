// The indexed tables and their catalogue. Every table is a row of
// `cirrus.tables` (internal SQL name `c_<n>`, family, version, kind, member,
// columns, and for contract tables the variables with their shapes) and
// answers to the API names of `cirrus.names`. API names never reach SQL:
// tables are `c_<n>`, variable columns `v_<n>`, event argument columns
// `a_<n>`, so PostgreSQL's 63-byte limit and quoting never concern users.
import { CATALOGUE_CHANNEL, qualified, tableRecords, type CatalogueVar, type ColumnDef, type TableRec as CatalogueRec } from '@platform/cirrus-read';
import type { Client } from './db.js';
import { namesOf, type TableKind } from './naming.js';
import { SQL_TYPE, columnTypeOf, sameShape, type Shape } from './shapes.js';

export type { TableKind } from './naming.js';
// the catalogue's format and schema are shared with the read path (@platform/cirrus-read)
export { CATALOGUE_CHANNEL, SCHEMA, qualified, type ColumnDef, type ColumnOrigin } from '@platform/cirrus-read';

/** A state variable of a contract table: its column (scalars, structs, mappings' 40 zeros) and/or its side table (arrays, mappings). */
export interface VarDef extends CatalogueVar {
  shape: Shape;
}

/** A variable of an upload: its name, shape and, when contract-typed, the contract's name. */
export type NewVar = readonly [name: string, shape: Shape, ref?: string];

/** An indexed table's record as the indexer keeps it: the catalogue's, with each variable's shape. */
export type TableRec = CatalogueRec<VarDef>;

/** The spec's inherited columns of contract and history tables, in this order. */
export const INHERITED: readonly ColumnDef[] = [
  ['address', 'address', 'text', 'inherited'],
  ['chainId', 'chain_id', 'text', 'inherited'],
  ['record_id', 'record_id', 'text', 'inherited'],
  ['block_hash', 'block_hash', 'text', 'inherited'],
  ['block_timestamp', 'block_timestamp', 'text', 'inherited'],
  ['block_number', 'block_number', 'integer', 'inherited'],
  ['transaction_hash', 'transaction_hash', 'text', 'inherited'],
  ['transaction_sender', 'transaction_sender', 'text', 'inherited'],
];

const INHERITED_DDL = `address text NOT NULL, chain_id text NOT NULL, record_id text NOT NULL,
  block_hash text NOT NULL, block_timestamp text NOT NULL, block_number bigint NOT NULL,
  transaction_hash text NOT NULL, transaction_sender text NOT NULL`;

/** Event tables: `id`, `address`, `chainId`, the arguments (inserted before the trailing three), then these. */
const EVENT_HEAD: readonly ColumnDef[] = [
  ['id', 'id', 'integer', 'id'],
  ['address', 'address', 'text', 'inherited'],
  ['chainId', 'chain_id', 'text', 'inherited'],
];
const EVENT_TAIL: readonly ColumnDef[] = [
  ['transaction_hash', 'transaction_hash', 'text', 'inherited'],
  ['block_number', 'block_number', 'integer', 'inherited'],
  ['block_timestamp', 'block_timestamp', 'text', 'inherited'],
];

export const MAPPING_VALUE = '0'.repeat(40);
/** PostgreSQL allows 1600 columns a table; dropped ones count too, and history has one more */
const MAX_COLUMNS = 1500;

type Queryable = Pick<Client, 'query'>;

/** The contract tables of a family, newest version first. */
export async function familyVersions(db: Queryable, family: string): Promise<TableRec[]> {
  return tableRecords<VarDef>(db, "WHERE t.family = $1 AND t.kind = 'contract' ORDER BY t.version DESC", [family]);
}

export async function tablesBySqlName(db: Queryable, sqlNames: string[]): Promise<TableRec[]> {
  if (sqlNames.length === 0) return [];
  return tableRecords<VarDef>(db, 'WHERE t.sql_name = ANY($1)', [sqlNames]);
}

async function notifyCatalogueChanged(client: Queryable): Promise<void> {
  // several in one transaction are delivered as one
  await client.query(`NOTIFY ${CATALOGUE_CHANNEL}`);
}

export type Warn = (fields: Record<string, unknown>, message: string) => void;

/**
 * What the indexer knows of the catalogue between blocks: valid only while
 * this process is the one applying blocks (the consumer drops it when the
 * stored progress is not the one it left, and when a block fails, since a
 * rolled-back block's changes to these records did not happen).
 */
export class CatalogueCache {
  readonly bySql = new Map<string, TableRec>();
  readonly families = new Map<string, TableRec[]>();
  readonly events = new Map<string, TableRec | undefined>();
  /** contract table → its history table */
  readonly histories = new Map<string, TableRec>();
  /** contract account → its table (null: a contract cirrus does not index) */
  readonly contracts = new Map<string, string | null>();

  clear(): void {
    for (const m of [this.bySql, this.families, this.events, this.histories, this.contracts]) m.clear();
  }
}

/**
 * The tables of one transaction of the indexer: reads the catalogue once per
 * table, creates and alters tables inside the caller's transaction (so a
 * rolled-back block leaves no table behind), and logs what it refuses.
 * `beforeDdl` runs before any DDL, so that rows buffered for a table are
 * written with the columns they were built for.
 */
export class TableSet {
  private readonly bySql: Map<string, TableRec>;
  private readonly families: Map<string, TableRec[]>;
  private readonly events: Map<string, TableRec | undefined>;
  private readonly histories: Map<string, TableRec>;

  constructor(
    cache: CatalogueCache,
    private readonly client: Client,
    private readonly seq: number,
    private readonly warn: Warn,
    private readonly beforeDdl: () => Promise<void>,
  ) {
    ({ bySql: this.bySql, families: this.families, events: this.events, histories: this.histories } = cache);
  }

  /** Loads these tables (one query) for `get`; answers them. */
  async load(sqlNames: Iterable<string>): Promise<TableRec[]> {
    const wanted = [...new Set(sqlNames)];
    const missing = wanted.filter((n) => !this.bySql.has(n));
    for (const rec of await tablesBySqlName(this.client, missing)) this.bySql.set(rec.sqlName, rec);
    return wanted.flatMap((n) => this.bySql.get(n) ?? []);
  }

  /** The side table of a variable. */
  async side(v: VarDef): Promise<TableRec> {
    const rec = await this.get(v.side!);
    if (!rec) throw new Error(`the side table ${v.side} of ${v.name} is not in the catalogue`);
    return rec;
  }

  async get(sqlName: string): Promise<TableRec | undefined> {
    if (!this.bySql.has(sqlName)) await this.load([sqlName]);
    return this.bySql.get(sqlName);
  }

  private async versions(family: string): Promise<TableRec[]> {
    let list = this.families.get(family);
    if (!list) {
      list = (await familyVersions(this.client, family)).map((r) => this.bySql.get(r.sqlName) ?? r);
      for (const rec of list) this.bySql.set(rec.sqlName, rec);
      this.families.set(family, list);
    }
    return list;
  }

  private async ddl(statements: string[]): Promise<void> {
    await this.beforeDdl();
    for (const statement of statements) await this.client.query(statement);
  }

  private async create(rec: Omit<TableRec, 'sqlName'>, body: (table: string) => string[]): Promise<TableRec> {
    const { rows } = await this.client.query<{ id: string }>("SELECT nextval('cirrus.table_ids') AS id");
    const table: TableRec = { ...rec, sqlName: `c_${rows[0].id}` };
    await this.ddl(body(qualified(table.sqlName)));
    await this.client.query(
      'INSERT INTO cirrus.tables (sql_name, family, version, kind, member, contract, columns, vars, created_seq) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)',
      [table.sqlName, table.family, table.version, table.kind, table.member, table.contract, JSON.stringify(table.columns), JSON.stringify(table.vars), this.seq],
    );
    this.bySql.set(table.sqlName, table);
    await this.claimNames(table);
    await notifyCatalogueChanged(this.client);
    return table;
  }

  /**
   * Points the table's API names at it. Contract, history and event tables
   * take their names over (a newer version takes the family's name); a side
   * table takes a name only from an older version of its own family and
   * variable: a name another table holds is refused and logged.
   */
  private async claimNames(table: TableRec): Promise<void> {
    for (const name of namesOf(table.kind, table.family, table.version, table.member)) {
      const { rows } = await this.client.query<{ family: string; kind: TableKind; member: string; sql_name: string }>(
        'SELECT t.family, t.kind, t.member, t.sql_name FROM cirrus.names n JOIN cirrus.tables t ON t.sql_name = n.sql_name WHERE n.api_name = $1',
        [name],
      );
      const holder = rows[0];
      if (holder && table.kind === 'side' && !(holder.kind === 'side' && holder.family === table.family && holder.member === table.member)) {
        this.warn({ table: name, variable: table.member, heldBy: holder.kind }, 'a side table would take the name of another table; the side table is not reachable under that name');
        continue;
      }
      if (holder?.kind === 'side' && table.kind !== 'side') {
        this.warn({ table: name }, 'a contract table takes a name a side table had; the side table is no longer reachable under it');
      }
      await this.client.query('INSERT INTO cirrus.names (api_name, sql_name) VALUES ($1, $2) ON CONFLICT (api_name) DO UPDATE SET sql_name = EXCLUDED.sql_name', [name, table.sqlName]);
    }
  }

  private async save(rec: TableRec): Promise<void> {
    await this.client.query('UPDATE cirrus.tables SET columns = $2, vars = $3 WHERE sql_name = $1', [rec.sqlName, JSON.stringify(rec.columns), JSON.stringify(rec.vars)]);
    await notifyCatalogueChanged(this.client);
  }

  /**
   * The contract table (newest version of the family whose variables all keep
   * their shapes, or a new version) with a column or side table for each
   * variable, and its history table.
   */
  async ensureContract(family: string, contract: string, vars: readonly NewVar[], sides: boolean): Promise<TableRec> {
    const versions = await this.versions(family);
    let table = versions.find((rec) => vars.every(([name, shape]) => {
      const seen = rec.vars.find((v) => v.name === name);
      return !seen || sameShape(seen.shape, shape);
    }));
    if (!table) {
      const version = (versions[0]?.version ?? 0) + 1;
      if (versions.length > 0) this.warn({ table: family, version }, 'a state variable changed type; the contract gets a new table version');
      table = await this.create({ family, version, kind: 'contract', member: '', contract, columns: [...INHERITED], vars: [] }, (t) => [
        // record_id is address and chain ID in one: the primary key already makes it unique
        `CREATE TABLE ${t} (${INHERITED_DDL}, PRIMARY KEY (address, chain_id))`,
        `CREATE INDEX ON ${t} (block_number)`,
        `CREATE INDEX ON ${t} (chain_id)`,
      ]);
      const history = await this.create({ family, version, kind: 'history', member: '', contract, columns: [...INHERITED], vars: [] }, (t) => [
        // h_seq: the order rows were written, the tie-breaker of history's default order
        `CREATE TABLE ${t} (h_seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, ${INHERITED_DDL})`,
        `CREATE INDEX ON ${t} (address, chain_id)`,
        `CREATE INDEX ON ${t} (block_number)`,
      ]);
      this.histories.set(table.sqlName, history);
      versions.unshift(table);
    }
    const added = vars.filter(([name]) => !table.vars.some((v) => v.name === name));
    if (added.length > 0) await this.addVars(table, added, sides);
    return table;
  }

  /** The history table of a contract table (same family and version). */
  async historyOf(table: TableRec): Promise<TableRec> {
    const cached = this.histories.get(table.sqlName);
    if (cached) return cached;
    const [found] = await tableRecords<VarDef>(this.client, "WHERE t.family = $1 AND t.version = $2 AND t.kind = 'history'", [table.family, table.version]);
    const rec = this.bySql.get(found.sqlName) ?? found;
    this.bySql.set(rec.sqlName, rec);
    this.histories.set(table.sqlName, rec);
    return rec;
  }

  private async addVars(table: TableRec, added: readonly NewVar[], sides: boolean): Promise<void> {
    const history = await this.historyOf(table);
    const columns: ColumnDef[] = [];
    for (const [name, shape, ref] of added) {
      const def: VarDef = { name, shape, ...(ref ? { ref } : {}) };
      const n = table.vars.length;
      if (shape.k !== 'array') {
        if (table.columns.length + columns.length >= MAX_COLUMNS) {
          this.warn({ table: table.family, variable: name }, 'the contract has more state variables than a table can have columns; this one is not indexed');
          continue;
        }
        def.column = `v_${n}`;
        columns.push(shape.k === 'mapping' ? [name, def.column, 'text', 'mapping'] : [name, def.column, columnTypeOf(shape), 'var']);
      }
      if (sides && (shape.k === 'array' || shape.k === 'mapping')) def.side = (await this.createSide(table, name, shape)).sqlName;
      table.vars.push(def);
    }
    if (columns.length > 0) {
      const alter = columns.map(([, sql, type]) => `ADD COLUMN ${sql} ${SQL_TYPE[type]}`).join(', ');
      await this.ddl([`ALTER TABLE ${qualified(table.sqlName)} ${alter}`, `ALTER TABLE ${qualified(history.sqlName)} ${alter}`]);
      table.columns.push(...columns);
      history.columns.push(...columns);
      await this.save(history);
    }
    await this.save(table);
  }

  /** `<family>-<variable>`: one row per array element or mapping entry. */
  private async createSide(table: TableRec, variable: string, shape: Extract<Shape, { k: 'array' | 'mapping' }>): Promise<TableRec> {
    const [keyApi, keyShape]: [string, Shape] = shape.k === 'array' ? ['index', { k: 'enum' }] : ['key', shape.key];
    const valueShape = shape.k === 'array' ? shape.elem : shape.value;
    const keyType = columnTypeOf(keyShape);
    const valueType = columnTypeOf(valueShape);
    const columns: ColumnDef[] = [
      ['address', 'address', 'text', 'inherited'],
      ['chainId', 'chain_id', 'text', 'inherited'],
      [keyApi, 'k', keyType, shape.k === 'array' ? 'index' : 'key'],
      ['value', 'v', valueType, 'value'],
    ];
    return this.create({ family: table.family, version: table.version, kind: 'side', member: variable, contract: table.contract, columns, vars: [] }, (t) => [
      `CREATE TABLE ${t} (address text NOT NULL, chain_id text NOT NULL, k ${SQL_TYPE[keyType]} NOT NULL, v ${SQL_TYPE[valueType]}, PRIMARY KEY (address, chain_id, k))`,
      `CREATE INDEX ON ${t} (k)`,
    ]);
  }

  /** The event table `<family>.<event>`, created on first sight and given columns for new argument names. */
  async ensureEvent(family: string, contract: string, event: string, args: string[]): Promise<TableRec> {
    const cacheKey = `${family}\0${event}`;
    let table = this.events.get(cacheKey);
    if (!table) {
      [table] = await tableRecords<VarDef>(this.client, "WHERE t.family = $1 AND t.kind = 'event' AND t.member = $2", [family, event]);
    }
    table ??= await this.create({ family, version: 0, kind: 'event', member: event, contract, columns: [...EVENT_HEAD, ...EVENT_TAIL], vars: [] }, (t) => [
      `CREATE TABLE ${t} (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, address text NOT NULL, chain_id text NOT NULL,
         transaction_hash text NOT NULL, block_number bigint NOT NULL, block_timestamp text NOT NULL)`,
      `CREATE INDEX ON ${t} (address, chain_id)`,
      `CREATE INDEX ON ${t} (block_number)`,
    ]);
    this.events.set(cacheKey, table);
    const known = new Set(table.columns.map((c) => c[0]));
    const added: ColumnDef[] = [];
    for (const arg of args) {
      if (known.has(arg)) {
        if (!table.columns.some((c) => c[0] === arg && c[3] === 'arg')) this.warn({ table: `${family}.${event}`, argument: arg }, 'an event argument has the name of a fixed column; it is not indexed');
        continue;
      }
      known.add(arg);
      if (table.columns.length + added.length >= MAX_COLUMNS) {
        this.warn({ table: `${family}.${event}`, argument: arg }, 'the event table has as many columns as a table can have; this argument is not indexed');
        continue;
      }
      added.push([arg, `a_${table.columns.length + added.length}`, 'text', 'arg']);
    }
    if (added.length > 0) {
      await this.ddl([`ALTER TABLE ${qualified(table.sqlName)} ${added.map(([, sql]) => `ADD COLUMN ${sql} text`).join(', ')}`]);
      table.columns.splice(table.columns.length - EVENT_TAIL.length, 0, ...added);
      await this.save(table);
    }
    return table;
  }
}
