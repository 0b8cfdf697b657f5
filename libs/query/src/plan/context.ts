// What the planner carries while it walks one query: the catalogue, the
// caller's visible chains, and a counter for table aliases.
import type { SelectItem } from '../ast.js';
import type { Catalogue, CatalogueColumn, CatalogueTable } from '../catalogue.js';
import type { EmbedParams } from './embedded.js';
import { badQuery, echo } from '../errors.js';
import { type Fragment, alias, ident, param, sql } from './sql.js';

export interface PlanContext {
  readonly catalogue: Catalogue;
  readonly visibleChains: readonly string[];
  /** the filters, order and page the request gives each embed of its select (plan/embedded.ts) */
  readonly embedded: ReadonlyMap<SelectItem, EmbedParams>;
  aliases: number;
}

/** A table as it appears in one query: its catalogue entry and its alias there. */
export interface Scope {
  readonly table: CatalogueTable;
  readonly alias: Fragment;
}

export function newScope(ctx: PlanContext, table: CatalogueTable, kind: 't' | 'e'): Scope {
  return { table, alias: alias(`${kind}${ctx.aliases++}`) };
}

export function tableRef(table: CatalogueTable): Fragment {
  if (typeof table.sql === 'string') return ident(table.sql);
  return sql`${ident(table.sql.schema)}.${ident(table.sql.name)}`;
}

/** A column that must exist (names from the request: a 400 naming it). */
export function column(scope: Scope, name: string): CatalogueColumn {
  const col = scope.table.columns.get(name);
  if (!col) {
    throw badQuery(`column ${echo(name)} does not exist in ${echo(scope.table.name)}`, { column: name, table: scope.table.name });
  }
  return col;
}

/** A column the catalogue itself names (chain column, relation, default order): a missing one is a catalogue bug. */
export function catalogueColumn(table: CatalogueTable, name: string): CatalogueColumn {
  const col = table.columns.get(name);
  if (!col) throw new Error(`catalogue table ${table.name} names a column it does not have: ${name}`);
  return col;
}

export function columnRef(scope: Scope, col: CatalogueColumn): Fragment {
  return sql`${scope.alias}.${ident(col.sql)}`;
}

/** Whether the caller may see any row of a table (docs/conventions.md "Cirrus", privacy). */
export function tableVisible(ctx: PlanContext, table: CatalogueTable): boolean {
  if (table.chainColumn === null || table.chains === undefined) return true;
  return ctx.visibleChains.some((chain) => table.chains!.has(chain));
}

/** The row-visibility predicate: rows of the caller's chains only (or none, for a table of no chain). */
export function visibility(ctx: PlanContext, scope: Scope): Fragment | null {
  const chain = scope.table.chainColumn;
  if (chain === null) return null;
  const col = catalogueColumn(scope.table, chain);
  return sql`${columnRef(scope, col)} = ANY(${param([...ctx.visibleChains], 'text[]')})`;
}
