// Compiles a unit into runnable contracts. Each deployable contract gets its
// own ContractCompiler: functions are compiled in the context of the most
// derived contract, so virtual calls, `super` and state variable accesses are
// resolved once, at compile time, into closures (expr.ts, stmt.ts).
import type { AST, Node } from './ast.js';
import { toMemoryValue } from './ce.js';
import { coerce } from './convert.js';
import { PANIC_INDEX, SolidVMCompileError, VmFailure, panic } from './errors.js';
import { compileExpr } from './expr.js';
import { Frame, readDeep, readLength, writeDeep, type Exec } from './runtime.js';
import { FnScope, type CE, type CFn, type CompiledUnit, type Compilers, type ContractRt, type ContractScope, type Param, type StateVar } from './scope.js';
import { compileBlock } from './stmt.js';
import { UINT256, containsFunction, isValueType, typeName, type SType } from './types.js';
import { fail, resolveType, type ContractInfo, type Unit } from './unit.js';
import { codecOf, keyText } from './values.js';

function noop(): void {}

function notImplemented(name: string): () => void {
  return () => {
    throw new VmFailure('REVERT', `function ${name} is not implemented`, 'error', { reason: `function ${name} is not implemented` });
  };
}

function visibilityOf(node: AST.FunctionDefinition): CFn['visibility'] {
  const v = node.visibility;
  // functions without visibility are public (legacy syntax)
  return v === 'external' || v === 'internal' || v === 'private' ? v : 'public';
}

export class ContractCompiler implements ContractScope {
  readonly compilers = COMPILERS;
  readonly vars = new Map<string, StateVar>();
  readonly varList: StateVar[] = [];
  readonly fnTable = new Map<string, CFn[]>();
  readonly fnByNode = new Map<Node, CFn>();

  constructor(
    readonly cu: CompiledUnit,
    /** the contract or library whose context this is; null for free functions */
    readonly K: ContractInfo | null,
  ) {}

  get unit(): Unit {
    return this.cu.unit;
  }

  init(): void {
    const K = this.K;
    if (!K) {
      for (const n of this.unit.freeFunctions) this.addFn(this.shell(n, null));
      return;
    }
    const chain = [...K.linear].reverse();
    for (const c of chain) {
      for (const v of c.stateVars) {
        // (the grammar gives every state variable a name and a type)
        const name = v.name!;
        const typeNode = v.typeName!;
        if (this.vars.has(name)) fail(v, `state variable ${name} shadows an inherited one`);
        const sv: StateVar = {
          name,
          t: resolveType(this.unit, c, typeNode),
          path: '.' + name,
          constant: !!v.isDeclaredConst,
          immutable: !!v.isImmutable,
          isPublic: v.visibility === 'public',
          node: v,
          owner: c,
        };
        // storage holds text by path: a function value has no stored form (docs/conventions.md)
        if (containsFunction(sv.t)) fail(typeNode, 'internal function types cannot be stored: state variables of function types are not supported');
        this.vars.set(name, sv);
        if (!sv.constant) this.varList.push(sv);
      }
    }
    // later (more derived) definitions override earlier ones with the same signature
    const bySig = new Map<string, CFn>();
    for (const c of chain) {
      for (const n of c.functions) {
        if (n.isFallback || n.isReceiveEther || !n.name) continue;
        const fn = this.shell(n, c);
        const prev = bySig.get(fn.sig);
        if (prev && prev.owner === c) fail(n, `duplicate declaration of ${fn.sig}`);
        if (prev && prev.implemented && !fn.implemented) continue;
        bySig.set(fn.sig, fn);
      }
    }
    for (const fn of bySig.values()) this.addFn(fn);
  }

  private addFn(fn: CFn): void {
    let l = this.fnTable.get(fn.name);
    if (!l) {
      l = [];
      this.fnTable.set(fn.name, l);
    }
    l.push(fn);
  }

  /** Compiles constants now that every function is known (constants may call pure functions). */
  compileConstants(): void {
    for (const sv of this.vars.values()) {
      if (!sv.constant) continue;
      const value = sv.node.expression;
      if (!value) fail(sv.node, `constant ${sv.name} has no value`);
      const sc = new FnScope(this, sv.owner, null);
      sv.ce = coerce(sc, compileExpr(sc, value), sv.t, value);
    }
  }

  /** The CFn of a function declaration in this context (created on first use, body compiled later). */
  shell(node: AST.FunctionDefinition, owner: ContractInfo | null): CFn {
    let fn = this.fnByNode.get(node);
    if (fn) return fn;
    const param = (p: AST.VariableDeclaration): Param => ({
      name: p.name ?? '',
      t: resolveType(this.unit, owner, p.typeName!),
      storage: p.storageLocation === 'storage',
    });
    const params = node.parameters.map(param);
    const returns = (node.returnParameters ?? []).map(param);
    // (only constructors, fallback and receive functions have no name, and init passes over the last two)
    const name: string = node.isConstructor || (owner && node.name === owner.name) ? 'constructor' : node.name!;
    const visibility = owner?.kind === 'interface' ? 'external' : visibilityOf(node);
    // solc: "Internal type is not allowed for public or external functions"
    if ((visibility === 'public' || visibility === 'external') && owner?.kind !== 'library' && [...params, ...returns].some((p) => containsFunction(p.t))) {
      fail(node, `internal function types are not allowed in the parameters or results of a ${visibility} function`);
    }
    fn = {
      name,
      node,
      owner,
      cc: this,
      params,
      returns,
      sig: `${name}(${params.map((p) => typeName(p.t)).join(',')})`,
      visibility,
      mutability: node.stateMutability ?? null,
      implemented: !!node.body,
      isGetter: false,
      nLocals: 0,
      retSlots: [],
      run: node.body ? noop : notImplemented(name),
      compiled: !node.body,
    };
    this.fnByNode.set(node, fn);
    if (node.body) this.cu.queue.push(fn);
    return fn;
  }

  compileFn(fn: CFn): void {
    if (fn.compiled) return;
    fn.compiled = true;
    const node = fn.node;
    // only functions declared with a body are queued (shell); getters are compiled when made
    if (node?.type !== 'FunctionDefinition' || !node.body) throw new Error(`${fn.sig} has no body to compile`);
    const sc = new FnScope(this, fn.owner, fn);
    for (const p of fn.params) sc.declareParam(p, node);
    fn.retSlots = fn.returns.map((r) => sc.declareParam(r, node, true));
    const body = compileBlock(sc, node.body);
    let inner: (f: Frame) => void = (f) => {
      body(f);
    };
    const mods = node.modifiers.filter((m) => !this.unit.contracts.has(m.name));
    for (let i = mods.length - 1; i >= 0; i--) inner = this.compileModifier(sc, mods[i], inner);
    fn.run = inner;
    fn.nLocals = sc.nLocals;
  }

  private compileModifier(sc: FnScope, inv: AST.ModifierInvocation, next: (f: Frame) => void): (f: Frame) => void {
    let def: AST.ModifierDefinition | undefined;
    let owner: ContractInfo | null = null;
    for (const c of this.K?.linear ?? []) {
      def = c.modifiers.get(inv.name);
      if (def) {
        owner = c;
        break;
      }
    }
    if (!def) fail(inv, `unknown modifier ${inv.name}`);
    const params: AST.VariableDeclaration[] = def.parameters ?? [];
    const args = inv.arguments ?? [];
    if (args.length !== params.length) fail(inv, `modifier ${inv.name} takes ${params.length} arguments`);
    const argCEs = args.map((a) => compileExpr(sc, a));
    const saved = sc.enterIsolated(owner);
    const slots = params.map((p, i) => {
      const t = resolveType(this.unit, owner, p.typeName!);
      const slot = sc.declare(p.name, t, false, p);
      argCEs[i] = toMemoryValue(sc, coerce(sc, argCEs[i], t, args[i]), t);
      return slot;
    });
    const prevPh = sc.placeholder;
    sc.placeholder = next;
    if (!def.body) fail(def, `modifier ${inv.name} has no body`);
    const body = compileBlock(sc, def.body);
    sc.placeholder = prevPh;
    sc.leaveIsolated(saved);
    const n = slots.length;
    return (f) => {
      for (let i = 0; i < n; i++) f.l[slots[i]] = argCEs[i].ev(f);
      body(f);
    };
  }

  /** Public getter of a constant: its value, computed as the contract's code computes it. */
  constantGetter(sv: StateVar): CFn {
    return {
      name: sv.name,
      node: sv.node,
      owner: sv.owner,
      cc: this,
      params: [],
      returns: [{ name: '', t: sv.t, storage: false }],
      sig: `${sv.name}()`,
      visibility: 'external',
      mutability: 'view',
      implemented: true,
      isGetter: true,
      nLocals: 1,
      retSlots: [0],
      compiled: true,
      run: (f) => {
        // sv.ce is set by compileConstants, before any code runs
        f.l[0] = sv.ce!.ev(f);
      },
    };
  }

  /** Public getter of a state variable: mapping keys and array indices become parameters. */
  getter(sv: StateVar): CFn {
    const params: Param[] = [];
    let t = sv.t;
    const steps: Array<{ kind: 'key' | 'index'; t: SType }> = [];
    while (t.k === 'mapping' || t.k === 'array') {
      if (t.k === 'mapping') {
        params.push({ name: `key${params.length}`, t: t.key, storage: false });
        steps.push({ kind: 'key', t: t.key });
        t = t.value;
      } else {
        params.push({ name: `index${params.length}`, t: UINT256, storage: false });
        steps.push({ kind: 'index', t: UINT256 });
        t = t.elem;
      }
    }
    const valueT = t;
    const base = sv.path;
    const arrays = steps.map((s, i) => (s.kind === 'index' ? lenOf(sv.t, i) : undefined));
    // As in Solidity, a struct is returned member by member, leaving out the
    // members a getter cannot return whole (mappings and arrays; bytes and
    // string stay).
    const members = valueT.k === 'struct' ? valueT.fields.filter((fd) => fd.t.k !== 'mapping' && fd.t.k !== 'array') : null;
    const returns: Param[] = members ? members.map((fd) => ({ name: fd.name, t: fd.t, storage: false })) : [{ name: '', t: valueT, storage: false }];
    const n = params.length;
    const fn: CFn = {
      name: sv.name,
      node: sv.node,
      owner: sv.owner,
      cc: this,
      params,
      returns,
      sig: `${sv.name}(${params.map((p) => typeName(p.t)).join(',')})`,
      visibility: 'external',
      mutability: 'view',
      implemented: true,
      isGetter: true,
      nLocals: n + returns.length,
      retSlots: returns.map((_, i) => n + i),
      compiled: true,
      run: (f) => {
        let p = base;
        for (let i = 0; i < steps.length; i++) {
          const s = steps[i];
          if (s.kind === 'key') p += `<${keyText(s.t, f.l[i])}>`;
          else {
            const idx = f.l[i] as bigint;
            const fixed = arrays[i];
            const len = fixed ?? readLength(f.x, f.self, p);
            if (idx >= BigInt(len)) panic(PANIC_INDEX);
            p += `[${idx}]`;
          }
        }
        if (members) {
          for (let i = 0; i < members.length; i++) {
            const mt = members[i].t;
            const mp = `${p}.${members[i].name}`;
            f.l[n + i] = isValueType(mt) ? codecOf(mt).dec(f.x.sload(f.self, mp)) : readDeep(f.x, f.self, mp, mt);
          }
        } else f.l[n] = isValueType(valueT) ? codecOf(valueT).dec(f.x.sload(f.self, p)) : readDeep(f.x, f.self, p, valueT);
      },
    };
    return fn;
  }
}

function lenOf(t: SType, depth: number): number | undefined {
  let cur = t;
  for (let i = 0; i < depth; i++) cur = cur.k === 'mapping' ? cur.value : cur.k === 'array' ? cur.elem : cur;
  return cur.k === 'array' && cur.len !== null ? cur.len : undefined;
}


// --- units -------------------------------------------------------------------

export function compilerFor(cu: CompiledUnit, c: ContractInfo | null): ContractCompiler {
  const key = c ? c.name : '';
  // only this function fills cu.compilers, and with ContractCompilers
  let cc = cu.compilers.get(key) as ContractCompiler | undefined;
  if (!cc) {
    cc = new ContractCompiler(cu, c);
    cu.compilers.set(key, cc);
    cc.init();
    cc.compileConstants();
  }
  return cc;
}

function drain(cu: CompiledUnit): void {
  while (cu.queue.length) {
    const fn = cu.queue.shift()!;
    fn.cc.compileFn(fn);
  }
}

/** Function signatures of a contract type (any kind), for checking external calls. */
export function interfaceOf(cu: CompiledUnit, name: string): Map<string, CFn[]> {
  let m = cu.ifaces.get(name);
  if (m) return m;
  const c = cu.unit.contracts.get(name);
  if (!c) throw new SolidVMCompileError(`unknown contract ${name}`);
  const cc = compilerFor(cu, c);
  m = new Map();
  for (const [n, fns] of cc.fnTable) {
    const ext = fns.filter((f) => f.visibility === 'public' || f.visibility === 'external');
    if (ext.length) m.set(n, ext);
  }
  for (const sv of cc.vars.values()) if (sv.isPublic) m.set(sv.name, [sv.constant ? cc.constantGetter(sv) : cc.getter(sv)]);
  cu.ifaces.set(name, m);
  return m;
}

export function buildContract(cu: CompiledUnit, K: ContractInfo): ContractRt {
  const cc = compilerFor(cu, K);
  const external = interfaceOf(cu, K.name);
  // constructor chain: derived first
  const linear = K.linear;
  interface Stage {
    c: ContractInfo;
    ctor: CFn | null;
    /** base constructor arguments given by this contract: [base, args, evaluated in the constructor frame?] */
    baseArgs: Array<{ base: ContractInfo; args: CE[]; inCtor: boolean }>;
    inits: Array<{ sv: StateVar; ce: CE }>;
    initScope: FnScope;
  }
  const stages: Stage[] = linear.map((c) => {
    const ctor = c.ctor ? cc.shell(c.ctor, c) : null;
    const initScope = new FnScope(cc, c, null);
    const stage: Stage = { c, ctor, baseArgs: [], inits: [], initScope };
    for (const b of c.node.baseContracts) {
      if (!b.arguments?.length) continue;
      const base = cu.unit.contracts.get(b.baseName.namePath)!;
      stage.baseArgs.push({ base, args: b.arguments.map((a) => compileExpr(initScope, a)), inCtor: false });
    }
    for (const v of c.stateVars) {
      if (!v.expression || v.isDeclaredConst) continue;
      const sv = cc.vars.get(v.name!)!;
      stage.inits.push({ sv, ce: toMemoryValue(initScope, coerce(initScope, compileExpr(initScope, v.expression), sv.t, v.expression), sv.t) });
    }
    return stage;
  });
  drain(cu);
  // base arguments given on a constructor (`constructor(uint a) Base(a)`): compiled in its scope
  for (const st of stages) {
    if (!st.ctor || !st.c.ctor) continue;
    const ctorScope = new FnScope(cc, st.c, st.ctor);
    for (const p of st.ctor.params) ctorScope.declareParam(p, st.c.ctor);
    for (const m of st.c.ctor.modifiers ?? []) {
      const base = cu.unit.contracts.get(m.name);
      if (!base) continue;
      st.baseArgs.push({ base, args: (m.arguments ?? []).map((a) => compileExpr(ctorScope, a)), inCtor: true });
    }
  }
  // coerce base arguments to the base constructor's parameter types
  for (const st of stages) {
    for (const ba of st.baseArgs) {
      const bctor = ba.base.ctor ? cc.shell(ba.base.ctor, ba.base) : null;
      const ps = bctor?.params ?? [];
      if (ps.length !== ba.args.length) fail(ba.base.node, `wrong number of arguments for the constructor of ${ba.base.name}`);
      ba.args = ba.args.map((a, i) => coerce(st.initScope, a, ps[i].t, ba.base.node));
    }
  }
  drain(cu);
  const given = new Set<string>([K.name]);
  for (const st of stages) for (const ba of st.baseArgs) given.add(ba.base.name);
  if (K.kind === 'contract') {
    for (const st of stages) {
      if (st.ctor && st.ctor.params.length && !given.has(st.c.name)) fail(K.node, `missing arguments for the constructor of ${st.c.name}`);
    }
  }
  const rt: ContractRt = {
    name: K.name,
    info: K,
    cu,
    cc,
    vars: cc.varList,
    varMap: cc.vars,
    external,
    ctorParams: stages[0].ctor?.params ?? [],
    ctorPayable: stages[0].ctor?.mutability === 'payable',
    construct: () => {},
  };
  const initLocals = stages.map((s) => s.initScope.nLocals);
  rt.construct = (x, self, sender, value, args) => {
    const argsFor = new Map<ContractInfo, unknown[]>([[K, args]]);
    const frames: Frame[] = [];
    for (let i = 0; i < stages.length; i++) {
      const st = stages[i];
      const a = argsFor.get(st.c) ?? [];
      const l = new Array(Math.max(st.ctor?.nLocals ?? 0, initLocals[i]));
      a.forEach((v, j) => (l[j] = v));
      if (st.ctor) {
        st.ctor.retSlots.forEach((s) => (l[s] = undefined));
      }
      const f = new Frame(x, self, sender, value, l, rt);
      frames.push(f);
      const initFrame = new Frame(x, self, sender, value, new Array(initLocals[i]), rt);
      for (const ba of st.baseArgs) {
        if (argsFor.has(ba.base)) continue;
        argsFor.set(
          ba.base,
          ba.args.map((e) => e.ev(ba.inCtor ? f : initFrame)),
        );
      }
    }
    for (let i = stages.length - 1; i >= 0; i--) {
      const st = stages[i];
      if (st.inits.length) {
        const f = new Frame(x, self, sender, value, new Array(initLocals[i]), rt);
        for (const { sv, ce } of st.inits) writeVar(x, self, sv, ce.ev(f));
      }
      if (st.ctor) st.ctor.run(frames[i]);
    }
  };
  return rt;
}

function writeVar(x: Exec, self: string, sv: StateVar, v: unknown): void {
  if (isValueType(sv.t)) x.sstore(self, sv.path, codecOf(sv.t).enc(v));
  else writeDeep(x, self, sv.path, sv.t, v);
}

export function compileUnit(files: Record<string, string>, unit: Unit, codeHash: string): CompiledUnit {
  const cu: CompiledUnit = { codeHash, files, unit, contracts: new Map(), compilers: new Map(), queue: [], ifaces: new Map() };
  for (const c of unit.contracts.values()) {
    if (c.kind === 'interface') {
      interfaceOf(cu, c.name);
      continue;
    }
    if (c.kind === 'library') {
      const cc = compilerFor(cu, c);
      for (const fns of cc.fnTable.values()) for (const fn of fns) if (!fn.compiled) cu.queue.push(fn);
      continue;
    }
    const rt = buildContract(cu, c);
    if (c.kind === 'contract') cu.contracts.set(c.name, rt);
  }
  // free functions are type-checked even when unused
  const free = compilerFor(cu, null);
  for (const fns of free.fnTable.values()) for (const fn of fns) if (!fn.compiled) cu.queue.push(fn);
  drain(cu);
  return cu;
}

const COMPILERS: Compilers = { expr: compileExpr, contract: compilerFor, iface: interfaceOf };

export { Frame };
