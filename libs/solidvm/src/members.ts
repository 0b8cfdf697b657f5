// Calls through a member: library functions (`using … for`), `super`,
// array and bytes methods (push, pop), address methods (transfer, send,
// call), calls to other contracts, and `new`.
import type { AST, Node } from './ast.js';
import { abiCall, concatCall } from './builtins.js';
import { isFree, lookupTypeNode, storageRef, toMemoryValue } from './ce.js';
import { coerce, explicitConversion } from './convert.js';
import { PANIC_POP_EMPTY, panic } from './errors.js';
import { argValues, compileArgs, internalCall, pickOverload, pointerCall, returnType, structConstructor, type CallOpts } from './internal-calls.js';
import { callExternal, createByContract, transferValue } from './interop.js';
import { deleteDeep, readDeep, readLength, writeDeep } from './runtime.js';
import type { CE, CFn, FnScope } from './scope.js';
import { BOOL, BYTES, BYTES32, STRING, UINT256, VOID, fbytesT, typeName, type SType } from './types.js';
import { fail, lookupType, type ContractInfo } from './unit.js';
import { defaultValue } from './values.js';

/** Functions attached to a type by `using L for T` visible from the current code. */
function usingCandidates(sc: FnScope, t: SType, m: string): CFn[] {
  const out: CFn[] = [];
  const scopes: Array<ContractInfo | null> = [];
  if (sc.cc.K) scopes.push(...sc.cc.K.linear);
  if (sc.owner && !scopes.includes(sc.owner)) scopes.push(sc.owner);
  const decls = [...scopes.flatMap((c) => (c ? c.usingFor : [])), ...sc.unit.usingFor];
  for (const u of decls) {
    if (u.type) {
      const ut = lookupTypeNode(sc, u.type);
      if (typeName(ut) !== typeName(t) && !(ut.k === 'array' && t.k === 'array' && typeName(ut.elem) === typeName(t.elem))) continue;
    }
    if (u.lib) {
      const lib = sc.unit.contracts.get(u.lib);
      if (!lib) continue;
      const fns = sc.contract(lib).fnTable.get(m);
      if (fns) out.push(...fns.filter((f) => f.params.length > 0));
    } else {
      for (const name of u.fns) {
        const [libName, fnName] = name.includes('.') ? name.split('.') : [null, name];
        if (fnName !== m) continue;
        const cc = sc.contract(libName ? sc.unit.contracts.get(libName) ?? null : null);
        const fns = cc.fnTable.get(m);
        if (fns) out.push(...fns.filter((f) => f.params.length > 0));
      }
    }
  }
  return [...new Set(out)];
}

export function memberCall(sc: FnScope, callee: AST.MemberAccess, argNodes: Node[], names: string[], opts: CallOpts, node: Node): CE {
  const m: string = callee.memberName;
  const base = callee.expression;
  const baseName: string | undefined = base.type === 'Identifier' ? base.name : base.type === 'ElementaryTypeName' ? base.name : undefined;
  if (baseName !== undefined && (base.type === 'ElementaryTypeName' || isFree(sc, baseName))) {
    if (baseName === 'abi') return abiCall(sc, m, argNodes, node);
    if ((baseName === 'string' || baseName === 'bytes') && m === 'concat') return concatCall(sc, baseName, argNodes);
    if (baseName === 'super') return superCall(sc, m, argNodes, names, node);
    const c = sc.unit.contracts.get(baseName);
    if (c) {
      const args = compileArgs(sc, argNodes);
      if (c.kind === 'library') {
        const fns = sc.contract(c).fnTable.get(m);
        if (!fns) return fail(callee, `library ${c.name} has no function ${m}`);
        const [fn, ordered] = pickOverload(sc, fns, args, names, node);
        return internalCall(sc, fn, ordered, node);
      }
      // explicit call of a base contract's implementation: Base.f()
      if (sc.cc.K && sc.cc.K.linear.includes(c)) {
        const cands: CFn[] = [];
        for (const b of c.linear) for (const fnode of b.functions) if (fnode.name === m && fnode.body) cands.push(sc.cc.shell(fnode, b));
        if (!cands.length) return fail(callee, `${c.name} has no function ${m}`);
        const [fn, ordered] = pickOverload(sc, cands, args, names, node);
        return internalCall(sc, fn, ordered, node);
      }
      const st = lookupType(sc.unit, c, m);
      if (st?.k === 'struct') return structConstructor(sc, st, argNodes, names, node);
      if (st) return explicitConversion(sc, st, args, node);
      return fail(callee, `${c.name}.${m} cannot be called here`);
    }
    const udvt = lookupType(sc.unit, sc.owner, baseName);
    if (udvt && (m === 'wrap' || m === 'unwrap') && (sc.owner?.udvts.has(baseName) || sc.unit.udvts.has(baseName))) {
      return coerce(sc, sc.expr(argNodes[0]), udvt, argNodes[0]);
    }
  }
  const B = sc.expr(base);
  const t = B.t;
  if (t.k === 'array' && (m === 'push' || m === 'pop')) return arrayMethod(sc, B, m, argNodes, node);
  if (t.k === 'bytes' && (m === 'push' || m === 'pop') && B.stScalar && B.lv) return storageBytesMethod(sc, B, m, argNodes, node);
  if ((t.k === 'address' || t.k === 'contract') && (m === 'transfer' || m === 'send' || m === 'call')) {
    if (t.k === 'address' || !sc.iface(t.name).has(m)) return addressMethod(sc, B, m, argNodes, opts, node);
  }
  if (t.k === 'contract') {
    const fns = sc.iface(t.name).get(m);
    if (fns) return externalCall(sc, B, fns, argNodes, names, opts, node);
  }
  const using = usingCandidates(sc, t, m);
  if (using.length) {
    const args = compileArgs(sc, argNodes);
    const [fn, ordered] = pickOverload(sc, using, [B, ...args], names.length ? ['', ...names] : [], node);
    return internalCall(sc, fn, ordered, node);
  }
  if (t.k === 'contract') return fail(callee, `contract ${t.name} has no function ${m}`);
  if (t.k === 'struct' && t.fields[t.index.get(m) ?? -1]?.t.k === 'function') return pointerCall(sc, sc.expr(callee), argNodes, names, node);
  return fail(callee, `type ${typeName(t)} has no function ${m}`);
}

function superCall(sc: FnScope, m: string, argNodes: Node[], names: string[], node: Node): CE {
  const K = sc.cc.K;
  if (!K || !sc.owner) return fail(node, '`super` outside a contract');
  const i = K.linear.indexOf(sc.owner);
  const args = compileArgs(sc, argNodes);
  for (const c of K.linear.slice(i + 1)) {
    const cands = c.functions.filter((f) => f.name === m && f.body).map((f) => sc.cc.shell(f, c));
    if (!cands.length) continue;
    const [fn, ordered] = pickOverload(sc, cands, args, names, node);
    return internalCall(sc, fn, ordered, node);
  }
  return fail(node, `no base implementation of ${m}`);
}

/** `b.push(x)`, `b.push()`, `b.pop()` on bytes in storage. */
function storageBytesMethod(sc: FnScope, B: CE, m: string, argNodes: Node[], node: Node): CE {
  sc.writesState(node);
  const lv = B.lv!;
  if (m === 'pop') {
    if (argNodes.length) fail(node, 'pop takes no arguments');
    return {
      t: VOID,
      ev: (f) =>
        void lv.update(f, (_, old: Uint8Array) => {
          if (old.length === 0) panic(PANIC_POP_EMPTY);
          return old.slice(0, old.length - 1);
        }),
    };
  }
  if (argNodes.length > 1) fail(node, 'push takes at most one argument');
  const v = argNodes.length ? coerce(sc, sc.expr(argNodes[0]), fbytesT(1), argNodes[0]).ev : () => 0n;
  return {
    t: argNodes.length ? VOID : fbytesT(1),
    ev: (f) => {
      const b = Number(v(f));
      lv.update(f, (_, old: Uint8Array) => {
        const c = new Uint8Array(old.length + 1);
        c.set(old);
        c[old.length] = b;
        return c;
      });
      return argNodes.length ? undefined : 0n;
    },
  };
}

function arrayMethod(sc: FnScope, B: CE, m: string, argNodes: Node[], node: Node): CE {
  const t = B.t as Extract<SType, { k: 'array' }>;
  if (t.len !== null) fail(node, `${m} is not available on fixed-size arrays`);
  const et = t.elem;
  const bev = B.ev;
  if (!B.st) {
    // memory arrays can grow in SolidVM (JavaScript arrays)
    if (m === 'pop') return { t: VOID, ev: (f) => ((bev(f) as unknown[]).length ? void (bev(f) as unknown[]).pop() : panic(PANIC_POP_EMPTY)) };
    const v = argNodes.length ? toMemoryValue(sc, coerce(sc, sc.expr(argNodes[0]), et, argNodes[0]), et).ev : () => defaultValue(et);
    return { t: UINT256, ev: (f) => BigInt((bev(f) as unknown[]).push(v(f))) };
  }
  sc.writesState(node);
  if (m === 'pop') {
    if (argNodes.length) fail(node, 'pop takes no arguments');
    return {
      t: VOID,
      ev: (f) => {
        const p = bev(f) as string;
        const len = readLength(f.x, f.self, p);
        if (len === 0n) panic(PANIC_POP_EMPTY);
        deleteDeep(f.x, f.self, `${p}[${len - 1n}]`, et);
        f.x.sstore(f.self, p + '.length', len === 1n ? undefined : String(len - 1n));
      },
    };
  }
  if (argNodes.length === 0) {
    // push(): appends a default element and denotes it
    const ref = storageRef(et, (f) => {
      const p = bev(f) as string;
      const len = readLength(f.x, f.self, p);
      f.x.sstore(f.self, p + '.length', String(len + 1n));
      return `${p}[${len}]`;
    });
    return ref;
  }
  const V = coerce(sc, sc.expr(argNodes[0]), et, argNodes[0]);
  const vst = V.st;
  const vev = V.ev;
  // SolidVM legacy: push(x) returns the new length
  return {
    t: UINT256,
    ev: (f) => {
      const p = bev(f) as string;
      let v = vev(f);
      if (vst) v = readDeep(f.x, f.self, v, et);
      const len = readLength(f.x, f.self, p);
      writeDeep(f.x, f.self, `${p}[${len}]`, et, v);
      f.x.sstore(f.self, p + '.length', String(len + 1n));
      return len + 1n;
    },
  };
}

function addressMethod(sc: FnScope, B: CE, m: string, argNodes: Node[], opts: CallOpts, node: Node): CE {
  sc.writesState(node, 'sends value');
  const a = B.ev;
  if (m === 'transfer' || m === 'send') {
    if (argNodes.length !== 1) fail(node, `${m} takes one argument`);
    const v = coerce(sc, sc.expr(argNodes[0]), UINT256, argNodes[0]).ev;
    if (m === 'transfer') return { t: VOID, ev: (f) => transferValue(f.x, f.self, a(f), v(f)) };
    return {
      t: BOOL,
      ev: (f) => {
        const amount = v(f) as bigint;
        const bal = f.x.state.getAccount(f.self)?.balance ?? 0n;
        if (bal < amount) return false;
        transferValue(f.x, f.self, a(f), amount);
        return true;
      },
    };
  }
  // call{value: v}(""): a plain value transfer; SolidVM has no calldata to dispatch on
  const v = opts.value ? coerce(sc, sc.expr(opts.value), UINT256, opts.value).ev : () => 0n;
  const data = argNodes.length ? coerce(sc, sc.expr(argNodes[0]), BYTES, argNodes[0]).ev : () => new Uint8Array(0);
  return {
    t: { k: 'tuple', items: [BOOL, BYTES] },
    ev: (f) => {
      if ((data(f) as Uint8Array).length) return [false, new Uint8Array(0)];
      const amount = v(f) as bigint;
      const bal = f.x.state.getAccount(f.self)?.balance ?? 0n;
      if (bal < amount) return [false, new Uint8Array(0)];
      transferValue(f.x, f.self, a(f), amount);
      return [true, new Uint8Array(0)];
    },
  };
}

function externalCall(sc: FnScope, B: CE, fns: CFn[], argNodes: Node[], names: string[], opts: CallOpts, node: Node): CE {
  const args = compileArgs(sc, argNodes);
  const [fn, ordered] = pickOverload(sc, fns, args, names, node);
  sc.calls(node, fn);
  if (opts.value) sc.writesState(node, 'sends value');
  const evs = argValues(sc, fn, ordered, node);
  const target = B.ev;
  const value = opts.value ? coerce(sc, sc.expr(opts.value), UINT256, opts.value).ev : null;
  const { name, sig } = fn;
  const r = returnType(fn);
  return {
    t: r.t,
    ev: (f) => callExternal(f, target(f), name, sig, evs.map((e) => e(f)), value ? value(f) : 0n),
    prep: (f) => {
      const to = target(f);
      const a = evs.map((e) => e(f));
      const v = value ? value(f) : 0n;
      return () => callExternal(f, to, name, sig, a, v);
    },
  };
}

export function newExpr(sc: FnScope, typeNode: AST.TypeName, argNodes: Node[], opts: CallOpts, node: Node): CE {
  if (typeNode.type === 'ArrayTypeName') {
    const t = lookupTypeNode(sc, typeNode);
    if (t.k !== 'array' || t.len !== null) return fail(node, 'new needs a dynamic array type');
    const n = coerce(sc, sc.expr(argNodes[0]), UINT256, argNodes[0]).ev;
    const et = t.elem;
    // the length is checked before anything is allocated: `new uint[](2**200)` fails on the limit, not in the engine
    return { t, ev: (f) => Array.from({ length: f.x.memAlloc(32n * (n(f) as bigint)) / 32 }, () => defaultValue(et)) };
  }
  if (typeNode.type === 'ElementaryTypeName' && (typeNode.name === 'bytes' || typeNode.name === 'string')) {
    const n = coerce(sc, sc.expr(argNodes[0]), UINT256, argNodes[0]).ev;
    if (typeNode.name === 'string') return { t: STRING, ev: (f) => '\0'.repeat(f.x.memAlloc(n(f) as bigint)) };
    return { t: BYTES, ev: (f) => new Uint8Array(f.x.memAlloc(n(f) as bigint)) };
  }
  sc.writesState(node, 'creates a contract');
  if (typeNode.type !== 'UserDefinedTypeName') return fail(typeNode, '`new` creates contracts, arrays, bytes and strings');
  const name = typeNode.namePath;
  const c = sc.unit.contracts.get(name);
  if (!c) return fail(typeNode, `unknown contract ${name}`);
  if (c.kind !== 'contract') return fail(typeNode, `cannot create an instance of ${c.kind} ${name}`);
  if (sc.cc.K && c.linear.includes(sc.cc.K)) return fail(typeNode, `contract ${name} cannot create itself or a contract deriving from it`);
  const ctor = c.ctor ? sc.contract(c).shell(c.ctor, c) : null;
  const params = ctor?.params ?? [];
  if (params.length !== argNodes.length) fail(node, `the constructor of ${name} takes ${params.length} arguments`);
  const evs = argNodes.map((a, i) => toMemoryValue(sc, coerce(sc, sc.expr(a), params[i].t, a), params[i].t).ev);
  const salt = opts.salt ? coerce(sc, sc.expr(opts.salt), BYTES32, opts.salt).ev : null;
  const value = opts.value ? coerce(sc, sc.expr(opts.value), UINT256, opts.value).ev : null;
  const cu = sc.cc.cu;
  return {
    t: { k: 'contract', name },
    ev: (f) => {
      const rt = cu.contracts.get(name)!;
      return createByContract(
        f,
        rt,
        evs.map((e) => e(f)),
        salt ? salt(f) : undefined,
        value ? value(f) : 0n,
      );
    },
    prep: (f) => {
      const a = evs.map((e) => e(f));
      const s = salt ? salt(f) : undefined;
      const v = value ? value(f) : 0n;
      return () => createByContract(f, cu.contracts.get(name)!, a, s, v);
    },
  };
}
