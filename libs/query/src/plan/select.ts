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
import type { Condition, FieldRef, OrderTerm, SelectItem } from '../ast.js';
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
import { type EmbedItem, type EmbedParams, NO_PARAMS, embedKey, embedNamed, notEmbedded } from './embedded.js';
import { castSql, castType, type OutputKind } from './casts.js';
import { pathKey, resolveField } from './fields.js';
import { type Fragment, ident, join, param, sql } from './sql.js';
import { valueTypeOf } from './values.js';
import { conditionSql } from './where.js';

export type { OutputKind };

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
function fieldColumn(scope: Scope, f: FieldRef, as: string | null, cast: string | null): PlannedColumn {
  const { expr, type } = resolveField(scope, f);
  const key = as ?? (f.path.length ? pathKey(f) : f.name);
  if (cast !== null) {
    const to = castType(cast, key);
    const value = castSql(expr, to);
    // numbers and json travel as PostgreSQL's text (the driver would make a float8 a JavaScript number)
    return to.kind === 'json' || to.kind === 'numeric' ? { key, kind: to.kind, expr: sql`${value}::text` } : { key, kind: to.kind, expr: value };
  }
  // jsonb travels as text, so its numbers are parsed losslessly (src/run.ts)
  if (type === 'jsonb') return { key, kind: 'json', expr: sql`${expr}::text` };
  return { key, kind: type, expr };
}

/** A relation with the tables of it the caller may see rows of (`target` first, then `alsoIn`). */
interface Embeddable {
  readonly relation: CatalogueRelation;
  readonly tables: readonly CatalogueTable[];
}

const hintOf = (r: CatalogueRelation): string | undefined => r.hint ?? r.on[0]?.[0];

/**
 * The relations of a table the caller may embed: an embed into tables none of
 * whose rows the caller may see reads like one that does not exist (the
 * privacy rule of docs/conventions.md "Cirrus"), so they are dropped before names,
 * hints and ambiguity are looked at: neither message can reveal them.
 */
function embeddable(ctx: PlanContext, table: CatalogueTable): Embeddable[] {
  const out: Embeddable[] = [];
  for (const relation of table.relations ?? []) {
    const tables = [relation.target, ...(relation.alsoIn ?? [])].flatMap((name) => {
      const t = ctx.catalogue.table(name);
      return t && tableVisible(ctx, t) ? [t] : [];
    });
    if (tables.length > 0) out.push({ relation, tables });
  }
  return out;
}

function matching(all: readonly Embeddable[], name: string, hint: string | null): Embeddable[] {
  return all.filter((e) => e.relation.name === name && (hint === null || hintOf(e.relation) === hint));
}

/** Whether two relations join the same way (one relation under two names). */
function sameJoin(a: CatalogueRelation, b: CatalogueRelation): boolean {
  return a.target === b.target && a.cardinality === b.cardinality && hintOf(a) === hintOf(b) && JSON.stringify(a.on) === JSON.stringify(b.on);
}

/**
 * How to write one relation so that it alone matches: `name!hint`, else
 * another name it has (`buyer`, `Acme-Order!item`), as PostgREST's
 * ambiguity error suggests `target!hint` spellings.
 */
function spelling(all: readonly Embeddable[], r: CatalogueRelation): string {
  const hint = hintOf(r);
  const names = [r.name, ...all.map((e) => e.relation).filter((x) => x !== r && x.name !== r.name && sameJoin(x, r)).map((x) => x.name)];
  for (const name of names) {
    if (name !== r.name && matching(all, name, null).length === 1) return name;
    if (hint !== undefined && matching(all, name, hint).length === 1) return `${name}!${hint}`;
  }
  return `${r.name}!${hint}`;
}

function findRelation(ctx: PlanContext, scope: Scope, name: string, hint: string | null): Embeddable {
  const all = embeddable(ctx, scope.table);
  const found = matching(all, name, hint);
  const where = { relation: name, table: scope.table.name };
  if (found.length === 0) {
    throw badQuery(
      hint === null
        ? `no embeddable resource ${echo(name)} from ${echo(scope.table.name)}`
        : `no embeddable resource ${echo(name)} through ${echo(hint)} from ${echo(scope.table.name)}`,
      where,
    );
  }
  if (found.length > 1) {
    // PostgREST answers 300 (PGRST201) listing the relationships; the error catalogue has 400 for a request to reword
    const hints = [...new Set(found.map((e) => spelling(all, e.relation)))];
    throw badQuery(`${echo(name)} is embeddable from ${echo(scope.table.name)} in more than one way: write one of ${hints.map((h) => `${h}(...)`).join(', ')}`, {
      ...where,
      hints,
    });
  }
  return found[0];
}

/** Whether `name` (with `hint`) is an embed this table offers: used for the tables of a relation other than the one being planned. */
function offers(ctx: PlanContext, table: CatalogueTable, name: string, hint: string | null): boolean {
  return matching(embeddable(ctx, table), name, hint).length > 0;
}

function joinConditions(parent: Scope, scope: Scope, relation: CatalogueRelation): Fragment {
  const joins = relation.on.map(([from, to]) => {
    const a = catalogueColumn(parent.table, from);
    const b = catalogueColumn(scope.table, to);
    if (valueTypeOf(a.type) !== valueTypeOf(b.type)) {
      throw new Error(`catalogue relation ${relation.name} joins ${from} and ${to} of different types`);
    }
    return sql`${columnRef(scope, b)} = ${columnRef(parent, a)}`;
  });
  return join(joins, ' AND ');
}

/** One table of an embed as it is read: its scope and `FROM … WHERE …` (join, visibility, the embed's filters). */
interface Read {
  readonly scope: Scope;
  readonly from: Fragment;
}

interface EmbedReads {
  readonly relation: CatalogueRelation;
  readonly tables: readonly CatalogueTable[];
  readonly params: EmbedParams;
  readonly reads: readonly Read[];
}

/** The tables an embed reads, each with its rows filtered: by the join, the caller's chains and the embed's own filters. */
function embedReads(ctx: PlanContext, parent: Scope, item: EmbedItem): EmbedReads {
  const { relation, tables } = findRelation(ctx, parent, item.relation, item.hint);
  const params = ctx.embedded.get(item) ?? NO_PARAMS;
  const reads = tables.map((table) => {
    const scope = newScope(ctx, table, 'e');
    const where = [joinConditions(parent, scope, relation), ...levelWhere(ctx, scope, item.select, params.where, tables)];
    return { scope, from: sql`${tableRef(table)} AS ${scope.alias} WHERE ${join(where, ' AND ')}` };
  });
  return { relation, tables, params, reads };
}

function pageSql(limit: number | null, offset: number): Fragment {
  return sql`${limit === null ? sql`` : sql` LIMIT ${param(limit)}`}${offset > 0 ? sql` OFFSET ${param(offset)}` : sql``}`;
}

/** A to-one embed has one row at most: a limit above 1 is 1, and any offset leaves none. */
const toOneLimit = (params: EmbedParams): number => Math.min(params.limit ?? 1, 1);

/**
 * Whether an embed has a row for the parent row, after its filters and its
 * page (PostgREST's `!inner` and `embed=not.is.null`: its json is not NULL).
 */
function embedExists(ctx: PlanContext, parent: Scope, item: EmbedItem): Fragment {
  const { relation, params, reads } = embedReads(ctx, parent, item);
  if (relation.cardinality === 'one') {
    if (toOneLimit(params) === 0 || params.offset > 0) return sql`FALSE`;
    const each = reads.map(({ from }) => sql`EXISTS (SELECT 1 FROM ${from})`);
    return each.length === 1 ? each[0] : sql`(${join(each, ' OR ')})`;
  }
  const page = pageSql(params.limit, params.offset);
  if (reads.length === 1) return sql`EXISTS (SELECT 1 FROM ${reads[0].from}${page})`;
  return sql`EXISTS (SELECT 1 FROM (${join(reads.map(({ from }) => sql`SELECT 1 FROM ${from}`), ' UNION ALL ')}) AS ${newScope(ctx, reads[0].scope.table, 'e').alias}${page})`;
}

/**
 * The WHERE of one level (the top, or one table of an embed), beside joins
 * and visibility: its conditions, where `embed=is.null` tests an embed of the
 * level, and the existence of every `!inner` embed. `tables`: the tables of
 * the relation the level reads; an embed some of them lack (an older version)
 * has no row in the others.
 */
export function levelWhere(ctx: PlanContext, scope: Scope, items: readonly SelectItem[], conditions: readonly Condition[], tables: readonly CatalogueTable[]): Fragment[] {
  const embeds = items.filter((i): i is EmbedItem => i.kind === 'embed');
  const lacks = (item: EmbedItem) => !offers(ctx, scope.table, item.relation, item.hint) && tables.some((t) => t !== scope.table && offers(ctx, t, item.relation, item.hint));
  const exists = (item: EmbedItem) => (lacks(item) ? sql`FALSE` : embedExists(ctx, scope, item));
  const embedIsNull = (name: string) => {
    const item = embeds.find((e) => embedKey(e) === name);
    return item && sql`NOT (${exists(item)})`;
  };
  const out = conditions.map((c) => conditionSql(scope, c, { tables, embedIsNull }));
  for (const item of embeds) if (item.inner) out.push(exists(item));
  const visible = visibility(ctx, scope);
  return visible ? [visible, ...out] : out;
}

/** An order term as an expression and its type, for a level whose select is `items`; a related term reads its to-one embed. */
function orderTermExpr(ctx: PlanContext, scope: Scope, term: OrderTerm, items: readonly SelectItem[], tables: readonly CatalogueTable[]) {
  if (term.relation === undefined) return resolveField(scope, term.field, tables);
  const item = embedNamed(items, term.relation, { order: term.relation });
  // a related order names the embed by its key: the alias of an aliased one
  if (embedKey(item) !== term.relation) notEmbedded(term.relation, { order: term.relation });
  const e = embedReads(ctx, scope, item);
  if (e.relation.cardinality !== 'one') {
    throw badQuery(`a related order on ${echo(term.relation)} is not possible: it is not a to-one embedded resource of ${echo(scope.table.name)}`, {
      order: term.relation,
      table: scope.table.name,
    });
  }
  const values = e.reads.map(({ scope: s, from }) => {
    const field = resolveField(s, term.field, e.tables);
    return { field, expr: sql`(SELECT ${field.expr} FROM ${from}${pageSql(toOneLimit(e.params), e.params.offset)})` };
  });
  if (values.some((v) => v.field.type !== values[0].field.type)) typesDiffer(term.relation, item.relation);
  return { type: values[0].field.type, expr: values.length === 1 ? values[0].expr : sql`coalesce(${join(values.map((v) => v.expr), ', ')})` };
}

function typesDiffer(name: string, relation: string): never {
  throw badQuery(`${echo(name)} cannot be ordered by a column whose type differs between the tables it reads`, { relation });
}

/** `ORDER BY` terms of a request's order at one level. */
export function orderSql(ctx: PlanContext, scope: Scope, terms: readonly OrderTerm[], items: readonly SelectItem[], tables: readonly CatalogueTable[] = []): Fragment {
  return join(
    terms.map((term) => sql`${orderTermExpr(ctx, scope, term, items, tables).expr}${orderSuffix(term)}`),
    ', ',
  );
}

/**
 * The correlated subquery of one embedded resource: JSON (an object or null,
 * or an array). A relation over several tables reads each: a to-one embed
 * takes the first row found, a to-many embed all rows of all tables in one
 * order (the request's for this embed, else the first table's default
 * order), paged as the request asks.
 */
function embedSubquery(ctx: PlanContext, parent: Scope, item: EmbedItem): Fragment {
  const { relation, tables, params, reads } = embedReads(ctx, parent, item);
  const objects = reads.map(({ scope }) => jsonObject(embedPairs(ctx, scope, item.select, tables)));
  if (relation.cardinality === 'one') {
    const page = pageSql(toOneLimit(params), params.offset);
    // an order changes nothing in one row, but its names are checked as everywhere
    const rows = reads.map(({ scope, from }, i) => {
      const order = params.order ? sql` ORDER BY ${orderSql(ctx, scope, params.order, item.select, tables)}` : sql``;
      return sql`(SELECT ${objects[i]} FROM ${from}${order}${page})`;
    });
    return rows.length === 1 ? rows[0] : sql`coalesce(${join(rows, ', ')})`;
  }
  // the order keys of each table's rows; the suffixes are the same in every table
  const keys = reads.map(({ scope }) =>
    params.order
      ? params.order.map((term) => ({ ...orderTermExpr(ctx, scope, term, item.select, tables), suffix: orderSuffix(term) }))
      : (tables[0].defaultOrder ?? []).map((s) => ({ expr: orderColumn(scope, s), type: null, suffix: orderSuffix(s) })),
  );
  const paged = params.limit !== null || params.offset > 0;
  if (reads.length === 1 && !paged) {
    const order = keys[0].length ? join(keys[0].map((k) => sql`${k.expr}${k.suffix}`), ', ') : null;
    return sql`(SELECT coalesce(json_agg(${order ? sql`${objects[0]} ORDER BY ${order}` : objects[0]}), '[]'::json) FROM ${reads[0].from})`;
  }
  // one list of the rows of every table: each row's object with its order keys, ordered and paged, then aggregated in that order
  keys[0].forEach((k, i) => {
    if (k.type !== null && keys.some((other) => other[i].type !== k.type)) typesDiffer(embedKey(item), item.relation);
  });
  const names = keys[0].map((_, i) => ident(`k${i}`));
  const rows = reads.map(({ from }, r) => {
    const values = keys[r].map((k, i) => sql`${k.expr} AS ${names[i]}`);
    return sql`SELECT ${join([sql`${objects[r]} AS ${ident('o')}`, ...values], ', ')} FROM ${from}`;
  });
  const all = newScope(ctx, tables[0], 'e').alias;
  const order = join(keys[0].map((k, i) => sql`${all}.${names[i]}${k.suffix}`), ', ');
  let source = sql`(${join(rows, ' UNION ALL ')}) AS ${all}`;
  if (paged) {
    const inner = join(keys[0].map((k, i) => sql`${names[i]}${k.suffix}`), ', ');
    source = sql`(SELECT * FROM ${source}${keys[0].length ? sql` ORDER BY ${inner}` : sql``}${pageSql(params.limit, params.offset)}) AS ${all}`;
  }
  const object = sql`${all}.${ident('o')}`;
  return sql`(SELECT coalesce(json_agg(${keys[0].length ? sql`${object} ORDER BY ${order}` : object}), '[]'::json) FROM ${source})`;
}

/**
 * Key/value pairs of an embedded resource's object; values keep their SQL
 * types, so json_build_object writes numbers as numbers. `tables`: all the
 * tables of the relation: a column or embed some of them have is null in the
 * others' rows (an older version without that variable), one none has is a 400.
 */
function embedPairs(ctx: PlanContext, scope: Scope, items: readonly SelectItem[], tables: readonly CatalogueTable[]): Array<readonly [string, Fragment]> {
  const elsewhere = (has: (t: CatalogueTable) => boolean) => !has(scope.table) && tables.some((t) => t !== scope.table && has(t));
  const pairs: Array<readonly [string, Fragment]> = [];
  for (const item of items) {
    if (item.kind === 'star') {
      for (const [name, col] of scope.table.columns) pairs.push([name, columnRef(scope, col)]);
    } else if (item.kind === 'field') {
      const key = item.alias ?? (item.field.path.length ? pathKey(item.field) : item.field.name);
      const missing = elsewhere((t) => t.columns.has(item.field.name));
      const value = missing ? sql`NULL` : resolveField(scope, item.field).expr;
      pairs.push([key, item.cast === null ? value : castSql(value, castType(item.cast, key))]);
    } else if (item.kind === 'embed') {
      const missing = elsewhere((t) => offers(ctx, t, item.relation, item.hint));
      pairs.push([embedKey(item), missing ? sql`NULL` : embedSubquery(ctx, scope, item)]);
    } else {
      throw badQuery(`count() is not supported inside an embedded resource (${echo(scope.table.name)})`);
    }
  }
  return pairs;
}

function orderColumn(scope: Scope, s: OrderSpec): Fragment {
  return s.internal ? sql`${scope.alias}.${ident(s.column)}` : columnRef(scope, catalogueColumn(scope.table, s.column));
}

/** ` DESC NULLS FIRST` and the like, of a default order or a request's order term. */
export function orderSuffix(s: { readonly direction?: 'asc' | 'desc' | null; readonly nulls?: 'first' | 'last' | null }): Fragment {
  const dir = s.direction === 'desc' ? sql` DESC` : s.direction === 'asc' ? sql` ASC` : sql``;
  const nulls = s.nulls === 'first' ? sql` NULLS FIRST` : s.nulls === 'last' ? sql` NULLS LAST` : sql``;
  return sql`${dir}${nulls}`;
}

/** `ORDER BY` terms of catalogue order specs (default orders). */
export function orderOf(scope: Scope, specs: readonly OrderSpec[]): Fragment | null {
  if (specs.length === 0) return null;
  return join(
    specs.map((s) => sql`${orderColumn(scope, s)}${orderSuffix(s)}`),
    ', ',
  );
}

/** Whether a select item is the row count: `count()`, or a bare `count` on a table without a `count` column. */
export function isCount(scope: Scope, item: SelectItem): boolean {
  if (item.kind === 'count') return true;
  return item.kind === 'field' && item.field.name === 'count' && item.field.path.length === 0 && item.cast === null && !scope.table.columns.has('count');
}

/** The top-level output columns of a select list without counts. */
export function selectColumns(ctx: PlanContext, scope: Scope, items: readonly SelectItem[]): PlannedColumn[] {
  const out: PlannedColumn[] = [];
  for (const item of items) {
    if (item.kind === 'star') {
      for (const name of scope.table.columns.keys()) out.push(fieldColumn(scope, { name, path: [] }, null, null));
    } else if (item.kind === 'field') {
      out.push(fieldColumn(scope, item.field, item.alias, item.cast));
    } else if (item.kind === 'embed') {
      out.push({ key: embedKey(item), kind: 'json', expr: sql`${embedSubquery(ctx, scope, item)}::text` });
    }
  }
  return out;
}
