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
// - names with a dot address embedded resources, named as in select (their
//   alias, else their relation): `Item.name=eq.x`, `Item.or=(…)`,
//   `Item.order=…`, `Item.limit=…`, `Item.offset=…`, nested `A.B.name=…`;
//   whether each names an embed of the select is the planner's question;
// - `limit`: a non-negative integer (PostgREST answers a negative one with 416,
//   here 400); `offset`: an integer, a negative one is 0 (RangeSpec "succeeds
//   if offset is negative as a no-op").
// Percent-decoding and `+` as a space are URLSearchParams' job and happen once.
// A NUL character (`%00`) anywhere is a 400: PostgreSQL text cannot hold one.
import type { Condition, EmbeddedParams, FieldRef, QueryAst, SelectItem } from '../ast.js';
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
/** What may follow an embed's name in a key other than a column: its order, page and logic trees. */
const EMBEDDED_PARAMS = ['order', 'limit', 'offset', 'and', 'or', 'not.and', 'not.or'];

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

type Key =
  | { readonly kind: 'field'; readonly path: readonly string[]; readonly field: FieldRef }
  | { readonly kind: 'param'; readonly path: readonly string[]; readonly name: string };

/**
 * A key other than the top level's own parameters: a field (quoted names
 * allowed), after the names of the embeds it lies in (`Order.Customer.name`),
 * or an embed's own parameter (`Order.order`, `Order.not.or`). Only the last
 * name may have a JSON path.
 */
function parseKey(key: string): Key {
  const c = new Cursor(key);
  try {
    const path: string[] = [];
    let name = fieldName(c);
    while (c.eat('.')) {
      path.push(name);
      const rest = c.text.slice(c.pos);
      if (EMBEDDED_PARAMS.includes(rest)) return { kind: 'param', path, name: rest };
      if (rest === 'select') c.fail(`a column (the columns of ${path.join('.')} are chosen in select: ${path[path.length - 1]}(...))`);
      name = fieldName(c);
    }
    const jsonSteps = jsonPath(c);
    if (!c.done) c.fail(path.length ? 'end of the parameter name' : "'.' or end of the parameter name");
    return { kind: 'field', path, field: { name, path: jsonSteps } };
  } catch (err) {
    if (!(err instanceof ParseFailure)) throw err;
    throw badQuery(`failed to parse the parameter name ${echo(key)} at column ${err.column}: expected ${err.expected}`, {
      parameter: key,
    });
  }
}

/** An entry of `embedded` while parameters are read. */
type Embedded = { -readonly [K in keyof EmbeddedParams]: EmbeddedParams[K] } & { where: Condition[] };

function logicParam(key: string, name: string, value: string): Condition {
  const negated = name.startsWith('not.');
  const op = (negated ? name.slice(4) : name) as 'and' | 'or';
  return parseParam(key, value, (c) => logicTree(c, op, negated, `${key}=${value}`));
}

function limitParam(key: string, value: string): number {
  const n = integer(key, value);
  if (n < 0) throw badQuery(`${key} must be zero or more, got ${echo(value)}`, { parameter: key, value });
  return n;
}

export function parseQuery(params: QueryParams, options: ParseOptions = {}): QueryAst {
  let select: SelectItem[] = [{ kind: 'star' }];
  let order: QueryAst['order'] = null;
  let limit: number | null = null;
  let offset = 0;
  const where: Condition[] = [];
  const embedded = new Map<string, Embedded>();
  const seen = new Set<string>();

  for (const [key, value] of entries(params)) {
    // PostgreSQL's text holds no NUL: a value with one could only fail in SQL (22021), so it is the request's fault here
    if (key.includes('\u0000') || value.includes('\u0000')) {
      throw badQuery(`the parameter ${echo(key.replaceAll('\u0000', '%00'))} holds a NUL character (%00), which no name or text value can hold`, { parameter: key });
    }
    if (key === '') throw badQuery(`a parameter has no name (value ${echo(value)})`, { value });
    const top = ONCE.has(key) || LOGIC.has(key) || key === 'columns' || key === 'on_conflict';
    const k = top ? null : parseKey(key);
    // once-only parameters: the top level's, and each embed's order, limit and offset
    if (ONCE.has(key) || (k?.kind === 'param' && !LOGIC.has(k.name))) {
      if (seen.has(key)) throw badQuery(`the parameter ${key} is given more than once`, { parameter: key });
      seen.add(key);
    }
    if (value === '') {
      throw badQuery(
        k === null || k.kind === 'param'
          ? `the parameter ${key} is empty`
          : `the filter ${echo(key)} has no operator: write ${key}=eq.<value> (or another operator)`,
        { parameter: key },
      );
    }
    if (key === 'select') select = parseParam('select', value, (c) => selectList(c));
    else if (key === 'order') order = parseParam('order', value, orderList);
    else if (key === 'limit') limit = limitParam('limit', value);
    else if (key === 'offset') offset = Math.max(0, integer('offset', value));
    else if (LOGIC.has(key)) where.push(logicParam(key, key, value));
    else if (key === 'columns' || key === 'on_conflict') {
      throw badQuery(`the parameter ${key} applies to writes, not to queries`, { parameter: key });
    } else if (k !== null) {
      let target: { where: Condition[] } = { where };
      if (k.path.length > 0) {
        const id = JSON.stringify(k.path);
        let e = embedded.get(id);
        if (!e) embedded.set(id, (e = { path: k.path, where: [], order: null, limit: null, offset: 0 }));
        target = e;
        if (k.kind === 'param') {
          if (k.name === 'order') e.order = parseParam(key, value, orderList);
          else if (k.name === 'limit') e.limit = limitParam(key, value);
          else if (k.name === 'offset') e.offset = Math.max(0, integer(key, value));
          else e.where.push(logicParam(key, k.name, value));
          continue;
        }
      }
      if (k.kind !== 'field') continue;
      if (!value.includes('.')) {
        throw badQuery(`the filter ${echo(`${key}=${value}`)} has no operator: write ${key}=eq.${value} (or another operator)`, {
          parameter: key,
          value,
        });
      }
      const { negated, predicate } = parseParam(`filter ${key}`, value, (c) => opExpr(c, 'plain'));
      target.where.push({ kind: 'filter', field: k.field, negated, predicate, source: `${key}=${value}` });
    }
  }
  const embeds = [...embedded.values()];
  if (countConditions([...where, ...embeds.flatMap((e) => e.where)]) > MAX_CONDITIONS) {
    throw badQuery(`at most ${MAX_CONDITIONS} filter conditions are allowed`);
  }
  return { select, where, order, limit, offset, count: prefersCount(options.prefer), embedded: embeds };
}
