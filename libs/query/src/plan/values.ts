// Filter values are parsed by the type of what they are compared with
// (docs/conventions.md "Cirrus: PostgREST semantics that are easy to get wrong"):
// PostgREST hands PostgreSQL an untyped literal and PostgreSQL parses it by the
// column's type, answering 400 when it does not parse. Here the same rules are
// applied before the query runs, so a value that passes is one PostgreSQL
// accepts: a bad value is a 400 naming it, never an SQL error.
import { isLosslessNumber, parse as parseLossless, stringify as stringifyLossless } from 'lossless-json';
import type { ColumnType } from '../catalogue.js';
import { badQuery, echo } from '../errors.js';

export type ValueType = 'text' | 'numeric' | 'boolean' | 'jsonb';

/** The type values compared with a column take: integer and numeric columns compare alike. */
export const valueTypeOf = (type: ColumnType): ValueType => (type === 'integer' ? 'numeric' : type);

/** PostgreSQL's `isspace` (scanner_isspace): the only spaces numeric and boolean input skip. */
const PG_SPACE = '[ \\t\\n\\r\\v\\f]*';
/**
 * PostgreSQL numeric input in decimal form (`7`, `7.0`, `.5`, `1e2`, `007`,
 * ` -3 `). NaN, Infinity, hexadecimal and `1_000` are refused: PostgreSQL 16+
 * accepts some of them but cirrus integers never hold them.
 */
const NUMERIC = new RegExp(`^${PG_SPACE}[+-]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE]([+-]?[0-9]+))?${PG_SPACE}$`);
/** PostgreSQL refuses exponents beyond ±1000 (NUMERIC_MAX_PRECISION) in numeric input. */
const MAX_EXPONENT = 1000;
const MAX_NUMBER_LENGTH = 1000;
const MAX_JSON_DEPTH = 64;

export function parseNumeric(value: string): string | null {
  if (value.length > MAX_NUMBER_LENGTH) return null;
  const m = NUMERIC.exec(value);
  if (!m) return null;
  if (m[3] !== undefined && Math.abs(Number(m[3])) > MAX_EXPONENT) return null;
  return value;
}

/**
 * PostgreSQL's boolean input (parse_bool_with_len): after trimming spaces,
 * case-insensitively, any prefix of `true`/`false`/`yes`/`no`, `on`, `off`
 * (at least `of`), `1`, `0`.
 */
export function parseBoolean(value: string): boolean | null {
  const v = value.replace(/^[ \t\n\r\v\f]+|[ \t\n\r\v\f]+$/g, '').toLowerCase();
  if (v === '') return null;
  if ('true'.startsWith(v) || 'yes'.startsWith(v) || v === 'on' || v === '1') return true;
  if ('false'.startsWith(v) || 'no'.startsWith(v) || (v.length >= 2 && 'off'.startsWith(v)) || v === '0') return false;
  return null;
}

/** Text PostgreSQL cannot store: the NUL character. */
export function isStorableText(value: string): boolean {
  return !value.includes('\0');
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function jsonAcceptable(value: unknown, depth: number): boolean {
  if (depth > MAX_JSON_DEPTH) return false;
  if (typeof value === 'string') return isStorableText(value) && !LONE_SURROGATE.test(value);
  if (isLosslessNumber(value)) {
    const exp = /[eE]([+-]?[0-9]+)$/.exec(value.value);
    return value.value.length <= MAX_NUMBER_LENGTH && (!exp || Math.abs(Number(exp[1])) <= MAX_EXPONENT);
  }
  if (Array.isArray(value)) return value.every((v) => jsonAcceptable(v, depth + 1));
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).every(([k, v]) => jsonAcceptable(k, depth) && jsonAcceptable(v, depth + 1));
  }
  return true;
}

/**
 * A JSON value for a jsonb comparison, re-serialised (numbers keep every
 * digit). PostgreSQL's jsonb refuses `\u0000`, unpaired surrogates and
 * exponents it cannot hold: those are 400 here.
 */
export function parseJsonValue(value: string): string | null {
  try {
    const parsed = parseLossless(value, null, { onDuplicateKey: ({ newValue }) => newValue });
    if (!jsonAcceptable(parsed, 0)) return null;
    return stringifyLossless(parsed) ?? null;
  } catch {
    return null;
  }
}

const TYPE_WORDS: Record<ValueType, string> = {
  text: 'text',
  numeric: 'a number',
  boolean: 'a boolean (true/false, t/f, yes/no, on/off, 1/0)',
  jsonb: 'JSON',
};

/** The value to bind for `value` compared with something of `type`, or a 400 naming it. */
export function coerce(value: string, type: ValueType, context: string): unknown {
  let result: unknown;
  if (type === 'text') result = isStorableText(value) ? value : null;
  else if (type === 'numeric') result = parseNumeric(value);
  else if (type === 'boolean') result = parseBoolean(value);
  else result = parseJsonValue(value);
  if (result === null) {
    const why = type === 'text' ? 'text cannot contain the NUL character' : `it is not ${TYPE_WORDS[type]}`;
    throw badQuery(`invalid value ${echo(value)} in ${echo(context)}: ${why}`, { value, filter: context });
  }
  return result;
}
