// Rows → the response body: a JSON array whose numbers keep every digit.
// A small writer of its own rather than lossless-json's stringify: rows hold
// only strings, booleans, null, LosslessNumbers, arrays and plain objects, and
// this is on every response's path.
import { LosslessNumber, isLosslessNumber, parse as parseLossless } from 'lossless-json';

export type JsonValue = string | boolean | null | LosslessNumber | JsonValue[] | { [key: string]: JsonValue };
export type Row = Record<string, JsonValue>;

function value(v: JsonValue): string {
  if (v === null) return 'null';
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (isLosslessNumber(v)) return v.value;
  if (Array.isArray(v)) {
    let out = '[';
    for (let i = 0; i < v.length; i++) out += (i > 0 ? ',' : '') + value(v[i]);
    return out + ']';
  }
  return object(v);
}

function object(o: { [key: string]: JsonValue }): string {
  let out = '{';
  let first = true;
  for (const key in o) {
    if (!Object.hasOwn(o, key)) continue;
    out += (first ? '' : ',') + JSON.stringify(key) + ':' + value(o[key]);
    first = false;
  }
  return out + '}';
}

export function toJson(rows: readonly Row[]): string {
  let out = '[';
  for (let i = 0; i < rows.length; i++) out += (i > 0 ? ',' : '') + object(rows[i]);
  return out + ']';
}

/** One JSON value as text, numbers digit for digit (what a jsonb column is written from). */
export function jsonText(v: JsonValue): string {
  return value(v);
}

/** A JSON number from its decimal text, kept digit for digit. */
export function jsonNumber(text: string): JsonValue {
  return new LosslessNumber(text);
}

/** JSON text (e.g. jsonb read as text) parsed without rounding its numbers; duplicate keys keep the last. */
export function parseJson(text: string): JsonValue {
  return parseLossless(text, null, { onDuplicateKey: ({ newValue }) => newValue }) as JsonValue;
}
