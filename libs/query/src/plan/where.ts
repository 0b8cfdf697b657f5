// Conditions → SQL. Each operator's meaning, pinned (sources in the README):
// - eq/neq/lt/lte/gt/gte: `=`, `<>`, `<`, `<=`, `>`, `>=` against the value
//   parsed by the field's type;
// - like/ilike: on text only; `*` becomes `%`, nothing else changes, so `%`
//   and `_` stay wildcards and `\` escapes (PostgREST's `T.map star`);
// - in: `= ANY(array)`; the empty list is FALSE (PostgREST writes `= ANY('{}')`);
// - is: IS NULL for any field, IS TRUE/FALSE/UNKNOWN for booleans;
// - not.: NOT (test), so a NULL matches neither `eq` nor `not.eq`;
// - and/or trees: parenthesised AND/OR, `not.` wraps them in NOT.
import type { Condition, Predicate } from '../ast.js';
import { PlatformError } from '@platform/common';
import { badQuery, echo } from '../errors.js';
import { fieldText } from '../parse/names.js';
import type { CatalogueTable } from '../catalogue.js';
import type { Scope } from './context.js';
import { type ResolvedField, resolveField } from './fields.js';
import { type Cast, type Fragment, join, param, sql } from './sql.js';
import { coerce, type ValueType, valueTypeOf } from './values.js';

const COMPARE: Record<string, Fragment> = {
  eq: sql`=`,
  neq: sql`<>`,
  lt: sql`<`,
  lte: sql`<=`,
  gt: sql`>`,
  gte: sql`>=`,
};

const SCALAR_CAST: Record<ValueType, Cast> = { text: 'text', numeric: 'numeric', boolean: 'boolean', jsonb: 'jsonb' };
const ARRAY_CAST: Record<ValueType, Cast> = { text: 'text[]', numeric: 'numeric[]', boolean: 'boolean[]', jsonb: 'jsonb[]' };

/** A LIKE pattern PostgreSQL accepts: it must not end with an unpaired escape. */
function endsWithEscape(pattern: string): boolean {
  let escaped = false;
  for (const ch of pattern) escaped = !escaped && ch === '\\';
  return escaped;
}

function predicateSql(field: ResolvedField, predicate: Predicate, source: string): Fragment {
  const { expr, type } = field;
  switch (predicate.op) {
    case 'is':
      if (predicate.value === 'null') return sql`${expr} IS NULL`;
      if (type !== 'boolean') throw badQuery(`${echo(source)}: is.${predicate.value} applies to boolean columns only`, { filter: source });
      return predicate.value === 'true' ? sql`${expr} IS TRUE` : predicate.value === 'false' ? sql`${expr} IS FALSE` : sql`${expr} IS UNKNOWN`;
    case 'in': {
      if (predicate.values.length === 0) return sql`FALSE`;
      const values = predicate.values.map((v) => coerce(v, type, source));
      return sql`${expr} = ANY(${param(values, ARRAY_CAST[type])})`;
    }
    case 'like':
    case 'ilike': {
      if (type !== 'text') throw badQuery(`${echo(source)}: ${predicate.op} applies to text, not to ${type}`, { filter: source });
      const pattern = coerce(predicate.value, 'text', source) as string;
      if (endsWithEscape(pattern)) throw badQuery(`${echo(source)}: a ${predicate.op} pattern cannot end with an unpaired backslash`, { filter: source });
      const bound = param(pattern.replace(/\*/g, '%'), 'text');
      return predicate.op === 'like' ? sql`${expr} LIKE ${bound}` : sql`${expr} ILIKE ${bound}`;
    }
    default:
      return sql`${expr} ${COMPARE[predicate.op]} ${param(coerce(predicate.value, type, source), SCALAR_CAST[type])}`;
  }
}

/** The types values compared with `name` take in the tables of a relation. */
function typesOf(tables: readonly CatalogueTable[], name: string): Set<ValueType> {
  return new Set(tables.flatMap((t) => {
    const type = t.columns.get(name)?.type;
    return type === undefined ? [] : [valueTypeOf(type)];
  }));
}

/**
 * A filter on a column. In a relation over tables where the column's type
 * differs (a variable whose type changed between versions), a value or an
 * operator that does not fit this table's type matches none of its rows
 * rather than refusing a request that fits another table.
 */
function fieldTest(scope: Scope, condition: Extract<Condition, { kind: 'filter' }>, tables: readonly CatalogueTable[]): Fragment {
  try {
    return predicateSql(resolveField(scope, condition.field, tables), condition.predicate, condition.source || fieldText(condition.field));
  } catch (err) {
    if (err instanceof PlatformError && err.code === 'BAD_QUERY' && typesOf(tables, condition.field.name).size > 1) return sql`FALSE`;
    throw err;
  }
}

export interface ConditionContext {
  /** the tables of the relation the scope reads (see resolveField) */
  readonly tables?: readonly CatalogueTable[];
  /**
   * `name=is.null` where `name` is an embed of this level (its alias, else its
   * relation): the test that it has no row; undefined for other names, which
   * are columns (PostgREST's `addNullEmbedFilters`).
   */
  readonly embedIsNull?: (name: string) => Fragment | undefined;
}

export function conditionSql(scope: Scope, condition: Condition, cc: ConditionContext = {}): Fragment {
  if (condition.kind === 'filter') {
    const { field: f, predicate } = condition;
    const embedNull = f.path.length === 0 && predicate.op === 'is' && predicate.value === 'null' ? cc.embedIsNull?.(f.name) : undefined;
    const test = embedNull ?? fieldTest(scope, condition, cc.tables ?? []);
    return condition.negated ? sql`NOT (${test})` : test;
  }
  const parts = condition.children.map((child) => sql`(${conditionSql(scope, child, cc)})`);
  const tree = sql`(${join(parts, condition.op === 'and' ? ' AND ' : ' OR ')})`;
  return condition.negated ? sql`NOT ${tree}` : tree;
}
