// The select list → SQL output columns, and embedded resources → correlated
// subqueries that build their JSON in PostgreSQL.
//
// Top-level columns come back as plain values (shaped in src/run.ts); an
// embedded resource comes back as JSON text built with json_build_object,
// whose keys are bound parameters — so API names of any length or spelling
// never become SQL aliases (PostgreSQL truncates identifiers at 63 bytes).
// PostgREST's shapes: a to-one embed is an object or null, a to-many embed an
// array, `[]` when empty (QuerySpec "rows with missing parents are included",
// "rows with no children return [] instead of null").
import type { FieldRef, SelectItem } from '../ast.js';
import type { CatalogueRelation, CatalogueTable, OrderSpec } from '../catalogue.js';
import { badQuery, echo } from '../errors.js';
import {
  type PlanContext,
  type Scope,
  catalogueColumn,
  columnRef,
  newScope,
  tableRef,
  tableVisible,
  visibility,
} from './context.js';
import { pathKey, resolveField } from './fields.js';
import { type Fragment, ident, join, param, sql } from './sql.js';

/** How a top-level output column is turned into a JSON value (src/run.ts). */
export type OutputKind = 'text' | 'numeric' | 'boolean' | 'json' | 'count';

export interface OutputColumn {
  readonly key: string;
  readonly kind: OutputKind;
}

export interface PlannedColumn extends OutputColumn {
  readonly expr: Fragment;
}

/** json_build_object takes at most 100 arguments: 50 key/value pairs. */
const PAIRS_PER_CALL = 50;

/** A JSON object of `[key, value]` pairs, in order, of any width. */
function jsonObject(pairs: ReadonlyArray<readonly [string, Fragment]>): Fragment {
  const call = (chunk: ReadonlyArray<readonly [string, Fragment]>) =>
    sql`json_build_object(${join(chunk.map(([key, value]) => sql`${param(key, 'text')}, ${value}`), ', ')})`;
  if (pairs.length <= PAIRS_PER_CALL) return call(pairs);
  // wider objects: the text of each chunk's object without its braces, joined
  const inner: Fragment[] = [];
  for (let i = 0; i < pairs.length; i += PAIRS_PER_CALL) {
    inner.push(sql`left(right(${call(pairs.slice(i, i + PAIRS_PER_CALL))}::text, -1), -1)`);
  }
  return sql`('{' || ${join(inner, " || ', ' || ")} || '}')::json`;
}

/** The value a column of the select takes, and its key. */
function fieldColumn(scope: Scope, f: FieldRef, as: string | null): PlannedColumn {
  const { expr, type } = resolveField(scope, f);
  const key = as ?? (f.path.length ? pathKey(f) : f.name);
  // jsonb travels as text, so its numbers are parsed losslessly (src/run.ts)
  if (type === 'jsonb') return { key, kind: 'json', expr: sql`${expr}::text` };
  return { key, kind: type, expr };
}

function findRelation(scope: Scope, name: string, hint: string | null): CatalogueRelation {
  const named = (scope.table.relations ?? []).filter((r) => r.name === name);
  const matching = hint === null ? named : named.filter((r) => r.on[0]?.[0] === hint);
  const where = { relation: name, table: scope.table.name };
  if (matching.length === 0) {
    throw badQuery(
      hint === null
        ? `no embeddable resource ${echo(name)} from ${echo(scope.table.name)}`
        : `no embeddable resource ${echo(name)} through ${echo(hint)} from ${echo(scope.table.name)}`,
      where,
    );
  }
  if (matching.length > 1) {
    const hints = matching.map((r) => `${name}!${r.on[0]?.[0]}(...)`).join(', ');
    throw badQuery(`${echo(name)} is embeddable from ${echo(scope.table.name)} in more than one way: write one of ${hints}`, where);
  }
  return matching[0];
}

function embedTarget(ctx: PlanContext, scope: Scope, relation: CatalogueRelation): CatalogueTable {
  const target = ctx.catalogue.table(relation.target);
  // an embed into a table the caller cannot see reads like one that does not exist
  if (!target || !tableVisible(ctx, target)) {
    throw badQuery(`no embeddable resource ${echo(relation.name)} from ${echo(scope.table.name)}`, {
      relation: relation.name,
      table: scope.table.name,
    });
  }
  return target;
}

/** The correlated subquery of one embedded resource: JSON (an object or null, or an array). */
function embedSubquery(ctx: PlanContext, parent: Scope, item: Extract<SelectItem, { kind: 'embed' }>): Fragment {
  const relation = findRelation(parent, item.relation, item.hint);
  const scope = newScope(ctx, embedTarget(ctx, parent, relation), 'e');
  const joins = relation.on.map(([from, to]) => {
    const a = catalogueColumn(parent.table, from);
    const b = catalogueColumn(scope.table, to);
    if ((a.type === 'integer' ? 'numeric' : a.type) !== (b.type === 'integer' ? 'numeric' : b.type)) {
      throw new Error(`catalogue relation ${relation.name} joins ${from} and ${to} of different types`);
    }
    return sql`${columnRef(scope, b)} = ${columnRef(parent, a)}`;
  });
  const visible = visibility(ctx, scope);
  const conditions = join(visible ? [...joins, visible] : joins, ' AND ');
  const object = jsonObject(embedPairs(ctx, scope, item.select));
  if (relation.cardinality === 'one') {
    return sql`(SELECT ${object} FROM ${tableRef(scope.table)} AS ${scope.alias} WHERE ${conditions} LIMIT 1)`;
  }
  const order = orderOf(scope, scope.table.defaultOrder ?? []);
  const ordered = order ? sql`${object} ORDER BY ${order}` : object;
  return sql`(SELECT coalesce(json_agg(${ordered}), '[]'::json) FROM ${tableRef(scope.table)} AS ${scope.alias} WHERE ${conditions})`;
}

/** Key/value pairs of an embedded resource's object; values keep their SQL types, so json_build_object writes numbers as numbers. */
function embedPairs(ctx: PlanContext, scope: Scope, items: readonly SelectItem[]): Array<readonly [string, Fragment]> {
  const pairs: Array<readonly [string, Fragment]> = [];
  for (const item of items) {
    if (item.kind === 'star') {
      for (const [name, col] of scope.table.columns) pairs.push([name, columnRef(scope, col)]);
    } else if (item.kind === 'field') {
      const { expr } = resolveField(scope, item.field);
      pairs.push([item.alias ?? (item.field.path.length ? pathKey(item.field) : item.field.name), expr]);
    } else if (item.kind === 'embed') {
      pairs.push([item.alias ?? item.relation, embedSubquery(ctx, scope, item)]);
    } else {
      throw badQuery(`count() is not supported inside an embedded resource (${echo(scope.table.name)})`);
    }
  }
  return pairs;
}

/** `ORDER BY` terms of catalogue order specs (default orders). */
export function orderOf(scope: Scope, specs: readonly OrderSpec[]): Fragment | null {
  if (specs.length === 0) return null;
  return join(
    specs.map((s) => {
      const col = s.internal ? sql`${scope.alias}.${ident(s.column)}` : columnRef(scope, catalogueColumn(scope.table, s.column));
      const dir = s.direction === 'desc' ? sql` DESC` : s.direction === 'asc' ? sql` ASC` : sql``;
      const nulls = s.nulls === 'first' ? sql` NULLS FIRST` : s.nulls === 'last' ? sql` NULLS LAST` : sql``;
      return sql`${col}${dir}${nulls}`;
    }),
    ', ',
  );
}

/** Whether a select item is the row count: `count()`, or a bare `count` on a table without a `count` column. */
export function isCount(scope: Scope, item: SelectItem): boolean {
  if (item.kind === 'count') return true;
  return item.kind === 'field' && item.field.name === 'count' && item.field.path.length === 0 && !scope.table.columns.has('count');
}

/** The top-level output columns of a select list without counts. */
export function selectColumns(ctx: PlanContext, scope: Scope, items: readonly SelectItem[]): PlannedColumn[] {
  const out: PlannedColumn[] = [];
  for (const item of items) {
    if (item.kind === 'star') {
      for (const name of scope.table.columns.keys()) out.push(fieldColumn(scope, { name, path: [] }, null));
    } else if (item.kind === 'field') {
      out.push(fieldColumn(scope, item.field, item.alias));
    } else if (item.kind === 'embed') {
      out.push({ key: item.alias ?? item.relation, kind: 'json', expr: sql`${embedSubquery(ctx, scope, item)}::text` });
    }
  }
  return out;
}
