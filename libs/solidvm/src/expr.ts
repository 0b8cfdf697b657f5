// Expressions → closures. Each expression is typed here, once; the closure
// it becomes does only the work its static type requires. This module
// dispatches by node kind to the compilers of ce.ts, convert.ts,
// operators.ts, assign.ts, access.ts and calls.ts; they compile their
// subexpressions through the scope (FnScope.expr), never by importing this one.
import { indexAccess, memberAccess } from './access.js';
import { assignment } from './assign.js';
import { asNode, type AST, type Node } from './ast.js';
import { compileCall } from './calls.js';
import { constCE, localRef, lookupTypeNode, ratCE, stateVarRef, toMemoryValue, unescapeString } from './ce.js';
import { coerce } from './convert.js';
import { hexToBytes } from './hash.js';
import { functionValue } from './internal-calls.js';
import { binary, conditional, unary } from './operators.js';
import { parseNumberRational, type Rat } from './rational.js';
import type { CE, FnScope } from './scope.js';
import { ADDRESS, BOOL, BYTES, INT256, STRING, UINT256, UINT8, type SType } from './types.js';
import { fail } from './unit.js';

const ASSIGN_OPS = new Set(['=', '+=', '-=', '*=', '/=', '%=', '|=', '&=', '^=', '<<=', '>>=', '>>>=']);

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
        return fail(node, e.message);
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
      return ASSIGN_OPS.has(node.operator) ? assignment(sc, node) : binary(sc, node);
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
      return fail(node, 'array slices are not supported');
    case 'NameValueExpression':
    case 'NewExpression':
      return fail(node, 'expected a call');
    case 'ElementaryTypeName':
    case 'UserDefinedTypeName':
    case 'ArrayTypeName':
      return fail(node, 'a type is not a value');
    default:
      return fail(node, `unsupported expression ${node.type}`);
  }
}

function identifier(sc: FnScope, node: AST.Identifier): CE {
  const name: string = node.name;
  const l = sc.lookup(name);
  if (l) return localRef(l);
  const sv = sc.cc.vars.get(name);
  if (sv) {
    if (sv.constant) {
      if (!sv.ce) fail(node, `constant ${name} is used before its definition`);
      return sv.ce;
    }
    if (!sc.cc.K || sc.cc.K.kind === 'library') fail(node, `state variable ${name} is not accessible here`);
    if (sv.node.visibility === 'private' && sc.owner && sv.owner !== sc.owner) fail(node, `private state variable ${name} of ${sv.owner.name} is not visible here`);
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
  return fail(node, `undeclared identifier ${name}`);
}

const fileConstCache = new WeakMap<AST.FileLevelConstant, CE>();
function fileConstant(sc: FnScope, fc: AST.FileLevelConstant): CE {
  let ce = fileConstCache.get(fc);
  if (!ce) {
    const t = lookupTypeNode(sc, fc.typeName);
    ce = coerce(sc, sc.expr(fc.initialValue), t, fc.initialValue);
    fileConstCache.set(fc, ce);
  }
  return ce;
}

function tuple(sc: FnScope, node: AST.TupleExpression): CE {
  const comps: Array<CE | null> = node.components.map((c) => {
    const n = asNode(c);
    return n ? sc.expr(n) : null;
  });
  if (node.isArray) {
    if (comps.some((c) => c === null) || comps.length === 0) fail(node, 'empty array literal component');
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
