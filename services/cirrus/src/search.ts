// The query endpoint: the table's catalogue entry is read from `cirrus.tables`
// (so tables and columns the indexer added are visible at once, on every
// instance), then @platform/query parses, checks against it, plans with the
// caller's visible chains, runs and shapes. Nothing of the request reaches
// SQL but bound values.
import { PlatformError } from '@platform/common';
import { catalogueOf, columnsOf, parseQuery, planQuery, runQuery, toJson, type CatalogueTable, type OrderSpec } from '@platform/query';
import type { SearchRequest, SearchResponse } from '@platform/bus';
import type { Db } from './db.js';
import { SCHEMA, readTable, type TableRec } from './tables.js';

const DEFAULT_ORDER: Record<TableRec['kind'], OrderSpec[]> = {
  contract: [{ column: 'block_number' }, { column: 'address' }],
  history: [{ column: 'block_number', direction: 'desc' }],
  event: [{ column: 'id' }],
};

export function catalogueTable(rec: TableRec): CatalogueTable {
  return {
    name: rec.apiName,
    sql: { schema: SCHEMA, name: rec.sqlName },
    columns: columnsOf(rec.columns.map(([api, sql, type]) => [api, sql, type] as const)),
    chainColumn: 'chainId',
    defaultOrder: DEFAULT_ORDER[rec.kind],
  };
}

/** The chains a user sees rows of: the main chain only until private chains are indexed. */
export function visibleChains(_username: string): string[] {
  return [''];
}

export async function search(pool: Db, request: SearchRequest): Promise<SearchResponse> {
  if (typeof request?.table !== 'string' || typeof request.query !== 'string') {
    throw new PlatformError('BAD_QUERY', 'a search needs a table name and a query string');
  }
  const ast = parseQuery(request.query, request.prefer === undefined ? {} : { prefer: request.prefer });
  const rec = await readTable(pool, request.table);
  const catalogue = catalogueOf(rec ? [catalogueTable(rec)] : []);
  const plan = planQuery(ast, catalogue, { table: request.table, visibleChains: visibleChains(request.username) });
  const result = await runQuery(pool, plan);
  return {
    rows: toJson(result.rows),
    status: result.status as SearchResponse['status'],
    ...(result.contentRange ? { contentRange: result.contentRange } : {}),
    ...(result.message ? { message: result.message } : {}),
  };
}
