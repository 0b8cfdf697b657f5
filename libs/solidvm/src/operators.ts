// Binary, unary and conditional operators: each typed once here, folded when
// its operands are constants, else a closure specialised to its type
// (checked or wrapping arithmetic, the integer range).
import type { AST, BinaryOperation, Node } from './ast.js';
import { constCE, exactOf, ratCE, toMemoryValue } from './ce.js';
import { coerce, explicitConversion, implicitlyConvertible, literalsType, mobileType } from './convert.js';
import { PANIC_OVERFLOW, panic } from './errors.js';
import { compareOp, decimalOp, fbytesOp, intOp, litOp, wrapInt, type BinFn } from './ops.js';
import { ratOp } from './rational.js';
import { deleteDeep, type Frame } from './runtime.js';
import type { CE, FnScope } from './scope.js';
import { ADDRESS, BOOL, DECIMAL, INT256, LIT, STRING, UINT256, VOID, isValueType, sameType, typeName, type SType } from './types.js';
import { fail } from './unit.js';
import { DECIMAL_SCALE, defaultValue } from './values.js';

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
  // (a conditional's branches have no operator: its message names none)
  const op = node.type === 'BinaryOperation' ? node.operator : undefined;
  return fail(node, `operator ${op} is not defined for ${typeName(at)} and ${typeName(bt)}`);
}

export function binary(sc: FnScope, node: BinaryOperation): CE {
  const op: string = node.operator;
  if (op === '&&' || op === '||') {
    const a = coerce(sc, sc.expr(node.left), BOOL, node.left).ev;
    const b = coerce(sc, sc.expr(node.right), BOOL, node.right).ev;
    return { t: BOOL, ev: op === '&&' ? (f) => a(f) && b(f) : (f) => a(f) || b(f) };
  }
  const L = sc.expr(node.left);
  const R = sc.expr(node.right);
  return binaryOn(sc, op, L, R, node);
}

export function binaryOn(sc: FnScope, op: string, L: CE, R: CE, node: Node): CE {
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
    if (v === undefined) fail(node, `invalid constant expression`);
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
    fail(node, `operator ${op} is not defined for strings`);
  }
  if (op === '<<' || op === '>>' || op === '>>>' || op === '**') {
    let lt = L.t;
    // a literal base or shifted value is uint256 (int256 when negative), as in Solidity >= 0.7
    if (lt.k === 'lit') lt = (L.cv as bigint) < 0n ? INT256 : UINT256;
    const a = coerce(sc, L, lt, node).ev;
    if (R.t.k === 'int' && R.t.signed && op === '**') fail(node, 'exponent must be unsigned');
    const rce = R.t.k === 'lit' ? coerce(sc, R, UINT256, node) : R;
    if (rce.t.k !== 'int') fail(node, `shift amount must be an integer`);
    const b = rce.ev;
    let fn: BinFn;
    if (lt.k === 'int') fn = intOp(op, lt, sc.unchecked);
    else if (lt.k === 'fbytes' && op !== '**') fn = fbytesOp(op === '>>>' ? '>>' : op, lt.n);
    else if (lt.k === 'decimal' && op === '**') fn = (x: bigint, e: bigint) => {
      let r = DECIMAL_SCALE;
      for (let i = 0n; i < e; i++) r = (r * x) / DECIMAL_SCALE;
      return r;
    };
    else return fail(node, `operator ${op} is not defined for ${typeName(lt)}`);
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
      else return fail(node, `operator ${op} is not defined for ${typeName(T)}`);
      break;
    case '&':
    case '|':
    case '^':
      if (T.k === 'int') fn = intOp(op, T, sc.unchecked);
      else if (T.k === 'fbytes') fn = fbytesOp(op, T.n);
      else return fail(node, `operator ${op} is not defined for ${typeName(T)}`);
      break;
    case '==':
    case '!=':
    case '<':
    case '>':
    case '<=':
    case '>=':
      if (!isValueType(T) || T.k === 'bytes') fail(node, `operator ${op} is not defined for ${typeName(T)}`);
      if ((T.k === 'bool' || T.k === 'account') && op !== '==' && op !== '!=') fail(node, `operator ${op} is not defined for ${typeName(T)}`);
      fn = compareOp(op, T);
      rt = BOOL;
      break;
    default:
      return fail(node, `unknown operator ${op}`);
  }
  // the two hottest shapes get closures without the extra indirection through fn
  if (op === '<' && (T.k === 'int' || T.k === 'lit')) return { t: BOOL, ev: (f) => a(f) < b(f) };
  if (op === '==' && T.k !== 'account') return { t: BOOL, ev: (f) => a(f) === b(f) };
  return { t: rt, ev: (f) => fn(a(f), b(f)) };
}

/** SolidVM's `+` on strings also accepts numbers, bools and addresses, rendered as text. */
export function stringish(sc: FnScope, ce: CE, node: Node): CE {
  if (ce.t.k === 'string') return ce;
  if (ce.t.k === 'lit') return constCE(STRING, (ce.cv as bigint).toString());
  return explicitConversion(sc, STRING, [ce], node);
}

export function unary(sc: FnScope, node: AST.UnaryOperation): CE {
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
      if (E.t.k !== 'int' || !E.t.signed) return fail(node, `unary minus is not defined for ${typeName(E.t)}`);
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
      return fail(node, `operator ~ is not defined for ${typeName(t)}`);
    }
    case '++':
    case '--': {
      if (!E.lv) fail(node, 'expression is not assignable');
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
      } else return fail(node, `operator ${op} is not defined for ${typeName(t)}`);
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
  return fail(node, `unknown operator ${op}`);
}

function deleteExpr(sc: FnScope, node: AST.UnaryOperation): CE {
  const E = sc.expr(node.subExpression);
  const t = E.t;
  if (E.st && !E.ptr) {
    sc.writesState(node);
    const ev = E.ev;
    return { t: VOID, ev: (f) => deleteDeep(f.x, f.self, ev(f), t) };
  }
  if (!E.lv) return fail(node, 'expression cannot be deleted');
  if (E.stScalar) sc.writesState(node);
  if (E.imm) sc.assignsImmutable(node);
  const lv = E.lv;
  if (isValueType(t)) {
    const d = defaultValue(t);
    return { t: VOID, ev: (f) => lv.set(f, d) };
  }
  return { t: VOID, ev: (f) => lv.set(f, defaultValue(t)) };
}

export function conditional(sc: FnScope, node: AST.Conditional): CE {
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
