// planQuery: a QueryAst checked against the catalogue and translated into one
// parameterised statement (plus the count statement used when the page is
// empty). Every identifier comes from the catalogue, every request value is a
// bound parameter, and the caller's row visibility is part of every WHERE.
import type { QueryAst } from '../ast.js';
import { castsOf } from './casts.js';
import type { Catalogue } from '../catalogue.js';
import { badQuery, echo, notFound } from '../errors.js';
import { type PlanContext, newScope, tableRef, tableVisible } from './context.js';
import { attachEmbedded } from './embedded.js';
import { type OutputColumn, isCount, levelWhere, orderOf, orderSql, selectColumns } from './select.js';
import { type Fragment, join, param, sql } from './sql.js';

/** PostgreSQL allows 1664 output columns and 65535 bound parameters; stay well inside both. */
export const MAX_OUTPUT_COLUMNS = 1000;
export const MAX_BINDINGS = 30_000;

export interface PlanOptions {
  /** API name of the table (the path of `/cirrus/search/<table>`) */
  readonly table: string;
  /** chain IDs whose rows the caller may see; the main chain is the empty string */
  readonly visibleChains: readonly string[];
}

export interface QueryPlan {
  readonly table: string;
  /** the statement, `?` placeholders for knex.raw */
  readonly sql: string;
  readonly bindings: readonly unknown[];
  /** output columns in order; when `count`, the statement has one more: the total */
  readonly columns: readonly OutputColumn[];
  /** the total alone, for when the page is empty (offsets past the end, limit=0) */
  readonly countSql: string | null;
  readonly countBindings: readonly unknown[];
  readonly limit: number | null;
  readonly offset: number;
  readonly count: boolean;
  /** the select's casts as written: a statement PostgreSQL refuses for a value or a cast is then the request's fault (src/run.ts) */
  readonly casts: readonly string[];
}

export function planQuery(ast: QueryAst, catalogue: Catalogue, options: PlanOptions): QueryPlan {
  // parameters naming embeds that select does not have are refused before anything is looked up
  const ctx: PlanContext = { catalogue, visibleChains: options.visibleChains, embedded: attachEmbedded(ast.select, ast.embedded), aliases: 0 };
  const table = catalogue.table(options.table);
  // a table whose rows all lie on chains the caller cannot see is a 404, worded as for a missing one
  if (!table || !tableVisible(ctx, table)) throw notFound(`no table named ${echo(options.table)}`, { table: options.table });
  const scope = newScope(ctx, table, 't');

  const all = levelWhere(ctx, scope, ast.select, ast.where, [table]);
  const where = all.length ? join(all, ' AND ') : sql`TRUE`;
  const from = sql`${tableRef(table)} AS ${scope.alias} WHERE ${where}`;

  const counts = ast.select.filter((item) => isCount(scope, item));
  let columns: Array<OutputColumn & { expr: Fragment }>;
  let order: Fragment | null = null;
  if (counts.length > 0) {
    if (counts.length !== ast.select.length) throw badQuery('count cannot be combined with other columns in select');
    columns = counts.map((item) => ({
      key: item.kind !== 'star' && item.alias ? item.alias : 'count',
      kind: 'count' as const,
      expr: sql`count(*)`,
    }));
    // an order is checked, but one aggregated row has nothing to order
    if (ast.order) orderSql(ctx, scope, ast.order, ast.select);
  } else {
    columns = selectColumns(ctx, scope, ast.select);
    order = ast.order ? orderSql(ctx, scope, ast.order, ast.select) : orderOf(scope, table.defaultOrder ?? []);
  }
  if (columns.length > MAX_OUTPUT_COLUMNS) throw badQuery(`at most ${MAX_OUTPUT_COLUMNS} columns can be selected`);

  const countQuery = sql`SELECT count(*) FROM ${from}`;
  const outputs = columns.map((c) => c.expr);
  if (ast.count) outputs.push(sql`(${countQuery})`);
  let statement = sql`SELECT ${join(outputs, ', ')} FROM ${from}`;
  if (order) statement = sql`${statement} ORDER BY ${order}`;
  if (ast.limit !== null) statement = sql`${statement} LIMIT ${param(ast.limit)}`;
  if (ast.offset > 0) statement = sql`${statement} OFFSET ${param(ast.offset)}`;
  if (statement.values.length > MAX_BINDINGS) throw badQuery('the query is too large');

  return {
    table: table.name,
    sql: statement.text,
    bindings: statement.values,
    columns: columns.map(({ key, kind }) => ({ key, kind })),
    countSql: ast.count ? countQuery.text : null,
    countBindings: ast.count ? countQuery.values : [],
    limit: ast.limit,
    offset: ast.offset,
    count: ast.count,
    casts: castsOf(ast.select),
  };
}
