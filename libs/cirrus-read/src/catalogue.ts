// Cirrus's catalogue as the read path sees it: the schema, the record of
// each indexed table (`cirrus.tables`: internal SQL name `c_<n>`, family,
// version, kind, member, columns, a contract table's variables) and the API
// names (`cirrus.names`) that designate them, read with nothing but SELECT.
// The indexer (services/cirrus) writes them; its own records carry more (each
// variable's shape), which the read path does not need.
import type pg from 'pg';
import { columnsOf, type CatalogueRelation, type CatalogueTable, type ColumnType, type OrderSpec } from '@platform/query';
import type { TableKind } from './naming.js';

export const SCHEMA = 'cirrus';
export const qualified = (sqlName: string): string => `${SCHEMA}.${sqlName}`;

/** The channel on which a committed change of the catalogue is announced (PostgreSQL delivers it at commit). */
export const CATALOGUE_CHANNEL = 'cirrus_catalogue';

/** where a column's value comes from */
export type ColumnOrigin = 'inherited' | 'var' | 'mapping' | 'arg' | 'id' | 'key' | 'index' | 'value';
export type ColumnDef = readonly [api: string, sql: string, type: ColumnType, origin: ColumnOrigin];

/** A state variable of a contract table, as far as reading needs it: its column and/or side table, and the contract it refers to. */
export interface CatalogueVar {
  name: string;
  column?: string;
  side?: string;
  /** a contract-typed variable: the contract's name (its rows embed as `<ref>(…)`) */
  ref?: string;
}

/** One indexed table's record; the indexer's records are the same with richer variables. */
export interface TableRec<V extends CatalogueVar = CatalogueVar> {
  sqlName: string;
  family: string;
  version: number;
  kind: TableKind;
  /** event name, or the variable of a side table */
  member: string;
  /** the bare contract name */
  contract: string;
  columns: ColumnDef[];
  vars: V[];
}

/** A pool, a pool's client or a client: whatever runs one statement. */
export type Queryable = Pick<pg.PoolClient, 'query'>;

// each column named as the record's field, so that a row is the record
const SELECT = 'SELECT t.sql_name AS "sqlName", t.family, t.version, t.kind, t.member, t.contract, t.columns, t.vars FROM cirrus.tables t';

/** The records of `cirrus.tables` that `condition` (SQL after the FROM: joins, WHERE, ORDER BY, on `t`) selects. */
export async function tableRecords<V extends CatalogueVar = CatalogueVar>(db: Queryable, condition: string, params: unknown[]): Promise<TableRec<V>[]> {
  return (await db.query<TableRec<V>>(`${SELECT} ${condition}`, params)).rows;
}

/** The table an exact API name designates. */
export async function tableNamed(db: Queryable, apiName: string): Promise<TableRec | undefined> {
  const [rec] = await tableRecords(db, 'JOIN cirrus.names n ON n.sql_name = t.sql_name WHERE n.api_name = $1', [apiName]);
  return rec;
}

/** The families whose contract tables hold contracts of this (bare) name. */
export async function familiesOf(db: Queryable, contract: string): Promise<string[]> {
  const { rows } = await db.query<{ family: string }>("SELECT DISTINCT family FROM cirrus.tables WHERE contract = $1 AND kind = 'contract' ORDER BY family", [contract]);
  return rows.map((r) => r.family);
}

/** The contract tables holding contracts of this (bare) name: every family, each family's newest version first. */
export async function contractTablesOf(db: Queryable, contract: string): Promise<TableRec[]> {
  return tableRecords(db, "WHERE t.contract = $1 AND t.kind = 'contract' ORDER BY t.family, t.version DESC", [contract]);
}

const DEFAULT_ORDER: Record<TableKind, OrderSpec[]> = {
  contract: [{ column: 'block_number' }, { column: 'address' }],
  // most recent first; rows of one block in reverse transaction order (the write order)
  history: [
    { column: 'block_number', direction: 'desc' },
    { column: 'h_seq', internal: true, direction: 'desc' },
  ],
  event: [{ column: 'id' }],
  side: [{ column: 'address' }, { column: 'chainId' }],
};

/** The query language's view of one table: its columns, chain column, default order and the relations its embeds use. */
export function catalogueTable(name: string, rec: TableRec, relations: readonly CatalogueRelation[] = []): CatalogueTable {
  const columns = columnsOf(rec.columns.map(([api, sql, type]) => [api, sql, type] as const));
  const defaultOrder = rec.kind === 'side' ? [...DEFAULT_ORDER.side, { column: rec.columns[2][0] }] : DEFAULT_ORDER[rec.kind];
  return { name, sql: { schema: SCHEMA, name: rec.sqlName }, columns, chainColumn: 'chainId', defaultOrder, ...(relations.length ? { relations } : {}) };
}
