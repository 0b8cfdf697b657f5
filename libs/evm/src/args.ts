// JSON arguments → ABI values, with the forms SolidVM accepts (README
// "Arguments"), so a client can send the same JSON to either VM. A mismatch
// names the parameter and the expected type.
// JSON text and the raw `(1,"x")` form arrive from transaction metadata.
import { parseJsonLossless } from '@platform/common';
import { hexToBytes } from '@platform/crypto';
import { abiEncode } from './abi-codec.js';
import { abiType, typeText, type AbiEntry, type AbiParam } from './abi-types.js';
import { badArguments } from './errors.js';

/** Names of an enum's members by its name (from the xabi), so enum arguments may be given by name. */
export type EnumLookup = (typedef: string) => string[] | undefined;

const utf8 = new TextEncoder();

function shown(v: unknown): string {
  const s = typeof v === 'bigint' ? v.toString() : typeof v === 'string' ? JSON.stringify(v) : (JSON.stringify(v) ?? String(v));
  return s.length > 80 ? s.slice(0, 77) + '...' : s;
}

function bad(path: string, expected: string, v: unknown): never {
  return badArguments(`argument ${path}: expected ${expected}, got ${shown(v)}`);
}

export function toBigInt(v: unknown): bigint | undefined {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number') return Number.isSafeInteger(v) ? BigInt(v) : undefined;
  if (typeof v !== 'string') return undefined;
  const s = v.trim();
  if (/^-?\d+$/.test(s)) return BigInt(s);
  if (/^0x[0-9a-fA-F]+$/.test(s)) return BigInt(s);
  // 1e18, 1.5e3: exact integers written in scientific notation
  const m = /^(-?\d+)(?:\.(\d+))?e(\d+)$/i.exec(s);
  if (m) {
    const frac = m[2] ?? '';
    const e = Number(m[3]);
    if (frac.length > e || e > 100) return undefined;
    return BigInt(m[1] + frac.padEnd(e, '0'));
  }
  return undefined;
}

function hexOrText(v: string): Uint8Array {
  if (/^(0x)?([0-9a-fA-F]{2})*$/.test(v) && v !== '' && v !== '0x') return hexToBytes(v);
  return v === '0x' ? new Uint8Array(0) : utf8.encode(v);
}

const lastSegment = (s: string) => s.slice(s.lastIndexOf('.') + 1);

/** Converts one JSON value to the ABI value of parameter `p`. */
export function toAbiValue(p: AbiParam, v: unknown, path: string, enums?: EnumLookup): unknown {
  const arr = /^(.*)\[(\d*)\]$/.exec(p.type);
  if (arr) {
    if (!Array.isArray(v)) return bad(path, p.type, v);
    const len = arr[2] === '' ? null : Number(arr[2]);
    if (len !== null && v.length !== len) badArguments(`argument ${path}: expected ${len} elements (${p.type}), got ${v.length}`);
    const elem: AbiParam = { ...p, type: arr[1], internalType: p.internalType?.replace(/\[\d*\]$/, '') };
    return v.map((e, i) => toAbiValue(elem, e, `${path}[${i}]`, enums));
  }
  if (p.type === 'tuple') return toTuple(p, v, path, enums);
  const t = abiType(p);
  switch (t.k) {
    case 'uint':
    case 'int': {
      const names = p.internalType?.startsWith('enum ') ? enums?.(lastSegment(p.internalType.slice(5))) : undefined;
      if (names && typeof v === 'string' && names.includes(lastSegment(v))) return BigInt(names.indexOf(lastSegment(v)));
      const n = toBigInt(v);
      if (n === undefined) {
        if (typeof v === 'number') badArguments(`argument ${path}: ${v} is not an exact integer; send large numbers as decimal strings`);
        return bad(path, names ? `one of ${names.join(', ')}` : typeText(t), v);
      }
      const max = t.k === 'uint' ? (1n << BigInt(t.bits)) - 1n : (1n << BigInt(t.bits - 1)) - 1n;
      const min = t.k === 'uint' ? 0n : -(1n << BigInt(t.bits - 1));
      if (n < min || n > max || (names && n >= BigInt(names.length))) badArguments(`argument ${path}: ${n} is out of range for ${names ? p.internalType : typeText(t)}`);
      return n;
    }
    case 'bool':
      if (v === true || v === 'true' || v === 'True') return true;
      if (v === false || v === 'false' || v === 'False') return false;
      return bad(path, 'bool', v);
    case 'address': {
      if (typeof v !== 'string') return bad(path, 'address', v);
      const h = v.startsWith('0x') || v.startsWith('0X') ? v.slice(2) : v;
      if (!/^[0-9a-fA-F]{1,40}$/.test(h)) return bad(path, 'address (40 hex digits)', v);
      return h.toLowerCase().padStart(40, '0');
    }
    case 'string':
      if (typeof v === 'string') return v;
      if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
      return bad(path, 'string', v);
    case 'bytes':
      if (typeof v !== 'string') return bad(path, 'bytes (hex)', v);
      return hexOrText(v);
    case 'fbytes': {
      if (typeof v !== 'string') return bad(path, `bytes${t.n} (hex)`, v);
      const b = hexOrText(v);
      if (b.length > t.n) return bad(path, `at most ${t.n} bytes`, v);
      const out = new Uint8Array(t.n);
      out.set(b);
      return out;
    }
    default:
      return bad(path, p.type, v);
  }
}

function toTuple(p: AbiParam, v: unknown, path: string, enums?: EnumLookup): unknown[] {
  const cs = p.components ?? [];
  if (Array.isArray(v)) {
    if (v.length !== cs.length) badArguments(`argument ${path}: expected ${cs.length} members, got ${v.length}`);
    return cs.map((c, i) => toAbiValue(c, v[i], `${path}.${c.name || i}`, enums));
  }
  if (!v || typeof v !== 'object') return bad(path, p.internalType ?? 'a struct', v);
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o)) if (!cs.some((c) => c.name === k)) badArguments(`argument ${path}: ${p.internalType ?? 'the struct'} has no member ${k}`);
  return cs.map((c) => {
    if (!(c.name in o)) badArguments(`argument ${path}: missing member ${c.name} (${c.type})`);
    return toAbiValue(c, o[c.name], `${path}.${c.name}`, enums);
  });
}

/**
 * SolidVM's raw-transaction form `(1,"x",[1,2],true)`: numbers stay text (no
 * rounding), strings are JSON-quoted, structs may be JSON objects.
 */
export function parseRawArgs(text: string): unknown[] {
  let i = 0;
  const fail = (): never => badArguments(`arguments ${shown(text)} do not parse at position ${i}`);
  const ws = () => {
    while (i < text.length && /\s/.test(text[i])) i++;
  };
  // index just past the JSON string that starts at `from`
  const stringEnd = (from: number): number => {
    for (let j = from + 1; j < text.length; j++) {
      if (text[j] === '\\') j++;
      else if (text[j] === '"') return j + 1;
    }
    return fail();
  };
  // index just past the balanced {…} that starts at `from`, strings inside skipped
  const objectEnd = (from: number): number => {
    let depth = 0;
    for (let j = from; j < text.length; j++) {
      if (text[j] === '"') j = stringEnd(j) - 1;
      else if (text[j] === '{') depth++;
      else if (text[j] === '}' && --depth === 0) return j + 1;
    }
    return fail();
  };
  const list = (close: string): unknown[] => {
    const out: unknown[] = [];
    ws();
    if (text[i] === close) {
      i++;
      return out;
    }
    for (;;) {
      out.push(value());
      ws();
      if (text[i] === ',') i++;
      else if (text[i] === close) {
        i++;
        return out;
      } else fail();
    }
  };
  const value = (): unknown => {
    ws();
    const c = text[i];
    if (c === '(' || c === '[') {
      i++;
      return list(c === '(' ? ')' : ']');
    }
    if (c === '"' || c === '{') {
      const end = c === '"' ? stringEnd(i) : objectEnd(i);
      let v: unknown;
      try {
        v = parseJsonLossless(text.slice(i, end));
      } catch {
        return fail();
      }
      i = end;
      return v;
    }
    const m = /^[^,()[\]\s]+/.exec(text.slice(i));
    if (!m) return fail();
    i += m[0].length;
    return m[0] === 'true' ? true : m[0] === 'false' ? false : m[0];
  };
  ws();
  if (text[i] !== '(') fail();
  i++;
  const out = list(')');
  ws();
  if (i < text.length) fail();
  return out;
}

/** Any accepted argument form → positional values or a by-name object. */
export function normaliseArgs(args: unknown): unknown[] | Record<string, unknown> {
  if (args === undefined || args === null || args === '') return [];
  if (typeof args === 'string') {
    if (args.trim().startsWith('(')) return parseRawArgs(args.trim());
    let parsed: unknown;
    try {
      parsed = parseJsonLossless(args);
    } catch {
      return badArguments('arguments are not valid JSON (an object keyed by parameter name, or an array)');
    }
    if (parsed === null || typeof parsed !== 'object') return badArguments('arguments must be a JSON object keyed by parameter name, or an array');
    return parsed as unknown[] | Record<string, unknown>;
  }
  if (Array.isArray(args)) return args;
  if (typeof args === 'object') return args as Record<string, unknown>;
  return [args];
}

function describe(params: AbiParam[]): string {
  return params.map((p) => `${p.type} ${p.name}`.trim()).join(', ');
}

/** ABI-encodes JSON arguments for `params` (a function's or constructor's inputs). */
export function encodeArguments(params: AbiParam[], args: unknown[] | Record<string, unknown>, what: string, enums?: EnumLookup): Uint8Array {
  let values: unknown[];
  if (Array.isArray(args)) {
    if (args.length !== params.length) badArguments(`${what} takes ${params.length} argument${params.length === 1 ? '' : 's'} (${describe(params)}), got ${args.length}`);
    values = params.map((p, i) => toAbiValue(p, args[i], p.name || `#${i}`, enums));
  } else {
    for (const k of Object.keys(args)) if (!params.some((p) => p.name === k)) badArguments(`${what} has no parameter ${k}`);
    values = params.map((p, i) => {
      if (!(p.name in args)) badArguments(`missing argument ${p.name || '#' + i} (${p.type}) of ${what}`);
      return toAbiValue(p, args[p.name], p.name, enums);
    });
  }
  return abiEncode(
    params.map((p) => abiType(p)),
    values,
  );
}

/**
 * Picks among functions of one name: by the argument names (a by-name object)
 * or their count (a positional array), as SolidVM resolves overloads.
 */
export function chooseOverload(cands: AbiEntry[], args: unknown[] | Record<string, unknown>): AbiEntry | undefined {
  if (cands.length === 1) return cands[0];
  if (Array.isArray(args)) {
    const byCount = cands.filter((c) => (c.inputs ?? []).length === args.length);
    return byCount.length === 1 ? byCount[0] : undefined;
  }
  const keys = Object.keys(args).sort().join(',');
  const byName = cands.filter((c) => (c.inputs ?? []).map((p) => p.name).sort().join(',') === keys);
  return byName.length === 1 ? byName[0] : undefined;
}
