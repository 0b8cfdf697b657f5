// A field of the request (`qty`, `meta->owner->>name`) resolved against a
// table: the SQL expression and the type values compared with it take.
import type { FieldRef } from '../ast.js';
import type { CatalogueTable, ColumnType } from '../catalogue.js';
import { badQuery, echo } from '../errors.js';
import { fieldText } from '../parse/names.js';
import { type Scope, column, columnRef } from './context.js';
import { type Fragment, param, sql } from './sql.js';
import { type ValueType, valueTypeOf } from './values.js';

export const MAX_JSON_PATH = 32;
const INT4 = 2 ** 31;

export interface ResolvedField {
  readonly expr: Fragment;
  readonly type: ValueType;
}

/** A NULL of a column's type: the value of a column in a table of a relation that lacks it. */
const TYPED_NULL: Record<ColumnType, Fragment> = {
  text: sql`NULL::text`,
  integer: sql`NULL::numeric`,
  numeric: sql`NULL::numeric`,
  boolean: sql`NULL::boolean`,
  jsonb: sql`NULL::jsonb`,
};

/**
 * `tables`: all the tables of the relation the scope reads (versions of one
 * resource): a column some of them have is NULL in the others, one none has
 * is the usual 400.
 */
export function resolveField(scope: Scope, f: FieldRef, tables: readonly CatalogueTable[] = []): ResolvedField {
  const own = scope.table.columns.get(f.name);
  const col = own ?? tables.find((t) => t.columns.has(f.name))?.columns.get(f.name) ?? column(scope, f.name);
  const base = own ? columnRef(scope, col) : TYPED_NULL[col.type];
  const type = valueTypeOf(col.type);
  if (f.path.length === 0) return { expr: base, type };
  const where = { field: fieldText(f), table: scope.table.name };
  if (type !== 'jsonb') throw badQuery(`${echo(fieldText(f))}: -> and ->> apply to jsonb columns, ${echo(f.name)} is ${col.type}`, where);
  if (f.path.length > MAX_JSON_PATH) throw badQuery(`${echo(fieldText(f))}: at most ${MAX_JSON_PATH} JSON path steps`, where);
  let expr = base;
  f.path.forEach((step, i) => {
    if (step.arrow === '->>' && i < f.path.length - 1) {
      throw badQuery(`${echo(fieldText(f))}: ->> yields text, so it can only be the last step of a path`, where);
    }
    let key: Fragment;
    if (typeof step.key === 'number') {
      if (Math.abs(step.key) >= INT4) throw badQuery(`${echo(fieldText(f))}: array index ${step.key} is out of range`, where);
      key = param(step.key, 'int');
    } else {
      if (step.key.includes('\0')) throw badQuery(`${echo(fieldText(f))}: a key cannot contain the NUL character`, where);
      key = param(step.key, 'text');
    }
    expr = step.arrow === '->' ? sql`(${expr} -> ${key})` : sql`(${expr} ->> ${key})`;
  });
  return { expr, type: f.path[f.path.length - 1].arrow === '->>' ? 'text' : 'jsonb' };
}

/** The JSON key PostgREST gives a selected path: its last key, else the column name. */
export function pathKey(f: FieldRef): string {
  for (let i = f.path.length - 1; i >= 0; i--) {
    const key = f.path[i].key;
    if (typeof key === 'string') return key;
  }
  return f.name;
}
