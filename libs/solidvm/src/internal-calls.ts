// Calls of functions of this unit: overload choice (by argument types, or
// names), argument coercion, the call of a function known at compile time,
// a function used as a value, and struct constructors.
import type { Node } from './ast.js';
import { toMemoryValue } from './ce.js';
import { coerce, implicitlyConvertible } from './convert.js';
import { PANIC_INTERNAL_FN, panic } from './errors.js';
import { invoke } from './interop.js';
import type { Frame } from './runtime.js';
import type { CE, CFn, ContractRt, FnScope } from './scope.js';
import { VOID, isValueType, typeName, type SType } from './types.js';
import { fail } from './unit.js';

export const EMPTY: unknown[] = [];

export function returnType(fn: CFn): { t: SType; st: boolean } {
  if (fn.returns.length === 0) return { t: VOID, st: false };
  if (fn.returns.length === 1) {
    const r = fn.returns[0];
    return { t: r.t, st: r.storage && !isValueType(r.t) };
  }
  return { t: { k: 'tuple', items: fn.returns.map((r) => r.t) }, st: false };
}

/** Orders named arguments (`f({a: 1, b: 2})`) by the parameters of a candidate. */
function orderArgs(fn: CFn, args: CE[], names: string[], offset: number): CE[] | undefined {
  if (!names.length) return args;
  const ps = fn.params.slice(offset);
  if (ps.length !== names.length) return undefined;
  const out: CE[] = [];
  for (const p of ps) {
    const i = names.indexOf(p.name);
    if (i < 0) return undefined;
    out.push(args[i]);
  }
  return out;
}

/** Picks the overload whose parameters accept the arguments (after `offset` bound ones). */
export function pickOverload(sc: FnScope, cands: CFn[], args: CE[], names: string[], node: Node, offset = 0, what = 'function'): [CFn, CE[]] {
  const fits: Array<[CFn, CE[]]> = [];
  for (const c of cands) {
    const ordered = orderArgs(c, args, names, offset);
    if (!ordered || c.params.length !== ordered.length + offset) continue;
    if (ordered.every((a, i) => implicitlyConvertible(sc, a, c.params[i + offset].t) || (c.params[i + offset].storage && a.st))) fits.push([c, ordered]);
  }
  if (fits.length === 1) return fits[0];
  if (fits.length > 1) {
    const exact = fits.filter(([c, a]) => a.every((x, i) => typeName(x.t) === typeName(c.params[i + offset].t)));
    if (exact.length === 1) return exact[0];
    // overrides of one function seen through several bases
    if (new Set(fits.map(([c]) => c.sig)).size === 1) return fits[0];
    return fail(node, `call to ${cands[0].name} is ambiguous`);
  }
  const byCount = cands.filter((c) => c.params.length === args.length + offset);
  if (byCount.length === 1) {
    // report the first argument that does not convert
    const c = byCount[0];
    const ordered = orderArgs(c, args, names, offset) ?? args;
    ordered.forEach((a, i) => coerce(sc, a, c.params[i + offset].t, node));
  }
  return fail(node, `no ${what} ${cands[0]?.name ?? ''} takes ${args.length} argument${args.length === 1 ? '' : 's'} of these types`);
}

export function argValues(sc: FnScope, fn: CFn, args: CE[], node: Node, offset = 0): Array<(f: Frame) => any> {
  return args.map((a, i) => {
    const p = fn.params[i + offset];
    if (p.storage && !isValueType(p.t)) {
      if (!a.st) fail(node, `argument ${p.name || i + 1} must be a storage reference`);
      return a.ev;
    }
    return toMemoryValue(sc, coerce(sc, a, p.t, node), p.t).ev;
  });
}

export function callResult(fn: CFn, ev: (f: Frame) => any): CE {
  const r = returnType(fn);
  return r.st ? { t: r.t, st: true, ev } : { t: r.t, ev };
}

/** A call of a function in the caller's context (internal, library, super, free). */
export function internalCall(sc: FnScope, fn: CFn, args: CE[], node: Node, bound: CE | null = null): CE {
  // private members are not inherited (solc: undeclared in a derived contract)
  if (fn.visibility === 'private' && sc.owner && fn.owner && fn.owner !== sc.owner && fn.owner.kind !== 'library') fail(node, `private function ${fn.name} of ${fn.owner.name} is not visible here`);
  sc.calls(node, fn);
  const all = bound ? [bound, ...args] : args;
  const evs = argValues(sc, fn, all, node);
  let ev: (f: Frame) => any;
  switch (evs.length) {
    case 0:
      ev = (f) => invoke(fn, f.x, f.self, f.sender, f.value, f.rt as ContractRt, EMPTY);
      break;
    case 1: {
      const [a] = evs;
      ev = (f) => invoke(fn, f.x, f.self, f.sender, f.value, f.rt as ContractRt, [a(f)]);
      break;
    }
    case 2: {
      const [a, b] = evs;
      ev = (f) => invoke(fn, f.x, f.self, f.sender, f.value, f.rt as ContractRt, [a(f), b(f)]);
      break;
    }
    default:
      ev = (f) => invoke(fn, f.x, f.self, f.sender, f.value, f.rt as ContractRt, evs.map((e) => e(f)));
  }
  return callResult(fn, ev);
}

/**
 * An internal function used as a value (Solidity's internal function types):
 * the value is the compiled function, resolved at compile time (virtual
 * functions to the most derived override, as a direct call would be).
 */
export function functionValue(sc: FnScope, fns: CFn[], node: Node): CE {
  if (fns.length > 1) fail(node, `${fns[0].name} is overloaded: an overloaded function cannot be used as a value`);
  const fn = fns[0];
  if (fn.visibility === 'external') fail(node, `external function ${fn.name} cannot be used as an internal function value`);
  if (fn.visibility === 'private' && sc.owner && fn.owner && fn.owner !== sc.owner && fn.owner.kind !== 'library') fail(node, `private function ${fn.name} of ${fn.owner.name} is not visible here`);
  if ([...fn.params, ...fn.returns].some((p) => p.storage && !isValueType(p.t))) fail(node, `function ${fn.name} takes or returns a storage reference: it cannot be used as a value`);
  const t: SType = { k: 'function', params: fn.params.map((p) => p.t), returns: fn.returns.map((p) => p.t), mutability: fn.mutability === 'constant' ? 'view' : fn.mutability };
  return { t, ev: () => fn };
}

/** A call through a value of an internal function type; a value never assigned panics (0x51), as in Solidity. */
export function pointerCall(sc: FnScope, P: CE, argNodes: Node[], names: string[], node: Node): CE {
  const t = P.t as Extract<SType, { k: 'function' }>;
  if (names.length) fail(node, 'named arguments cannot be used in a call through a function value');
  if (argNodes.length !== t.params.length) fail(node, `the function takes ${t.params.length} arguments, ${argNodes.length} given`);
  const evs = argNodes.map((a, i) => toMemoryValue(sc, coerce(sc, sc.expr(a), t.params[i], a), t.params[i]).ev);
  sc.calls(node, { name: 'a function value', mutability: t.mutability });
  const pev = P.ev;
  const ev = (f: Frame): unknown => {
    const fn = pev(f) as CFn | undefined;
    if (fn === undefined) panic(PANIC_INTERNAL_FN);
    return invoke(fn, f.x, f.self, f.sender, f.value, f.rt as ContractRt, evs.map((e) => e(f)));
  };
  const rt: SType = t.returns.length === 0 ? VOID : t.returns.length === 1 ? t.returns[0] : { k: 'tuple', items: t.returns };
  return { t: rt, ev };
}

export interface CallOpts {
  value?: Node;
  salt?: Node;
  gas?: Node;
}

export function compileArgs(sc: FnScope, nodes: Node[]): CE[] {
  return nodes.map((a) => sc.expr(a));
}

export function structConstructor(sc: FnScope, t: Extract<SType, { k: 'struct' }>, argNodes: Node[], names: string[], node: Node): CE {
  const fields = t.fields.filter((f) => f.t.k !== 'mapping');
  if (argNodes.length !== fields.length) fail(node, `struct ${t.name} has ${fields.length} members, ${argNodes.length} given`);
  const byField: Array<(f: Frame) => any> = t.fields.map((fd) => {
    if (fd.t.k === 'mapping') return () => new Map();
    const i = names.length ? names.indexOf(fd.name) : fields.indexOf(fd);
    if (i < 0) fail(node, `missing member ${fd.name} of ${t.name}`);
    return toMemoryValue(sc, coerce(sc, sc.expr(argNodes[i]), fd.t, argNodes[i]), fd.t).ev;
  });
  return { t, ev: (f) => byField.map((e) => e(f)) };
}
