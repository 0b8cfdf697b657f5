// The built-in functions: require/assert/revert, the hashes, ecrecover,
// addmod/mulmod, gasleft, selfdestruct, SolidVM's identity built-ins, and
// abi.*, string.concat and bytes.concat.
import { abiDecode, abiEncode, abiEncodePacked } from './abi.js';
import { asNode, type Node } from './ast.js';
import { constCE, lookupTypeNode, toMemoryValue } from './ce.js';
import { coerce, concrete, explicitConversion } from './convert.js';
import { PANIC_ASSERT, PANIC_DIV_ZERO, panic, revertBare, revertWith } from './errors.js';
import { customError, findError } from './events.js';
import { bytesToHex, ecrecoverAddress, hexToBytes, keccak256, ripemd160, sha256, utf8 } from './hash.js';
import { compileArgs } from './internal-calls.js';
import { HaltSignal, transferValue } from './interop.js';
import type { Frame } from './runtime.js';
import type { CE, FnScope } from './scope.js';
import { ACCOUNT, ADDRESS, BOOL, BYTES, BYTES32, STRING, UINT256, VOID, fbytesT, type SType } from './types.js';
import { fail, lookupType } from './unit.js';
import { AccountValue, keyText } from './values.js';

function bytesOf(t: SType, v: unknown): Uint8Array {
  if (t.k === 'string') return utf8(v as string);
  if (t.k === 'bytes') return v as Uint8Array;
  return abiEncodePacked([t], [v]);
}

/** SolidVM hashes take one or more values and hash their packed concatenation (strings as UTF-8). */
function hashArgs(sc: FnScope, argNodes: Node[], node: Node): (f: Frame) => Uint8Array {
  if (!argNodes.length) fail(node, 'hash functions take at least one argument');
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

export function builtinCall(sc: FnScope, name: string, argNodes: Node[], node: Node): CE | undefined {
  const n = argNodes.length;
  const arg = (i: number, t: SType) => toMemoryValue(sc, coerce(sc, sc.expr(argNodes[i]), t, argNodes[i]), t).ev;
  switch (name) {
    case 'require': {
      if (n < 1 || n > 2) fail(node, 'require takes one or two arguments');
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
      if (n !== 3) fail(node, `${name} takes three arguments`);
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
      if (n !== 4) fail(node, 'ecrecover takes four arguments');
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
      if (n === 0 || n > 2) fail(node, 'account takes one or two arguments');
      const first = sc.expr(argNodes[0]);
      if (n === 1 && first.t.k === 'string') return explicitConversion(sc, ACCOUNT, [first], node);
      let a: (f: Frame) => any;
      if (first.t.k === 'lit') {
        // a number literal is the address it writes, `account(0x1234)` (docs/conventions.md)
        const v = first.cv as bigint;
        if (v < 0n || v >= 1n << 160n) fail(argNodes[0], `literal ${v} is not an address: it does not fit in 160 bits`);
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

function typeListOf(sc: FnScope, node: Node): SType[] {
  const comps: Node[] = node.type === 'TupleExpression' ? node.components.map((c) => asNode(c)!) : [node];
  return comps.map((c) => {
    if (c.type === 'Identifier') {
      const t = lookupType(sc.unit, sc.owner, c.name);
      if (!t) fail(c, `unknown type ${c.name}`);
      return t;
    }
    if (c.type === 'IndexAccess' && !c.index) return { k: 'array', elem: typeListOf(sc, c.base)[0], len: null } as SType;
    return lookupTypeNode(sc, c);
  });
}

export function abiCall(sc: FnScope, m: string, argNodes: Node[], node: Node): CE {
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
      if (argNodes.length !== 2) fail(node, 'abi.decode takes data and a tuple of types');
      const d = coerce(sc, sc.expr(argNodes[0]), BYTES, argNodes[0]).ev;
      const types = typeListOf(sc, argNodes[1]);
      const t: SType = types.length === 1 ? types[0] : { k: 'tuple', items: types };
      const decode = (f: Frame) => abiDecode(types, d(f), (bytes) => f.x.countAllocation(bytes));
      return { t, ev: types.length === 1 ? (f) => decode(f)[0] : decode };
    }
  }
  return fail(node, `abi.${m} is not supported`);
}

export function concatCall(sc: FnScope, kind: 'string' | 'bytes', argNodes: Node[]): CE {
  if (kind === 'string') {
    const evs = argNodes.map((a) => coerce(sc, sc.expr(a), STRING, a).ev);
    return { t: STRING, ev: (f) => f.x.memString(evs.map((e) => e(f)).join('')) };
  }
  const args = argNodes.map((a) => toMemoryValue(sc, sc.expr(a), BYTES));
  const types = args.map((a) => a.t);
  return { t: BYTES, ev: (f) => f.x.memBytes(abiEncodePacked(types, args.map((a) => a.ev(f)))) };
}
