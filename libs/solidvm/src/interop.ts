// Calls between contracts, contract creation, and value transfers at run time.
import { VmFailure } from './errors.js';
import { contractAddress, hexToBytes, saltedContractAddress, utf8 } from './hash.js';
import { Frame, MAX_CALL_DEPTH, type Exec } from './runtime.js';
import type { CFn, ContractRt } from './scope.js';
import { isValueType } from './types.js';
import { deepCopy, defaultValue } from './values.js';

/** Thrown by selfdestruct: ends the current external call successfully. */
export class HaltSignal {
  constructor(readonly message = 'selfdestruct') {}
}

export function loadContract(x: Exec, address: string): ContractRt | undefined {
  return x.loader(x, address) as ContractRt | undefined;
}

export function transferValue(x: Exec, from: string, to: string, amount: bigint): void {
  if (amount === 0n) return;
  const a = x.state.getAccount(from);
  if (!a || a.balance < amount) {
    throw new VmFailure('REVERT', `insufficient balance to transfer ${amount}`, 'other');
  }
  x.state.putAccount(from, { ...a, balance: a.balance - amount });
  const b = x.state.getAccount(to) ?? { nonce: 0n, balance: 0n, codeHash: null };
  x.state.putAccount(to, { ...b, balance: b.balance + amount });
}

function copyArgs(fn: CFn, args: unknown[]): unknown[] {
  for (let i = 0; i < args.length; i++) {
    const t = fn.params[i].t;
    if (!isValueType(t)) args[i] = deepCopy(t, args[i]);
  }
  return args;
}

/** Runs a function of a contract as a message call (msg.sender = caller); selfdestruct ends it early. */
export function runMessageCall(x: Exec, rt: ContractRt, fn: CFn, target: string, sender: string, value: bigint, args: unknown[]): unknown {
  const depth = x.depth;
  try {
    return invoke(fn, x, target, sender, value, rt, args);
  } catch (e) {
    if (e instanceof HaltSignal) {
      x.depth = depth;
      return fn.returns.length === 1 ? undefined : fn.returns.length === 0 ? undefined : fn.returns.map(() => undefined);
    }
    throw e;
  }
}

/** `c.f(args)` on a contract-typed value. */
export function callExternal(f: Frame, target: string, name: string, sig: string, args: unknown[], value: bigint): unknown {
  const x = f.x;
  x.gas += x.g.call;
  const rt = loadContract(x, target);
  // not catchable: Solidity checks that the target has code in the caller, before the guarded call
  if (!rt) throw new VmFailure('NO_CONTRACT', `no SolidVM contract at address ${target}`, 'other', {}, false);
  const cands = rt.external.get(name);
  const fn = cands?.find((c) => c.sig === sig) ?? cands?.find((c) => c.params.length === args.length);
  if (!fn) {
    // the callee's dispatcher reverts without data: a catch-all takes it, `catch Error` does not
    throw new VmFailure('UNKNOWN_METHOD', `contract ${rt.name} at ${target} has no function ${sig}`, 'other');
  }
  if (value > 0n) {
    // as solc's dispatcher does: a non-payable function refuses value, without reason data
    if (fn.mutability !== 'payable') throw new VmFailure('REVERT', `function ${name} is not payable`, 'other');
    transferValue(x, f.self, target, value);
  }
  return runMessageCall(x, rt, fn, target, f.self, value, copyArgs(fn, args));
}

/** Creates a contract account at an address and runs its constructor. */
export function deploy(x: Exec, address: string, rt: ContractRt, sender: string, args: unknown[], value: bigint, byContract: boolean): void {
  const existing = x.state.getAccount(address);
  if (existing?.codeHash) {
    throw new VmFailure('REVERT', `a contract already exists at ${address}`, 'other');
  }
  const codeHash = rt.cu.codeHash;
  if (!x.state.getCode(codeHash)) {
    const h = x.state.putCode(utf8(codeText(rt.cu.files)));
    if (h !== codeHash) throw new Error('code hash mismatch between the compiler and the world state');
  }
  x.state.putAccount(address, { nonce: 1n, balance: existing?.balance ?? 0n, codeHash, vm: 'SolidVM', contractName: rt.name });
  if (value > 0n) transferValue(x, sender, address, value);
  x.created.push({ address, name: rt.name, codeHash, byContract });
  x.gas += x.g.create;
  const depth = x.depth;
  try {
    rt.construct(x, address, sender, value, args);
  } catch (e) {
    if (!(e instanceof HaltSignal)) throw e;
    x.depth = depth;
  }
}

/** `new C(args)` / `new C{salt: s}(args)` inside a contract. */
export function createByContract(f: Frame, rt: ContractRt, args: unknown[], salt: bigint | undefined, value: bigint): string {
  const x = f.x;
  const creator = f.self;
  const acct = x.state.getAccount(creator) ?? { nonce: 0n, balance: 0n, codeHash: null };
  const address =
    salt === undefined
      ? contractAddress(creator, acct.nonce)
      : saltedContractAddress(creator, hexToBytes(salt.toString(16).padStart(64, '0')), rt.name, rt.cu.codeHash);
  x.state.putAccount(creator, { ...acct, nonce: acct.nonce + 1n });
  for (let i = 0; i < args.length; i++) {
    const t = rt.ctorParams[i]?.t;
    if (t && !isValueType(t)) args[i] = deepCopy(t, args[i]);
  }
  x.depth++;
  deploy(x, address, rt, creator, args, value, true);
  x.depth--;
  return address;
}

/** The bytes stored as a SolidVM contract's code: the source, or for several files a JSON object of them. */
export function codeText(files: Record<string, string>): string {
  const names = Object.keys(files);
  if (names.length === 1 && names[0] === '') return files[''];
  const sorted: Record<string, string> = {};
  for (const n of names.sort()) sorted[n] = files[n];
  return JSON.stringify(sorted);
}

/** Inverse of codeText. */
export function filesOfCode(text: string): Record<string, string> {
  if (text.startsWith('{')) {
    try {
      const o = JSON.parse(text) as unknown;
      if (o && typeof o === 'object' && Object.values(o).every((v) => typeof v === 'string')) return o as Record<string, string>;
    } catch {
      // a single source that happens to start with a brace
    }
  }
  return { '': text };
}

// --- invocation --------------------------------------------------------------

/** Runs a function in a new frame and returns its result (undefined, one value, or an array). */
export function invoke(fn: CFn, x: Exec, self: string, sender: string, value: bigint, rt: ContractRt | null, args: unknown[]): unknown {
  if (++x.depth > MAX_CALL_DEPTH) {
    throw new VmFailure('CALL_DEPTH', `call depth exceeds ${MAX_CALL_DEPTH}`, 'other', {}, false);
  }
  const l = new Array(fn.nLocals);
  for (let i = 0; i < args.length; i++) l[i] = args[i];
  const rs = fn.retSlots;
  for (let i = 0; i < rs.length; i++) {
    const r = fn.returns[i];
    l[rs[i]] = r.storage && !isValueType(r.t) ? undefined : defaultValue(r.t);
  }
  fn.run(new Frame(x, self, sender, value, l, rt));
  x.depth--;
  if (rs.length === 1) return l[rs[0]];
  if (rs.length === 0) return undefined;
  return rs.map((s) => l[s]);
}
