// Expressions → closures. Each expression is typed here, once; the closure
// it becomes does only the work its static type requires.
import { selectorOf } from './abi.js';
import { compileCall, findError, functionValue } from './calls.js';
import { PANIC_ENUM, PANIC_INDEX, PANIC_OVERFLOW, VmFailure, panic, revertWith } from './errors.js';
import { bytesToHex, hexToBytes, utf8 } from './hash.js';
import { compareOp, decimalOp, fbytesOp, intOp, litOp, wrapInt, type BinFn } from './ops.js';
import { deleteDeep, readDeep, readLength, writeDeep, type Frame } from './runtime.js';
import type { CE, FnScope, Local, StateVar } from './scope.js';
import { ADDRESS, BOOL, BYTES, DECIMAL, INT256, LIT, STRING, UINT256, UINT8, VOID, fbytesT, intT, isValueType, sameType, typeName, type IntT, type SType } from './types.js';
import { fail, lookupType, parseNumberRational, ratOp, ratToDecimal, resolveType, type Node, type Rat } from './unit.js';
import { AccountValue, DECIMAL_SCALE, ZERO_ADDRESS, codecOf, defaultValue, keyText } from './values.js';

export function constCE(t: SType, v: unknown): CE {
  return { t, cv: v, ev: () => v };
}

/** A rational constant: the integer literal when it is whole, else a decimal constant that keeps its exact value. */
function ratCE(r: Rat): CE {
  if (r.d === 1n) return constCE(LIT, r.n);
  const v = ratToDecimal(r);
  return { t: DECIMAL, cv: v, rat: r, ev: () => v };
}

/** The exact value of a literal constant (an integer literal or a rational one). */
function exactOf(ce: CE): Rat | undefined {
  if (ce.rat) return ce.rat;
  if (ce.t.k === 'lit') return { n: ce.cv as bigint, d: 1n };
  return undefined;
}

function ratText(r: Rat): string {
  return `${r.n} / ${r.d}`;
}

function err(node: Node, msg: string): never {
  return fail(node, msg);
}

export function unescapeString(s: string): string {
  if (!s.includes('\\')) return s;
  return s.replace(/\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|.)/g, (_, e: string) => {
    switch (e[0]) {
      case 'n':
        return '\n';
      case 't':
        return '\t';
      case 'r':
        return '\r';
      case '0':
        return '\0';
      case 'x':
        return String.fromCharCode(parseInt(e.slice(1), 16));
      case 'u':
        return String.fromCharCode(parseInt(e.slice(1), 16));
      default:
        return e;
    }
  });
}

// --- storage locations -------------------------------------------------------

/** An expression denoting a storage location: a value read (value types) or the path (others). */
export function storageRef(t: SType, path: (f: Frame) => string): CE {
  if (!isValueType(t)) return { t, st: true, ev: path };
  const c = codecOf(t);
  const dec = c.dec;
  const enc = c.enc;
  return {
    t,
    stScalar: true,
    ev: (f) => dec(f.x.sload(f.self, path(f))),
    lv: {
      set: (f, v) => f.x.sstore(f.self, path(f), enc(v)),
      update: (f, op) => {
        const p = path(f);
        const nv = op(f, dec(f.x.sload(f.self, p)));
        f.x.sstore(f.self, p, enc(nv));
        return nv;
      },
    },
  };
}

function stateVarRef(sv: StateVar): CE {
  const P = sv.path;
  if (!isValueType(sv.t)) return { t: sv.t, st: true, ev: () => P };
  const { dec, enc } = codecOf(sv.t);
  return {
    t: sv.t,
    stScalar: true,
    imm: sv.immutable || undefined,
    ev: (f) => dec(f.x.sload(f.self, P)),
    lv: {
      set: (f, v) => f.x.sstore(f.self, P, enc(v)),
      update: (f, op) => {
        const nv = op(f, dec(f.x.sload(f.self, P)));
        f.x.sstore(f.self, P, enc(nv));
        return nv;
      },
    },
  };
}

function localRef(l: Local): CE {
  const s = l.slot;
  if (l.ptr) {
    return {
      t: l.t,
      st: true,
      ptr: l,
      ev: (f) => f.l[s],
      lv: { set: (f, v) => (f.l[s] = v), update: (f, op) => (f.l[s] = op(f, f.l[s])) },
    };
  }
  return {
    t: l.t,
    ev: (f) => f.l[s],
    lv: { set: (f, v) => (f.l[s] = v), update: (f, op) => (f.l[s] = op(f, f.l[s])) },
  };
}

/** A memory copy of a value for an assignment to memory (storage values are copied, memory ones aliased). */
export function toMemoryValue(_sc: FnScope, ce: CE, t: SType): CE {
  if (!ce.st) return ce;
  const ev = ce.ev;
  return { t, ev: (f) => readDeep(f.x, f.self, ev(f), t) };
}

// --- implicit conversions ----------------------------------------------------

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
export function coerce(sc: FnScope, ce: CE, t: SType, node: Node): CE {
  const from = ce.t;
  if (from === t) return ce;
  const bad = (): never =>
    node === null ? (() => { throw new Error('not convertible'); })() : err(node, `type ${typeName(from)} is not implicitly convertible to ${typeName(t)}`);
  switch (t.k) {
    case 'int':
      if (ce.rat && node !== null) err(node, `rational constant ${ratText(ce.rat)} is not an integer: not implicitly convertible to ${typeName(t)}`);
      if (from.k === 'lit') {
        const v = ce.cv as bigint;
        if (!intFits(t, v)) return node === null ? bad() : err(node, `literal ${v} does not fit in ${typeName(t)}`);
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
function literalsType(a: bigint, b: bigint): SType {
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
  if (args.length !== 1) err(node, `conversion to ${typeName(t)} takes one argument`);
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
        if (v < 0n || v >= BigInt(t.members.length)) err(node, `${v} is not a value of ${t.name}`);
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
  return err(node, `cannot convert ${typeName(from)} to ${typeName(t)}`);
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
  return err(node, `cannot convert a string to ${typeName(t)}`);
}

function conversionFailure(s: string, to: string): never {
  const m = `cannot convert "${s}" to ${to}`;
  throw new VmFailure('REVERT', m, 'error', { reason: m });
}

// --- the expression compiler -----------------------------------------------------

export function compileExpr(sc: FnScope, node: Node): CE {
  switch (node.type) {
    case 'NumberLiteral': {
      // 40 hex digits: an address literal, as in Solidity (which also demands
      // the EIP-55 checksum; SolidVM takes any case, as the platform did)
      if (!node.subdenomination && /^0x[0-9a-fA-F]{40}$/.test(node.number)) {
        const a = node.number.slice(2).toLowerCase();
        return { t: ADDRESS, ev: () => a };
      }
      let v: Rat;
      try {
        v = parseNumberRational(node.number, node.subdenomination);
      } catch (e: any) {
        return err(node, e.message);
      }
      return ratCE(v);
    }
    case 'BooleanLiteral':
      return constCE(BOOL, node.value);
    case 'StringLiteral': {
      const s = unescapeString(node.value);
      return { t: STRING, cv: s, strLit: true, ev: () => s };
    }
    case 'HexLiteral': {
      const b = hexToBytes(node.value.replace(/_/g, ''));
      return { t: BYTES, cv: b, hexLit: true, ev: () => new Uint8Array(b) };
    }
    case 'Identifier':
      return identifier(sc, node);
    case 'TupleExpression':
      return tuple(sc, node);
    case 'BinaryOperation':
      return binary(sc, node);
    case 'UnaryOperation':
      return unary(sc, node);
    case 'Conditional':
      return conditional(sc, node);
    case 'IndexAccess':
      return indexAccess(sc, node);
    case 'MemberAccess':
      return memberAccess(sc, node);
    case 'FunctionCall':
      return compileCall(sc, node);
    case 'IndexRangeAccess':
      return err(node, 'array slices are not supported');
    case 'NameValueExpression':
    case 'NewExpression':
      return err(node, 'expected a call');
    case 'ElementaryTypeName':
    case 'UserDefinedTypeName':
    case 'ArrayTypeName':
      return err(node, 'a type is not a value');
    default:
      return err(node, `unsupported expression ${node.type}`);
  }
}

function identifier(sc: FnScope, node: Node): CE {
  const name: string = node.name;
  const l = sc.lookup(name);
  if (l) return localRef(l);
  const sv = sc.cc.vars.get(name);
  if (sv) {
    if (sv.constant) {
      if (!sv.ce) err(node, `constant ${name} is used before its definition`);
      return sv.ce;
    }
    if (!sc.cc.K || sc.cc.K.kind === 'library') err(node, `state variable ${name} is not accessible here`);
    if (sv.node.visibility === 'private' && sc.owner && sv.owner !== sc.owner) err(node, `private state variable ${name} of ${sv.owner.name} is not visible here`);
    // (an immutable with an initialiser is a constant to solc: pure code may read it)
    if (!(sv.immutable && sv.node.expression)) sc.readsState(node);
    return stateVarRef(sv);
  }
  const fc = sc.unit.constants.get(name);
  if (fc) return fileConstant(sc, fc);
  const fns = sc.cc.fnTable.get(name) ?? (sc.cc.K ? sc.contract(null).fnTable.get(name) : undefined);
  if (fns) return functionValue(sc, fns, node);
  switch (name) {
    case 'this':
      sc.readsState(node);
      // in a free function, the calling contract: its type is not known here, so `this` is its address (docs/conventions.md)
      if (!sc.cc.K) return { t: ADDRESS, ev: (f) => f.self };
      return { t: { k: 'contract', name: sc.cc.K.name }, ev: (f) => f.self };
    case 'now':
      sc.readsState(node);
      return { t: UINT256, ev: (f) => BigInt(f.x.ctx.block.timestamp) };
  }
  return err(node, `undeclared identifier ${name}`);
}

const fileConstCache = new WeakMap<Node, CE>();
function fileConstant(sc: FnScope, fc: Node): CE {
  let ce = fileConstCache.get(fc);
  if (!ce) {
    const t = lookupTypeNode(sc, fc.typeName);
    ce = coerce(sc, sc.expr(fc.initialValue), t, fc.initialValue);
    fileConstCache.set(fc, ce);
  }
  return ce;
}

export function lookupTypeNode(sc: FnScope, typeNode: Node): SType {
  return resolveType(sc.unit, sc.owner, typeNode);
}

function tuple(sc: FnScope, node: Node): CE {
  const comps: Array<CE | null> = node.components.map((c: Node | null) => (c ? sc.expr(c) : null));
  if (node.isArray) {
    if (comps.some((c) => c === null) || comps.length === 0) err(node, 'empty array literal component');
    // element type: the first component's type, widened by the others
    let elem: SType = comps[0]!.t;
    for (const c of comps) {
      if (elem.k === 'lit' && c!.t.k !== 'lit') elem = c!.t;
      else if (elem.k === 'int' && c!.t.k === 'int' && c!.t.bits > elem.bits) elem = c!.t;
    }
    if (elem.k === 'lit') {
      const neg = comps.some((c) => (c!.cv as bigint) < 0n);
      const max = comps.reduce((m, c) => ((c!.cv as bigint) > m ? (c!.cv as bigint) : m), 0n);
      elem = neg ? INT256 : max < 256n ? UINT8 : UINT256;
    }
    const items = comps.map((c) => coerce(sc, toMemoryValue(sc, c!, elem), elem, node));
    const evs = items.map((i) => i.ev);
    return { t: { k: 'array', elem, len: items.length }, items: comps, ev: (f) => evs.map((e) => e(f)) };
  }
  if (comps.length === 1 && comps[0]) return comps[0];
  const evs = comps.map((c) => (c ? c.ev : () => undefined));
  return { t: { k: 'tuple', items: comps.map((c) => (c ? c.t : null)) }, items: comps, ev: (f) => evs.map((e) => e(f)) };
}

// --- operators -----------------------------------------------------------------

const ASSIGN_OPS = new Set(['=', '+=', '-=', '*=', '/=', '%=', '|=', '&=', '^=', '<<=', '>>=', '>>>=']);

function commonType(sc: FnScope, a: CE, b: CE, node: Node): SType {
  const at = a.t;
  const bt = b.t;
  if (at.k === 'lit' && bt.k === 'lit') return LIT;
  if (at.k === 'lit') return bt.k === 'decimal' || bt.k === 'int' || bt.k === 'fbytes' ? bt : mobileType(a);
  if (bt.k === 'lit') return at.k === 'decimal' || at.k === 'int' || at.k === 'fbytes' ? at : mobileType(b);
  if (at.k === 'decimal' || bt.k === 'decimal') return DECIMAL;
  if (sameType(at, bt)) return at.k === 'contract' && bt.k === 'contract' && at.name !== bt.name ? ADDRESS : at;
  if (implicitlyConvertible(sc, b, at)) return at;
  if (implicitlyConvertible(sc, a, bt)) return bt;
  if ((at.k === 'contract' || at.k === 'address') && (bt.k === 'contract' || bt.k === 'address')) return ADDRESS;
  if (a.strLit && bt.k === 'fbytes') return bt;
  if (b.strLit && at.k === 'fbytes') return at;
  return err(node, `operator ${node.operator} is not defined for ${typeName(at)} and ${typeName(bt)}`);
}

function binary(sc: FnScope, node: Node): CE {
  const op: string = node.operator;
  if (ASSIGN_OPS.has(op)) return assignment(sc, node);
  if (op === '&&' || op === '||') {
    const a = coerce(sc, sc.expr(node.left), BOOL, node.left).ev;
    const b = coerce(sc, sc.expr(node.right), BOOL, node.right).ev;
    return { t: BOOL, ev: op === '&&' ? (f) => a(f) && b(f) : (f) => a(f) || b(f) };
  }
  const L = sc.expr(node.left);
  const R = sc.expr(node.right);
  return binaryOn(sc, op, L, R, node);
}

function binaryOn(sc: FnScope, op: string, L: CE, R: CE, node: Node): CE {
  // exact arithmetic on literals; a fraction on the way is kept exactly (Solidity's rational constants)
  if (L.t.k === 'lit' && R.t.k === 'lit') {
    const v = litOp(op, L.cv as bigint, R.cv as bigint);
    if (v !== undefined) return typeof v === 'boolean' ? constCE(BOOL, v) : constCE(LIT, v);
  }
  const lx = exactOf(L);
  const rx = lx && exactOf(R);
  // (`>>>` has no constant value: it needs the width of a type, int256 or uint256 below)
  if (lx && rx && op !== '>>>') {
    const v = ratOp(op, lx, rx);
    if (v === undefined) err(node, `invalid constant expression`);
    return typeof v === 'boolean' ? constCE(BOOL, v) : ratCE(v);
  }
  if (L.t.k === 'decimal' && L.cv !== undefined && R.t.k === 'decimal' && R.cv !== undefined && op !== '/' && op !== '%') {
    const fn = op === '+' || op === '-' || op === '*' ? decimalOp(op) : compareOp(op, DECIMAL);
    const v = fn(L.cv, R.cv);
    return constCE(typeof v === 'boolean' ? BOOL : DECIMAL, v);
  }
  // a string literal next to a fixed bytes value is that bytes type (Solidity's implicit conversion)
  if (L.strLit && R.t.k === 'fbytes') return binaryOn(sc, op, coerce(sc, L, R.t, node), R, node);
  if (R.strLit && L.t.k === 'fbytes') return binaryOn(sc, op, L, coerce(sc, R, L.t, node), node);
  // SolidVM: string concatenation and equality
  if (L.t.k === 'string' || R.t.k === 'string') {
    if (op === '+') {
      const a = stringish(sc, L, node).ev;
      const b = stringish(sc, R, node).ev;
      return { t: STRING, ev: (f) => f.x.memString(a(f) + b(f)) };
    }
    if (op === '==' || op === '!=') {
      const a = coerce(sc, L, STRING, node).ev;
      const b = coerce(sc, R, STRING, node).ev;
      return { t: BOOL, ev: op === '==' ? (f) => a(f) === b(f) : (f) => a(f) !== b(f) };
    }
    err(node, `operator ${op} is not defined for strings`);
  }
  if (op === '<<' || op === '>>' || op === '>>>' || op === '**') {
    let lt = L.t;
    // a literal base or shifted value is uint256 (int256 when negative), as in Solidity >= 0.7
    if (lt.k === 'lit') lt = (L.cv as bigint) < 0n ? INT256 : UINT256;
    const a = coerce(sc, L, lt, node).ev;
    if (R.t.k === 'int' && R.t.signed && op === '**') err(node, 'exponent must be unsigned');
    const rce = R.t.k === 'lit' ? coerce(sc, R, UINT256, node) : R;
    if (rce.t.k !== 'int') err(node, `shift amount must be an integer`);
    const b = rce.ev;
    let fn: BinFn;
    if (lt.k === 'int') fn = intOp(op, lt, sc.unchecked);
    else if (lt.k === 'fbytes' && op !== '**') fn = fbytesOp(op === '>>>' ? '>>' : op, lt.n);
    else if (lt.k === 'decimal' && op === '**') fn = (x: bigint, e: bigint) => {
      let r = DECIMAL_SCALE;
      for (let i = 0n; i < e; i++) r = (r * x) / DECIMAL_SCALE;
      return r;
    };
    else return err(node, `operator ${op} is not defined for ${typeName(lt)}`);
    return { t: lt, ev: (f) => fn(a(f), b(f)) };
  }
  const T = commonType(sc, L, R, node);
  const a = coerce(sc, L, T, node).ev;
  const b = coerce(sc, R, T, node).ev;
  let fn: BinFn;
  let rt: SType = T;
  switch (op) {
    case '+':
    case '-':
    case '*':
    case '/':
    case '%':
      if (T.k === 'int') fn = intOp(op, T, sc.unchecked);
      else if (T.k === 'decimal') fn = decimalOp(op);
      else return err(node, `operator ${op} is not defined for ${typeName(T)}`);
      break;
    case '&':
    case '|':
    case '^':
      if (T.k === 'int') fn = intOp(op, T, sc.unchecked);
      else if (T.k === 'fbytes') fn = fbytesOp(op, T.n);
      else return err(node, `operator ${op} is not defined for ${typeName(T)}`);
      break;
    case '==':
    case '!=':
    case '<':
    case '>':
    case '<=':
    case '>=':
      if (!isValueType(T) || T.k === 'bytes') err(node, `operator ${op} is not defined for ${typeName(T)}`);
      if ((T.k === 'bool' || T.k === 'account') && op !== '==' && op !== '!=') err(node, `operator ${op} is not defined for ${typeName(T)}`);
      fn = compareOp(op, T);
      rt = BOOL;
      break;
    default:
      return err(node, `unknown operator ${op}`);
  }
  // the two hottest shapes get closures without the extra indirection through fn
  if (op === '<' && (T.k === 'int' || T.k === 'lit')) return { t: BOOL, ev: (f) => a(f) < b(f) };
  if (op === '==' && T.k !== 'account') return { t: BOOL, ev: (f) => a(f) === b(f) };
  return { t: rt, ev: (f) => fn(a(f), b(f)) };
}

/** SolidVM's `+` on strings also accepts numbers, bools and addresses, rendered as text. */
function stringish(sc: FnScope, ce: CE, node: Node): CE {
  if (ce.t.k === 'string') return ce;
  if (ce.t.k === 'lit') return constCE(STRING, (ce.cv as bigint).toString());
  return explicitConversion(sc, STRING, [ce], node);
}

function unary(sc: FnScope, node: Node): CE {
  const op: string = node.operator;
  if (op === 'delete') return deleteExpr(sc, node);
  const E = sc.expr(node.subExpression);
  switch (op) {
    case '!': {
      const a = coerce(sc, E, BOOL, node).ev;
      if (E.cv !== undefined) return constCE(BOOL, !E.cv);
      return { t: BOOL, ev: (f) => !a(f) };
    }
    case '-': {
      if (E.t.k === 'lit') return constCE(LIT, -(E.cv as bigint));
      if (E.t.k === 'decimal') {
        if (E.rat) return ratCE({ n: -E.rat.n, d: E.rat.d });
        if (E.cv !== undefined) return constCE(DECIMAL, -(E.cv as bigint));
        const a = E.ev;
        return { t: DECIMAL, ev: (f) => -a(f) };
      }
      if (E.t.k !== 'int' || !E.t.signed) return err(node, `unary minus is not defined for ${typeName(E.t)}`);
      const t = E.t;
      const a = E.ev;
      if (sc.unchecked) return { t, ev: (f) => wrapInt(t, -(a(f) as bigint)) };
      return {
        t,
        ev: (f) => {
          const v = a(f);
          if (v === t.min) panic(PANIC_OVERFLOW);
          return -v;
        },
      };
    }
    case '+':
      return E;
    case '~': {
      if (E.t.k === 'lit') return constCE(LIT, ~(E.cv as bigint));
      const t = E.t;
      const a = E.ev;
      if (t.k === 'int') return { t, ev: t.signed ? (f) => ~a(f) : (f) => t.max - a(f) };
      if (t.k === 'fbytes') {
        const m = (1n << BigInt(t.n * 8)) - 1n;
        return { t, ev: (f) => m ^ a(f) };
      }
      return err(node, `operator ~ is not defined for ${typeName(t)}`);
    }
    case '++':
    case '--': {
      if (!E.lv) err(node, 'expression is not assignable');
      if (E.stScalar) sc.writesState(node);
      if (E.imm) sc.assignsImmutable(node);
      const t = E.t;
      let step: BinFn;
      let one: unknown;
      if (t.k === 'int') {
        step = intOp(op === '++' ? '+' : '-', t, sc.unchecked);
        one = 1n;
      } else if (t.k === 'decimal') {
        step = decimalOp(op === '++' ? '+' : '-');
        one = DECIMAL_SCALE;
      } else return err(node, `operator ${op} is not defined for ${typeName(t)}`);
      const lv = E.lv;
      const upd = (_f: Frame, old: any) => step(old, one);
      if (node.isPrefix) return { t, ev: (f) => lv.update(f, upd) };
      // postfix: the old value; it is recomputed from the new one (exact: the step did not wrap or it panicked)
      if (t.k === 'int' && sc.unchecked) {
        return { t, ev: (f) => wrapInt(t, op === '++' ? lv.update(f, upd) - 1n : lv.update(f, upd) + 1n) };
      }
      return { t, ev: op === '++' ? (f) => lv.update(f, upd) - (one as bigint) : (f) => lv.update(f, upd) + (one as bigint) };
    }
  }
  return err(node, `unknown operator ${op}`);
}

function deleteExpr(sc: FnScope, node: Node): CE {
  const E = sc.expr(node.subExpression);
  const t = E.t;
  if (E.st && !E.ptr) {
    sc.writesState(node);
    const ev = E.ev;
    return { t: VOID, ev: (f) => deleteDeep(f.x, f.self, ev(f), t) };
  }
  if (!E.lv) return err(node, 'expression cannot be deleted');
  if (E.stScalar) sc.writesState(node);
  if (E.imm) sc.assignsImmutable(node);
  const lv = E.lv;
  if (isValueType(t)) {
    const d = defaultValue(t);
    return { t: VOID, ev: (f) => lv.set(f, d) };
  }
  return { t: VOID, ev: (f) => lv.set(f, defaultValue(t)) };
}

function conditional(sc: FnScope, node: Node): CE {
  const c = coerce(sc, sc.expr(node.condition), BOOL, node.condition).ev;
  const A = sc.expr(node.trueExpression);
  const B = sc.expr(node.falseExpression);
  if (A.st && B.st && sameType(A.t, B.t)) {
    const a = A.ev;
    const b = B.ev;
    return { t: A.t, st: true, ev: (f) => (c(f) ? a(f) : b(f)) };
  }
  let T = commonType(sc, A, B, node);
  // two literals: the smallest integer type that holds both, as solc types `c ? 1 : 300` (uint16)
  if (T.k === 'lit' && A.t.k === 'lit' && B.t.k === 'lit') T = literalsType(A.cv as bigint, B.cv as bigint);
  if (T.k === 'lit') T = mobileType(A.t.k === 'lit' && (A.cv as bigint) < 0n ? A : B);
  if (T.k === 'lit') T = UINT256;
  const a = toMemoryValue(sc, coerce(sc, A, T, node), T).ev;
  const b = toMemoryValue(sc, coerce(sc, B, T, node), T).ev;
  return { t: T, ev: (f) => (c(f) ? a(f) : b(f)) };
}

// --- assignment --------------------------------------------------------------------

/** Assigns a value (already coerced to the target's type) to a target expression. */
export function assignTo(sc: FnScope, target: CE, value: CE, node: Node): (f: Frame) => any {
  const t = target.t;
  if (target.ptr) {
    // storage pointer variable: rebind to another storage location
    if (!value.st) err(node, 'a storage pointer can only be assigned a storage location');
    const lv = target.lv!;
    const vev = value.ev;
    return (f) => {
      const p = vev(f);
      lv.set(f, p);
      return p;
    };
  }
  if (target.st || target.stScalar) sc.writesState(node);
  if (target.imm) sc.assignsImmutable(node);
  if (target.st) {
    const tev = target.ev;
    const vev = value.ev;
    if (value.st) {
      return (f) => {
        const v = readDeep(f.x, f.self, vev(f), t);
        writeDeep(f.x, f.self, tev(f), t, v);
        return v;
      };
    }
    return (f) => {
      const v = vev(f);
      writeDeep(f.x, f.self, tev(f), t, v);
      return v;
    };
  }
  if (!target.lv) err(node, 'expression is not assignable');
  const lv = target.lv;
  const vev = toMemoryValue(sc, value, t).ev;
  return (f) => {
    const v = vev(f);
    lv.set(f, v);
    return v;
  };
}

function assignment(sc: FnScope, node: Node): CE {
  const op: string = node.operator;
  if (op === '=' && node.left.type === 'TupleExpression' && !node.left.isArray) return tupleAssignment(sc, node);
  const L = sc.expr(node.left);
  const R = sc.expr(node.right);
  if (op === '=') {
    const v = coerce(sc, R, L.t, node.right);
    const run = assignTo(sc, L, v, node);
    return { t: L.t, ev: run };
  }
  if (!L.lv) err(node, 'expression is not assignable');
  if (L.stScalar) sc.writesState(node);
  if (L.imm) sc.assignsImmutable(node);
  const bop = op.slice(0, -1);
  // compile the operation on the current value with a placeholder expression for it
  const cur: CE = { t: L.t, ev: () => undefined };
  const opCE = binaryOn(sc, bop, cur, R, node);
  const res = coerce(sc, opCE, L.t, node);
  // re-specialise without the placeholder: op(old, rhs)
  const rhs = bop === '<<' || bop === '>>' || bop === '>>>' || bop === '**' ? (R.t.k === 'lit' ? coerce(sc, R, UINT256, node) : R) : L.t.k === 'string' ? stringish(sc, R, node) : coerce(sc, R, L.t, node);
  const fn = opFunction(sc, bop, L.t, node);
  void res;
  const rev = rhs.ev;
  const lv = L.lv;
  const upd = L.t.k === 'string' ? (f: Frame, old: any) => f.x.memString(fn(old, rev(f))) : (f: Frame, old: any) => fn(old, rev(f));
  return { t: L.t, ev: (f) => lv.update(f, upd) };
}

function opFunction(sc: FnScope, op: string, t: SType, node: Node): BinFn {
  if (t.k === 'string' && op === '+') return (a, b) => a + b;
  if (t.k === 'int') return intOp(op, t, sc.unchecked);
  if (t.k === 'decimal') return decimalOp(op);
  if (t.k === 'fbytes') return fbytesOp(op === '>>>' ? '>>' : op, t.n);
  return err(node, `operator ${op}= is not defined for ${typeName(t)}`);
}

function tupleAssignment(sc: FnScope, node: Node): CE {
  const R = sc.expr(node.right);
  const writers = tupleTargets(sc, node.left, R.t, R.items, [], node);
  const rev = R.ev;
  return {
    t: VOID,
    ev: (f) => {
      const vals = rev(f);
      const prev = (f as any).__tuple;
      (f as any).__tuple = vals;
      for (const w of writers) w(f);
      (f as any).__tuple = prev;
      return undefined;
    },
  };
}

/** The writers of `(a, (b, c)) = …`: each target takes the value at its position in the (nested) tuple. */
function tupleTargets(sc: FnScope, left: Node, rt: SType, items: Array<CE | null> | undefined, at: number[], node: Node): Array<(f: Frame) => unknown> {
  const comps: Array<Node | null> = left.components;
  if (rt.k !== 'tuple' || rt.items.length !== comps.length) err(node, 'tuple sizes differ in assignment');
  const out: Array<(f: Frame) => unknown> = [];
  comps.forEach((c, i) => {
    if (!c) return;
    const path = [...at, i];
    const itemT = rt.items[i]!;
    const itemCE = items?.[i] ?? undefined;
    if (c.type === 'TupleExpression' && !c.isArray) {
      out.push(...tupleTargets(sc, c, itemT, itemCE?.items, path, node));
      return;
    }
    const tg = sc.expr(c);
    // a literal keeps its value for the conversion check; anything else is read from the evaluated tuple
    const slotCE: CE = itemT.k === 'lit' && itemCE ? itemCE : { t: itemT, ev: (f) => path.reduce((v: any, k) => v[k], (f as any).__tuple) };
    out.push(assignTo(sc, tg, coerce(sc, slotCE, tg.t, node), node));
  });
  return out;
}

// --- index and member access ------------------------------------------------------

function indexAccess(sc: FnScope, node: Node): CE {
  const B = sc.expr(node.base);
  const t = B.t;
  if (!node.index) err(node, 'missing index');
  const I = sc.expr(node.index);
  const bev = B.ev;
  if (t.k === 'mapping') {
    const kev = coerce(sc, I.t.k === 'lit' ? I : I, t.key, node.index).ev;
    const kt = t.key;
    if (B.st) {
      return storageRef(t.value, (f) => bev(f) + '<' + keyText(kt, kev(f)) + '>');
    }
    // memory mapping (SolidVM arguments, getUserCert results)
    const vt = t.value;
    return {
      t: vt,
      ev: (f) => {
        const m = bev(f) as Map<string, unknown>;
        const v = m.get(keyText(kt, kev(f)));
        return v === undefined ? defaultValue(vt) : v;
      },
      lv: {
        set: (f, v) => (bev(f) as Map<string, unknown>).set(keyText(kt, kev(f)), v),
        update: (f, op) => {
          const m = bev(f) as Map<string, unknown>;
          const k = keyText(kt, kev(f));
          const nv = op(f, m.has(k) ? m.get(k) : defaultValue(vt));
          m.set(k, nv);
          return nv;
        },
      },
    };
  }
  const iev = coerce(sc, I, I.t.k === 'int' ? I.t : UINT256, node.index).ev;
  if (I.t.k !== 'int' && I.t.k !== 'lit') err(node.index, 'index must be an integer');
  if (t.k === 'array') {
    const et = t.elem;
    if (B.st) {
      if (t.len !== null) {
        const len = BigInt(t.len);
        return storageRef(et, (f) => {
          const i = iev(f) as bigint;
          if (i < 0n || i >= len) panic(PANIC_INDEX);
          return bev(f) + '[' + i + ']';
        });
      }
      return storageRef(et, (f) => {
        const p = bev(f) as string;
        const i = iev(f) as bigint;
        if (i < 0n || i >= readLength(f.x, f.self, p)) panic(PANIC_INDEX);
        return p + '[' + i + ']';
      });
    }
    const get = (f: Frame): [unknown[], number] => {
      const a = bev(f) as unknown[];
      const i = iev(f) as bigint;
      if (i < 0n || i >= BigInt(a.length)) panic(PANIC_INDEX);
      return [a, Number(i)];
    };
    return {
      t: et,
      ev: (f) => {
        const a = bev(f) as unknown[];
        const i = iev(f) as bigint;
        if (i < 0n || i >= BigInt(a.length)) panic(PANIC_INDEX);
        return a[Number(i)];
      },
      lv: {
        set: (f, v) => {
          const [a, i] = get(f);
          a[i] = v;
        },
        update: (f, op) => {
          const [a, i] = get(f);
          return (a[i] = op(f, a[i]));
        },
      },
    };
  }
  if (t.k === 'bytes') {
    const b1 = fbytesT(1);
    const read = (f: Frame): [Uint8Array, number] => {
      const v = B.st ? (codecOf(BYTES).dec(f.x.sload(f.self, bev(f))) as Uint8Array) : (bev(f) as Uint8Array);
      const i = iev(f) as bigint;
      if (i < 0n || i >= BigInt(v.length)) panic(PANIC_INDEX);
      return [v, Number(i)];
    };
    if (B.stScalar && B.lv) {
      // storage bytes: change the byte in a copy and store the copy
      const blv = B.lv;
      const at = (f: Frame, v: Uint8Array): number => {
        const i = iev(f) as bigint;
        if (i < 0n || i >= BigInt(v.length)) panic(PANIC_INDEX);
        return Number(i);
      };
      return {
        t: b1,
        ev: (f) => {
          const [v, i] = read(f);
          return BigInt(v[i]);
        },
        lv: {
          set: (f, nv) =>
            blv.update(f, (_, old: Uint8Array) => {
              const c = old.slice();
              c[at(f, c)] = Number(nv);
              return c;
            }),
          update: (f, op) => {
            let r: bigint = 0n;
            blv.update(f, (g, old: Uint8Array) => {
              const c = old.slice();
              const i = at(f, c);
              r = op(g, BigInt(c[i]));
              c[i] = Number(r);
              return c;
            });
            return r;
          },
        },
      };
    }
    return {
      t: b1,
      ev: (f) => {
        const [v, i] = read(f);
        return BigInt(v[i]);
      },
      lv: B.st
        ? undefined
        : {
            set: (f, v) => {
              const [a, i] = read(f);
              a[i] = Number(v);
            },
            update: (f, op) => {
              const [a, i] = read(f);
              const nv = op(f, BigInt(a[i]));
              a[i] = Number(nv);
              return nv;
            },
          },
    };
  }
  if (t.k === 'fbytes') {
    const n = t.n;
    return {
      t: fbytesT(1),
      ev: (f) => {
        const i = iev(f) as bigint;
        if (i < 0n || i >= BigInt(n)) panic(PANIC_INDEX);
        return ((bev(f) as bigint) >> BigInt((n - 1 - Number(i)) * 8)) & 0xffn;
      },
    };
  }
  return err(node, `type ${typeName(t)} cannot be indexed`);
}

const MSG_MEMBERS: Record<string, CE> = {
  sender: { t: ADDRESS, ev: (f) => f.sender },
  value: { t: UINT256, ev: (f) => f.value },
};

function blockMember(node: Node, name: string): CE {
  switch (name) {
    case 'timestamp':
      return { t: UINT256, ev: (f) => BigInt(f.x.ctx.block.timestamp) };
    case 'number':
      return { t: UINT256, ev: (f) => BigInt(f.x.ctx.block.number) };
    // docs/conventions.md: block.coinbase is the zero address on this platform
    case 'coinbase':
      return constCE(ADDRESS, ZERO_ADDRESS);
    case 'difficulty':
    case 'prevrandao':
    case 'basefee':
    case 'blobbasefee':
      return constCE(UINT256, 0n);
    case 'gaslimit':
      return { t: UINT256, ev: (f) => f.x.ctx.tx.gasLimit };
    case 'chainid':
      return { t: UINT256, ev: (f) => (f.x.ctx.chainId === '' ? 0n : BigInt('0x' + f.x.ctx.chainId)) };
  }
  return err(node, `unknown member block.${name}`);
}

function identityField(field: 'username' | 'organization' | 'organizationalUnit' | 'certificate'): CE {
  return { t: STRING, ev: (f) => f.x.ctx.identity?.[field] ?? '' };
}

function txMember(node: Node, name: string): CE {
  switch (name) {
    case 'origin':
      return { t: ADDRESS, ev: (f) => f.x.ctx.tx.origin };
    case 'gasprice':
      return { t: UINT256, ev: (f) => f.x.ctx.tx.gasPrice };
    case 'username':
      return identityField('username');
    case 'organization':
      return identityField('organization');
    case 'organizationalUnit':
    case 'group':
      return identityField('organizationalUnit');
    case 'certificate':
      return identityField('certificate');
  }
  return err(node, `unknown member tx.${name}`);
}

/** True when an identifier names something other than a local or state variable. */
export function isFree(sc: FnScope, name: string): boolean {
  return !sc.lookup(name) && !sc.cc.vars.has(name) && !sc.unit.constants.has(name);
}

function memberAccess(sc: FnScope, node: Node): CE {
  const m: string = node.memberName;
  const base = node.expression;
  if (m === 'selector' && ((base.type === 'Identifier' && isFree(sc, base.name)) || base.type === 'MemberAccess')) {
    // Err.selector / C.Err.selector: the 4 bytes that start the error's revert data
    const e = findError(sc, base);
    if (e) return constCE(fbytesT(4), BigInt('0x' + selectorOf(e.name, e.ps.map((p) => p.t))));
  }
  if (base.type === 'Identifier' && isFree(sc, base.name)) {
    if (base.name === 'msg' || base.name === 'block' || base.name === 'tx') sc.readsState(node);
    switch (base.name) {
      case 'msg':
        if (MSG_MEMBERS[m]) return MSG_MEMBERS[m];
        return err(node, `unknown member msg.${m}`);
      case 'block':
        return blockMember(node, m);
      case 'tx':
        return txMember(node, m);
    }
    const named = lookupType(sc.unit, sc.owner, base.name) ?? (sc.cc.K ? lookupType(sc.unit, sc.cc.K, base.name) : undefined);
    if (named?.k === 'enum') {
      const i = named.members.indexOf(m);
      if (i < 0) err(node, `${base.name} has no member ${m}`);
      return constCE(named, i);
    }
    const c = sc.unit.contracts.get(base.name);
    if (c) {
      // a constant of another contract or library: C.X
      for (const cc of c.linear) {
        const v = cc.stateVars.find((s) => s.name === m && s.isDeclaredConst);
        if (v) {
          const comp = sc.contract(c);
          const sv = comp.vars.get(m);
          if (sv?.ce) return sv.ce;
        }
      }
      const t = lookupType(sc.unit, c, m);
      if (t?.k === 'enum' || t?.k === 'struct') return err(node, `${base.name}.${m} is a type`);
      return err(node, `${base.name}.${m} is not a value`);
    }
  }
  if (base.type === 'MemberAccess' && base.expression.type === 'Identifier' && isFree(sc, base.expression.name)) {
    // C.E.Member: an enum declared in another contract
    const named = lookupType(sc.unit, sc.owner, `${base.expression.name}.${base.memberName}`);
    if (named?.k === 'enum') {
      const i = named.members.indexOf(m);
      if (i < 0) err(node, `${named.name} has no member ${m}`);
      return constCE(named, i);
    }
  }
  if (base.type === 'FunctionCall' && base.expression.type === 'Identifier' && base.expression.name === 'type') {
    return typeInfo(sc, base.arguments[0], m, node);
  }
  const B = sc.expr(base);
  const t = B.t;
  const bev = B.ev;
  switch (t.k) {
    case 'struct': {
      const i = t.index.get(m);
      if (i === undefined) return err(node, `struct ${t.name} has no member ${m}`);
      const ft = t.fields[i].t;
      if (B.st) {
        const suffix = '.' + m;
        return storageRef(ft, (f) => bev(f) + suffix);
      }
      return {
        t: ft,
        ev: (f) => (bev(f) as unknown[])[i],
        lv: {
          set: (f, v) => ((bev(f) as unknown[])[i] = v),
          update: (f, op) => {
            const o = bev(f) as unknown[];
            return (o[i] = op(f, o[i]));
          },
        },
      };
    }
    case 'array':
      if (m === 'length') {
        if (t.len !== null) return constCE(UINT256, BigInt(t.len));
        if (B.st) return { t: UINT256, ev: (f) => readLength(f.x, f.self, bev(f)) };
        return { t: UINT256, ev: (f) => BigInt((bev(f) as unknown[]).length) };
      }
      break;
    case 'bytes':
      if (m === 'length') {
        if (B.st) return { t: UINT256, ev: (f) => BigInt((codecOf(BYTES).dec(f.x.sload(f.self, bev(f))) as Uint8Array).length) };
        return { t: UINT256, ev: (f) => BigInt((bev(f) as Uint8Array).length) };
      }
      break;
    case 'string':
      // SolidVM: s.length is the length in bytes of the UTF-8 text
      if (m === 'length') return { t: UINT256, ev: (f) => BigInt(Buffer.byteLength(bev(f) as string, 'utf8')) };
      break;
    case 'fbytes':
      if (m === 'length') return constCE(UINT8, BigInt(t.n));
      break;
    case 'address':
    case 'contract':
      return addressMember(sc, t.k === 'contract' ? { t: ADDRESS, ev: bev } : B, m, node);
    case 'account':
      switch (m) {
        case 'chainId':
          return {
            t: UINT256,
            ev: (f) => {
              const a = bev(f) as AccountValue;
              const c = a.chain === null ? f.x.ctx.chainId : a.chain === 'main' ? '' : a.chain;
              return c === '' ? 0n : BigInt('0x' + c);
            },
          };
        case 'address':
          return { t: ADDRESS, ev: (f) => (bev(f) as AccountValue).address };
        default:
          // a block executes against its own chain's state only: another chain's balance, nonce or code
          // would be read from this one's, a wrong answer given silently, so the read fails instead
          return addressMember(sc, { t: ADDRESS, ev: (f) => localAccount(bev(f) as AccountValue, f.x.ctx.chainId, m) }, m, node);
      }
  }
  return err(node, `type ${typeName(t)} has no member ${m}`);
}

/** The address of an account of the executing chain; a revert naming the chain for an account of another one. */
function localAccount(account: AccountValue, chainId: string, member: string): string {
  const chain = account.chain === null ? chainId : account.chain === 'main' ? '' : account.chain;
  if (chain !== chainId) revertWith(`account(…).${member}: the account is on ${chain === '' ? 'the main chain' : `chain ${chain}`}, and a transaction reads only the state of its own chain (${chainId === '' ? 'the main chain' : chainId})`);
  return account.address;
}

function addressMember(sc: FnScope, A: CE, m: string, node: Node): CE {
  const a = A.ev;
  if (m === 'balance' || m === 'nonce' || m === 'codehash' || m === 'code') sc.readsState(node);
  switch (m) {
    case 'balance':
      return { t: UINT256, ev: (f) => f.x.state.getAccount(a(f))?.balance ?? 0n };
    case 'nonce':
      return { t: UINT256, ev: (f) => f.x.state.getAccount(a(f))?.nonce ?? 0n };
    case 'codehash':
      return {
        t: fbytesT(32),
        ev: (f) => {
          const h = f.x.state.getAccount(a(f))?.codeHash;
          return h ? BigInt('0x' + h) : 0n;
        },
      };
    case 'code':
      return {
        t: BYTES,
        ev: (f) => {
          const h = f.x.state.getAccount(a(f))?.codeHash;
          return (h && f.x.state.getCode(h)) || new Uint8Array(0);
        },
      };
  }
  return err(node, `address has no member ${m}`);
}

function typeInfo(sc: FnScope, arg: Node, m: string, node: Node): CE {
  if (arg.type === 'Identifier' && sc.unit.contracts.has(arg.name) && m === 'name') return { t: STRING, cv: arg.name, strLit: true, ev: () => arg.name };
  const t = arg.type === 'Identifier' ? lookupType(sc.unit, sc.owner, arg.name) : lookupTypeNode(sc, arg);
  if (!t) return err(arg, 'unknown type');
  if (t.k === 'int') {
    if (m === 'max') return constCE(t, t.max);
    if (m === 'min') return constCE(t, t.min);
  }
  if (t.k === 'enum') {
    if (m === 'max') return constCE(t, t.members.length - 1);
    if (m === 'min') return constCE(t, 0);
  }
  return err(node, `type(${typeName(t)}).${m} is not supported`);
}

