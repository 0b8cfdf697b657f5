// Assignment: to storage (a deep write), to memory and locals (through
// their LV), compound assignment as a read-modify-write, and tuple
// assignment `(a, b) = …`.
import { asNode, type AST, type BinaryOperation, type Node } from './ast.js';
import { toMemoryValue } from './ce.js';
import { coerce } from './convert.js';
import { binaryOn, stringish } from './operators.js';
import { decimalOp, fbytesOp, intOp, type BinFn } from './ops.js';
import { readDeep, writeDeep, type Frame } from './runtime.js';
import type { CE, FnScope } from './scope.js';
import { UINT256, VOID, typeName, type SType } from './types.js';
import { fail } from './unit.js';

/** Assigns a value (already coerced to the target's type) to a target expression. */
export function assignTo(sc: FnScope, target: CE, value: CE, node: Node): (f: Frame) => any {
  const t = target.t;
  if (target.ptr) {
    // storage pointer variable: rebind to another storage location
    if (!value.st) fail(node, 'a storage pointer can only be assigned a storage location');
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
  if (!target.lv) fail(node, 'expression is not assignable');
  const lv = target.lv;
  const vev = toMemoryValue(sc, value, t).ev;
  return (f) => {
    const v = vev(f);
    lv.set(f, v);
    return v;
  };
}

export function assignment(sc: FnScope, node: BinaryOperation): CE {
  const op: string = node.operator;
  if (op === '=' && node.left.type === 'TupleExpression' && !node.left.isArray) return tupleAssignment(sc, node, node.left);
  const L = sc.expr(node.left);
  const R = sc.expr(node.right);
  if (op === '=') {
    const v = coerce(sc, R, L.t, node.right);
    const run = assignTo(sc, L, v, node);
    return { t: L.t, ev: run };
  }
  if (!L.lv) fail(node, 'expression is not assignable');
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
  return fail(node, `operator ${op}= is not defined for ${typeName(t)}`);
}

function tupleAssignment(sc: FnScope, node: BinaryOperation, left: AST.TupleExpression): CE {
  const R = sc.expr(node.right);
  const writers = tupleTargets(sc, left, R.t, R.items, [], node);
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
function tupleTargets(sc: FnScope, left: AST.TupleExpression, rt: SType, items: Array<CE | null> | undefined, at: number[], node: Node): Array<(f: Frame) => unknown> {
  const comps = left.components.map((c) => asNode(c));
  if (rt.k !== 'tuple' || rt.items.length !== comps.length) fail(node, 'tuple sizes differ in assignment');
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
