// Events (`emit E(…)`) and custom errors (`revert Err(…)`, `throw Err(…)`,
// and the declarations `catch Err(…)` looks up).
import { selectorOf } from './abi.js';
import type { AST, Node } from './ast.js';
import { lookupTypeNode, toMemoryValue } from './ce.js';
import { coerce } from './convert.js';
import { VmFailure } from './errors.js';
import type { CE, FnScope } from './scope.js';
import { VOID, type SType } from './types.js';
import { fail, type ContractInfo, type EventDef } from './unit.js';
import { renderEventValue } from './values.js';

export function findEvent(sc: FnScope, name: string): EventDef | undefined {
  for (const c of sc.cc.K?.linear ?? (sc.owner ? sc.owner.linear : [])) {
    const e = c.events.get(name);
    if (e) return e;
  }
  return sc.unit.events.get(name);
}

function resolveEvent(sc: FnScope, e: EventDef): void {
  if (e.resolved) return;
  e.params = e.node.parameters.map((p, i) => ({
    name: p.name ?? `arg${i}`,
    t: lookupTypeNode({ ...sc, unit: sc.unit, owner: e.scope } as FnScope, p.typeName!),
    indexed: !!p.isIndexed,
  }));
  e.resolved = true;
}

export function emitEvent(sc: FnScope, e: EventDef, argNodes: Node[], names: string[], node: Node): CE {
  sc.writesState(node, 'emits an event');
  resolveEvent(sc, e);
  if (argNodes.length !== e.params.length) fail(node, `event ${e.name} takes ${e.params.length} arguments`);
  const evs = e.params.map((p, i) => {
    const j = names.length ? names.indexOf(p.name) : i;
    if (j < 0) fail(node, `missing argument ${p.name} of ${e.name}`);
    return toMemoryValue(sc, coerce(sc, sc.expr(argNodes[j]), p.t, argNodes[j]), p.t).ev;
  });
  const ps = e.params;
  const name = e.name;
  return {
    t: VOID,
    ev: (f) => {
      const x = f.x;
      const args: Array<[string, string]> = new Array(ps.length);
      for (let i = 0; i < ps.length; i++) args[i] = [ps[i].name, renderEventValue(ps[i].t, evs[i](f))];
      x.gas += x.g.log + x.g.logArg * ps.length;
      x.countEvent(name, args);
      x.events.push({ address: f.self, chainId: x.ctx.chainId, contractName: f.rt?.name ?? '', name, args, index: x.events.length });
    },
  };
}

/** `revert Err(args)`: fails with `Err(arg, …)` as the message. */
/** The declaration of a custom error visible from here (`Err` or `C.Err`) and its parameters. */
export function findError(sc: FnScope, callee: Node): { name: string; ps: Array<{ name: string; t: SType }> } | undefined {
  const name: string = callee.type === 'Identifier' ? callee.name : callee.type === 'MemberAccess' ? callee.memberName : '';
  let def: AST.CustomErrorDefinition | undefined;
  let scope: ContractInfo | null = null;
  for (const c of sc.cc.K?.linear ?? (sc.owner ? sc.owner.linear : [])) {
    const e = c.errors.get(name);
    if (e) {
      def = e.node;
      scope = c;
      break;
    }
  }
  if (!def && callee.type === 'MemberAccess' && callee.expression.type === 'Identifier') {
    const c = sc.unit.contracts.get(callee.expression.name);
    const e = c?.errors.get(name);
    if (e) {
      def = e.node;
      scope = c!;
    }
  }
  if (!def) def = sc.unit.errors.get(name)?.node;
  if (!def) return undefined;
  const ps: Array<{ name: string; t: SType }> = def.parameters.map((p, i) => ({
    name: p.name ?? `arg${i}`,
    t: lookupTypeNode({ ...sc, unit: sc.unit, owner: scope } as FnScope, p.typeName!),
  }));
  return { name, ps };
}

export function customError(sc: FnScope, call: AST.FunctionCall): CE {
  const callee = call.expression;
  const found = findError(sc, callee);
  if (!found) {
    const name: string = callee.type === 'Identifier' ? callee.name : callee.type === 'MemberAccess' ? callee.memberName : '';
    if (name === 'revert' || callee.type !== 'Identifier') return sc.expr(call);
    return fail(call, `undeclared error ${name}`);
  }
  const { name, ps } = found;
  const argNodes = call.arguments;
  if (argNodes.length !== ps.length) fail(call, `error ${name} takes ${ps.length} arguments`);
  const evs = ps.map((p, i) => toMemoryValue(sc, coerce(sc, sc.expr(argNodes[i]), p.t, argNodes[i]), p.t).ev);
  const types = ps.map((p) => p.t);
  // the selector, so `catch (bytes memory data)` gets the data the EVM would give
  const selector = selectorOf(name, types);
  return {
    t: VOID,
    ev: (f) => {
      const vals = evs.map((e) => e(f));
      const text = `${name}(${vals.map((v, i) => renderEventValue(ps[i].t, v).replace(/^True$|^False$/, (b) => b.toLowerCase())).join(', ')})`;
      throw new VmFailure('REVERT', text, 'custom', { errorName: name, args: vals, types, selector });
    },
  };
}
