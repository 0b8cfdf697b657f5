// runQuery: runs a plan on the caller's knex (a pool or a transaction) or pg
// client, and shapes the rows.
//
// Numbers: PostgREST returns numeric columns as JSON numbers with every digit
// (docs/conventions.md "Cirrus"); pg hands numeric and bigint over as strings, and
// jsonb would be parsed with JSON.parse, rounding beyond 2^53. So numbers in
// rows are lossless-json LosslessNumbers holding PostgreSQL's own text (`7.0`
// stays `7.0`), jsonb and embedded resources are parsed with lossless-json,
// and `toJson` writes them back digit for digit. NaN/Infinity (numeric allows
// them) become strings, as PostgreSQL's json writes them.
import type { Knex } from 'knex';
import { LosslessNumber, isNumber, parse as parseLossless } from 'lossless-json';
import { jsonText, type JsonValue, type Row } from './json.js';
import type { OutputKind } from './plan/select.js';
import type { QueryPlan } from './plan/plan.js';
import { toNative } from './plan/sql.js';
import { type RangeAnswer, rangeAnswer } from './range.js';
import { badQuery } from './errors.js';
import type { PlatformError } from '@platform/common';

export type { JsonValue, Row };

export interface QueryResult extends RangeAnswer {
  readonly rows: Row[];
  /** the number of rows matching the filters, with `Prefer: count=exact`; else null */
  readonly total: number | null;
}

function numeric(value: unknown): JsonValue {
  if (value === null || value === undefined) return null;
  const text = String(value);
  return isNumber(text) ? new LosslessNumber(text) : text;
}

function json(value: unknown): JsonValue {
  if (value === null || value === undefined) return null;
  // duplicate keys (a select naming one column twice) keep the last, as JSON.parse would
  return parseLossless(String(value), null, { onDuplicateKey: ({ newValue }) => newValue }) as JsonValue;
}

const SHAPERS: Record<OutputKind, (value: unknown) => JsonValue> = {
  text: (v) => (v === null || v === undefined ? null : String(v)),
  boolean: (v) => (v === null || v === undefined ? null : truth(v)),
  numeric,
  count: numeric,
  json,
};

/**
 * A pg Pool, PoolClient or Client (anything with pg's `query(config)`): runs
 * the plan without knex's per-query overhead. Typed structurally so that this
 * package does not depend on pg itself.
 */
export interface PgQueryable {
  /** `name`: a prepared statement of that name (runQueryJson's option) */
  query(config: { text: string; values: unknown[]; rowMode: 'array'; name?: string }): Promise<{ rows: unknown[][] }>;
}

/**
 * Rows as PostgreSQL wrote them, each field its text (or null), with no
 * driver type parsing in between: what `@platform/cirrus-read` runs its
 * statements with. Booleans arrive as `t` and `f`; every other output column
 * of a plan is text already, or a number whose text is what is written.
 */
export interface TextRowSource {
  /** `name`: a prepared statement of that name (runQueryJson's option) */
  textRows(statement: { text: string; values: unknown[]; name?: string }): Promise<ReadonlyArray<ReadonlyArray<string | null>>>;
}

export type Database = Knex | Knex.Transaction | PgQueryable | TextRowSource;

function isKnex(db: Database): db is Knex | Knex.Transaction {
  return typeof (db as Knex).raw === 'function';
}

function isTextRowSource(db: Database): db is TextRowSource {
  return typeof (db as TextRowSource).textRows === 'function';
}

/** A boolean column's value: the driver's boolean, or PostgreSQL's text of one (a TextRowSource). */
const truth = (v: unknown): boolean => v === true || v === 't';

/** a plan's statement in pg's form, made once per plan (plans are remembered and run again) */
const nativeTexts = new WeakMap<QueryPlan, string>();

function nativeText(plan: QueryPlan, sql: string): string {
  if (sql !== plan.sql) return toNative(sql);
  let text = nativeTexts.get(plan);
  if (text === undefined) nativeTexts.set(plan, (text = toNative(sql)));
  return text;
}

async function arrayRows(db: Database, plan: QueryPlan, sql: string, bindings: readonly unknown[], name?: string): Promise<ReadonlyArray<ReadonlyArray<unknown>>> {
  if (isKnex(db)) {
    const result = await db.raw(sql, bindings as Knex.RawBinding[]).options({ rowMode: 'array' });
    return (result as { rows: unknown[][] }).rows;
  }
  if (isTextRowSource(db)) return db.textRows({ text: nativeText(plan, sql), values: [...bindings], ...(name === undefined ? {} : { name }) });
  return (await db.query({ text: nativeText(plan, sql), values: [...bindings], rowMode: 'array', ...(name === undefined ? {} : { name }) })).rows;
}

/** The plan's statement in pg's own form (`$1`, `$2`...) with its values: to run it without this library. */
export function nativeStatement(plan: QueryPlan): { text: string; values: unknown[] } {
  return { text: nativeText(plan, plan.sql), values: [...plan.bindings] };
}

/** Runs a plan on a knex (pool or transaction) or a pg client, and shapes the rows. */
const CAST_FAILURES: Record<string, string> = {
  '42846': 'PostgreSQL has no cast between those types',
  '22P02': 'a value is not valid text for the type',
  '22003': 'a value is out of the type\'s range',
};

/**
 * What PostgreSQL refused because of a cast the request asked for: a value
 * that does not fit its type (SQLSTATE class 22) or a cast between types that
 * have none (42846). A 400 naming the casts as written; never PostgreSQL's
 * message (knex puts the statement in front of it). Without casts, such an
 * error is the planner's fault and stays one.
 */
function castFault(err: unknown, plan: QueryPlan): PlatformError | null {
  const code = (err as { code?: unknown } | null)?.code;
  if (plan.casts.length === 0 || typeof code !== 'string' || !(code.startsWith('22') || code === '42846')) return null;
  const reason = CAST_FAILURES[code] ?? 'a value does not fit the type';
  return badQuery(`the select's casts (${plan.casts.join(', ')}) cannot be applied to the values they read: ${reason}`, { casts: plan.casts, sqlState: code });
}

async function statementRows(db: Database, plan: QueryPlan, text: string, bindings: readonly unknown[], name?: string): Promise<ReadonlyArray<ReadonlyArray<unknown>>> {
  try {
    return await arrayRows(db, plan, text, bindings, name);
  } catch (err) {
    throw castFault(err, plan) ?? err;
  }
}

export async function runQuery(db: Database, plan: QueryPlan): Promise<QueryResult> {
  const raw = await statementRows(db, plan, plan.sql, plan.bindings);
  const shapers = plan.columns.map((c) => SHAPERS[c.kind]);
  const rows = raw.map((values) =>
    // fromEntries defines own properties, so a column named __proto__ is just a key
    Object.fromEntries(plan.columns.map((c, i) => [c.key, shapers[i](values[i])])),
  );
  let total: number | null = null;
  if (plan.count) {
    // the total rides on every row; an empty page needs the count statement
    total = Number(raw.length > 0 ? raw[0][plan.columns.length] : (await statementRows(db, plan, plan.countSql!, plan.countBindings))[0][0]);
  }
  return { rows, total, ...rangeAnswer(plan.offset, plan.limit, rows.length, total) };
}

export interface JsonQueryResult extends RangeAnswer {
  /** the response body: exactly `toJson(runQuery(db, plan).rows)` */
  readonly json: string;
  readonly total: number | null;
}

/** How one plan's rows are written: the object keys in the order a row object would list them, each with the column giving its value. */
interface Layout {
  /** `"key":` (with the comma before every key but the first) */
  readonly prefixes: readonly string[];
  readonly indexes: readonly number[];
  readonly writers: ReadonlyArray<(value: unknown) => string>;
}

/** what JSON.stringify would escape in a string (a surrogate only when unpaired; any goes the slow way) */
// eslint-disable-next-line no-control-regex -- control characters are what it looks for
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;

/** JSON.stringify of a string, without its cost for the many strings (addresses, names) that need no escape. */
function jsonString(s: string): string {
  return ESCAPED.test(s) ? JSON.stringify(s) : `"${s}"`;
}

const WRITERS: Record<OutputKind, (value: unknown) => string> = {
  text: (v) => (v === null || v === undefined ? 'null' : jsonString(String(v))),
  boolean: (v) => (v === null || v === undefined ? 'null' : truth(v) ? 'true' : 'false'),
  numeric: (v) => {
    if (v === null || v === undefined) return 'null';
    const text = String(v);
    return isNumber(text) ? text : JSON.stringify(text);
  },
  count: (v) => WRITERS.numeric(v),
  json: (v) => (v === null || v === undefined ? 'null' : jsonText(json(v))),
};

const layouts = new WeakMap<QueryPlan, Layout>();

function layoutOf(plan: QueryPlan): Layout {
  let layout = layouts.get(plan);
  if (layout) return layout;
  // the row object runQuery makes (Object.fromEntries): a key named twice keeps its first place and
  // its last value, and integer-like keys come first in ascending order, as every JS object lists them
  const last = Object.fromEntries(plan.columns.map((c, i) => [c.key, i])) as Record<string, number>;
  const keys = Object.keys(last);
  layout = {
    prefixes: keys.map((key, i) => (i > 0 ? ',' : '') + JSON.stringify(key) + ':'),
    indexes: keys.map((key) => last[key]),
    writers: keys.map((key) => WRITERS[plan.columns[last[key]].kind]),
  };
  layouts.set(plan, layout);
  return layout;
}

export interface RunOptions {
  /**
   * run the page's statement as the prepared statement of this name (a pg
   * client: parsed and planned once per connection, PostgreSQL then choosing
   * between custom and generic plans as for any prepared statement). One name
   * must always go with one statement text: the caller keeps that registry.
   */
  statementName?: string;
}

/**
 * runQuery, with the response body written straight from the database's
 * values: no row objects, no LosslessNumbers, the same text as
 * `toJson(rows)` byte for byte (test/json-direct.test.ts). The path every
 * search answers by.
 */
export async function runQueryJson(db: Database, plan: QueryPlan, options: RunOptions = {}): Promise<JsonQueryResult> {
  const raw = await statementRows(db, plan, plan.sql, plan.bindings, options.statementName);
  const { prefixes, indexes, writers } = layoutOf(plan);
  let out = '[';
  for (let r = 0; r < raw.length; r++) {
    const values = raw[r];
    out += r > 0 ? ',{' : '{';
    for (let k = 0; k < prefixes.length; k++) out += prefixes[k] + writers[k](values[indexes[k]]);
    out += '}';
  }
  out += ']';
  let total: number | null = null;
  if (plan.count) {
    total = Number(raw.length > 0 ? raw[0][plan.columns.length] : (await statementRows(db, plan, plan.countSql!, plan.countBindings))[0][0]);
  }
  return { json: out, total, ...rangeAnswer(plan.offset, plan.limit, raw.length, total) };
}
