// Runtime representation of values, and their text forms (storage, mapping
// keys in paths, results, events, JSON).
//
//   integers, fixed bytes (big-endian), decimals (scaled by 10^18): bigint
//   enums: number (the index)         bool: boolean        string: string
//   address and contract values: 40 lowercase hex characters, no 0x
//   bytes: Uint8Array                 account: AccountValue
//   memory structs: arrays of field values in declaration order
//   memory arrays: arrays             memory mappings: Map keyed by key text
//   storage structs/arrays/mappings: their storage path (a string)
import { parseAccount as accountOfText, parseAddress, parseDecimal } from '@platform/vm';
import { bytesToHex, hexToBytes } from './hash.js';
import type { SType } from './types.js';

export const ZERO_ADDRESS = '0000000000000000000000000000000000000000';
export const DECIMAL_SCALE = 10n ** 18n;

/** An address with an optional chain: null means "the chain the contract runs on". */
export class AccountValue {
  constructor(
    readonly address: string,
    /** null, 'main', or 64 hex characters */
    readonly chain: string | null,
  ) {}
  toString(): string {
    return this.chain === null ? this.address : `${this.address}:${this.chain}`;
  }
  equals(o: AccountValue): boolean {
    return this.address === o.address && this.chain === o.chain;
  }
}

export function formatDecimal(v: bigint): string {
  const neg = v < 0n;
  const a = neg ? -v : v;
  const int = a / DECIMAL_SCALE;
  let frac = (a % DECIMAL_SCALE).toString().padStart(18, '0').replace(/0+$/, '');
  if (frac === '') frac = '0';
  return `${neg ? '-' : ''}${int}.${frac}`;
}

/** Parses "1.5", "-2", "3e2"-free decimal text into the scaled form, truncating beyond 18 digits. */
/** `1.5` → 1.5 × 10^18 (the argument grammar's, @platform/vm). */
export { parseDecimal };

export function fbytesHex(v: bigint, n: number): string {
  return v.toString(16).padStart(n * 2, '0');
}

/** 40 lowercase hex digits, `0x` optional, left-padded (the argument grammar's, @platform/vm). */
export const normalizeAddress = parseAddress;

export function parseAccount(s: string): AccountValue | undefined {
  const a = accountOfText(s);
  return a && new AccountValue(a.address, a.chain);
}

export function defaultValue(t: SType): unknown {
  switch (t.k) {
    case 'int':
    case 'fbytes':
    case 'decimal':
    case 'lit':
      return 0n;
    case 'bool':
      return false;
    case 'address':
    case 'contract':
      return ZERO_ADDRESS;
    case 'string':
      return '';
    case 'bytes':
      return new Uint8Array(0);
    case 'account':
      return new AccountValue(ZERO_ADDRESS, null);
    case 'enum':
      return 0;
    case 'struct':
      return t.fields.map((f) => (f.t.k === 'mapping' ? new Map() : defaultValue(f.t)));
    case 'array':
      return t.len === null ? [] : Array.from({ length: t.len }, () => defaultValue(t.elem));
    case 'mapping':
      return new Map();
    default:
      return undefined;
  }
}

export function deepCopy(t: SType, v: unknown): unknown {
  switch (t.k) {
    case 'struct': {
      const a = v as unknown[];
      return t.fields.map((f, i) => deepCopy(f.t, a[i]));
    }
    case 'array':
      return (v as unknown[]).map((e) => deepCopy(t.elem, e));
    case 'bytes':
      return new Uint8Array(v as Uint8Array);
    case 'mapping': {
      const m = new Map<string, unknown>();
      for (const [k, e] of v as Map<string, unknown>) m.set(k, deepCopy(t.value, e));
      return m;
    }
    default:
      return v;
  }
}

// --- storage text ------------------------------------------------------------

export interface Codec {
  /** undefined: the default value, stored as an absent key */
  enc(v: unknown): string | undefined;
  dec(s: string | undefined): unknown;
}

const CODECS = new Map<string, Codec>();

/** Text codec of a value type in storage. Absent keys read as the default. */
export function codecOf(t: SType): Codec {
  const key = t.k === 'int' ? `i${t.signed}${t.bits}` : t.k === 'fbytes' ? `b${t.n}` : t.k;
  let c = CODECS.get(key);
  if (c) return c;
  switch (t.k) {
    case 'int':
    case 'lit':
      c = { enc: (v) => (v === 0n ? undefined : (v as bigint).toString()), dec: (s) => (s === undefined ? 0n : BigInt(s)) };
      break;
    case 'fbytes': {
      const n = t.n;
      c = { enc: (v) => (v === 0n ? undefined : fbytesHex(v as bigint, n)), dec: (s) => (s === undefined ? 0n : BigInt('0x' + s)) };
      break;
    }
    case 'decimal':
      c = { enc: (v) => (v === 0n ? undefined : formatDecimal(v as bigint)), dec: (s) => (s === undefined ? 0n : parseDecimal(s)) };
      break;
    case 'enum':
      c = { enc: (v) => (v === 0 ? undefined : String(v)), dec: (s) => (s === undefined ? 0 : Number(s)) };
      break;
    case 'bool':
      c = { enc: (v) => (v ? 'true' : undefined), dec: (s) => s === 'true' };
      break;
    case 'address':
    case 'contract':
      c = { enc: (v) => (v === ZERO_ADDRESS ? undefined : (v as string)), dec: (s) => (s === undefined ? ZERO_ADDRESS : s) };
      break;
    case 'string':
      c = { enc: (v) => (v === '' ? undefined : (v as string)), dec: (s) => s ?? '' };
      break;
    case 'bytes':
      c = {
        enc: (v) => ((v as Uint8Array).length === 0 ? undefined : bytesToHex(v as Uint8Array)),
        dec: (s) => (s === undefined ? new Uint8Array(0) : hexToBytes(s)),
      };
      break;
    case 'account':
      c = {
        enc: (v) => {
          const a = v as AccountValue;
          return a.address === ZERO_ADDRESS && a.chain === null ? undefined : a.toString();
        },
        dec: (s) => (s === undefined ? new AccountValue(ZERO_ADDRESS, null) : parseAccount(s)),
      };
      break;
    default:
      throw new Error(`no storage codec for ${t.k}`);
  }
  CODECS.set(key, c);
  return c;
}

/** The text of a mapping key inside `<…>` in a storage path. */
export function keyText(t: SType, v: unknown): string {
  switch (t.k) {
    case 'string':
      return JSON.stringify(v);
    case 'bool':
      return v ? 'true' : 'false';
    case 'fbytes':
      return fbytesHex(v as bigint, t.n);
    case 'bytes':
      return '0x' + bytesToHex(v as Uint8Array);
    case 'decimal':
      return formatDecimal(v as bigint);
    default:
      return String(v);
  }
}

/** The form of a mapping key in JSON output and arguments: string keys single-quoted (the spec's form). */
export function keyTextToJsonKey(t: SType, text: string): string {
  if (t.k === 'string') return `'${JSON.parse(text) as string}'`;
  return text;
}

// --- results, events, JSON ---------------------------------------------------

/** A value as one string of a call's results (`"5"`, `"true"`, 40-hex, raw strings; JSON for arrays/structs). */
export function renderValue(t: SType, v: unknown): string {
  switch (t.k) {
    case 'struct':
    case 'array':
    case 'mapping':
    case 'tuple':
      return JSON.stringify(toJson(t, v));
    default:
      return scalarText(t, v);
  }
}

/** Event arguments: like results, but a bool reads `True`/`False` (the spec). */
export function renderEventValue(t: SType, v: unknown): string {
  if (t.k === 'bool') return v ? 'True' : 'False';
  return renderValue(t, v);
}

function scalarText(t: SType, v: unknown): string {
  switch (t.k) {
    case 'int':
    case 'lit':
      return (v as bigint).toString();
    case 'bool':
      return v ? 'true' : 'false';
    case 'fbytes':
      return fbytesHex(v as bigint, t.n);
    case 'bytes':
      return bytesToHex(v as Uint8Array);
    case 'decimal':
      return formatDecimal(v as bigint);
    case 'enum':
      return String(v);
    case 'account':
      return (v as AccountValue).toString();
    case 'void':
      return '';
    default:
      return String(v);
  }
}

/** JSON form: integers as decimal strings, bools as booleans, structs as objects, mappings as objects. */
export function toJson(t: SType, v: unknown): unknown {
  switch (t.k) {
    case 'bool':
      return v as boolean;
    case 'struct': {
      const a = v as unknown[];
      const o: Record<string, unknown> = {};
      t.fields.forEach((f, i) => {
        if (f.t.k !== 'mapping') o[f.name] = toJson(f.t, a[i]);
      });
      return o;
    }
    case 'array':
      return (v as unknown[]).map((e) => toJson(t.elem, e));
    case 'tuple':
      return (v as unknown[]).map((e, i) => (t.items[i] ? toJson(t.items[i], e) : null));
    case 'mapping': {
      const o: Record<string, unknown> = {};
      for (const [k, e] of v as Map<string, unknown>) o[keyTextToJsonKey(t.key, k)] = toJson(t.value, e);
      return o;
    }
    default:
      return scalarText(t, v);
  }
}
