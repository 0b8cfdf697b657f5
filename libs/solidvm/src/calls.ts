// Function calls, by what is called: a name (a function of this unit, a
// built-in, a type's conversion or a struct's constructor), a member
// (members.ts), `new`, or a function value. The callee and the arguments
// are compiled through the scope.
import type { AST, Node } from './ast.js';
import { builtinCall } from './builtins.js';
import { isFree } from './ce.js';
import { explicitConversion } from './convert.js';
import { emitEvent, findEvent } from './events.js';
import { compileArgs, internalCall, pickOverload, pointerCall, structConstructor, type CallOpts } from './internal-calls.js';
import { memberCall, newExpr } from './members.js';
import type { CE, FnScope } from './scope.js';
import { elementaryType } from './types.js';
import { fail, lookupType } from './unit.js';

export function compileCall(sc: FnScope, node: AST.FunctionCall): CE {
  let callee = node.expression;
  const opts: CallOpts = {};
  if (callee.type === 'NameValueExpression') {
    const l = callee.arguments;
    l.names.forEach((n: string, i: number) => ((opts as any)[n] = l.arguments[i]));
    callee = callee.expression;
  }
  const names: string[] = node.names ?? [];
  const argNodes: Node[] = node.arguments ?? [];
  switch (callee.type) {
    case 'NewExpression':
      return newExpr(sc, callee.typeName, argNodes, opts, node);
    case 'ElementaryTypeName': {
      const t = elementaryType(callee.name);
      if (!t) return fail(callee, `unknown type ${callee.name}`);
      return explicitConversion(sc, t, argNodes.map((a) => sc.expr(a)), node);
    }
    case 'Identifier':
      return identifierCall(sc, callee.name, argNodes, names, node);
    case 'MemberAccess':
      return memberCall(sc, callee, argNodes, names, opts, node);
    case 'ArrayTypeName':
      return fail(callee, 'array types cannot be called');
    default: {
      const P = sc.expr(callee);
      if (P.t.k === 'function') return pointerCall(sc, P, argNodes, names, node);
      return fail(callee, 'expression is not callable');
    }
  }
}

function identifierCall(sc: FnScope, name: string, argNodes: Node[], names: string[], node: AST.FunctionCall): CE {
  if (!isFree(sc, name)) {
    const l = sc.lookup(name);
    if (l?.t.k === 'function') return pointerCall(sc, sc.expr(node.expression), argNodes, names, node);
    return fail(node, `${name} is not a function`);
  }
  const fns = sc.cc.fnTable.get(name);
  if (fns) {
    const args = compileArgs(sc, argNodes);
    const [fn, ordered] = pickOverload(sc, fns, args, names, node);
    return internalCall(sc, fn, ordered, node);
  }
  if (sc.cc.K) {
    const free = sc.contract(null).fnTable.get(name);
    if (free) {
      const args = compileArgs(sc, argNodes);
      const [fn, ordered] = pickOverload(sc, free, args, names, node);
      return internalCall(sc, fn, ordered, node);
    }
  }
  const builtin = builtinCall(sc, name, argNodes, node);
  if (builtin) return builtin;
  const t = lookupType(sc.unit, sc.owner, name) ?? (sc.cc.K ? lookupType(sc.unit, sc.cc.K, name) : undefined);
  if (t) {
    if (t.k === 'struct') return structConstructor(sc, t, argNodes, names, node);
    return explicitConversion(sc, t, compileArgs(sc, argNodes), node);
  }
  const ev = findEvent(sc, name);
  if (ev) return emitEvent(sc, ev, argNodes, names, node);
  return fail(node, `undeclared function ${name}`);
}

