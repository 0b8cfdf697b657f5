// The indexed tables and their catalogue. Every table clients can query has a
// row in `cirrus.tables`: its API name (`Item`, `history@Item`,
// `Item.Transfer`), the internal SQL table (`cirrus.c_<n>`) and its columns as
// [API name, SQL name, type, origin]. API names never reach SQL: tables are
// `c_<n>`, variable columns `v_<n>`, event argument columns `a_<n>`, so
// PostgreSQL's 63-byte limit and quoting never concern users.
import type { ColumnType } from '@platform/query';
import type { XabiType } from '@platform/common';
import type { Client } from './db.js';

/** where a column's value comes from */
export type ColumnOrigin = 'inherited' | 'var' | 'mapping' | 'arg' | 'id';
export type ColumnDef = readonly [api: string, sql: string, type: ColumnType, origin: ColumnOrigin];
export type TableKind = 'contract' | 'history' | 'event';

export interface TableRec {
  apiName: string;
  sqlName: string;
  kind: TableKind;
  contract: string;
  columns: ColumnDef[];
}

export const SCHEMA = 'cirrus';

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

/** A state variable's column (the spec's type table), or null when it is not a column (arrays, structs). */
export function columnOfVar(t: XabiType): { type: ColumnType; origin: 'var' | 'mapping'; ddl: string } | null {
  switch (t.type) {
    case 'Int':
    case 'Decimal':
      return { type: 'numeric', origin: 'var', ddl: 'numeric' };
    case 'Enum':
      return { type: 'integer', origin: 'var', ddl: 'integer' };
    case 'Bool':
      return { type: 'boolean', origin: 'var', ddl: 'boolean' };
    case 'String':
    case 'Bytes':
    case 'Address':
    case 'Account':
    case 'Contract':
      return { type: 'text', origin: 'var', ddl: 'text' };
    case 'Mapping':
      return { type: 'text', origin: 'mapping', ddl: 'text' };
    default:
      return null;
  }
}

const DDL_OF: Record<ColumnType, string> = { text: 'text', integer: 'integer', numeric: 'numeric', boolean: 'boolean', jsonb: 'jsonb' };

export const historyName = (contract: string): string => `history@${contract}`;
export const eventName = (contract: string, event: string): string => `${contract}.${event}`;

interface Row {
  api_name: string;
  sql_name: string;
  kind: TableKind;
  contract: string;
  columns: ColumnDef[];
}

const fromRow = (r: Row): TableRec => ({ apiName: r.api_name, sqlName: r.sql_name, kind: r.kind, contract: r.contract, columns: r.columns });

export async function readTable(db: Pick<Client, 'query'>, apiName: string): Promise<TableRec | undefined> {
  const { rows } = await db.query<Row>('SELECT api_name, sql_name, kind, contract, columns FROM cirrus.tables WHERE api_name = $1', [apiName]);
  return rows[0] ? fromRow(rows[0]) : undefined;
}

export const qualified = (sqlName: string): string => `${SCHEMA}.${sqlName}`;

/**
 * The tables of one transaction of the indexer: reads the catalogue once per
 * name, creates and alters tables inside the caller's transaction (so a
 * rolled-back block leaves no table behind), and logs what it refuses.
 */
export class TableSet {
  private readonly cache = new Map<string, TableRec | undefined>();

  constructor(
    private readonly client: Client,
    private readonly seq: number,
    private readonly warn: (fields: Record<string, unknown>, message: string) => void,
  ) {}

  async get(apiName: string): Promise<TableRec | undefined> {
    if (!this.cache.has(apiName)) this.cache.set(apiName, await readTable(this.client, apiName));
    return this.cache.get(apiName);
  }

  private async create(apiName: string, kind: TableKind, contract: string, columns: ColumnDef[], body: (sql: string) => string[]): Promise<TableRec> {
    const { rows } = await this.client.query<{ id: string }>("SELECT nextval('cirrus.table_ids') AS id");
    const sqlName = `c_${rows[0].id}`;
    for (const statement of body(qualified(sqlName))) await this.client.query(statement);
    await this.client.query('INSERT INTO cirrus.tables (api_name, sql_name, kind, contract, columns, created_seq) VALUES ($1, $2, $3, $4, $5, $6)', [
      apiName,
      sqlName,
      kind,
      contract,
      JSON.stringify(columns),
      this.seq,
    ]);
    const rec: TableRec = { apiName, sqlName, kind, contract, columns };
    this.cache.set(apiName, rec);
    return rec;
  }

  private async addColumns(rec: TableRec, added: ColumnDef[], at?: number): Promise<void> {
    if (added.length === 0) return;
    const alter = added.map(([, sql, type]) => `ADD COLUMN ${sql} ${DDL_OF[type]}`).join(', ');
    await this.client.query(`ALTER TABLE ${qualified(rec.sqlName)} ${alter}`);
    if (at === undefined) rec.columns.push(...added);
    else rec.columns.splice(at, 0, ...added);
    await this.client.query('UPDATE cirrus.tables SET columns = $2 WHERE api_name = $1', [rec.apiName, JSON.stringify(rec.columns)]);
  }

  /** Variable columns of `rec` to add for `vars`; a variable whose type changed is refused (logged), never altered. */
  private newVarColumns(rec: TableRec, vars: Array<[string, XabiType]>): ColumnDef[] {
    const added: ColumnDef[] = [];
    const existing = new Map(rec.columns.map((c) => [c[0], c]));
    for (const [name, t] of vars) {
      const col = columnOfVar(t);
      if (col === null) continue;
      const seen = existing.get(name);
      if (seen) {
        if (seen[2] !== col.type || seen[3] !== col.origin) {
          this.warn({ table: rec.apiName, variable: name, was: seen[2], now: col.type }, 'a state variable changed type; its column keeps the first type and the new values are not indexed');
        }
        continue;
      }
      const def: ColumnDef = [name, `v_${rec.columns.length + added.length}`, col.type, col.origin];
      added.push(def);
      existing.set(name, def);
    }
    return added;
  }

  /** The contract table and its history table, created on first sight and given the columns of new variables. */
  async ensureContract(contract: string, vars: Array<[string, XabiType]>): Promise<TableRec> {
    let table = await this.get(contract);
    table ??= await this.create(contract, 'contract', contract, [...INHERITED], (t) => [
      `CREATE TABLE ${t} (${INHERITED_DDL}, PRIMARY KEY (address, chain_id), UNIQUE (record_id))`,
      `CREATE INDEX ON ${t} (block_number)`,
      `CREATE INDEX ON ${t} (chain_id)`,
    ]);
    let history = await this.get(historyName(contract));
    history ??= await this.create(historyName(contract), 'history', contract, [...INHERITED], (t) => [
      // h_seq: the order rows were written (transactions of one block keep their order)
      `CREATE TABLE ${t} (h_seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, ${INHERITED_DDL})`,
      `CREATE INDEX ON ${t} (address, chain_id)`,
      `CREATE INDEX ON ${t} (block_number)`,
    ]);
    const added = this.newVarColumns(table, vars);
    await this.addColumns(table, added);
    // history has the same columns, under the same SQL names
    await this.addColumns(history, added.filter((c) => !history.columns.some((h) => h[0] === c[0])));
    return table;
  }

  /** The event table `<contract>.<event>`, created on first sight and given columns for new argument names. */
  async ensureEvent(contract: string, event: string, args: string[]): Promise<TableRec> {
    const name = eventName(contract, event);
    let table = await this.get(name);
    table ??= await this.create(name, 'event', contract, [...EVENT_HEAD, ...EVENT_TAIL], (t) => [
      `CREATE TABLE ${t} (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, address text NOT NULL, chain_id text NOT NULL,
         transaction_hash text NOT NULL, block_number bigint NOT NULL, block_timestamp text NOT NULL)`,
      `CREATE INDEX ON ${t} (address, chain_id)`,
      `CREATE INDEX ON ${t} (block_number)`,
    ]);
    const known = new Set(table.columns.map((c) => c[0]));
    const added: ColumnDef[] = [];
    for (const arg of args) {
      if (known.has(arg)) {
        if (!table.columns.some((c) => c[0] === arg && c[3] === 'arg')) this.warn({ table: name, argument: arg }, 'an event argument has the name of a fixed column; it is not indexed');
        continue;
      }
      known.add(arg);
      added.push([arg, `a_${table.columns.length + added.length}`, 'text', 'arg']);
    }
    await this.addColumns(table, added, table.columns.length - EVENT_TAIL.length);
    return table;
  }
}
