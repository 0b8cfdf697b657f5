// Decoding of call arguments: JSON keyed by parameter name (the spec's forms:
// nested arrays, structs as objects, mappings as objects with single-quoted
// string keys), positional JSON arrays, and the raw-transaction text form
// `(1,2,"x")`. A mismatch names the parameter and the expected type.
import { parseJsonLossless } from '@platform/common';
import { VmFailure } from './errors.js';
import { bytesToHex, hexToBytes, utf8 } from './hash.js';
import type { Param } from './scope.js';
import { typeName, type SType } from './types.js';
import { keyText, parseAccount, parseDecimal } from './values.js';

export class ArgumentError extends VmFailure {
  constructor(message: string) {
    super('BAD_ARGUMENTS', message, 'other', {}, false);
  }
}

function bad(path: string, t: SType, v: unknown): never {
  const shown = typeof v === 'string' ? JSON.stringify(v) : typeof v === 'bigint' ? v.toString() : JSON.stringify(v) ?? String(v);
  throw new ArgumentError(`argument ${path}: expected ${typeName(t)}, got ${shown && shown.length > 80 ? shown.slice(0, 77) + '...' : shown}`);
}

function toBigInt(v: unknown): bigint | undefined {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number') return Number.isInteger(v) ? BigInt(v) : undefined;
  if (typeof v === 'string') {
    const s = v.trim();
    if (/^-?\d+$/.test(s)) return BigInt(s);
    if (/^0x[0-9a-fA-F]+$/.test(s)) return BigInt(s);
    if (/^-?\d+(\.\d+)?e\d+$/i.test(s)) {
      const [m, e] = s.toLowerCase().split('e');
      const [i, frac = ''] = m.split('.');
      if (frac.length > Number(e)) return undefined;
      return BigInt(i + frac.padEnd(Number(e), '0'));
    }
  }
  return undefined;
}

function stripQuotes(k: string): string {
  return k.length >= 2 && ((k[0] === "'" && k.endsWith("'")) || (k[0] === '"' && k.endsWith('"'))) ? k.slice(1, -1) : k;
}

export function decodeValue(t: SType, v: unknown, path: string): unknown {
  switch (t.k) {
    case 'int': {
      const n = toBigInt(v);
      if (n === undefined) return bad(path, t, v);
      if (n < t.min || n > t.max) throw new ArgumentError(`argument ${path}: ${n} is out of range for ${typeName(t)}`);
      return n;
    }
    case 'bool':
      if (v === true || v === 'true' || v === 'True') return true;
      if (v === false || v === 'false' || v === 'False') return false;
      return bad(path, t, v);
    case 'address':
    case 'contract': {
      if (typeof v !== 'string') return bad(path, t, v);
      const h = v.startsWith('0x') || v.startsWith('0X') ? v.slice(2) : v;
      if (!/^[0-9a-fA-F]{1,40}$/.test(h)) return bad(path, t, v);
      return h.toLowerCase().padStart(40, '0');
    }
    case 'account': {
      if (typeof v !== 'string') return bad(path, t, v);
      const a = parseAccount(v);
      return a ?? bad(path, t, v);
    }
    case 'string':
      if (typeof v === 'string') return v;
      if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
      return bad(path, t, v);
    case 'bytes': {
      if (typeof v !== 'string') return bad(path, t, v);
      try {
        return hexToBytes(v);
      } catch {
        return utf8(v);
      }
    }
    case 'fbytes': {
      if (typeof v !== 'string') return bad(path, t, v);
      let b: Uint8Array;
      if (/^(0x)?([0-9a-fA-F]{2})*$/.test(v) && v.length > 0) b = hexToBytes(v);
      else b = utf8(v);
      if (b.length > t.n) return bad(path, t, v);
      const padded = new Uint8Array(t.n);
      padded.set(b);
      return BigInt('0x' + bytesToHex(padded));
    }
    case 'decimal': {
      const d = typeof v === 'number' ? parseDecimal(String(v)) : typeof v === 'string' ? parseDecimal(v) : typeof v === 'bigint' ? v * 10n ** 18n : undefined;
      return d ?? bad(path, t, v);
    }
    case 'enum': {
      if (typeof v === 'string') {
        const i = t.members.indexOf(v.includes('.') ? v.slice(v.lastIndexOf('.') + 1) : v);
        if (i >= 0) return i;
      }
      const n = toBigInt(v);
      if (n !== undefined && n >= 0n && n < BigInt(t.members.length)) return Number(n);
      throw new ArgumentError(`argument ${path}: expected one of ${t.name}.{${t.members.join(', ')}}, got ${JSON.stringify(v)}`);
    }
    case 'array': {
      if (!Array.isArray(v)) return bad(path, t, v);
      if (t.len !== null && v.length !== t.len) throw new ArgumentError(`argument ${path}: expected ${t.len} elements (${typeName(t)}), got ${v.length}`);
      return v.map((e, i) => decodeValue(t.elem, e, `${path}[${i}]`));
    }
    case 'struct': {
      if (Array.isArray(v)) {
        const fields = t.fields.filter((f) => f.t.k !== 'mapping');
        if (v.length !== fields.length) return bad(path, t, v);
        let j = 0;
        return t.fields.map((f) => (f.t.k === 'mapping' ? new Map() : decodeValue(f.t, v[j++], `${path}.${f.name}`)));
      }
      if (!v || typeof v !== 'object') return bad(path, t, v);
      const o = v as Record<string, unknown>;
      for (const k of Object.keys(o)) if (!t.index.has(k)) throw new ArgumentError(`argument ${path}: struct ${t.name} has no member ${k}`);
      return t.fields.map((f) => {
        if (f.t.k === 'mapping') return o[f.name] === undefined ? new Map() : decodeValue(f.t, o[f.name], `${path}.${f.name}`);
        if (!(f.name in o)) throw new ArgumentError(`argument ${path}: missing member ${f.name} (${typeName(f.t)}) of struct ${t.name}`);
        return decodeValue(f.t, o[f.name], `${path}.${f.name}`);
      });
    }
    case 'mapping': {
      if (!v || typeof v !== 'object' || Array.isArray(v)) return bad(path, t, v);
      const m = new Map<string, unknown>();
      for (const [k, e] of Object.entries(v as Record<string, unknown>)) {
        const key = decodeValue(t.key, t.key.k === 'string' ? stripQuotes(k) : k, `${path}<${k}>`);
        m.set(keyText(t.key, key), decodeValue(t.value, e, `${path}<${k}>`));
      }
      return m;
    }
  }
  return bad(path, t, v);
}

/** The raw-transaction form: `(1, 2, "x", [1,2], true)`. Numbers stay text (no rounding). */
export function parseRawArgs(text: string): unknown[] {
  let i = 0;
  const s = text;
  const ws = () => {
    while (i < s.length && /\s/.test(s[i])) i++;
  };
  const fail = (): never => {
    throw new ArgumentError(`arguments ${JSON.stringify(text.length > 80 ? text.slice(0, 77) + '...' : text)} do not parse at position ${i}`);
  };
  const list = (close: string): unknown[] => {
    const out: unknown[] = [];
    ws();
    if (s[i] === close) {
      i++;
      return out;
    }
    for (;;) {
      out.push(value());
      ws();
      if (s[i] === ',') {
        i++;
        continue;
      }
      if (s[i] === close) {
        i++;
        return out;
      }
      fail();
    }
  };
  const value = (): unknown => {
    ws();
    const c = s[i];
    if (c === '(') {
      i++;
      return list(')');
    }
    if (c === '[') {
      i++;
      return list(']');
    }
    if (c === '"') {
      let j = i + 1;
      while (j < s.length && s[j] !== '"') j += s[j] === '\\' ? 2 : 1;
      if (j >= s.length) fail();
      const str = JSON.parse(s.slice(i, j + 1)) as string;
      i = j + 1;
      return str;
    }
    if (c === '{') {
      // a JSON object (struct or mapping) inside the raw form
      let depth = 0;
      let j = i;
      let inStr = false;
      for (; j < s.length; j++) {
        const ch = s[j];
        if (inStr) {
          if (ch === '\\') j++;
          else if (ch === '"') inStr = false;
        } else if (ch === '"') inStr = true;
        else if (ch === '{') depth++;
        else if (ch === '}' && --depth === 0) break;
      }
      const obj = parseJsonLossless(s.slice(i, j + 1));
      i = j + 1;
      return obj;
    }
    const m = /^[^,()[\]\s]+/.exec(s.slice(i));
    if (!m) return fail();
    i += m[0].length;
    if (m[0] === 'true') return true;
    if (m[0] === 'false') return false;
    return m[0];
  };
  ws();
  if (s[i] !== '(') {
    const v = value();
    ws();
    if (i < s.length) fail();
    return [v];
  }
  i++;
  const out = list(')');
  ws();
  if (i < s.length) fail();
  return out;
}

/** Normalises any accepted argument form into positional raw values or a by-name object. */
export function normaliseArgs(args: unknown): unknown[] | Record<string, unknown> {
  if (args === undefined || args === null || args === '') return [];
  if (typeof args === 'string') {
    const s = args.trim();
    if (s.startsWith('{') || s.startsWith('[')) {
      let parsed: unknown;
      try {
        parsed = parseJsonLossless(s);
      } catch {
        throw new ArgumentError('arguments are not valid JSON');
      }
      return normaliseArgs(parsed);
    }
    return parseRawArgs(s);
  }
  if (Array.isArray(args)) return args;
  if (typeof args === 'object') return args as Record<string, unknown>;
  return [args];
}

export function decodeArgs(params: Param[], args: unknown[] | Record<string, unknown>, what: string): unknown[] {
  if (Array.isArray(args)) {
    if (args.length !== params.length) {
      throw new ArgumentError(`${what} takes ${params.length} argument${params.length === 1 ? '' : 's'} (${params.map((p) => `${typeName(p.t)} ${p.name}`.trim()).join(', ')}), got ${args.length}`);
    }
    return params.map((p, i) => decodeValue(p.t, args[i], p.name || `#${i}`));
  }
  for (const k of Object.keys(args)) {
    if (!params.some((p) => p.name === k)) throw new ArgumentError(`${what} has no parameter ${k}`);
  }
  return params.map((p, i) => {
    if (!(p.name in args)) throw new ArgumentError(`missing argument ${p.name || '#' + i} (${typeName(p.t)}) of ${what}`);
    return decodeValue(p.t, args[p.name], p.name);
  });
}

/** Picks among overloads by the argument names given (object form) or their count. */
export function chooseOverload<T extends { params: Param[] }>(cands: T[], args: unknown[] | Record<string, unknown>): T | undefined {
  if (cands.length === 1) return cands[0];
  if (Array.isArray(args)) return cands.find((c) => c.params.length === args.length);
  const keys = Object.keys(args).sort().join(',');
  return cands.find((c) => c.params.map((p) => p.name).sort().join(',') === keys);
}

