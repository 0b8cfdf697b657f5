// Statements → closures returning a completion signal (NORMAL, BREAK,
// CONTINUE, RETURN). Reverts are exceptions (VmFailure). Steps are counted per
// block entry (its statement count) and per loop iteration, which bounds
// every run without a check per statement.
import { revertData } from './abi.js';
import { asNode, asNodes, type AST, type Node } from './ast.js';
import { lookupTypeNode, toMemoryValue } from './ce.js';
import { coerce, concrete, mobileType } from './convert.js';
import { PANIC_ASSERT, PANIC_DIV_ZERO, PANIC_ENUM, PANIC_INDEX, PANIC_OVERFLOW, PANIC_POP_EMPTY, VmFailure } from './errors.js';
import { customError, emitEvent, findError, findEvent } from './events.js';
import type { Frame } from './runtime.js';
import type { CE, FnScope } from './scope.js';
import { SVM_MARK } from './source.js';
import { BOOL, STRING, UINT256, isValueType, sameType, typeName, type SType } from './types.js';
import { fail, lookupType } from './unit.js';
import { defaultValue } from './values.js';

export const NORMAL = 0;
export const BREAK = 1;
export const CONTINUE = 2;
export const RETURN = 3;

export type Stmt = (f: Frame) => number;

function err(node: Node, msg: string): never {
  return fail(node, msg);
}

export function compileBlock(sc: FnScope, node: AST.Block): Stmt {
  sc.push();
  const stmts: Stmt[] = asNodes(node.statements).map((s) => compileStmt(sc, s));
  sc.pop();
  return blockOf(stmts);
}

function blockOf(stmts: Stmt[]): Stmt {
  const n = stmts.length;
  switch (n) {
    case 0:
      return () => NORMAL;
    case 1: {
      const [a] = stmts;
      return (f) => {
        const x = f.x;
        if (++x.steps > x.stepCap) x.overLimit();
        return a(f);
      };
    }
    case 2: {
      const [a, b] = stmts;
      return (f) => {
        const x = f.x;
        if ((x.steps += 2) > x.stepCap) x.overLimit();
        const s = a(f);
        return s !== NORMAL ? s : b(f);
      };
    }
    case 3: {
      const [a, b, c] = stmts;
      return (f) => {
        const x = f.x;
        if ((x.steps += 3) > x.stepCap) x.overLimit();
        let s = a(f);
        if (s !== NORMAL) return s;
        s = b(f);
        return s !== NORMAL ? s : c(f);
      };
    }
    default:
      return (f) => {
        const x = f.x;
        if ((x.steps += n) > x.stepCap) x.overLimit();
        for (let i = 0; i < n; i++) {
          const s = stmts[i](f);
          if (s !== NORMAL) return s;
        }
        return NORMAL;
      };
  }
}

/** A statement in its own scope (bodies of if/for/while that are not blocks). */
function scoped(sc: FnScope, node: Node): Stmt {
  if (node.type === 'Block') return compileBlock(sc, node);
  sc.push();
  const s = compileStmt(sc, node);
  sc.pop();
  return s;
}

export function compileStmt(sc: FnScope, node: Node): Stmt {
  switch (node.type) {
    case 'Block':
      return compileBlock(sc, node);
    case 'ExpressionStatement': {
      const e = node.expression;
      if (!e) return () => NORMAL;
      if (e.type === 'Identifier' && e.name === '_' && sc.placeholder) {
        const ph = sc.placeholder;
        return (f) => {
          ph(f);
          return NORMAL;
        };
      }
      const ev = sc.expr(e).ev;
      return (f) => {
        ev(f);
        return NORMAL;
      };
    }
    case 'VariableDeclarationStatement':
      return varDecl(sc, node);
    case 'IfStatement': {
      const c = coerce(sc, sc.expr(node.condition), BOOL, node.condition).ev;
      const a = scoped(sc, node.trueBody);
      if (!node.falseBody) return (f) => (c(f) ? a(f) : NORMAL);
      const b = scoped(sc, node.falseBody);
      return (f) => (c(f) ? a(f) : b(f));
    }
    case 'ForStatement':
      return forStmt(sc, node);
    case 'WhileStatement': {
      const c = coerce(sc, sc.expr(node.condition), BOOL, node.condition).ev;
      sc.loopDepth++;
      const body = scoped(sc, node.body);
      sc.loopDepth--;
      return (f) => {
        const x = f.x;
        while (c(f)) {
          if (++x.steps > x.stepCap) x.overLimit();
          const s = body(f);
          if (s === BREAK) break;
          if (s === RETURN) return RETURN;
        }
        return NORMAL;
      };
    }
    case 'DoWhileStatement': {
      const c = coerce(sc, sc.expr(node.condition), BOOL, node.condition).ev;
      sc.loopDepth++;
      const body = scoped(sc, node.body);
      sc.loopDepth--;
      return (f) => {
        const x = f.x;
        do {
          if (++x.steps > x.stepCap) x.overLimit();
          const s = body(f);
          if (s === BREAK) break;
          if (s === RETURN) return RETURN;
        } while (c(f));
        return NORMAL;
      };
    }
    case 'BreakStatement':
    case 'Break':
      if (!sc.loopDepth) err(node, '`break` outside a loop');
      return () => BREAK;
    case 'ContinueStatement':
    case 'Continue':
      if (!sc.loopDepth) err(node, '`continue` outside a loop');
      return () => CONTINUE;
    case 'ReturnStatement':
      return returnStmt(sc, node);
    case 'EmitStatement': {
      const call = node.eventCall;
      const callee = call.expression;
      const name = callee.type === 'Identifier' ? callee.name : callee.type === 'MemberAccess' ? callee.memberName : err(callee, 'an event is emitted by its name');
      const e = findEvent(sc, name);
      if (!e) err(node, `undeclared event ${name}`);
      const ev = emitEvent(sc, e, call.arguments, call.names ?? [], call).ev;
      return (f) => {
        ev(f);
        return NORMAL;
      };
    }
    case 'RevertStatement': {
      const ev = customError(sc, node.revertCall).ev;
      return (f) => {
        ev(f);
        return NORMAL;
      };
    }
    case 'ThrowStatement':
      return () => {
        // legacy `throw` was an invalid opcode: no reason data
        throw new VmFailure('REVERT', 'throw', 'other');
      };
    case 'UncheckedStatement': {
      const prev = sc.unchecked;
      sc.unchecked = true;
      const b = compileBlock(sc, node.block);
      sc.unchecked = prev;
      return b;
    }
    case 'TryStatement':
      return tryStmt(sc, node);
    case 'InlineAssemblyStatement':
      return err(node, 'inline assembly is not supported by SolidVM');
    default:
      return err(node, `unsupported statement ${node.type}`);
  }
}

function declType(sc: FnScope, v: AST.VariableDeclaration, init: CE | null, node: Node): SType {
  if (!v.typeName || (v.typeName.type === 'ElementaryTypeName' && v.typeName.name === 'var')) {
    if (!init) err(node, '`var` needs an initial value');
    return mobileType(concrete(sc, init, node));
  }
  return lookupTypeNode(sc, v.typeName);
}

function varDecl(sc: FnScope, node: AST.VariableDeclarationStatement): Stmt {
  const vars = node.variables.map((v) => asNode<AST.VariableDeclaration>(v));
  const initNode = node.initialValue;
  if (vars.length === 1 && vars[0]) {
    const v = vars[0];
    const init = initNode ? sc.expr(initNode) : null;
    const t = declType(sc, v, init, node);
    // storage pointer: explicit `storage`, or (legacy syntax) no location with a storage initializer
    const ptr = !isValueType(t) && (v.storageLocation === 'storage' || (v.storageLocation === null && !!init?.st && !(v.typeName?.type === 'ElementaryTypeName' && v.typeName.name.startsWith('var'))));
    const slot = sc.declare(v.name, t, ptr, v);
    if (ptr) {
      if (!init || !init.st) err(v, 'a storage pointer needs a storage location as its initial value');
      const ev = coerce(sc, init, t, initNode!).ev;
      return (f) => {
        f.l[slot] = ev(f);
        return NORMAL;
      };
    }
    if (!init) {
      if (isValueType(t)) {
        const d = defaultValue(t);
        return (f) => {
          f.l[slot] = d;
          return NORMAL;
        };
      }
      return (f) => {
        f.l[slot] = defaultValue(t);
        return NORMAL;
      };
    }
    const ev = toMemoryValue(sc, coerce(sc, init, t, initNode!), t).ev;
    return (f) => {
      f.l[slot] = ev(f);
      return NORMAL;
    };
  }
  // tuple declaration: (uint a, , string memory b) = f();
  if (!initNode) err(node, 'a tuple declaration needs a value');
  const init = sc.expr(initNode);
  if (init.t.k !== 'tuple' || init.t.items.length !== vars.length) err(node, 'tuple sizes differ in declaration');
  const items = init.t.items;
  const slots = vars.map((v, i) => {
    if (!v) return -1;
    const t = v.typeName && !(v.typeName.type === 'ElementaryTypeName' && v.typeName.name === 'var') ? lookupTypeNode(sc, v.typeName) : items[i]!;
    const probe: CE = { t: items[i]!, ev: () => undefined };
    coerce(sc, probe, t, node);
    return sc.declare(v.name, t, false, v);
  });
  const ev = init.ev;
  return (f) => {
    const vals = ev(f) as unknown[];
    for (let i = 0; i < slots.length; i++) if (slots[i] >= 0) f.l[slots[i]] = vals[i];
    return NORMAL;
  };
}

function forStmt(sc: FnScope, node: AST.ForStatement): Stmt {
  sc.push();
  const init = node.initExpression ? compileStmt(sc, node.initExpression) : null;
  const cond = node.conditionExpression ? coerce(sc, sc.expr(node.conditionExpression), BOOL, node.conditionExpression).ev : null;
  const postNode = node.loopExpression?.type === 'ExpressionStatement' ? node.loopExpression.expression : node.loopExpression;
  const post = postNode ? sc.expr(postNode).ev : null;
  sc.loopDepth++;
  const body = scoped(sc, node.body);
  sc.loopDepth--;
  sc.pop();
  return (f) => {
    const x = f.x;
    if (init) init(f);
    for (;;) {
      if (++x.steps > x.stepCap) x.overLimit();
      if (cond && !cond(f)) break;
      const s = body(f);
      if (s === BREAK) break;
      if (s === RETURN) return RETURN;
      if (post) post(f);
    }
    return NORMAL;
  };
}

function returnStmt(sc: FnScope, node: AST.ReturnStatement): Stmt {
  const fn = sc.fn;
  if (!fn) return err(node, '`return` outside a function');
  const rets = fn.returns;
  const slots = fn.retSlots;
  const value = node.expression;
  if (!value) return () => RETURN;
  const E = sc.expr(value);
  if (rets.length === 0) return err(node, 'function returns nothing');
  const conv = (ce: CE, i: number, n: Node): ((f: Frame) => any) => {
    const r = rets[i];
    if (r.storage && !isValueType(r.t)) {
      if (!ce.st) err(n, 'must return a storage reference');
      return coerce(sc, ce, r.t, n).ev;
    }
    return toMemoryValue(sc, coerce(sc, ce, r.t, n), r.t).ev;
  };
  if (rets.length === 1) {
    const ev = conv(E, 0, value);
    const s = slots[0];
    return (f) => {
      f.l[s] = ev(f);
      return RETURN;
    };
  }
  if (E.t.k !== 'tuple' || E.t.items.length !== rets.length) err(node, `function returns ${rets.length} values`);
  if (E.items) {
    const evs = E.items.map((c, i) => conv(c!, i, value));
    return (f) => {
      const vals = evs.map((e) => e(f));
      for (let i = 0; i < slots.length; i++) f.l[slots[i]] = vals[i];
      return RETURN;
    };
  }
  E.t.items.forEach((t, i) => coerce(sc, { t: t!, ev: () => undefined }, rets[i].t, node));
  const ev = E.ev;
  return (f) => {
    const vals = ev(f) as unknown[];
    for (let i = 0; i < slots.length; i++) f.l[slots[i]] = vals[i];
    return RETURN;
  };
}

// SolidVM's named catch clauses for the failures it raises itself (docs/conventions.md:
// `catch DivideByZero { }`), by the Panic code Solidity gives the same failure
const BUILTIN_ERRORS: Record<string, bigint> = {
  DivideByZero: PANIC_DIV_ZERO,
  ArithmeticOverflow: PANIC_OVERFLOW,
  IndexOutOfBounds: PANIC_INDEX,
  AssertionFailed: PANIC_ASSERT,
  InvalidEnumValue: PANIC_ENUM,
  EmptyArrayPop: PANIC_POP_EMPTY,
};

/**
 * try/catch: a failure inside is rolled back and handed to the first catch
 * clause that takes it. Solidity's form guards an external call or `new`;
 * SolidVM's block form (`try { … } catch DivideByZero { … }`, rewritten by
 * source.ts into `try __solidvm_try() { … }`) guards the block itself. Named
 * clauses (`catch Err(uint a)`, rewritten into `catch Error(bool
 * __solidvm_Err, uint a)`) take the custom error of that name, or a built-in one.
 */
function tryStmt(sc: FnScope, node: AST.TryStatement): Stmt {
  const ex = node.expression;
  const blockForm = ex.type === 'FunctionCall' && ex.expression.type === 'Identifier' && ex.expression.name === `${SVM_MARK}try` && ex.arguments.length === 0;
  const call = blockForm ? null : sc.expr(ex);
  sc.push();
  const retVars = node.returnParameters ?? [];
  if (blockForm && retVars.length) fail(node, 'a try block has no return values');
  const retSlots = retVars.map((v) => sc.declare(v.name, lookupTypeNode(sc, v.typeName!), false, v));
  const body = compileBlock(sc, node.body);
  sc.pop();
  interface Clause {
    kind: 'Error' | 'Panic' | 'bytes' | 'any' | 'named';
    slot: number;
    body: Stmt;
    /** named: does the failure match */
    takes?: (e: VmFailure) => boolean;
    /** named custom error: slots of its arguments */
    argSlots?: number[];
  }
  const clauses: Clause[] = node.catchClauses.map((c) => {
    sc.push();
    const ps = c.parameters ?? [];
    const p = ps[0];
    let slot = -1;
    let kind: Clause['kind'] = 'any';
    let takes: Clause['takes'];
    let argSlots: number[] | undefined;
    if (c.kind === 'Error' && p?.name?.startsWith(SVM_MARK)) {
      kind = 'named';
      const name = (p.name as string).slice(SVM_MARK.length);
      // the errors visible here, else one another contract of the unit declares (a callee's)
      let custom = findError(sc, { type: 'Identifier', name });
      if (!custom) {
        for (const k of sc.unit.contracts.keys()) {
          custom = findError(sc, { type: 'MemberAccess', memberName: name, expression: { type: 'Identifier', name: k } });
          if (custom) break;
        }
      }
      if (custom) {
        const rest = ps.slice(1);
        if (rest.length && rest.length !== custom.ps.length) fail(c, `error ${name} has ${custom.ps.length} parameters`);
        argSlots = rest.map((q, i) => {
          // `catch Err(a, b)`: a bare name, not a type, binds the error's argument with its declared type
          const tn = q.typeName;
          const bare = !q.name && tn?.type === 'UserDefinedTypeName' && /^[A-Za-z_$][\w$]*$/.test(tn.namePath) && !lookupType(sc.unit, sc.owner ?? sc.cc.K, tn.namePath);
          if (bare) return sc.declare(tn.namePath, custom.ps[i].t, false, q);
          const t = lookupTypeNode(sc, q.typeName!);
          if (!sameType(t, custom.ps[i].t)) fail(q, `parameter ${i + 1} of error ${name} is ${typeName(custom.ps[i].t)}`);
          return sc.declare(q.name, t, false, q);
        });
        takes = (e) => e.kind === 'custom' && e.data.errorName === name;
      } else if (name in BUILTIN_ERRORS) {
        if (ps.length > 1) fail(c, `${name} has no parameters`);
        const code = BUILTIN_ERRORS[name];
        takes = (e) => e.kind === 'panic' && e.data.panic === code;
      } else fail(c, `undeclared error ${name}`);
    } else if (c.kind === 'Error') {
      kind = 'Error';
      if (p) slot = sc.declare(p.name, STRING, false, p);
    } else if (c.kind === 'Panic') {
      kind = 'Panic';
      if (p) slot = sc.declare(p.name, UINT256, false, p);
    } else if (p) {
      kind = 'bytes';
      slot = sc.declare(p.name, lookupTypeNode(sc, p.typeName!), false, p);
    }
    const b = compileBlock(sc, c.body);
    sc.pop();
    return { kind, slot, body: b, takes, argSlots };
  });
  const callEv = call?.ev;
  const prep = call?.prep;
  const multi = retSlots.length > 1;
  return (f) => {
    const x = f.x;
    // the target and arguments are evaluated outside the guard: a failure there is not caught
    const run = blockForm ? () => body(f) : prep ? prep(f) : () => callEv!(f);
    const mark = { events: x.events.length, created: x.created.length, deleted: x.deleted.length, depth: x.depth };
    x.state.checkpoint();
    let result: unknown;
    try {
      result = run();
    } catch (e) {
      if (!(e instanceof VmFailure) || !e.catchable) {
        x.state.revert();
        throw e;
      }
      x.state.revert();
      x.events.length = mark.events;
      x.created.length = mark.created;
      x.deleted.length = mark.deleted;
      x.depth = mark.depth;
      for (const c of clauses) {
        if (c.kind === 'Error' && e.kind !== 'error') continue;
        if (c.kind === 'Panic' && e.kind !== 'panic') continue;
        if (c.kind === 'named') {
          if (!c.takes!(e)) continue;
          c.argSlots?.forEach((s, i) => (f.l[s] = e.data.args?.[i]));
        } else if (c.slot >= 0) {
          if (c.kind === 'Error') f.l[c.slot] = e.data.reason ?? e.message;
          else if (c.kind === 'Panic') f.l[c.slot] = e.data.panic ?? 0n;
          else f.l[c.slot] = revertData(e);
        }
        return c.body(f);
      }
      throw e;
    }
    x.state.commit();
    // the block form ran its block under the guard: its completion (return, break…) is the result
    if (blockForm) return result as ReturnType<Stmt>;
    if (retSlots.length === 1) f.l[retSlots[0]] = result;
    else if (multi) (result as unknown[]).forEach((v, i) => (f.l[retSlots[i]] = v));
    return body(f);
  };
}
