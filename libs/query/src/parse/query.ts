// parseQuery: URL parameters (and the Prefer header) → QueryAst.
//
// How parameters are read (PostgREST's `QueryParams.parse`, stricter where it
// would silently ignore something):
// - `select`, `order`, `limit`, `offset`: at most once each;
// - `and`, `or`, `not.and`, `not.or`: logic trees; every other name is a
//   filter `<column>=<op>.<value>`. Repeated parameters all apply (ANDed).
// - a parameter without an operator (`id=5`) is a 400, as PostgREST answers it
//   for tables (QuerySpec "fails if an operator is not given"); an unknown
//   operator is a 400 too (PostgREST would take `id=foo.1` for an RPC argument);
// - names with a dot address embedded resources (`Item.name=eq.x`,
//   `Item.order=…`): not supported, refused by name;
// - `limit`: a non-negative integer (PostgREST answers a negative one with 416,
//   here 400); `offset`: an integer, a negative one is 0 (RangeSpec "succeeds
//   if offset is negative as a no-op").
// Percent-decoding and `+` as a space are URLSearchParams' job and happen once.
import type { Condition, QueryAst, SelectItem } from '../ast.js';
import { badQuery, echo } from '../errors.js';
import { Cursor, ParseFailure, parseParam } from './cursor.js';
import { logicTree, opExpr } from './filter.js';
import { fieldName, jsonPath } from './names.js';
import { orderList } from './order.js';
import { selectList } from './select.js';

/** More conditions than this (filters plus logic leaves) is refused: it is not a query anyone writes by hand. */
export const MAX_CONDITIONS = 1000;

export type QueryParams = URLSearchParams | string | Iterable<readonly [string, string]>;

export interface ParseOptions {
  /** the request's `Prefer` header; `count=exact` asks for the total */
  prefer?: string | null;
}

const ONCE = new Set(['select', 'order', 'limit', 'offset']);
const LOGIC = new Set(['and', 'or', 'not.and', 'not.or']);
const EMBEDDED_RESERVED = new Set(['order', 'limit', 'offset', 'and', 'or', 'select']);

function entries(params: QueryParams): Iterable<readonly [string, string]> {
  if (typeof params === 'string') return new URLSearchParams(params.startsWith('?') ? params.slice(1) : params);
  return params;
}

/** `count=exact` in a Prefer header; `planned` and `estimated` are answered exactly too. */
export function prefersCount(prefer: string | null | undefined): boolean {
  if (!prefer) return false;
  return prefer
    .split(',')
    .map((p) => p.trim().toLowerCase())
    .some((p) => p === 'count=exact' || p === 'count=planned' || p === 'count=estimated');
}

const MAX_RANGE = Number.MAX_SAFE_INTEGER;

function integer(name: string, value: string): number {
  if (!/^-?[0-9]+$/.test(value)) throw badQuery(`${name} must be an integer, got ${echo(value)}`, { parameter: name, value });
  const n = Number(value);
  if (Math.abs(n) > MAX_RANGE) throw badQuery(`${name} must be at most ${MAX_RANGE}, got ${echo(value)}`, { parameter: name, value });
  return n;
}

function countConditions(conditions: readonly Condition[]): number {
  let n = 0;
  for (const c of conditions) n += c.kind === 'filter' ? 1 : countConditions(c.children);
  return n;
}

/** A filter's key: one field (quoted names allowed), or a dotted path into an embedded resource. */
function filterKey(key: string) {
  const c = new Cursor(key);
  try {
    const name = fieldName(c);
    if (c.peek() === '.') return { embedded: true as const, name };
    const path = jsonPath(c);
    if (!c.done) c.fail('end of the parameter name');
    return { embedded: false as const, field: { name, path } };
  } catch (err) {
    if (!(err instanceof ParseFailure)) throw err;
    throw badQuery(`failed to parse the parameter name ${echo(key)} at column ${err.column}: expected ${err.expected}`, {
      parameter: key,
    });
  }
}

export function parseQuery(params: QueryParams, options: ParseOptions = {}): QueryAst {
  let select: SelectItem[] = [{ kind: 'star' }];
  let order: QueryAst['order'] = null;
  let limit: number | null = null;
  let offset = 0;
  const where: Condition[] = [];
  const seen = new Set<string>();

  for (const [key, value] of entries(params)) {
    if (ONCE.has(key)) {
      if (seen.has(key)) throw badQuery(`the parameter ${key} is given more than once`, { parameter: key });
      seen.add(key);
    }
    if (key === '') throw badQuery(`a parameter has no name (value ${echo(value)})`, { value });
    if (value === '') {
      throw badQuery(
        ONCE.has(key) || LOGIC.has(key)
          ? `the parameter ${key} is empty`
          : `the filter ${echo(key)} has no operator: write ${key}=eq.<value> (or another operator)`,
        { parameter: key },
      );
    }
    if (key === 'select') select = parseParam('select', value, (c) => selectList(c));
    else if (key === 'order') order = parseParam('order', value, orderList);
    else if (key === 'limit') {
      limit = integer('limit', value);
      if (limit < 0) throw badQuery(`limit must be zero or more, got ${echo(value)}`, { parameter: 'limit', value });
    } else if (key === 'offset') offset = Math.max(0, integer('offset', value));
    else if (LOGIC.has(key)) {
      const negated = key.startsWith('not.');
      const op = negated ? (key.slice(4) as 'and' | 'or') : (key as 'and' | 'or');
      where.push(parseParam(key, value, (c) => logicTree(c, op, negated, `${key}=${value}`)));
    } else if (key === 'columns' || key === 'on_conflict') {
      throw badQuery(`the parameter ${key} applies to writes, not to queries`, { parameter: key });
    } else {
      const k = filterKey(key);
      if (k.embedded) {
        const last = key.slice(key.lastIndexOf('.') + 1);
        throw badQuery(
          EMBEDDED_RESERVED.has(last)
            ? `${echo(key)}: ${last} on embedded resources is not supported`
            : `${echo(key)}: filters on embedded resources are not supported`,
          { parameter: key },
        );
      }
      if (!value.includes('.')) {
        throw badQuery(`the filter ${echo(`${key}=${value}`)} has no operator: write ${key}=eq.${value} (or another operator)`, {
          parameter: key,
          value,
        });
      }
      const { negated, predicate } = parseParam(`filter ${key}`, value, (c) => opExpr(c, 'plain'));
      where.push({ kind: 'filter', field: k.field, negated, predicate, source: `${key}=${value}` });
    }
  }
  if (countConditions(where) > MAX_CONDITIONS) throw badQuery(`at most ${MAX_CONDITIONS} filter conditions are allowed`);
  return { select, where, order, limit, offset, count: prefersCount(options.prefer) };
}

