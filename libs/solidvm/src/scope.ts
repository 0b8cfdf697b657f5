// What the compilers of a function body share: the compile-time scope of
// locals, the contract being compiled, the compiled expression (CE) and
// function (CFn) records, and the table of compilers. Expressions contain
// calls and calls contain expressions, so the compilers reach each other
// through the scope (FnScope.expr, .contract, .iface) instead of importing
// each other: each module then imports only what lies below it.
import type { AST, Node } from './ast.js';
import type { Rat } from './rational.js';
import type { Exec, Frame } from './runtime.js';
import { isValueType, type SType } from './types.js';
import { fail, type ContractInfo, type Unit } from './unit.js';

export interface Param {
  name: string;
  t: SType;
  /** a storage reference (`Item storage it`), not a memory value */
  storage: boolean;
}

export interface CFn {
  name: string;
  /** the declaration (a public state variable's, for its getter) */
  node: AST.FunctionDefinition | AST.StateVariableDeclarationVariable | null;
  /** the contract that declares it (null: free function) */
  owner: ContractInfo | null;
  cc: ContractScope;
  params: Param[];
  returns: Param[];
  /** name(type,…), for overriding and overload resolution */
  sig: string;
  visibility: 'public' | 'external' | 'internal' | 'private';
  mutability: string | null;
  implemented: boolean;
  isGetter: boolean;
  nLocals: number;
  retSlots: number[];
  run: (f: Frame) => void;
  compiled: boolean;
}

export interface StateVar {
  name: string;
  t: SType;
  path: string;
  constant: boolean;
  immutable: boolean;
  isPublic: boolean;
  node: AST.StateVariableDeclarationVariable;
  owner: ContractInfo;
  /** constants: the value expression */
  ce?: CE;
}

export interface ContractRt {
  name: string;
  info: ContractInfo;
  cu: CompiledUnit;
  cc: ContractScope;
  /** in layout order: bases first */
  vars: StateVar[];
  varMap: Map<string, StateVar>;
  /** functions callable from outside (public/external and public state variable getters), by name */
  external: Map<string, CFn[]>;
  ctorParams: Param[];
  ctorPayable: boolean;
  construct: (x: Exec, self: string, sender: string, value: bigint, args: unknown[]) => void;
}

export interface CompiledUnit {
  codeHash: string;
  files: Record<string, string>;
  unit: Unit;
  /** runnable contracts (not interfaces or libraries; abstract ones cannot be created) */
  contracts: Map<string, ContractRt>;
  compilers: Map<string, ContractScope>;
  queue: CFn[];
  /** function signatures of any contract type, for external calls (no bodies compiled) */
  ifaces: Map<string, Map<string, CFn[]>>;
}


/** The contract-level context a function body is compiled in (compiler.ts's ContractCompiler). */
export interface ContractScope {
  readonly cu: CompiledUnit;
  /** the contract or library whose context this is; null for free functions */
  readonly K: ContractInfo | null;
  readonly unit: Unit;
  readonly vars: Map<string, StateVar>;
  readonly fnTable: Map<string, CFn[]>;
  readonly compilers: Compilers;
  /** The CFn of a function declaration in this context (created on first use, body compiled later). */
  shell(node: AST.FunctionDefinition, owner: ContractInfo | null): CFn;
  compileFn(fn: CFn): void;
}

/** The compilers that other compilers call back into, set once by compiler.ts. */
export interface Compilers {
  expr(sc: FnScope, node: Node): CE;
  /** the context of a contract or library (null: free functions), created on first use */
  contract(cu: CompiledUnit, c: ContractInfo | null): ContractScope;
  /** the external functions of a contract type, by name */
  iface(cu: CompiledUnit, name: string): Map<string, CFn[]>;
}

export interface LV {
  set(f: Frame, v: any): void;
  /** read-modify-write with the location computed once; returns the new value */
  update(f: Frame, op: (f: Frame, old: any) => any): any;
}

export interface CE {
  t: SType;
  ev: (f: Frame) => any;
  /** compile-time constant: bigint (integer literal), string (string literal), boolean, Uint8Array (hex literal) */
  cv?: unknown;
  /** ev returns a storage path (struct/array/mapping living in storage) */
  st?: boolean;
  /** a local storage pointer variable: assignment rebinds it */
  ptr?: Local;
  lv?: LV;
  /** components of a tuple or inline array */
  items?: Array<CE | null>;
  /**
   * external calls and `new`: evaluates the target and the arguments, and
   * returns the call itself, so `try` guards only the call (Solidity does not
   * catch a failure while evaluating the arguments)
   */
  prep?: (f: Frame) => () => unknown;
  /**
   * ev returns a fresh copy of a value kept in storage (bytes, string): a
   * change to part of it (`b[i] = x`, `b.push(x)`) goes through lv.update
   */
  stScalar?: boolean;
  /** an immutable state variable: assignable only while constructing */
  imm?: boolean;
  strLit?: boolean;
  hexLit?: boolean;
  /**
   * the exact value of a literal constant expression that is not an integer
   * (`1.5`, `15e-1`, `7 / 2`): Solidity's rational constant. Such an
   * expression is typed decimal, cv its truncated value, but folds exactly
   * with other literals, so `15e-1 * 2` is the integer literal 3.
   */
  rat?: Rat;
}

export interface Local {
  slot: number;
  t: SType;
  /** a storage pointer variable: its slot holds a path */
  ptr: boolean;
}

/** Compile-time state of one function body: scopes of locals and slot allocation. */
export class FnScope {
  scopes: Array<Map<string, Local>> = [new Map()];
  nLocals = 0;
  unchecked = false;
  placeholder: ((f: Frame) => void) | null = null;
  loopDepth = 0;

  constructor(
    readonly cc: ContractScope,
    /** the contract whose code this is (type lookups, super) */
    public owner: ContractInfo | null,
    readonly fn: CFn | null,
  ) {}

  get unit(): Unit {
    return this.cc.unit;
  }

  /** Compiles a subexpression in this scope. */
  expr(node: Node): CE {
    return this.cc.compilers.expr(this, node);
  }

  /** The compile context of a contract or library of this unit (null: the free functions). */
  contract(c: ContractInfo | null): ContractScope {
    return this.cc.compilers.contract(this.cc.cu, c);
  }

  /** The external functions of a contract type, by name. */
  iface(name: string): Map<string, CFn[]> {
    return this.cc.compilers.iface(this.cc.cu, name);
  }

  // Declared mutability, checked at upload (docs/conventions.md: an upload fails on
  // pure/view violations, as solc rejects them). `constant` is the legacy view.

  /** The code reads the state or the environment (msg, block, tx, balances). */
  readsState(node: Node): void {
    const fn = this.fn;
    if (fn && fn.mutability === 'pure') fail(node, `function ${fn.name} is declared pure but reads the state or the environment`);
  }

  /** The code changes the state (storage, events, creations, value, non-view calls). */
  writesState(node: Node, what = 'modifies the state'): void {
    const fn = this.fn;
    const m = fn?.mutability;
    if (m === 'pure' || m === 'view' || m === 'constant') fail(node, `function ${fn!.name} is declared ${m === 'constant' ? 'view' : m} but ${what}`);
  }

  /** An assignment to an immutable: only in a constructor or a state variable initialiser (docs/conventions.md). */
  assignsImmutable(node: Node): void {
    const fn = this.fn;
    const decl = fn?.node;
    if (fn && !(decl?.type === 'FunctionDefinition' && decl.isConstructor) && decl !== fn.owner?.ctor) fail(node, 'an immutable can only be assigned in the constructor');
  }

  /** A call to a function of a declared mutability. */
  calls(node: Node, callee: { name: string; mutability: string | null }): void {
    const m = callee.mutability;
    if (m === 'pure') return;
    if (m === 'view' || m === 'constant') this.readsState(node);
    else this.writesState(node, `calls ${callee.name}, which may modify the state`);
  }

  push(): void {
    this.scopes.push(new Map());
  }
  pop(): void {
    this.scopes.pop();
  }

  declare(name: string | null, t: SType, ptr: boolean, node: Node): number {
    const slot = this.nLocals++;
    if (name) {
      const top = this.scopes[this.scopes.length - 1];
      if (top.has(name)) fail(node, `duplicate declaration of ${name}`);
      top.set(name, { slot, t, ptr });
    }
    return slot;
  }

  declareParam(p: Param, node: Node, _isReturn = false): number {
    return this.declare(p.name || null, p.t, p.storage && !isValueType(p.t), node);
  }

  lookup(name: string): Local | undefined {
    for (let i = this.scopes.length - 1; i >= 0; i--) {
      const l = this.scopes[i].get(name);
      if (l) return l;
    }
    return undefined;
  }

  /** Modifier bodies see their own parameters, not the function's. */
  enterIsolated(owner: ContractInfo | null): { scopes: Array<Map<string, Local>>; owner: ContractInfo | null } {
    const saved = { scopes: this.scopes, owner: this.owner };
    this.scopes = [new Map()];
    this.owner = owner;
    return saved;
  }
  leaveIsolated(saved: { scopes: Array<Map<string, Local>>; owner: ContractInfo | null }): void {
    this.scopes = saved.scopes;
    this.owner = saved.owner;
  }
}
