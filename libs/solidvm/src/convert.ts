// Conversions: implicit ones (coerce: where Solidity, or SolidVM, converts
// without being asked; a compile error otherwise), the type a literal takes
// where none is given, and explicit ones `T(x)`, SolidVM's parsing
// conversions (`uint("ff", 16)`) included.
import type { Node } from './ast.js';
import { constCE, ratText, toMemoryValue } from './ce.js';
import { PANIC_ENUM, PANIC_OVERFLOW, VmFailure, panic } from './errors.js';
import { bytesToHex, hexToBytes, utf8 } from './hash.js';
import { wrapInt } from './ops.js';
import type { CE, FnScope } from './scope.js';
import { BYTES, DECIMAL, INT256, LIT, STRING, UINT256, intT, sameType, typeName, type IntT, type SType } from './types.js';
import { fail } from './unit.js';
import { AccountValue, DECIMAL_SCALE, codecOf } from './values.js';

function intFits(t: IntT, v: bigint): boolean {
  return v >= t.min && v <= t.max;
}

function intConvertible(from: IntT, to: IntT): boolean {
  if (from.signed === to.signed) return from.bits <= to.bits;
  return !from.signed && to.signed && from.bits < to.bits;
}

function contractIsA(sc: FnScope, from: string, to: string): boolean {
  const c = sc.unit.contracts.get(from);
  return !!c && c.linear.some((b) => b.name === to);
}

export function implicitlyConvertible(sc: FnScope, ce: CE, t: SType): boolean {
  try {
    coerce(sc, ce, t, null);
    return true;
  } catch {
    return false;
  }
}

/** Converts an expression to type t where Solidity (or SolidVM) converts implicitly; a compile error otherwise. */
/** node null: only whether it converts (implicitlyConvertible), which a failure tells by throwing */
export function coerce(sc: FnScope, ce: CE, t: SType, node: Node | null): CE {
  const from = ce.t;
  if (from === t) return ce;
  const bad = (): never =>
    node === null ? (() => { throw new Error('not convertible'); })() : fail(node, `type ${typeName(from)} is not implicitly convertible to ${typeName(t)}`);
  switch (t.k) {
    case 'int':
      if (ce.rat && node !== null) fail(node, `rational constant ${ratText(ce.rat)} is not an integer: not implicitly convertible to ${typeName(t)}`);
      if (from.k === 'lit') {
        const v = ce.cv as bigint;
        if (!intFits(t, v)) return node === null ? bad() : fail(node, `literal ${v} does not fit in ${typeName(t)}`);
        return constCE(t, v);
      }
      if (from.k === 'int' && intConvertible(from, t)) return { ...ce, t, lv: undefined };
      return bad();
    case 'decimal':
      // (a rational constant becomes a plain decimal: its exact value stays with the literal expression)
      if (from.k === 'decimal') return ce.rat ? constCE(DECIMAL, ce.cv) : ce;
      if (from.k === 'lit') return constCE(DECIMAL, (ce.cv as bigint) * DECIMAL_SCALE);
      if (from.k === 'int') {
        const ev = ce.ev;
        return { t, ev: (f) => ev(f) * DECIMAL_SCALE };
      }
      return bad();
    case 'fbytes':
      if (from.k === 'fbytes' && from.n <= t.n) {
        if (from.n === t.n) return ce;
        const sh = BigInt((t.n - from.n) * 8);
        const ev = ce.ev;
        return { t, ev: (f) => ev(f) << sh };
      }
      // integer constants that fit (hex literals such as 0x30 for a bytes1)
      if (from.k === 'lit' && (ce.cv as bigint) >= 0n && (ce.cv as bigint) < 1n << BigInt(t.n * 8)) return constCE(t, ce.cv);
      if (ce.strLit || ce.hexLit) {
        const b = ce.strLit ? utf8(ce.cv as string) : (ce.cv as Uint8Array);
        if (b.length > t.n || (ce.hexLit && b.length !== t.n)) return bad();
        const v = b.length ? BigInt('0x' + bytesToHex(b)) << BigInt((t.n - b.length) * 8) : 0n;
        return constCE(t, v);
      }
      return bad();
    case 'bytes':
      if (from.k === 'bytes') return ce;
      if (ce.strLit) return constCE(BYTES, utf8(ce.cv as string));
      return bad();
    case 'string':
      if (from.k === 'string') return ce;
      return bad();
    case 'bool':
      return from.k === 'bool' ? ce : bad();
    case 'address':
      if (from.k === 'address') return ce;
      if (from.k === 'contract') return { ...ce, t, lv: undefined };
      return bad();
    case 'contract':
      if (from.k === 'contract' && (from.name === t.name || contractIsA(sc, from.name, t.name))) return { ...ce, t, lv: undefined };
      return bad();
    case 'account':
      if (from.k === 'account') return ce;
      if (from.k === 'address' || from.k === 'contract') {
        const ev = ce.ev;
        return { t, ev: (f) => new AccountValue(ev(f), null) };
      }
      return bad();
    case 'enum':
      return from.k === 'enum' && from.name === t.name ? ce : bad();
    case 'struct':
      return from.k === 'struct' && from.name === t.name ? ce : bad();
    case 'function': {
      // same parameters and results; pure converts to view and non-payable, view to non-payable (Solidity's rule)
      if (from.k !== 'function' || !sameType({ ...from, mutability: null }, { ...t, mutability: null })) return bad();
      const ok = from.mutability === t.mutability || (t.mutability === null && from.mutability !== 'payable') || (t.mutability === 'view' && from.mutability === 'pure');
      return ok ? { ...ce, t, lv: undefined } : bad();
    }
    case 'mapping':
      return from.k === 'mapping' && sameType(from, t) ? ce : bad();
    case 'array': {
      if (from.k === 'array' && sameType(from, t)) return ce;
      if (ce.items && from.k === 'array' && (t.len === null || t.len === ce.items.length)) {
        const items = ce.items.map((i) => coerce(sc, toMemoryValue(sc, i!, t.elem), t.elem, node));
        const evs = items.map((i) => i.ev);
        return { t, items, ev: (f) => evs.map((e) => e(f)) };
      }
      return bad();
    }
    case 'tuple': {
      if (from.k !== 'tuple' || from.items.length !== t.items.length) return bad();
      if (!ce.items) return ce;
      const items = ce.items.map((i, n) => (i && t.items[n] ? coerce(sc, i, t.items[n]!, node) : i));
      const evs = items.map((i) => (i ? i.ev : () => undefined));
      return { t, items, ev: (f) => evs.map((e) => e(f)) };
    }
    default:
      return bad();
  }
}

/** The type a `var` declaration or an untyped context gives an expression. */
/** The smallest uintN/intN that holds two literal values. */
export function literalsType(a: bigint, b: bigint): SType {
  const lo = a < b ? a : b;
  const hi = a < b ? b : a;
  for (let bits = 8; bits <= 256; bits += 8) {
    const t = intT(lo < 0n, bits);
    if (lo >= t.min && hi <= t.max) return t;
  }
  return lo < 0n ? INT256 : UINT256;
}

export function mobileType(ce: CE): SType {
  if (ce.t.k === 'lit') return (ce.cv as bigint) < 0n ? INT256 : UINT256;
  return ce.t;
}

/** A literal or constant made concrete (for contexts without a target type). */
export function concrete(sc: FnScope, ce: CE, node: Node): CE {
  if (ce.t.k === 'lit') return coerce(sc, ce, mobileType(ce), node);
  if (ce.items && ce.t.k === 'array') {
    const elem = ce.t.elem;
    return coerce(sc, ce, { k: 'array', elem: elem.k === 'lit' ? UINT256 : elem, len: ce.items.length }, node);
  }
  return ce;
}

// --- explicit conversions `T(x)` ----------------------------------------------

export function explicitConversion(sc: FnScope, t: SType, args: CE[], node: Node): CE {
  if (args.length === 2) return parsingConversion(sc, t, args, node);
  if (args.length !== 1) fail(node, `conversion to ${typeName(t)} takes one argument`);
  const ce = args[0];
  const from = ce.t;
  const ev = ce.ev;
  if (from.k === 'lit') {
    const v = ce.cv as bigint;
    switch (t.k) {
      case 'int':
        return constCE(t, wrapInt(t, v));
      case 'address':
      case 'contract':
        return constCE(t, BigInt.asUintN(160, v).toString(16).padStart(40, '0'));
      case 'fbytes':
        return constCE(t, BigInt.asUintN(t.n * 8, v));
      case 'decimal':
        return constCE(t, v * DECIMAL_SCALE);
      case 'enum':
        if (v < 0n || v >= BigInt(t.members.length)) fail(node, `${v} is not a value of ${t.name}`);
        return constCE(t, Number(v));
      case 'string':
        return constCE(t, v.toString());
    }
  }
  if (implicitlyConvertible(sc, ce, t)) return coerce(sc, ce, t, node);
  switch (t.k) {
    case 'int':
      if (from.k === 'int') return { t, ev: (f) => wrapInt(t, ev(f)) };
      if (from.k === 'enum') return { t, ev: (f) => BigInt(ev(f)) };
      if (from.k === 'address' || from.k === 'contract') return { t, ev: (f) => wrapInt(t, BigInt('0x' + ev(f))) };
      if (from.k === 'fbytes') return { t, ev: (f) => wrapInt(t, ev(f)) };
      if (from.k === 'decimal') return { t, ev: (f) => wrapInt(t, ev(f) / DECIMAL_SCALE) };
      // without a radix the platform's SolidVM reads hexadecimal (docs/conventions.md)
      if (from.k === 'string') return parsingConversion(sc, t, [ce, constCE(LIT, 16n)], node);
      if (from.k === 'bool') return { t, ev: (f) => (ev(f) ? 1n : 0n) };
      break;
    case 'decimal':
      if (from.k === 'int') return { t, ev: (f) => ev(f) * DECIMAL_SCALE };
      if (from.k === 'string')
        return {
          t,
          ev: (f) => {
            const s = ev(f) as string;
            const m = /^(-?)(\d*)(?:\.(\d*))?$/.exec(s.trim());
            if (!m) return panicConversion(s, 'decimal');
            const frac = (m[3] ?? '').slice(0, 18).padEnd(18, '0');
            const v = BigInt(m[2] || '0') * DECIMAL_SCALE + BigInt(frac);
            return m[1] ? -v : v;
          },
        };
      break;
    case 'address':
      if (from.k === 'int' || from.k === 'fbytes') return { t, ev: (f) => BigInt.asUintN(160, ev(f)).toString(16).padStart(40, '0') };
      if (from.k === 'account') return { t, ev: (f) => (ev(f) as AccountValue).address };
      if (from.k === 'string') return parsingConversion(sc, t, [ce], node);
      break;
    case 'contract':
      if (from.k === 'address' || from.k === 'contract') return { t, ev };
      if (from.k === 'account') return { t, ev: (f) => (ev(f) as AccountValue).address };
      break;
    case 'fbytes':
      if (from.k === 'fbytes') {
        if (from.n > t.n) {
          const sh = BigInt((from.n - t.n) * 8);
          return { t, ev: (f) => ev(f) >> sh };
        }
        const sh = BigInt((t.n - from.n) * 8);
        return { t, ev: (f) => ev(f) << sh };
      }
      if (from.k === 'int') return { t, ev: (f) => BigInt.asUintN(t.n * 8, ev(f)) };
      if (from.k === 'address') return { t, ev: (f) => BigInt('0x' + ev(f)) };
      if (from.k === 'bytes' || from.k === 'string') {
        const n = t.n;
        return {
          t,
          ev: (f) => {
            const v = ev(f);
            const b = typeof v === 'string' ? utf8(v) : (v as Uint8Array);
            const padded = new Uint8Array(n);
            padded.set(b.subarray(0, n));
            return BigInt('0x' + (bytesToHex(padded) || '0'));
          },
        };
      }
      break;
    case 'bytes':
      if (from.k === 'string' && ce.stScalar && ce.lv) {
        // bytes(s) of a storage string is a reference to it in Solidity: writes through it change s
        const lv = ce.lv;
        const text = (b: Uint8Array) => new TextDecoder().decode(b);
        return {
          t,
          stScalar: true,
          ev: (f) => utf8(ev(f)),
          lv: {
            set: (f, v) => lv.set(f, text(v)),
            update: (f, op) => {
              let out: Uint8Array = new Uint8Array(0);
              lv.update(f, (g, old) => text((out = op(g, utf8(old)))));
              return out;
            },
          },
        };
      }
      if (from.k === 'string') return { t, ev: (f) => utf8(ev(f)) };
      if (from.k === 'fbytes') return { t, ev: (f) => hexToBytes((ev(f) as bigint).toString(16).padStart(from.n * 2, '0')) };
      break;
    case 'string':
      // SolidVM: string(x) renders numbers, bools and addresses
      switch (from.k) {
        case 'bytes':
          return { t, ev: (f) => new TextDecoder().decode(ev(f)) };
        case 'int':
          return { t, ev: (f) => (ev(f) as bigint).toString() };
        case 'bool':
          return { t, ev: (f) => (ev(f) ? 'true' : 'false') };
        case 'address':
        case 'contract':
          return { t, ev };
        case 'account':
          return { t, ev: (f) => (ev(f) as AccountValue).toString() };
        case 'decimal':
          return { t, ev: (f) => codecOf(DECIMAL).enc(ev(f)) ?? '0.0' };
        case 'enum':
          return { t, ev: (f) => String(ev(f)) };
        case 'fbytes':
          return {
            t,
            ev: (f) => new TextDecoder().decode(hexToBytes((ev(f) as bigint).toString(16).padStart(from.n * 2, '0'))).replace(/\0+$/, ''),
          };
      }
      break;
    case 'enum':
      if (from.k === 'int') {
        const n = BigInt(t.members.length);
        return {
          t,
          ev: (f) => {
            const v = ev(f) as bigint;
            if (v < 0n || v >= n) panic(PANIC_ENUM);
            return Number(v);
          },
        };
      }
      break;
    case 'bool':
      if (from.k === 'string') return parsingConversion(sc, t, [ce], node);
      if (from.k === 'int') return { t, ev: (f) => ev(f) !== 0n };
      break;
    case 'account':
      if (from.k === 'string') return parsingConversion(sc, t, [ce], node);
      break;
  }
  return fail(node, `cannot convert ${typeName(from)} to ${typeName(t)}`);
}

function panicConversion(s: string, to: string): never {
  throw Object.assign(new Error(), { vmConversion: `cannot convert "${s}" to ${to}` });
}

/** SolidVM's parsing casts: `uint("123", 10)`, `uint("ff", 16)`, `address("<hex>")`, `bool("true")`, `account("<hex>:main")`. */
const DIGITS = '0123456789abcdefghijklmnopqrstuvwxyz';

/**
 * An integer written in a radix from 2 to 36 (digits 0-9 then a-z, in either
 * case), with an optional `-`, and `0x` allowed in hexadecimal; undefined
 * when the text is not one.
 */
function parseRadix(s: string, radix: bigint): bigint | undefined {
  if (radix < 2n || radix > 36n) return undefined;
  const neg = s.startsWith('-');
  let body = (neg ? s.slice(1) : s).toLowerCase();
  if (radix === 16n && body.startsWith('0x')) body = body.slice(2);
  if (body === '') return undefined;
  let v = 0n;
  if (radix === 16n || radix === 10n || radix === 8n || radix === 2n) {
    const re = radix === 16n ? /^[0-9a-f]+$/ : radix === 10n ? /^[0-9]+$/ : radix === 8n ? /^[0-7]+$/ : /^[01]+$/;
    if (!re.test(body)) return undefined;
    v = BigInt((radix === 16n ? '0x' : radix === 8n ? '0o' : radix === 2n ? '0b' : '') + body);
  } else {
    for (const ch of body) {
      const d = DIGITS.indexOf(ch);
      if (d < 0 || BigInt(d) >= radix) return undefined;
      v = v * radix + BigInt(d);
    }
  }
  return neg ? -v : v;
}

function parsingConversion(sc: FnScope, t: SType, args: CE[], node: Node): CE {
  const sEv = coerce(sc, args[0], STRING, node).ev;
  switch (t.k) {
    case 'int': {
      const radix = coerce(sc, args[1], UINT256, node).ev;
      return {
        t,
        ev: (f) => {
          const s = (sEv(f) as string).trim();
          const v = parseRadix(s, radix(f) as bigint);
          if (v === undefined) conversionFailure(s, typeName(t));
          if (v < t.min || v > t.max) panic(PANIC_OVERFLOW);
          return v;
        },
      };
    }
    case 'address':
      return {
        t,
        ev: (f) => {
          const s = (sEv(f) as string).trim();
          const h = s.startsWith('0x') ? s.slice(2) : s;
          if (!/^[0-9a-fA-F]{1,40}$/.test(h)) conversionFailure(s, 'address');
          return h.toLowerCase().padStart(40, '0');
        },
      };
    case 'bool':
      return {
        t,
        ev: (f) => {
          const s = (sEv(f) as string).trim().toLowerCase();
          if (s !== 'true' && s !== 'false') conversionFailure(s, 'bool');
          return s === 'true';
        },
      };
    case 'account':
      return {
        t,
        ev: (f) => {
          const s = (sEv(f) as string).trim();
          const i = s.indexOf(':');
          const a = (i < 0 ? s : s.slice(0, i)).replace(/^0x/, '');
          if (!/^[0-9a-fA-F]{1,40}$/.test(a)) conversionFailure(s, 'account');
          const addr = a.toLowerCase().padStart(40, '0');
          if (i < 0) return new AccountValue(addr, null);
          const c = s.slice(i + 1);
          if (c === 'main') return new AccountValue(addr, 'main');
          const h = c.replace(/^0x/, '');
          if (!/^[0-9a-fA-F]{1,64}$/.test(h)) conversionFailure(s, 'account');
          return new AccountValue(addr, h.toLowerCase().padStart(64, '0'));
        },
      };
  }
  return fail(node, `cannot convert a string to ${typeName(t)}`);
}

function conversionFailure(s: string, to: string): never {
  const m = `cannot convert "${s}" to ${to}`;
  throw new VmFailure('REVERT', m, 'error', { reason: m });
}
