// The public entry points: createSolidVm(options), a SolidVM owning its cache
// of compiled units, with compile, create, call, read state, and the
// transaction-level create/call of @platform/vm's VmExecutor. Nothing here
// throws for a failing transaction: every failure is an ExecOutcome with
// ok=false, a stable code and a message, and the world state as it was.
import type { ContractStateChange, CreatedContract, ExecutionContext, Transaction, WorldState } from '@platform/common';
import { failedOutcome, type VmExecutor, type VmOutcome } from '@platform/vm';
import { ArgumentError, GrammarError, bindCall, decodeArgs, normalise } from './args.js';
import { compileUnit } from './compiler.js';
import { SolidVMCompileError, VmFailure, type FailureCode } from './errors.js';
import { gasTable } from './gas.js';
import { bytesToHex, contractAddress, fromUtf8, hexToBytes, keccak256, saltedContractAddress, utf8 } from './hash.js';
import { HaltSignal, codeText, deploy, filesOfCode, runMessageCall, transferValue } from './interop.js';
import { Exec, readDeep, utf8Length, type SolidVMHooks } from './runtime.js';
import type { CFn, CompiledUnit, ContractRt } from './scope.js';
import { isValueType, type SType } from './types.js';
import { buildUnit } from './unit.js';
import { codecOf, defaultValue, keyTextToJsonKey, renderValue, toJson } from './values.js';
import { xabiOf } from './xabi.js';

/** @platform/vm's outcome (`response`: JSON text of the returned values, integers as decimal strings), with the interpreter's steps. */
export interface ExecOutcome extends VmOutcome {
  steps: number;
}

/** Per call: the hooks of the run (identity built-ins, ecrecover, the parent chain), instead of the VM's. */
export interface SolidVMOptions {
  hooks?: SolidVMHooks;
}

export interface SolidVmOptions {
  /**
   * The hooks of every run: one set, or a function of the state and context
   * of the run (the node's identity built-ins read the registry in the state
   * being executed). Default: none (README "Hooks").
   */
  hooks?: SolidVMHooks | ((state: WorldState, ctx: ExecutionContext) => SolidVMHooks);
  /** compiled units kept, by code hash, least recently compiled evicted first (default 512) */
  compileCacheSize?: number;
}

export interface CreateRequest {
  creator: string;
  src: string | Record<string, string>;
  contractName: string;
  /** JSON object keyed by parameter name, positional array, JSON text, or the raw form `(1,2)` */
  args?: unknown;
  /** the creator's nonce for the address (default: the account's current nonce) */
  nonce?: bigint;
  /** salted creation: address from [0xff, creator, salt, name, code hash] */
  salt?: Uint8Array;
}

export interface CallRequest {
  caller: string;
  address: string;
  method: string;
  args?: unknown;
}

// --- compilation cache ----------------------------------------------------------

/** Compiled units by code hash, the oldest evicted first: each SolidVM's own. */
class UnitCache {
  private readonly units = new Map<string, CompiledUnit>();
  constructor(private readonly limit: number) {}
  get(codeHash: string): CompiledUnit | undefined {
    return this.units.get(codeHash);
  }
  remember(cu: CompiledUnit): void {
    if (this.units.size >= this.limit) this.units.delete(this.units.keys().next().value!);
    this.units.set(cu.codeHash, cu);
  }
  clear(): void {
    this.units.clear();
  }
  get size(): number {
    return this.units.size;
  }
}

function normaliseFiles(src: string | Record<string, string>): Record<string, string> {
  return typeof src === 'string' ? { '': src } : src;
}

function compileIn(cache: UnitCache, src: string | Record<string, string>): CompiledUnit {
  const files = normaliseFiles(src);
  const codeHash = bytesToHex(keccak256(utf8(codeText(files))));
  return compileWithHash(cache, files, codeHash);
}

function compileWithHash(cache: UnitCache, files: Record<string, string>, codeHash: string): CompiledUnit {
  const hit = cache.get(codeHash);
  if (hit) return hit;
  let cu: CompiledUnit;
  try {
    cu = compileUnit(files, buildUnit(files), codeHash);
  } catch (e) {
    if (e instanceof SolidVMCompileError) throw e;
    throw new SolidVMCompileError(e instanceof Error ? e.message : String(e));
  }
  cache.remember(cu);
  return cu;
}

/** Parses and checks source code, nothing cached (a SolidVM's `compile` caches). Throws SolidVMCompileError (code SOLIDVM_COMPILE_ERROR). */
export function compile(src: string | Record<string, string>): CompiledUnit {
  return compileIn(new UnitCache(1), src);
}

/** The code hash SolidVM gives a source (Keccak-256 of the stored code). */
export function codeHashOf(src: string | Record<string, string>): string {
  return bytesToHex(keccak256(utf8(codeText(normaliseFiles(src)))));
}

function contractIn(cache: UnitCache, state: WorldState, address: string): ContractRt | undefined {
  const acct = state.getAccount(address);
  if (!acct?.codeHash || acct.vm !== 'SolidVM' || !acct.contractName) return undefined;
  let cu = cache.get(acct.codeHash);
  if (!cu) {
    const code = state.getCode(acct.codeHash);
    if (!code) return undefined;
    cu = compileWithHash(cache, filesOfCode(fromUtf8(code)), acct.codeHash);
  }
  return cu.contracts.get(acct.contractName);
}

// --- execution ------------------------------------------------------------------

function newExec(cache: UnitCache, state: WorldState, ctx: ExecutionContext, hooks: SolidVMHooks): Exec {
  const g = gasTable(ctx.protocol.gasTableVersion);
  // a creating transaction pays g.create once, in deploy(), like every `new`
  return new Exec(state, ctx, g, hooks, (x, a) => contractIn(cache, x.state, a), g.tx);
}

function failure(code: FailureCode, message: string, x: Exec | null, address?: string): ExecOutcome {
  const out: ExecOutcome = {
    ok: false,
    code,
    message,
    returnValues: [],
    response: '',
    events: [],
    stateChanges: [],
    contractsCreated: [],
    contractsDeleted: [],
    gasUsed: x ? BigInt(x.ctx.gasEnabled ? Math.min(x.gasUsed(), Number(x.ctx.tx.gasLimit)) : x.gasUsed()) : 0n,
    steps: x?.steps ?? 0,
  };
  if (address !== undefined) out.address = address;
  return out;
}

function failureOf(e: unknown, x: Exec, address?: string): ExecOutcome {
  if (e instanceof VmFailure) return failure(e.code, e.message, x, address);
  if (e instanceof RangeError && /call stack/i.test(e.message)) return failure('CALL_DEPTH', 'call stack exhausted', x, address);
  if (e instanceof HaltSignal) return failure('REVERT', e.message, x, address);
  if (e && typeof e === 'object' && 'vmConversion' in e) return failure('REVERT', String((e as any).vmConversion), x, address);
  throw e;
}

/** Values of every non-mapping state variable (the indexer's row); mappings are read with readContractState. */
function snapshot(x: Exec, rt: ContractRt, address: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const sv of rt.vars) {
    if (sv.t.k === 'mapping') continue;
    const v = isValueType(sv.t) ? codecOf(sv.t).dec(x.state.getStorage(address, sv.path)) : readDeep(x, address, sv.path, sv.t);
    out[sv.name] = toJson(sv.t, v);
  }
  return out;
}

function finish(cache: UnitCache, x: Exec, state: WorldState, ok: { returnTypes: SType[]; result: unknown; address?: string }): ExecOutcome {
  const ctx = x.ctx;
  // contracts that selfdestructed disappear with their storage
  for (const a of x.deleted) {
    const keys = [...state.storageEntries(a)].map(([k]) => k);
    for (const k of keys) state.putStorage(a, k, undefined);
    state.deleteAccount(a);
  }
  const createdSet = new Set(x.created.map((c) => c.address));
  const touched = new Set<string>([...x.created.map((c) => c.address), ...x.origs.keys()]);
  const stateChanges: ContractStateChange[] = [];
  const gasBefore = x.gas;
  for (const addr of touched) {
    const deleted = x.deleted.includes(addr);
    const diff: Record<string, unknown> = {};
    const origs = x.origs.get(addr);
    if (origs) {
      for (const [p, before] of origs) {
        const now = state.getStorage(addr, p);
        if (now !== before) diff[p] = now ?? null;
      }
    }
    const created = createdSet.has(addr);
    if (!created && !deleted && Object.keys(diff).length === 0) continue;
    const rec = x.created.find((c) => c.address === addr);
    const acct = state.getAccount(addr);
    const rt = deleted ? undefined : x.loader(x, addr) as ContractRt | undefined;
    stateChanges.push({
      address: addr,
      chainId: ctx.chainId,
      contractName: rec?.name ?? acct?.contractName ?? '',
      codeHash: rec?.codeHash ?? acct?.codeHash ?? '',
      vm: 'SolidVM',
      created,
      deleted,
      state: rt ? snapshot(x, rt, addr) : {},
      diff,
    });
  }
  x.gas = gasBefore;
  const contractsCreated: CreatedContract[] = x.created
    .filter((c) => !x.deleted.includes(c.address))
    .map((c) => {
      const cu = cache.get(c.codeHash)!;
      return {
        address: c.address,
        chainId: ctx.chainId,
        name: c.name,
        codeHash: c.codeHash,
        vm: 'SolidVM',
        creatorOrg: ctx.identity?.organization ?? null,
        appName: c.byContract ? x.appName : null,
        xabi: xabiOf(cu, c.name),
      };
    });
  const types = ok.returnTypes;
  const values: unknown[] = types.length === 1 ? [ok.result] : types.length === 0 ? [] : (ok.result as unknown[]);
  const returnValues = types.map((t, i) => renderValue(t, values[i] ?? defaultOf(t)));
  const response = JSON.stringify(types.map((t, i) => toJson(t, values[i] ?? defaultOf(t))));
  // a UTF-16 unit is at most 3 bytes of UTF-8: most responses need no count
  if (response.length * 3 > x.limits.maxReturnBytes && utf8Length(response) > x.limits.maxReturnBytes) x.exceeded('maxReturnBytes');
  x.checkFinalLimits();
  const out: ExecOutcome = {
    ok: true,
    message: 'Success!',
    returnValues,
    response,
    events: x.events,
    stateChanges,
    contractsCreated,
    contractsDeleted: [...x.deleted],
    gasUsed: BigInt(x.gasUsed()),
    steps: x.steps,
  };
  if (ok.address !== undefined) out.address = ok.address;
  return out;
}

function defaultOf(t: SType): unknown {
  return defaultValue(t);
}

/** Creates a contract from source: the CONTRACT transaction, and genesis contracts. */
function createIn(cache: UnitCache, hooks: SolidVMHooks, state: WorldState, ctx: ExecutionContext, req: CreateRequest): ExecOutcome {
  const x = newExec(cache, state, ctx, hooks);
  let cu: CompiledUnit;
  try {
    cu = compileIn(cache, req.src);
  } catch (e) {
    if (e instanceof SolidVMCompileError) return failure('COMPILE_ERROR', e.message, x);
    throw e;
  }
  const creator = req.creator.toLowerCase().replace(/^0x/, '');
  const rt = cu.contracts.get(req.contractName);
  if (!rt) {
    const c = cu.unit.contracts.get(req.contractName);
    const why = c ? `${req.contractName} is ${c.kind === 'abstract' ? 'an abstract contract' : `a${c.kind === 'interface' ? 'n' : ''} ${c.kind}`} and cannot be created` : `no contract named ${req.contractName} in the source`;
    return failure('NO_CONTRACT', why, x);
  }
  const nonce = req.nonce ?? state.getAccount(creator)?.nonce ?? 0n;
  const address = req.salt ? saltedContractAddress(creator, req.salt, rt.name, cu.codeHash) : contractAddress(creator, nonce);
  x.appName = rt.name;
  let args: unknown[];
  try {
    args = decodeArgs(rt.ctorParams, normalise(req.args), `the constructor of ${rt.name}`);
  } catch (e) {
    if (e instanceof ArgumentError) return failure('BAD_ARGUMENTS', e.message, x, address);
    throw e;
  }
  const value = ctx.gasEnabled ? ctx.tx.value : 0n;
  state.checkpoint();
  try {
    if (value > 0n && !rt.ctorPayable) throw new VmFailure('REVERT', `the constructor of ${rt.name} is not payable`, 'error');
    deploy(x, address, rt, creator, args, value, false);
    x.checkGas();
    const out = finish(cache, x, state, { returnTypes: [], result: undefined, address });
    state.commit();
    return out;
  } catch (e) {
    state.revert();
    return failureOf(e, x, address);
  }
}

/** The public function called, chosen among overloads by the arguments, and its decoded arguments. */
function bind(rt: ContractRt, method: string, given: unknown): { fn: CFn; values: unknown[] } {
  const cands = rt.external.get(method);
  if (!cands?.length) throw new VmFailure('UNKNOWN_METHOD', `contract ${rt.name} has no public function ${method}`, 'other', {}, false);
  return bindCall(method, cands, given, `${rt.name}.${method}`);
}

/** Calls a public function: the FUNCTION transaction. */
function callIn(cache: UnitCache, hooks: SolidVMHooks, state: WorldState, ctx: ExecutionContext, req: CallRequest): ExecOutcome {
  const x = newExec(cache, state, ctx, hooks);
  const address = req.address.toLowerCase().replace(/^0x/, '');
  const caller = req.caller.toLowerCase().replace(/^0x/, '');
  let rt: ContractRt | undefined;
  try {
    rt = contractIn(cache, state, address);
  } catch (e) {
    if (e instanceof SolidVMCompileError) return failure('COMPILE_ERROR', `the code at ${address} does not compile: ${e.message}`, x);
    throw e;
  }
  if (!rt) return failure('NO_CONTRACT', `no SolidVM contract at address ${address}`, x);
  x.appName = rt.name;
  let fn: CFn;
  let args: unknown[];
  try {
    ({ fn, values: args } = bind(rt, req.method, req.args));
  } catch (e) {
    if (e instanceof VmFailure) return failure(e.code, e.message, x);
    if (e instanceof GrammarError) return failure('BAD_ARGUMENTS', e.message, x);
    throw e;
  }
  const value = ctx.gasEnabled ? ctx.tx.value : 0n;
  state.checkpoint();
  try {
    if (value > 0n) {
      if (fn.mutability !== 'payable') throw new VmFailure('REVERT', `function ${req.method} is not payable`, 'error');
      transferValue(x, caller, address, value);
    }
    const result = runMessageCall(x, rt, fn, address, caller, value, args);
    x.checkGas();
    const out = finish(cache, x, state, { returnTypes: fn.returns.map((r) => r.t), result });
    state.commit();
    return out;
  } catch (e) {
    state.revert();
    return failureOf(e, x);
  }
}

// --- reading state ----------------------------------------------------------------

/** Splits `<k1><k2>[3].name` into its first segment and the rest. */
function firstKey(rest: string): [string, string] | undefined {
  if (rest[0] !== '<') return undefined;
  let i = 1;
  if (rest[1] === '"') {
    i = 2;
    while (i < rest.length && rest[i] !== '"') i += rest[i] === '\\' ? 2 : 1;
    i++;
  } else {
    while (i < rest.length && rest[i] !== '>') i++;
  }
  return [rest.slice(1, i), rest.slice(i + 1)];
}

function readMapping(x: Exec, address: string, path: string, t: Extract<SType, { k: 'mapping' }>, entries: Array<[string, string]>): Record<string, unknown> {
  const keys = new Set<string>();
  for (const [k] of entries) {
    if (!k.startsWith(path + '<')) continue;
    const fk = firstKey(k.slice(path.length));
    if (fk) keys.add(fk[0]);
  }
  const out: Record<string, unknown> = {};
  for (const k of [...keys].sort()) {
    const p = `${path}<${k}>`;
    const jk = keyTextToJsonKey(t.key, k);
    if (t.value.k === 'mapping') out[jk] = readMapping(x, address, p, t.value, entries);
    else out[jk] = toJson(t.value, readValue(x, address, p, t.value, entries));
  }
  return out;
}

function readValue(x: Exec, address: string, path: string, t: SType, entries: Array<[string, string]>): unknown {
  if (t.k === 'struct') {
    return t.fields.map((f) => (f.t.k === 'mapping' ? new Map() : readValue(x, address, `${path}.${f.name}`, f.t, entries)));
  }
  if (t.k === 'array') {
    const n = t.len ?? Number(x.state.getStorage(address, path + '.length') ?? '0');
    return Array.from({ length: n }, (_, i) => readValue(x, address, `${path}[${i}]`, t.elem, entries));
  }
  return readDeep(x, address, path, t);
}

/**
 * Every state variable of a contract, by name, as JSON: integers as decimal
 * strings, mappings as objects (string keys single-quoted, the spec's form),
 * arrays and structs in full. Constants are included.
 */
function readStateIn(cache: UnitCache, state: WorldState, address: string): Record<string, unknown> {
  const a = address.toLowerCase().replace(/^0x/, '');
  const rt = contractIn(cache, state, a);
  if (!rt) throw new VmFailure('NO_CONTRACT', `no SolidVM contract at address ${a}`);
  const ctx = { chainId: state.chainId, block: { number: 0, timestamp: 0, coinbase: '' }, tx: { hash: '', origin: '', gasPrice: 0n, gasLimit: 0n, value: 0n }, identity: null, protocol: { stepLimit: 0, gasTableVersion: 1 }, gasEnabled: false } as ExecutionContext;
  const x = newExec(cache, state, ctx, {});
  const out: Record<string, unknown> = {};
  for (const sv of rt.cc.vars.values()) {
    if (sv.constant) {
      out[sv.name] = sv.ce && sv.ce.cv !== undefined ? toJson(sv.t, sv.ce.cv) : undefined;
      if (out[sv.name] === undefined) delete out[sv.name];
      continue;
    }
    if (sv.t.k === 'mapping' || (sv.t.k !== 'struct' && sv.t.k !== 'array' && !isValueType(sv.t))) {
      const entries = [...state.storageEntries(a, sv.path + '<')];
      out[sv.name] = readMapping(x, a, sv.path, sv.t as Extract<SType, { k: 'mapping' }>, entries);
      continue;
    }
    const entries = containsMappingDeep(sv.t) ? [...state.storageEntries(a, sv.path)] : [];
    out[sv.name] = toJson(sv.t, readValue(x, a, sv.path, sv.t, entries));
  }
  return out;
}

function containsMappingDeep(t: SType): boolean {
  return t.k === 'mapping' || (t.k === 'array' && containsMappingDeep(t.elem));
}


// --- a transaction's request ------------------------------------------------------

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** The source of a creation: plain text, or `{fileName: source}` sent as its JSON. Throws on text that is not UTF-8. */
function sourceOf(initOrData: string): string | Record<string, string> {
  const text = strictUtf8.decode(hexToBytes(initOrData));
  if (text.trimStart().startsWith('{')) {
    try {
      const files = JSON.parse(text) as unknown;
      if (files && typeof files === 'object' && !Array.isArray(files) && Object.values(files).every((v) => typeof v === 'string')) {
        return files as Record<string, string>;
      }
    } catch {
      // not JSON: Solidity source never starts with '{', so the compiler will say what is wrong
    }
  }
  return text;
}

/**
 * What a CONTRACT transaction asks SolidVM: initOrData is the source as UTF-8
 * (several files: the JSON object of them), metadata.name the contract,
 * metadata.args the constructor's arguments. A string: why it cannot.
 */
export function creationOf(tx: Transaction): CreateRequest | string {
  const contractName = tx.metadata.name;
  if (!contractName) return 'a SolidVM contract creation needs the contract name (metadata.name)';
  let src: string | Record<string, string>;
  try {
    src = sourceOf(tx.initOrData);
  } catch {
    return 'the contract source (initOrData) is not valid UTF-8';
  }
  return { creator: tx.from, src, contractName, args: tx.metadata.args, nonce: BigInt(tx.nonce) };
}

/** What a FUNCTION transaction asks SolidVM: metadata.funcName with metadata.args (JSON text or "(1,2)"). A string: why it cannot. */
export function callOf(tx: Transaction): CallRequest | string {
  const method = tx.metadata.funcName;
  if (!method) return 'a SolidVM function call needs the function name (metadata.funcName)';
  return { caller: tx.from, address: tx.to!, method, args: tx.metadata.args };
}

// --- the VM -------------------------------------------------------------------------

/** A SolidVM: @platform/vm's executor, and the request-level API around the compiled units it keeps. */
export interface SolidVm extends VmExecutor {
  readonly kind: 'SolidVM';
  /** parses and checks source, cached by code hash; throws SolidVMCompileError */
  compile(src: string | Record<string, string>): CompiledUnit;
  /** the runnable contract at an address, compiling its stored code on a cache miss */
  contractAt(state: WorldState, address: string): ContractRt | undefined;
  createContract(state: WorldState, ctx: ExecutionContext, req: CreateRequest, opts?: SolidVMOptions): ExecOutcome;
  callContract(state: WorldState, ctx: ExecutionContext, req: CallRequest, opts?: SolidVMOptions): ExecOutcome;
  /**
   * Every state variable of a contract, by name, as JSON: integers as decimal
   * strings, mappings as objects (string keys single-quoted, the spec's form),
   * arrays and structs in full. Constants are included.
   */
  readContractState(state: WorldState, address: string): Record<string, unknown>;
  create(state: WorldState, ctx: ExecutionContext, tx: Transaction): ExecOutcome;
  call(state: WorldState, ctx: ExecutionContext, tx: Transaction): ExecOutcome;
  /** units in the cache */
  cacheSize(): number;
  /** empties the cache: the state of a freshly started node */
  clearCaches(): void;
}

/** A SolidVM with its own cache of compiled units and the hooks of its runs. */
export function createSolidVm(options: SolidVmOptions = {}): SolidVm {
  const cache = new UnitCache(options.compileCacheSize ?? 512);
  const given = options.hooks;
  const hooksOf = (state: WorldState, ctx: ExecutionContext, opts?: SolidVMOptions): SolidVMHooks => opts?.hooks ?? (typeof given === 'function' ? given(state, ctx) : (given ?? {}));
  const vm: SolidVm = {
    kind: 'SolidVM',
    compile: (src) => compileIn(cache, src),
    contractAt: (state, address) => contractIn(cache, state, address),
    createContract: (state, ctx, req, opts) => createIn(cache, hooksOf(state, ctx, opts), state, ctx, req),
    callContract: (state, ctx, req, opts) => callIn(cache, hooksOf(state, ctx, opts), state, ctx, req),
    readContractState: (state, address) => readStateIn(cache, state, address),
    create(state, ctx, tx) {
      const req = creationOf(tx);
      return typeof req === 'string' ? { ...failedOutcome(req), steps: 0 } : vm.createContract(state, ctx, req);
    },
    call(state, ctx, tx) {
      const req = callOf(tx);
      return typeof req === 'string' ? { ...failedOutcome(req), steps: 0 } : vm.callContract(state, ctx, req);
    },
    cacheSize: () => cache.size,
    clearCaches: () => cache.clear(),
  };
  return vm;
}

// --- one-off use ----------------------------------------------------------------------
// Each on a SolidVM of its own, nothing kept between calls: for tools and
// one-time work (a genesis). Anything that runs contracts repeatedly keeps a
// createSolidVm().

/** Creates a contract on a SolidVM of its own (nothing cached). */
export function createContract(state: WorldState, ctx: ExecutionContext, req: CreateRequest, opts?: SolidVMOptions): ExecOutcome {
  return createSolidVm().createContract(state, ctx, req, opts);
}

/** Calls a public function on a SolidVM of its own (nothing cached). */
export function callContract(state: WorldState, ctx: ExecutionContext, req: CallRequest, opts?: SolidVMOptions): ExecOutcome {
  return createSolidVm().callContract(state, ctx, req, opts);
}

/** Every state variable of a contract, read on a SolidVM of its own (nothing cached). */
export function readContractState(state: WorldState, address: string): Record<string, unknown> {
  return createSolidVm().readContractState(state, address);
}
