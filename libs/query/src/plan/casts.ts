// Casts in a select (`qty::text`, PostgREST's `::type`): the types a value may
// be cast to, by the names a client writes, each with PostgreSQL's own name
// for it (written as a quoted identifier, never as the client's text) and how
// the cast value becomes JSON (src/run.ts). Date and time types are not here:
// the driver would hand them over as JavaScript dates.
import type { SelectItem } from '../ast.js';
import { badQuery, echo } from '../errors.js';
import { type Fragment, ident, sql } from './sql.js';

/** How a top-level output column is turned into a JSON value (src/run.ts). */
export type OutputKind = 'text' | 'numeric' | 'boolean' | 'json' | 'count';

interface CastType {
  /** the type's name in pg_catalog */
  readonly internal: string;
  readonly kind: Exclude<OutputKind, 'count'>;
}

const text = (internal: string): CastType => ({ internal, kind: 'text' });
const number = (internal: string): CastType => ({ internal, kind: 'numeric' });

const CAST_TYPES: ReadonlyMap<string, CastType> = new Map([
  ['text', text('text')],
  ['varchar', text('varchar')],
  ['char', text('bpchar')],
  ['bpchar', text('bpchar')],
  ['int', number('int4')],
  ['integer', number('int4')],
  ['int4', number('int4')],
  ['smallint', number('int2')],
  ['int2', number('int2')],
  ['bigint', number('int8')],
  ['int8', number('int8')],
  ['numeric', number('numeric')],
  ['decimal', number('numeric')],
  ['real', number('float4')],
  ['float4', number('float4')],
  ['float8', number('float8')],
  ['boolean', { internal: 'bool', kind: 'boolean' }],
  ['bool', { internal: 'bool', kind: 'boolean' }],
  ['json', { internal: 'json', kind: 'json' }],
  ['jsonb', { internal: 'jsonb', kind: 'json' }],
]);

export const CAST_NAMES: readonly string[] = [...CAST_TYPES.keys()];

/** The cast type a client named; a 400 listing the supported ones otherwise. */
export function castType(name: string, field: string): CastType {
  const type = CAST_TYPES.get(name);
  if (!type) throw badQuery(`cannot cast ${echo(field)} to ${echo(name)}: the types a select can cast to are ${CAST_NAMES.join(', ')}`, { cast: name });
  return type;
}

/** `CAST(expr AS "type")`. */
export function castSql(expr: Fragment, type: CastType): Fragment {
  return sql`CAST(${expr} AS ${ident(type.internal)})`;
}

/** The casts of a select, as written (`name::int`, `meta->>a::numeric`), nested embeds included: for the 400 a cast the data does not fit gets. */
export function castsOf(items: readonly SelectItem[]): string[] {
  return items.flatMap((item): string[] => {
    if (item.kind === 'embed') return castsOf(item.select);
    if (item.kind !== 'field' || item.cast === null) return [];
    const path = item.field.path.map((s) => `${s.arrow}${s.key}`).join('');
    return [`${item.field.name}${path}::${item.cast}`];
  });
}
