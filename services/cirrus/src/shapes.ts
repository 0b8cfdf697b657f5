// A state variable's type as cirrus needs it (a Shape: the xabi type with its
// struct definitions resolved), where its values go (a column of the contract
// table, a side table, both) and how a value becomes what is stored.
//
// Values arrive in two forms: the VM's JSON of a whole variable
// (ContractStateChange.state: integers as decimal strings, structs as
// objects, arrays as arrays) and raw storage text of one slot (the diff:
// `"5"`, `"true"`, an address, a string). Both are turned into the same
// stored form: scalars by the column's type, structs and nested values as
// JSON whose integers are numbers (digit for digit).
import { foldXabi, type XabiType, type XabiVisitor } from '@platform/vm';
import { jsonNumber, type ColumnType, type JsonValue } from '@platform/query';

export type Shape =
  | { k: 'num' }
  | { k: 'enum' }
  | { k: 'bool' }
  /** `zero`: an address-like value whose default is 40 zeros */
  | { k: 'text'; zero?: true }
  | { k: 'struct'; fields: Array<[string, Shape]> }
  | { k: 'array'; elem: Shape; length: number | null }
  | { k: 'mapping'; key: Shape; value: Shape }
  /** a type cirrus cannot resolve (a struct of another contract): its JSON as the VM gives it */
  | { k: 'json' };

const MAX_DEPTH = 8;
const ZERO_ADDRESS = '0'.repeat(40);

const SHAPES: XabiVisitor<Shape> = {
  int: () => ({ k: 'num' }),
  decimal: () => ({ k: 'num' }),
  enum: () => ({ k: 'enum' }),
  bool: () => ({ k: 'bool' }),
  address: () => ({ k: 'text', zero: true }),
  account: () => ({ k: 'text', zero: true }),
  contract: () => ({ k: 'text', zero: true }),
  string: () => ({ k: 'text' }),
  bytes: () => ({ k: 'text' }),
  array: (t, elem) => ({ k: 'array', elem, length: typeof t.length === 'number' ? t.length : null }),
  mapping: (_, key, value) => ({ k: 'mapping', key, value }),
  // a struct of another contract (`Other.S`) is looked up by its bare name; one not found is its JSON
  struct: (_, fields) => {
    const fs = fields();
    return fs ? { k: 'struct', fields: fs.map(([name, shape]) => [name, shape]) } : { k: 'json' };
  },
  other: () => ({ k: 'json' }),
};

/** The shape of an xabi type; `types` is the xabi's `types` (struct definitions). */
export function shapeOf(t: XabiType, types: Record<string, unknown>): Shape {
  return foldXabi(t, SHAPES, { structs: types, maxDepth: MAX_DEPTH });
}

export const sameShape = (a: Shape, b: Shape): boolean => JSON.stringify(a) === JSON.stringify(b);

/** The column type of a scalar shape; complex shapes are jsonb. */
export function columnTypeOf(s: Shape): ColumnType {
  switch (s.k) {
    case 'num':
      return 'numeric';
    case 'enum':
      return 'integer';
    case 'bool':
      return 'boolean';
    case 'text':
      return 'text';
    default:
      return 'jsonb';
  }
}

export const SQL_TYPE: Record<ColumnType, string> = { text: 'text', integer: 'integer', numeric: 'numeric', boolean: 'boolean', jsonb: 'jsonb' };

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g');

/**
 * Text PostgreSQL can store: text refuses the NUL character and jsonb also
 * unpaired surrogates, and a refused value would stop the indexer on that
 * block forever. Both become U+FFFD (the replacement character).
 */
export function storable(text: string): string {
  return text.includes('\0') || LONE_SURROGATE.test(text) ? text.replace(/\0/g, '\uFFFD').replace(LONE_SURROGATES, '\uFFFD') : text;
}

const DECIMAL = /^-?\d+(\.\d+)?$/;
const INDEX = /^\d{1,9}$/;

/** A scalar of the VM's JSON (or raw storage text) as its column's parameter; null when it does not fit. */
export function scalarParam(s: Shape, v: unknown): string | boolean | null {
  if (v === undefined || v === null) return null;
  switch (s.k) {
    case 'num':
      return (typeof v === 'string' || typeof v === 'number') && DECIMAL.test(String(v)) ? String(v) : null;
    case 'enum':
      return (typeof v === 'string' || typeof v === 'number') && INDEX.test(String(v)) ? String(v) : null;
    case 'bool':
      return v === true || v === 'true' ? true : v === false || v === 'false' ? false : null;
    default:
      return storable(typeof v === 'string' ? v : JSON.stringify(v));
  }
}

/** The VM's JSON of a value as stored JSON: integers become numbers, structs objects in field order. */
export function jsonOf(s: Shape, v: unknown): JsonValue {
  switch (s.k) {
    case 'num':
    case 'enum': {
      const p = scalarParam(s, v);
      return typeof p === 'string' ? jsonNumber(p) : null;
    }
    case 'bool':
      return scalarParam(s, v) as boolean | null;
    case 'text':
      return typeof v === 'string' ? storable(v) : v === undefined || v === null ? null : storable(JSON.stringify(v));
    case 'struct': {
      const o = (v !== null && typeof v === 'object' ? v : {}) as Record<string, unknown>;
      return Object.fromEntries(s.fields.map(([name, f]) => [name, jsonOf(f, o[name])]));
    }
    case 'array':
      return Array.isArray(v) ? v.map((e) => jsonOf(s.elem, e)) : [];
    case 'mapping': {
      const o = (v !== null && typeof v === 'object' ? v : {}) as Record<string, unknown>;
      return Object.fromEntries(Object.entries(o).map(([k, e]) => [storable(k), jsonOf(s.value, e)]));
    }
    default:
      return plainJson(v);
  }
}

function plainJson(v: unknown): JsonValue {
  if (v === undefined || v === null) return null;
  if (typeof v === 'string') return storable(v);
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number' || typeof v === 'bigint') return jsonNumber(String(v));
  if (Array.isArray(v)) return v.map(plainJson);
  if (typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, e]) => [storable(k), plainJson(e)]));
  return String(v);
}

/** The default value of a shape, stored form (what a cleared storage slot reads as). */
export function defaultOf(s: Shape): JsonValue {
  switch (s.k) {
    case 'num':
    case 'enum':
      return jsonNumber('0');
    case 'bool':
      return false;
    case 'text':
      return s.zero ? ZERO_ADDRESS : '';
    case 'struct':
      return Object.fromEntries(s.fields.map(([name, f]) => [name, defaultOf(f)]));
    case 'array':
      return s.length === null ? [] : Array.from({ length: s.length }, () => defaultOf(s.elem));
    case 'mapping':
      return {};
    default:
      return null;
  }
}

/** Raw storage text of one slot (null: cleared) in stored form. */
export function fromStorage(s: Shape, raw: string | null): JsonValue {
  if (raw === null) return defaultOf(s);
  return jsonOf(s, raw);
}
