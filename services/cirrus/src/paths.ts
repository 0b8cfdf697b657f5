// SolidVM storage paths (the keys of ContractStateChange.diff) and the
// updates they make to a mapping entry's stored value. A path is the
// variable's name and then segments: `<key>` (a mapping key, a string key
// JSON-quoted), `[i]` (an array element), `.name` (a struct field, or an
// array's `.length`): `.balances<1a2b…>`, `.orders<"a,b">.qty`,
// `.lists<3>[0]`, `.lists<3>.length`.
import type { JsonValue } from '@platform/query';
import { jsonText } from '@platform/query';
import { defaultOf, fromStorage, storable, type Shape } from './shapes.js';

export type Segment = { k: 'key'; text: string } | { k: 'index'; i: number } | { k: 'field'; name: string };

const NAME = /^[A-Za-z_$][A-Za-z0-9_$]*/;
/** the most elements an array in a mapping value is grown to; a longer one is left as it was */
const MAX_ELEMENTS = 100_000;

/** `.name…` → the variable's name and its segments; null for a path of another form. */
export function parsePath(path: string): { name: string; segments: Segment[] } | null {
  if (path[0] !== '.') return null;
  const name = NAME.exec(path.slice(1))?.[0];
  if (!name) return null;
  const segments: Segment[] = [];
  let i = 1 + name.length;
  while (i < path.length) {
    const c = path[i];
    if (c === '<') {
      let j = i + 1;
      if (path[j] === '"') {
        j++;
        while (j < path.length && path[j] !== '"') j += path[j] === '\\' ? 2 : 1;
        j++;
      } else {
        while (j < path.length && path[j] !== '>') j++;
      }
      if (path[j] !== '>') return null;
      segments.push({ k: 'key', text: path.slice(i + 1, j) });
      i = j + 1;
    } else if (c === '[') {
      const j = path.indexOf(']', i);
      const n = j < 0 ? NaN : Number(path.slice(i + 1, j));
      if (!Number.isSafeInteger(n) || n < 0) return null;
      segments.push({ k: 'index', i: n });
      i = j + 1;
    } else if (c === '.') {
      const field = NAME.exec(path.slice(i + 1))?.[0];
      if (!field) return null;
      segments.push({ k: 'field', name: field });
      i += 1 + field.length;
    } else {
      return null;
    }
  }
  return { name, segments };
}

/** A mapping key of the path as stored: string keys unquoted, booleans as booleans, bytes without 0x. */
export function keyValue(s: Shape, text: string): string | boolean {
  if (s.k === 'bool') return text === 'true';
  if (s.k === 'text' && text.startsWith('"')) {
    try {
      return storable(JSON.parse(text) as string);
    } catch {
      return storable(text);
    }
  }
  return storable(s.k === 'text' && text.startsWith('0x') ? text.slice(2) : text);
}

const isObject = (v: JsonValue): v is { [key: string]: JsonValue } => v !== null && typeof v === 'object' && !Array.isArray(v) && !('isLosslessNumber' in v);

/** JSON text with object keys sorted: jsonb keeps keys in its own order, so values read back compare by content. */
function canonical(v: JsonValue): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (isObject(v)) return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(',')}}`;
  return jsonText(v);
}

export const isDefault = (s: Shape, v: JsonValue): boolean => canonical(v) === canonical(defaultOf(s));


/**
 * `cur` (a value of shape `s`, stored form) with the slot at `segments` set to
 * `raw` (null: cleared). Segments that do not fit the shape change nothing.
 */
export function updateValue(cur: JsonValue, s: Shape, segments: readonly Segment[], raw: string | null, at = 0): JsonValue {
  if (at === segments.length) return fromStorage(s, raw);
  const seg = segments[at];
  if (s.k === 'struct' && seg.k === 'field') {
    const field = s.fields.find(([name]) => name === seg.name);
    if (!field) return cur;
    const obj = { ...(isObject(cur) ? cur : (defaultOf(s) as Record<string, JsonValue>)) };
    obj[seg.name] = updateValue(obj[seg.name] ?? defaultOf(field[1]), field[1], segments, raw, at + 1);
    return obj;
  }
  if (s.k === 'array') {
    const arr = Array.isArray(cur) ? [...cur] : (defaultOf(s) as JsonValue[]);
    if (seg.k === 'field' && seg.name === 'length' && at === segments.length - 1) {
      const n = raw === null ? 0 : Number(raw);
      if (!Number.isSafeInteger(n) || n < 0 || n > MAX_ELEMENTS) return cur;
      while (arr.length < n) arr.push(defaultOf(s.elem));
      arr.length = n;
      return arr;
    }
    if (seg.k !== 'index' || seg.i >= MAX_ELEMENTS) return cur;
    // a cleared element past the end is the tail of a shrinking array: nothing to grow
    if (raw === null && seg.i >= arr.length) return arr;
    while (arr.length <= seg.i) arr.push(defaultOf(s.elem));
    arr[seg.i] = updateValue(arr[seg.i], s.elem, segments, raw, at + 1);
    return arr;
  }
  if (s.k === 'mapping' && seg.k === 'key') {
    const obj = { ...(isObject(cur) ? cur : {}) };
    const key = String(keyValue(s.key, seg.text));
    const next = updateValue(obj[key] ?? defaultOf(s.value), s.value, segments, raw, at + 1);
    if (isDefault(s.value, next)) delete obj[key];
    else obj[key] = next;
    return obj;
  }
  return cur;
}
