// The one argument grammar of the platform's VMs (docs/conventions.md
// "Arguments"): what a creation's or call's `args` may be, and how each JSON
// value becomes a value of the parameter's type. SolidVM and the EVM both
// decode through it, and admission checks a raw transaction's `metadata.args`
// with it, so the same JSON is accepted or refused alike everywhere.
//
// The forms of `args`: a JSON object keyed by parameter name, a positional
// JSON array, the JSON text of either, or the raw-transaction form
// `(1, "x", [1,2], true)`. Parameters are described by their xabi types; a
// VM hands the types of a function's parameters to `argumentsDecoder` once
// and keeps the decoder.
import { parseJsonLossless } from '@platform/common';
import { foldXabi, xabiTypeText, type StructSource, type XabiOf, type XabiType, type XabiVisitor } from './xabi.js';

/** Arguments that do not parse or do not match the parameters: the VMs' `BAD_ARGUMENTS`. */
export class ArgumentError extends Error {
  override readonly name = 'ArgumentError';
  readonly code = 'BAD_ARGUMENTS' as const;
}

/** Arguments as given, after normalising: positional, or by parameter name. */
export type GivenArgs = unknown[] | Record<string, unknown>;

function shown(v: unknown): string {
  const s = typeof v === 'bigint' ? v.toString() : typeof v === 'string' ? JSON.stringify(v) : (JSON.stringify(v) ?? String(v));
  return s.length > 80 ? s.slice(0, 77) + '...' : s;
}

function refuse(message: string): never {
  throw new ArgumentError(message);
}

// --- the forms of `args` ----------------------------------------------------------

/**
 * The raw-transaction form `(1,"x",[1,2],true)`: numbers and bare words stay
 * text (no rounding), strings are JSON-quoted, `[…]` and `(…)` are lists,
 * `{…}` is a JSON object (a struct or a mapping).
 */
export function parseRawArgs(text: string): unknown[] {
  let i = 0;
  const fail = (): never => refuse(`arguments ${shown(text)} do not parse at position ${i}`);
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

/**
 * Any accepted form of `args` → positional values or a by-name object.
 * Absent (undefined, null, '') is no arguments; a string is the raw form
 * when it starts with `(`, else the JSON text of an object or an array; an
 * object or array is itself; any other value is the one positional argument.
 */
export function normaliseArgs(args: unknown): GivenArgs {
  if (args === undefined || args === null || args === '') return [];
  if (typeof args === 'string') {
    const text = args.trim();
    if (text.startsWith('(')) return parseRawArgs(text);
    if (text.startsWith('{') || text.startsWith('[')) {
      let parsed: unknown;
      try {
        parsed = parseJsonLossless(text);
      } catch {
        return refuse('arguments are not valid JSON (an object keyed by parameter name, or an array)');
      }
      return parsed as GivenArgs;
    }
    return refuse('arguments are not valid JSON (an object keyed by parameter name, or an array) nor the raw form (1,"x")');
  }
  if (Array.isArray(args)) return args;
  if (typeof args === 'object') return args as Record<string, unknown>;
  return [args];
}

/** What admission checks of a raw transaction's `metadata.args` (the types are the VM's to check): throws ArgumentError. */
export function checkArgsText(text: string): void {
  normaliseArgs(text);
}

// --- values -------------------------------------------------------------------------

/**
 * An integer given as a JSON number (an integral one: lossless JSON keeps a
 * number it cannot hold exactly as text), or as text: decimal, `0x` hex, or
 * an exact integer in scientific notation (`1e18`, `1.5e3`; exponent at most 100).
 */
export function toBigInt(v: unknown): bigint | undefined {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number') return Number.isInteger(v) ? BigInt(v) : undefined;
  if (typeof v !== 'string') return undefined;
  const s = v.trim();
  if (/^-?\d+$/.test(s)) return BigInt(s);
  if (/^0x[0-9a-fA-F]+$/.test(s)) return BigInt(s);
  const m = /^(-?\d+)(?:\.(\d+))?e\+?(\d+)$/i.exec(s);
  if (m) {
    const frac = m[2] ?? '';
    const e = Number(m[3]);
    if (frac.length > e || e > 100) return undefined;
    return BigInt(m[1] + frac.padEnd(e, '0'));
  }
  return undefined;
}

const DECIMAL_SCALE = 10n ** 18n;

/** A `decimal` (18 fractional digits) from `1.5`, `-0.25`, `3`: the value times 10^18; digits past the 18th are dropped. */
export function parseDecimal(s: string): bigint | undefined {
  const m = /^(-?)(\d*)(?:\.(\d*))?$/.exec(s.trim());
  if (!m || (m[2] === '' && (m[3] ?? '') === '')) return undefined;
  const frac = (m[3] ?? '').slice(0, 18).padEnd(18, '0');
  const v = BigInt(m[2] || '0') * DECIMAL_SCALE + BigInt(frac);
  return m[1] === '-' ? -v : v;
}

/** 40 lowercase hex digits from an address with or without `0x`, shorter ones left-padded with zeros. */
export function parseAddress(v: string): string | undefined {
  const h = v.startsWith('0x') || v.startsWith('0X') ? v.slice(2) : v;
  return /^[0-9a-fA-F]{1,40}$/.test(h) ? h.toLowerCase().padStart(40, '0') : undefined;
}

/** An `account`: `<address>`, `<address>:main` or `<address>:<chain ID>`. */
export function parseAccount(v: string): { address: string; chain: string | null } | undefined {
  const i = v.indexOf(':');
  const address = parseAddress(i < 0 ? v : v.slice(0, i));
  if (address === undefined) return undefined;
  if (i < 0) return { address, chain: null };
  const c = v.slice(i + 1);
  if (c === 'main') return { address, chain: 'main' };
  const h = c.startsWith('0x') ? c.slice(2) : c;
  if (!/^[0-9a-fA-F]{1,64}$/.test(h)) return undefined;
  return { address, chain: h.toLowerCase().padStart(64, '0') };
}

const utf8 = new TextEncoder();

/** `bytes` and `bytesN`: hex (an even number of digits, `0x` optional), else the text's UTF-8. */
function hexOrText(v: string): Uint8Array {
  if (v === '0x' || v === '0X') return new Uint8Array(0);
  const h = v.startsWith('0x') || v.startsWith('0X') ? v.slice(2) : v;
  // no repeated group in the pattern: on a value of megabytes its backtracking overflows the stack
  if (v !== '' && h.length % 2 === 0 && /^[0-9a-fA-F]*$/.test(h)) return new Uint8Array(Buffer.from(h, 'hex'));
  return utf8.encode(v);
}

const lastSegment = (s: string) => s.slice(s.lastIndexOf('.') + 1);

/**
 * How a VM holds the values it is given, where that is not the grammar's own
 * form. The grammar's forms: integers and enum indexes as bigint, bools,
 * addresses as 40 lowercase hex, strings, `bytes` and `bytesN` as bytes
 * (`bytesN` right-padded to N), decimals as bigint × 10^18, accounts as
 * `{address, chain}`, arrays and structs (members in order) as arrays,
 * mappings as a Map from key to value.
 */
export interface ArgRepresentation {
  enumIndex?(index: number): unknown;
  fixedBytes?(bytes: Uint8Array, n: number): unknown;
  account?(account: { address: string; chain: string | null }): unknown;
  /** a mapping's entries, keys and values already decoded */
  mapping?(entries: Array<[unknown, unknown]>, key: XabiType, value: XabiType): unknown;
}

/** One value: the JSON given (and where, for messages) → the parameter type's value. */
export type ValueDecoder = (v: unknown, path: string) => unknown;

export interface DecoderOptions {
  /** the members of the structs the types name */
  structs?: StructSource;
  representation?: ArgRepresentation;
}

/** A string holding the JSON of an array or object, given where one is expected. */
function jsonIn(v: unknown, open: '[' | '{'): unknown {
  if (typeof v !== 'string') return v;
  const s = v.trim();
  if (!s.startsWith(open)) return v;
  try {
    return parseJsonLossless(s);
  } catch {
    return v;
  }
}

/** The decoder of one type, built once: walks the type, not the values. */
export function valueDecoder(type: XabiType, options: DecoderOptions = {}): ValueDecoder {
  const repr = options.representation ?? {};
  const bad = (t: XabiType, path: string, v: unknown): never => refuse(`argument ${path}: expected ${xabiTypeText(t)}, got ${shown(v)}`);

  const visitor: XabiVisitor<ValueDecoder> = {
    int: (t) => {
      const bits = BigInt(t.bytes * 8);
      const max = t.signed ? (1n << (bits - 1n)) - 1n : (1n << bits) - 1n;
      const min = t.signed ? -(1n << (bits - 1n)) : 0n;
      return (v, path) => {
        const n = toBigInt(v);
        if (n === undefined) return bad(t, path, v);
        if (n < min || n > max) refuse(`argument ${path}: ${n} is out of range for ${xabiTypeText(t)}`);
        return n;
      };
    },
    decimal: (t) => (v, path) => {
      const d = typeof v === 'number' ? parseDecimal(String(v)) : typeof v === 'string' ? parseDecimal(v) : typeof v === 'bigint' ? v * DECIMAL_SCALE : undefined;
      return d ?? bad(t, path, v);
    },
    bool: (t) => (v, path) => {
      if (v === true || v === 'true' || v === 'True') return true;
      if (v === false || v === 'false' || v === 'False') return false;
      return bad(t, path, v);
    },
    address: (t) => (v, path) => (typeof v === 'string' ? parseAddress(v) : undefined) ?? bad(t, path, v),
    contract: (t) => (v, path) => (typeof v === 'string' ? parseAddress(v) : undefined) ?? bad(t, path, v),
    account: (t) => (v, path) => {
      const a = typeof v === 'string' ? parseAccount(v) : undefined;
      if (a === undefined) return bad(t, path, v);
      return repr.account ? repr.account(a) : a;
    },
    string: (t) => (v, path) => {
      if (typeof v === 'string') return v;
      if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
      return bad(t, path, v);
    },
    bytes: (t) => {
      if (t.dynamic) return (v, path) => (typeof v === 'string' ? hexOrText(v) : bad(t, path, v));
      const n = t.bytes ?? 32;
      return (v, path) => {
        if (typeof v !== 'string') return bad(t, path, v);
        const b = hexOrText(v);
        if (b.length > n) return bad(t, path, v);
        const out = new Uint8Array(n);
        out.set(b);
        return repr.fixedBytes ? repr.fixedBytes(out, n) : out;
      };
    },
    enum: (t) => {
      const names = t.names;
      // without its members' names an enum is known only as its ABI type, uint8
      const count = BigInt(names?.length ?? 256);
      const expected = names ? `one of ${t.typedef}.{${names.join(', ')}}` : `${t.typedef} (an index below 256)`;
      return (v, path) => {
        let i = typeof v === 'string' && names ? names.indexOf(lastSegment(v)) : -1;
        if (i < 0) {
          const n = toBigInt(v);
          if (n === undefined || n < 0n || n >= count) refuse(`argument ${path}: expected ${expected}, got ${shown(v)}`);
          i = Number(n);
        }
        return repr.enumIndex ? repr.enumIndex(i) : BigInt(i);
      };
    },
    array: (t, entry) => (given, path) => {
      const v = jsonIn(given, '[');
      if (!Array.isArray(v)) return bad(t, path, given);
      if (t.length !== undefined && v.length !== t.length) refuse(`argument ${path}: expected ${t.length} elements (${xabiTypeText(t)}), got ${v.length}`);
      const out = new Array<unknown>(v.length);
      for (let i = 0; i < v.length; i++) out[i] = entry(v[i], `${path}[${i}]`);
      return out;
    },
    mapping: (t, key, value) => {
      const stringKey = t.key.type === 'String';
      return (given, path) => {
        const v = jsonIn(given, '{');
        if (!v || typeof v !== 'object' || Array.isArray(v)) return bad(t, path, given);
        const entries: Array<[unknown, unknown]> = [];
        for (const [k, e] of Object.entries(v as Record<string, unknown>)) {
          // string keys are written quoted, 'alice' (the spec's form), or bare
          const keyText = stringKey && k.length >= 2 && ((k[0] === "'" && k.endsWith("'")) || (k[0] === '"' && k.endsWith('"'))) ? k.slice(1, -1) : k;
          entries.push([key(keyText, `${path}<${k}>`), value(e, `${path}<${k}>`)]);
        }
        return repr.mapping ? repr.mapping(entries, t.key, t.value) : new Map(entries);
      };
    },
    struct: (t, fieldsOf) => {
      // the members are looked up on first use: a struct may hold arrays of itself
      let fields: Array<[string, ValueDecoder, XabiType]> | undefined;
      let positional: number[] = [];
      const emptyMapping = (ft: XabiType): unknown => {
        const mt = ft as XabiOf<'Mapping'>;
        return repr.mapping ? repr.mapping([], mt.key, mt.value) : new Map();
      };
      return (given, path) => {
        if (!fields) {
          fields = fieldsOf();
          if (!fields) return bad(t, path, given);
          // a mapping member is neither given positionally nor required by name: it starts empty
          positional = fields.flatMap(([, , ft], i) => (ft.type === 'Mapping' ? [] : [i]));
        }
        const fs = fields;
        const v = jsonIn(jsonIn(given, '{'), '[');
        if (Array.isArray(v)) {
          if (v.length !== positional.length) refuse(`argument ${path}: expected ${positional.length} members of struct ${t.typedef}, got ${v.length}`);
          const out = fs.map(([, , ft]) => (ft.type === 'Mapping' ? emptyMapping(ft) : undefined));
          positional.forEach((fi, j) => (out[fi] = fs[fi][1](v[j], `${path}.${fs[fi][0]}`)));
          return out;
        }
        if (!v || typeof v !== 'object') return bad(t, path, given);
        const o = v as Record<string, unknown>;
        for (const k of Object.keys(o)) if (!fs.some(([name]) => name === k)) refuse(`argument ${path}: struct ${t.typedef} has no member ${k}`);
        return fs.map(([name, dec, ft]) => {
          if (!(name in o)) {
            if (ft.type === 'Mapping') return emptyMapping(ft);
            refuse(`argument ${path}: missing member ${name} (${xabiTypeText(ft)}) of struct ${t.typedef}`);
          }
          return dec(o[name], `${path}.${name}`);
        });
      };
    },
    other: (t) => (v, path) => bad(t, path, v),
  };
  return foldXabi(type, visitor, { structs: options.structs });
}

// --- a function's arguments -----------------------------------------------------------

/**
 * A parameter as the grammar sees it: its name (may be empty) and xabi type.
 * A type no JSON can give (SolidVM's internal function types) is a tag the
 * walker has no case for: every value is refused, naming it.
 */
export interface ArgParam {
  name: string;
  type: XabiType;
  /** its type as the VM writes it, for messages (default: the xabi type's text) */
  typeText?: string;
}

/** Decodes the arguments of one function or constructor: positional or by name → the values in parameter order. */
export interface ArgumentsDecoder {
  readonly params: readonly ArgParam[];
  decode(given: GivenArgs): unknown[];
}

export function argumentsDecoder(params: ArgParam[], what: string, options: DecoderOptions = {}): ArgumentsDecoder {
  const text = (p: ArgParam): string => p.typeText ?? xabiTypeText(p.type);
  const decoders: ValueDecoder[] = params.map((p) => valueDecoder(p.type, options));
  const described = () => params.map((p) => `${text(p)} ${p.name}`.trim()).join(', ');
  return {
    params,
    decode(given: GivenArgs): unknown[] {
      if (Array.isArray(given)) {
        if (given.length !== params.length) refuse(`${what} takes ${params.length} argument${params.length === 1 ? '' : 's'} (${described()}), got ${given.length}`);
        return params.map((p, i) => decoders[i](given[i], p.name || `#${i}`));
      }
      for (const k of Object.keys(given)) if (!params.some((p) => p.name === k)) refuse(`${what} has no parameter ${k}`);
      return params.map((p, i) => {
        if (!(p.name in given)) refuse(`missing argument ${p.name || '#' + i} (${text(p)}) of ${what}`);
        return decoders[i](given[p.name], p.name);
      });
    },
  };
}

/**
 * Picks among the public functions of one name and decodes the arguments for
 * it. Overloads are chosen by the argument names (an object) or their count
 * (positional); when several remain, the first, in the VM's order, whose
 * arguments decode. A lone function is taken whatever is given, so its own
 * message says what does not fit.
 */
export function chooseOverload<T>(method: string, cands: readonly T[], given: GivenArgs, decoderOf: (c: T) => ArgumentsDecoder): { fn: T; values: unknown[] } {
  if (cands.length === 1) return { fn: cands[0], values: decoderOf(cands[0]).decode(given) };
  const names = Array.isArray(given) ? undefined : Object.keys(given).sort().join(',');
  const matching = cands.filter((c) => {
    const ps = decoderOf(c).params;
    return names === undefined
      ? ps.length === (given as unknown[]).length
      : ps
          .map((p) => p.name)
          .sort()
          .join(',') === names;
  });
  if (matching.length === 0) {
    const sigs = cands.map((c) => `${method}(${decoderOf(c).params.map((p) => p.name).join(', ')})`).join(', ');
    return refuse(`the arguments match no overload of ${method}: ${sigs}`);
  }
  let first: unknown;
  for (const fn of matching) {
    try {
      return { fn, values: decoderOf(fn).decode(given) };
    } catch (e) {
      if (!(e instanceof ArgumentError)) throw e;
      first ??= e;
    }
  }
  throw first;
}
