// Function calls: internal and external calls, `new`, conversions, struct
// constructors and the built-in functions (require, keccak256, abi.*, the
// SolidVM identity built-ins…).
import { abiDecode, abiEncode, abiEncodePacked, selectorOf } from './abi.js';
import { constCE, isFree, lookupTypeNode, storageRef, toMemoryValue } from './ce.js';
import { coerce, concrete, explicitConversion, implicitlyConvertible } from './convert.js';
import { PANIC_ASSERT, PANIC_DIV_ZERO, PANIC_INTERNAL_FN, PANIC_POP_EMPTY, VmFailure, panic, revertBare, revertWith } from './errors.js';
import { bytesToHex, ecrecoverAddress, hexToBytes, keccak256, ripemd160, sha256, utf8 } from './hash.js';
import { HaltSignal, callExternal, createByContract, invoke, transferValue } from './interop.js';
import { deleteDeep, readDeep, readLength, writeDeep, type Frame } from './runtime.js';
import type { CE, CFn, ContractRt, FnScope } from './scope.js';
import { ACCOUNT, ADDRESS, BOOL, BYTES, BYTES32, STRING, UINT256, VOID, elementaryType, fbytesT, isValueType, typeName, type SType } from './types.js';
import { fail, lookupType, type ContractInfo, type EventDef, type Node } from './unit.js';
import { AccountValue, defaultValue, keyText, renderEventValue } from './values.js';

const EMPTY: unknown[] = [];

function err(node: Node, msg: string): never {
  return fail(node, msg);
}

function returnType(fn: CFn): { t: SType; st: boolean } {
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
    return err(node, `call to ${cands[0].name} is ambiguous`);
  }
  const byCount = cands.filter((c) => c.params.length === args.length + offset);
  if (byCount.length === 1) {
    // report the first argument that does not convert
    const c = byCount[0];
    const ordered = orderArgs(c, args, names, offset) ?? args;
    ordered.forEach((a, i) => coerce(sc, a, c.params[i + offset].t, node));
  }
  return err(node, `no ${what} ${cands[0]?.name ?? ''} takes ${args.length} argument${args.length === 1 ? '' : 's'} of these types`);
}

function argValues(sc: FnScope, fn: CFn, args: CE[], node: Node, offset = 0): Array<(f: Frame) => any> {
  return args.map((a, i) => {
    const p = fn.params[i + offset];
    if (p.storage && !isValueType(p.t)) {
      if (!a.st) err(node, `argument ${p.name || i + 1} must be a storage reference`);
      return a.ev;
    }
    return toMemoryValue(sc, coerce(sc, a, p.t, node), p.t).ev;
  });
}

function callResult(fn: CFn, ev: (f: Frame) => any): CE {
  const r = returnType(fn);
  return r.st ? { t: r.t, st: true, ev } : { t: r.t, ev };
}

/** A call of a function in the caller's context (internal, library, super, free). */
export function internalCall(sc: FnScope, fn: CFn, args: CE[], node: Node, bound: CE | null = null): CE {
  // private members are not inherited (solc: undeclared in a derived contract)
  if (fn.visibility === 'private' && sc.owner && fn.owner && fn.owner !== sc.owner && fn.owner.kind !== 'library') err(node, `private function ${fn.name} of ${fn.owner.name} is not visible here`);
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
  if (fns.length > 1) err(node, `${fns[0].name} is overloaded: an overloaded function cannot be used as a value`);
  const fn = fns[0];
  if (fn.visibility === 'external') err(node, `external function ${fn.name} cannot be used as an internal function value`);
  if (fn.visibility === 'private' && sc.owner && fn.owner && fn.owner !== sc.owner && fn.owner.kind !== 'library') err(node, `private function ${fn.name} of ${fn.owner.name} is not visible here`);
  if ([...fn.params, ...fn.returns].some((p) => p.storage && !isValueType(p.t))) err(node, `function ${fn.name} takes or returns a storage reference: it cannot be used as a value`);
  const t: SType = { k: 'function', params: fn.params.map((p) => p.t), returns: fn.returns.map((p) => p.t), mutability: fn.mutability === 'constant' ? 'view' : fn.mutability };
  return { t, ev: () => fn };
}

/** A call through a value of an internal function type; a value never assigned panics (0x51), as in Solidity. */
function pointerCall(sc: FnScope, P: CE, argNodes: Node[], names: string[], node: Node): CE {
  const t = P.t as Extract<SType, { k: 'function' }>;
  if (names.length) err(node, 'named arguments cannot be used in a call through a function value');
  if (argNodes.length !== t.params.length) err(node, `the function takes ${t.params.length} arguments, ${argNodes.length} given`);
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

interface CallOpts {
  value?: Node;
  salt?: Node;
  gas?: Node;
}

export function compileCall(sc: FnScope, node: Node): CE {
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
      if (!t) return err(callee, `unknown type ${callee.name}`);
      return explicitConversion(sc, t, argNodes.map((a) => sc.expr(a)), node);
    }
    case 'Identifier':
      return identifierCall(sc, callee.name, argNodes, names, node);
    case 'MemberAccess':
      return memberCall(sc, callee, argNodes, names, opts, node);
    case 'ArrayTypeName':
      return err(callee, 'array types cannot be called');
    default: {
      const P = sc.expr(callee);
      if (P.t.k === 'function') return pointerCall(sc, P, argNodes, names, node);
      return err(callee, 'expression is not callable');
    }
  }
}

function compileArgs(sc: FnScope, nodes: Node[]): CE[] {
  return nodes.map((a) => sc.expr(a));
}

function identifierCall(sc: FnScope, name: string, argNodes: Node[], names: string[], node: Node): CE {
  if (!isFree(sc, name)) {
    const l = sc.lookup(name);
    if (l?.t.k === 'function') return pointerCall(sc, sc.expr(node.expression), argNodes, names, node);
    return err(node, `${name} is not a function`);
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
  return err(node, `undeclared function ${name}`);
}

function structConstructor(sc: FnScope, t: Extract<SType, { k: 'struct' }>, argNodes: Node[], names: string[], node: Node): CE {
  const fields = t.fields.filter((f) => f.t.k !== 'mapping');
  if (argNodes.length !== fields.length) err(node, `struct ${t.name} has ${fields.length} members, ${argNodes.length} given`);
  const byField: Array<(f: Frame) => any> = t.fields.map((fd) => {
    if (fd.t.k === 'mapping') return () => new Map();
    const i = names.length ? names.indexOf(fd.name) : fields.indexOf(fd);
    if (i < 0) err(node, `missing member ${fd.name} of ${t.name}`);
    return toMemoryValue(sc, coerce(sc, sc.expr(argNodes[i]), fd.t, argNodes[i]), fd.t).ev;
  });
  return { t, ev: (f) => byField.map((e) => e(f)) };
}

// --- built-ins -------------------------------------------------------------------

function bytesOf(t: SType, v: unknown): Uint8Array {
  if (t.k === 'string') return utf8(v as string);
  if (t.k === 'bytes') return v as Uint8Array;
  return abiEncodePacked([t], [v]);
}

/** SolidVM hashes take one or more values and hash their packed concatenation (strings as UTF-8). */
function hashArgs(sc: FnScope, argNodes: Node[], node: Node): (f: Frame) => Uint8Array {
  if (!argNodes.length) err(node, 'hash functions take at least one argument');
  const args = compileArgs(sc, argNodes).map((a) => toMemoryValue(sc, concrete(sc, a, node), concrete(sc, a, node).t));
  if (args.length === 1) {
    const a = args[0];
    const t = a.t;
    return (f) => bytesOf(t, a.ev(f));
  }
  const types = args.map((a) => a.t);
  return (f) => {
    const parts = args.map((a, i) => bytesOf(types[i], a.ev(f)));
    const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let o = 0;
    for (const p of parts) {
      out.set(p, o);
      o += p.length;
    }
    return out;
  };
}

function toWord(b: Uint8Array): bigint {
  return BigInt('0x' + bytesToHex(b));
}

function certMap(rec: Record<string, string> | undefined): Map<string, unknown> {
  const m = new Map<string, unknown>();
  if (rec) for (const k of Object.keys(rec).sort()) m.set(keyText(STRING, k), rec[k]);
  return m;
}

const CERT_MAP: SType = { k: 'mapping', key: STRING, value: STRING };

function builtinCall(sc: FnScope, name: string, argNodes: Node[], node: Node): CE | undefined {
  const n = argNodes.length;
  const arg = (i: number, t: SType) => toMemoryValue(sc, coerce(sc, sc.expr(argNodes[i]), t, argNodes[i]), t).ev;
  switch (name) {
    case 'require': {
      if (n < 1 || n > 2) err(node, 'require takes one or two arguments');
      const c = arg(0, BOOL);
      if (n === 1) return { t: VOID, ev: (f) => (c(f) ? undefined : revertBare('require failed')) };
      const second = argNodes[1];
      if (second.type === 'FunctionCall' && findError(sc, second.expression)) {
        // require(cond, CustomError(args)) (Solidity 0.8.26)
        const raise = customError(sc, second).ev;
        return { t: VOID, ev: (f) => (c(f) ? undefined : raise(f)) };
      }
      const m = arg(1, STRING);
      return { t: VOID, ev: (f) => (c(f) ? undefined : revertWith(m(f))) };
    }
    case 'assert': {
      const c = arg(0, BOOL);
      return { t: VOID, ev: (f) => (c(f) ? undefined : panic(PANIC_ASSERT)) };
    }
    case 'revert': {
      if (n === 0) return { t: VOID, ev: () => revertBare('revert') };
      const m = arg(0, STRING);
      return { t: VOID, ev: (f) => revertWith(m(f)) };
    }
    case 'keccak256': {
      const h = hashArgs(sc, argNodes, node);
      return { t: BYTES32, ev: (f) => hashed(f, keccak256, h(f)) };
    }
    case 'sha256': {
      const h = hashArgs(sc, argNodes, node);
      return { t: BYTES32, ev: (f) => hashed(f, sha256, h(f)) };
    }
    case 'ripemd160': {
      const h = hashArgs(sc, argNodes, node);
      return { t: fbytesT(20), ev: (f) => hashed(f, ripemd160, h(f)) };
    }
    case 'addmod':
    case 'mulmod': {
      if (n !== 3) err(node, `${name} takes three arguments`);
      const a = arg(0, UINT256);
      const b = arg(1, UINT256);
      const m = arg(2, UINT256);
      return {
        t: UINT256,
        ev:
          name === 'addmod'
            ? (f) => {
                const mm = m(f);
                return mm === 0n ? panic(PANIC_DIV_ZERO) : (a(f) + b(f)) % mm;
              }
            : (f) => {
                const mm = m(f);
                return mm === 0n ? panic(PANIC_DIV_ZERO) : (a(f) * b(f)) % mm;
              },
      };
    }
    case 'ecrecover': {
      if (n !== 4) err(node, 'ecrecover takes four arguments');
      const h = arg(0, BYTES32);
      const v = arg(1, { k: 'int', signed: false, bits: 8, min: 0n, max: 255n });
      const r = arg(2, BYTES32);
      const s = arg(3, BYTES32);
      return {
        t: ADDRESS,
        ev: (f) => {
          // the node may supply its own; otherwise @platform/crypto's secp256k1 (deterministic either way)
          const hook = f.x.hooks.ecrecover ?? ecrecoverAddress;
          const w = (x: bigint) => hexToBytes(x.toString(16).padStart(64, '0'));
          return hook(w(h(f)), Number(v(f)), w(r(f)), w(s(f))) ?? '0000000000000000000000000000000000000000';
        },
      };
    }
    case 'selfdestruct':
    case 'suicide': {
      sc.writesState(node, 'destroys the contract');
      const to = arg(0, ADDRESS);
      return {
        t: VOID,
        ev: (f) => {
          const x = f.x;
          const bal = x.state.getAccount(f.self)?.balance ?? 0n;
          const dest = to(f);
          if (dest !== f.self) transferValue(x, f.self, dest, bal);
          if (!x.deleted.includes(f.self)) x.deleted.push(f.self);
          throw new HaltSignal();
        },
      };
    }
    case 'gasleft':
      sc.readsState(node);
      return {
        t: UINT256,
        ev: (f) => {
          const x = f.x;
          return x.ctx.gasEnabled ? BigInt(Math.max(0, Number(x.ctx.tx.gasLimit) - x.gasUsed())) : BigInt(Math.max(0, x.ctx.protocol.stepLimit - x.steps));
        },
      };
    case 'blockhash':
      arg(0, UINT256);
      return constCE(BYTES32, 0n);
    case 'payable':
      return { t: ADDRESS, ev: arg(0, ADDRESS) };
    case 'account': {
      if (n === 0 || n > 2) err(node, 'account takes one or two arguments');
      const first = sc.expr(argNodes[0]);
      if (n === 1 && first.t.k === 'string') return explicitConversion(sc, ACCOUNT, [first], node);
      let a: (f: Frame) => any;
      if (first.t.k === 'lit') {
        // a number literal is the address it writes, `account(0x1234)` (docs/conventions.md)
        const v = first.cv as bigint;
        if (v < 0n || v >= 1n << 160n) err(argNodes[0], `literal ${v} is not an address: it does not fit in 160 bits`);
        const hex = v.toString(16).padStart(40, '0');
        a = () => hex;
      } else a = coerce(sc, first, first.t.k === 'contract' ? first.t : ADDRESS, argNodes[0]).ev;
      if (n === 1) return { t: ACCOUNT, ev: (f) => new AccountValue(a(f), null) };
      const c = sc.expr(argNodes[1]);
      if (c.t.k === 'string') {
        const cs = c.ev;
        return {
          t: ACCOUNT,
          ev: (f) => {
            const s = cs(f) as string;
            if (s === 'main') return new AccountValue(a(f), 'main');
            if (s === 'self') return new AccountValue(a(f), f.x.ctx.chainId === '' ? 'main' : f.x.ctx.chainId);
            if (s === 'parent') {
              const p = f.x.hooks.parentChain?.();
              if (p === undefined || p === null) revertWith('account(…, "parent"): this chain has no parent');
              return new AccountValue(a(f), p === '' ? 'main' : p);
            }
            const h = s.replace(/^0x/, '');
            if (!/^[0-9a-fA-F]{1,64}$/.test(h)) revertWith(`invalid chain id ${s}`);
            return new AccountValue(a(f), h.toLowerCase().padStart(64, '0'));
          },
        };
      }
      const ci = coerce(sc, c, UINT256, argNodes[1]).ev;
      return {
        t: ACCOUNT,
        ev: (f) => {
          const id = ci(f) as bigint;
          return new AccountValue(a(f), id === 0n ? 'main' : id.toString(16).padStart(64, '0'));
        },
      };
    }
    case 'getUserCert': {
      const a = arg(0, ADDRESS);
      return { t: CERT_MAP, ev: (f) => certMap(f.x.hooks.getUserCert?.(a(f))) };
    }
    case 'parseCert': {
      const p = arg(0, STRING);
      return { t: CERT_MAP, ev: (f) => certMap(f.x.hooks.parseCert?.(p(f))) };
    }
    case 'verifyCert': {
      const c = arg(0, STRING);
      const k = arg(1, STRING);
      return { t: BOOL, ev: (f) => f.x.hooks.verifyCert?.(c(f), k(f)) ?? false };
    }
    case 'verifyCertSignedBy': {
      const c = arg(0, STRING);
      const k = arg(1, STRING);
      return { t: BOOL, ev: (f) => f.x.hooks.verifyCertSignedBy?.(c(f), k(f)) ?? false };
    }
    case 'verifySignature': {
      const h = arg(0, STRING);
      const s = arg(1, STRING);
      const k = arg(2, STRING);
      return { t: BOOL, ev: (f) => f.x.hooks.verifySignature?.(h(f), s(f), k(f)) ?? false };
    }
  }
  return undefined;
}

function hashed(f: Frame, h: (b: Uint8Array) => Uint8Array, data: Uint8Array): bigint {
  f.x.gas += f.x.g.hashByte * data.length;
  return toWord(h(data));
}

// --- member calls ------------------------------------------------------------------

function typeListOf(sc: FnScope, node: Node): SType[] {
  const comps: Node[] = node.type === 'TupleExpression' ? node.components : [node];
  return comps.map((c) => {
    if (c.type === 'Identifier') {
      const t = lookupType(sc.unit, sc.owner, c.name);
      if (!t) err(c, `unknown type ${c.name}`);
      return t;
    }
    if (c.type === 'IndexAccess' && !c.index) return { k: 'array', elem: typeListOf(sc, c.base)[0], len: null } as SType;
    return lookupTypeNode(sc, c);
  });
}

function abiCall(sc: FnScope, m: string, argNodes: Node[], node: Node): CE {
  switch (m) {
    case 'encode':
    case 'encodePacked': {
      const args = compileArgs(sc, argNodes).map((a) => {
        const c = concrete(sc, a, node);
        return toMemoryValue(sc, c, c.t);
      });
      const types = args.map((a) => a.t);
      const evs = args.map((a) => a.ev);
      const enc = m === 'encode' ? abiEncode : abiEncodePacked;
      return { t: BYTES, ev: (f) => f.x.memBytes(enc(types, evs.map((e) => e(f)))) };
    }
    case 'decode': {
      if (argNodes.length !== 2) err(node, 'abi.decode takes data and a tuple of types');
      const d = coerce(sc, sc.expr(argNodes[0]), BYTES, argNodes[0]).ev;
      const types = typeListOf(sc, argNodes[1]);
      const t: SType = types.length === 1 ? types[0] : { k: 'tuple', items: types };
      const decode = (f: Frame) => abiDecode(types, d(f), (bytes) => f.x.countAllocation(bytes));
      return { t, ev: types.length === 1 ? (f) => decode(f)[0] : decode };
    }
  }
  return err(node, `abi.${m} is not supported`);
}

function concatCall(sc: FnScope, kind: 'string' | 'bytes', argNodes: Node[]): CE {
  if (kind === 'string') {
    const evs = argNodes.map((a) => coerce(sc, sc.expr(a), STRING, a).ev);
    return { t: STRING, ev: (f) => f.x.memString(evs.map((e) => e(f)).join('')) };
  }
  const args = argNodes.map((a) => toMemoryValue(sc, sc.expr(a), BYTES));
  const types = args.map((a) => a.t);
  return { t: BYTES, ev: (f) => f.x.memBytes(abiEncodePacked(types, args.map((a) => a.ev(f)))) };
}

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

function memberCall(sc: FnScope, callee: Node, argNodes: Node[], names: string[], opts: CallOpts, node: Node): CE {
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
        if (!fns) return err(callee, `library ${c.name} has no function ${m}`);
        const [fn, ordered] = pickOverload(sc, fns, args, names, node);
        return internalCall(sc, fn, ordered, node);
      }
      // explicit call of a base contract's implementation: Base.f()
      if (sc.cc.K && sc.cc.K.linear.includes(c)) {
        const cands: CFn[] = [];
        for (const b of c.linear) for (const fnode of b.functions) if (fnode.name === m && fnode.body) cands.push(sc.cc.shell(fnode, b));
        if (!cands.length) return err(callee, `${c.name} has no function ${m}`);
        const [fn, ordered] = pickOverload(sc, cands, args, names, node);
        return internalCall(sc, fn, ordered, node);
      }
      const st = lookupType(sc.unit, c, m);
      if (st?.k === 'struct') return structConstructor(sc, st, argNodes, names, node);
      if (st) return explicitConversion(sc, st, args, node);
      return err(callee, `${c.name}.${m} cannot be called here`);
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
  if (t.k === 'contract') return err(callee, `contract ${t.name} has no function ${m}`);
  if (t.k === 'struct' && t.fields[t.index.get(m) ?? -1]?.t.k === 'function') return pointerCall(sc, sc.expr(callee), argNodes, names, node);
  return err(callee, `type ${typeName(t)} has no function ${m}`);
}

function superCall(sc: FnScope, m: string, argNodes: Node[], names: string[], node: Node): CE {
  const K = sc.cc.K;
  if (!K || !sc.owner) return err(node, '`super` outside a contract');
  const i = K.linear.indexOf(sc.owner);
  const args = compileArgs(sc, argNodes);
  for (const c of K.linear.slice(i + 1)) {
    const cands = c.functions.filter((f: Node) => f.name === m && f.body).map((f: Node) => sc.cc.shell(f, c));
    if (!cands.length) continue;
    const [fn, ordered] = pickOverload(sc, cands, args, names, node);
    return internalCall(sc, fn, ordered, node);
  }
  return err(node, `no base implementation of ${m}`);
}

/** `b.push(x)`, `b.push()`, `b.pop()` on bytes in storage. */
function storageBytesMethod(sc: FnScope, B: CE, m: string, argNodes: Node[], node: Node): CE {
  sc.writesState(node);
  const lv = B.lv!;
  if (m === 'pop') {
    if (argNodes.length) err(node, 'pop takes no arguments');
    return {
      t: VOID,
      ev: (f) =>
        void lv.update(f, (_, old: Uint8Array) => {
          if (old.length === 0) panic(PANIC_POP_EMPTY);
          return old.slice(0, old.length - 1);
        }),
    };
  }
  if (argNodes.length > 1) err(node, 'push takes at most one argument');
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
  if (t.len !== null) err(node, `${m} is not available on fixed-size arrays`);
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
    if (argNodes.length) err(node, 'pop takes no arguments');
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
    if (argNodes.length !== 1) err(node, `${m} takes one argument`);
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

function newExpr(sc: FnScope, typeNode: Node, argNodes: Node[], opts: CallOpts, node: Node): CE {
  if (typeNode.type === 'ArrayTypeName') {
    const t = lookupTypeNode(sc, typeNode);
    if (t.k !== 'array' || t.len !== null) return err(node, 'new needs a dynamic array type');
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
  const name: string = typeNode.namePath;
  const c = sc.unit.contracts.get(name);
  if (!c) return err(typeNode, `unknown contract ${name}`);
  if (c.kind !== 'contract') return err(typeNode, `cannot create an instance of ${c.kind} ${name}`);
  if (sc.cc.K && c.linear.includes(sc.cc.K)) return err(typeNode, `contract ${name} cannot create itself or a contract deriving from it`);
  const ctor = c.ctor ? sc.contract(c).shell(c.ctor, c) : null;
  const params = ctor?.params ?? [];
  if (params.length !== argNodes.length) err(node, `the constructor of ${name} takes ${params.length} arguments`);
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

// --- events ----------------------------------------------------------------------

export function findEvent(sc: FnScope, name: string): EventDef | undefined {
  for (const c of sc.cc.K?.linear ?? (sc.owner ? sc.owner.linear : [])) {
    const e = c.events.get(name);
    if (e) return e;
  }
  return sc.unit.events.get(name);
}

function resolveEvent(sc: FnScope, e: EventDef): void {
  if (e.resolved) return;
  e.params = e.node.parameters.map((p: Node, i: number) => ({
    name: p.name ?? `arg${i}`,
    t: lookupTypeNode({ ...sc, unit: sc.unit, owner: e.scope } as FnScope, p.typeName),
    indexed: !!p.isIndexed,
  }));
  e.resolved = true;
}

export function emitEvent(sc: FnScope, e: EventDef, argNodes: Node[], names: string[], node: Node): CE {
  sc.writesState(node, 'emits an event');
  resolveEvent(sc, e);
  if (argNodes.length !== e.params.length) err(node, `event ${e.name} takes ${e.params.length} arguments`);
  const evs = e.params.map((p, i) => {
    const j = names.length ? names.indexOf(p.name) : i;
    if (j < 0) err(node, `missing argument ${p.name} of ${e.name}`);
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
  let def: Node | undefined;
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
  const ps: Array<{ name: string; t: SType }> = def.parameters.map((p: Node, i: number) => ({
    name: p.name ?? `arg${i}`,
    t: lookupTypeNode({ ...sc, unit: sc.unit, owner: scope } as FnScope, p.typeName),
  }));
  return { name, ps };
}

export function customError(sc: FnScope, call: Node): CE {
  const callee = call.expression;
  const found = findError(sc, callee);
  if (!found) {
    const name: string = callee.type === 'Identifier' ? callee.name : callee.type === 'MemberAccess' ? callee.memberName : '';
    if (name === 'revert' || callee.type !== 'Identifier') return compileCall(sc, call);
    return err(call, `undeclared error ${name}`);
  }
  const { name, ps } = found;
  const argNodes: Node[] = call.arguments;
  if (argNodes.length !== ps.length) err(call, `error ${name} takes ${ps.length} arguments`);
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
