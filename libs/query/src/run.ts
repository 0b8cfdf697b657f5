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
import type { OutputKind } from './plan/select.js';
import type { QueryPlan } from './plan/plan.js';
import { toNative } from './plan/sql.js';
import { type RangeAnswer, rangeAnswer } from './range.js';
import { badQuery } from './errors.js';
import type { PlatformError } from '@platform/common';

export type JsonValue = string | boolean | null | LosslessNumber | JsonValue[] | { [key: string]: JsonValue };
export type Row = Record<string, JsonValue>;

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
  boolean: (v) => (v === null || v === undefined ? null : Boolean(v)),
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
  query(config: { text: string; values: unknown[]; rowMode: 'array' }): Promise<{ rows: unknown[][] }>;
}

export type Database = Knex | Knex.Transaction | PgQueryable;

function isKnex(db: Database): db is Knex | Knex.Transaction {
  return typeof (db as Knex).raw === 'function';
}

async function arrayRows(db: Database, sql: string, bindings: readonly unknown[]): Promise<unknown[][]> {
  if (isKnex(db)) {
    const result = await db.raw(sql, bindings as Knex.RawBinding[]).options({ rowMode: 'array' });
    return (result as { rows: unknown[][] }).rows;
  }
  return (await db.query({ text: toNative(sql), values: [...bindings], rowMode: 'array' })).rows;
}

/** The plan's statement in pg's own form (`$1`, `$2`...) with its values: to run it without this library. */
export function nativeStatement(plan: QueryPlan): { text: string; values: unknown[] } {
  return { text: toNative(plan.sql), values: [...plan.bindings] };
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

async function statementRows(db: Database, plan: QueryPlan, text: string, bindings: readonly unknown[]): Promise<unknown[][]> {
  try {
    return await arrayRows(db, text, bindings);
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
