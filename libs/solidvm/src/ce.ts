// Compiled expressions (CE) that every expression compiler makes: constants,
// rational constants, references to storage, state variables and locals,
// and the memory copy of a storage value.
import type { Node } from './ast.js';
import { ratToDecimal, type Rat } from './rational.js';
import { readDeep, type Frame } from './runtime.js';
import type { CE, FnScope, Local, StateVar } from './scope.js';
import { DECIMAL, LIT, isValueType, type SType } from './types.js';
import { resolveType } from './unit.js';
import { codecOf } from './values.js';

export function constCE(t: SType, v: unknown): CE {
  return { t, cv: v, ev: () => v };
}

/** A rational constant: the integer literal when it is whole, else a decimal constant that keeps its exact value. */
export function ratCE(r: Rat): CE {
  if (r.d === 1n) return constCE(LIT, r.n);
  const v = ratToDecimal(r);
  return { t: DECIMAL, cv: v, rat: r, ev: () => v };
}

/** The exact value of a literal constant (an integer literal or a rational one). */
export function exactOf(ce: CE): Rat | undefined {
  if (ce.rat) return ce.rat;
  if (ce.t.k === 'lit') return { n: ce.cv as bigint, d: 1n };
  return undefined;
}

export function ratText(r: Rat): string {
  return `${r.n} / ${r.d}`;
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

export function stateVarRef(sv: StateVar): CE {
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

export function localRef(l: Local): CE {
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

export function lookupTypeNode(sc: FnScope, typeNode: Node): SType {
  return resolveType(sc.unit, sc.owner, typeNode);
}

/** True when an identifier names something other than a local or state variable. */
export function isFree(sc: FnScope, name: string): boolean {
  return !sc.lookup(name) && !sc.cc.vars.has(name) && !sc.unit.constants.has(name);
}
