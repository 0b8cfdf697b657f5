// Index and member access: mappings, arrays, bytes and strings by index;
// struct members, `msg`/`block`/`tx`, members of addresses and accounts,
// `type(T)`, enum values, constants of other contracts and libraries.
import { selectorOf } from './abi.js';
import type { AST, Node } from './ast.js';
import { constCE, isFree, lookupTypeNode, storageRef } from './ce.js';
import { coerce } from './convert.js';
import { PANIC_INDEX, panic, revertWith } from './errors.js';
import { findError } from './events.js';
import { readLength, type Frame } from './runtime.js';
import type { CE, FnScope } from './scope.js';
import { ADDRESS, BYTES, STRING, UINT256, UINT8, fbytesT, typeName } from './types.js';
import { fail, lookupType } from './unit.js';
import { ZERO_ADDRESS, codecOf, defaultValue, keyText, type AccountValue } from './values.js';

export function indexAccess(sc: FnScope, node: AST.IndexAccess): CE {
  const B = sc.expr(node.base);
  const t = B.t;
  if (!node.index) fail(node, 'missing index');
  const I = sc.expr(node.index);
  const bev = B.ev;
  if (t.k === 'mapping') {
    const kev = coerce(sc, I.t.k === 'lit' ? I : I, t.key, node.index).ev;
    const kt = t.key;
    if (B.st) {
      return storageRef(t.value, (f) => bev(f) + '<' + keyText(kt, kev(f)) + '>');
    }
    // memory mapping (SolidVM arguments, getUserCert results)
    const vt = t.value;
    return {
      t: vt,
      ev: (f) => {
        const m = bev(f) as Map<string, unknown>;
        const v = m.get(keyText(kt, kev(f)));
        return v === undefined ? defaultValue(vt) : v;
      },
      lv: {
        set: (f, v) => (bev(f) as Map<string, unknown>).set(keyText(kt, kev(f)), v),
        update: (f, op) => {
          const m = bev(f) as Map<string, unknown>;
          const k = keyText(kt, kev(f));
          const nv = op(f, m.has(k) ? m.get(k) : defaultValue(vt));
          m.set(k, nv);
          return nv;
        },
      },
    };
  }
  const iev = coerce(sc, I, I.t.k === 'int' ? I.t : UINT256, node.index).ev;
  if (I.t.k !== 'int' && I.t.k !== 'lit') fail(node.index, 'index must be an integer');
  if (t.k === 'array') {
    const et = t.elem;
    if (B.st) {
      if (t.len !== null) {
        const len = BigInt(t.len);
        return storageRef(et, (f) => {
          const i = iev(f) as bigint;
          if (i < 0n || i >= len) panic(PANIC_INDEX);
          return bev(f) + '[' + i + ']';
        });
      }
      return storageRef(et, (f) => {
        const p = bev(f) as string;
        const i = iev(f) as bigint;
        if (i < 0n || i >= readLength(f.x, f.self, p)) panic(PANIC_INDEX);
        return p + '[' + i + ']';
      });
    }
    const get = (f: Frame): [unknown[], number] => {
      const a = bev(f) as unknown[];
      const i = iev(f) as bigint;
      if (i < 0n || i >= BigInt(a.length)) panic(PANIC_INDEX);
      return [a, Number(i)];
    };
    return {
      t: et,
      ev: (f) => {
        const a = bev(f) as unknown[];
        const i = iev(f) as bigint;
        if (i < 0n || i >= BigInt(a.length)) panic(PANIC_INDEX);
        return a[Number(i)];
      },
      lv: {
        set: (f, v) => {
          const [a, i] = get(f);
          a[i] = v;
        },
        update: (f, op) => {
          const [a, i] = get(f);
          return (a[i] = op(f, a[i]));
        },
      },
    };
  }
  if (t.k === 'bytes') {
    const b1 = fbytesT(1);
    const read = (f: Frame): [Uint8Array, number] => {
      const v = B.st ? (codecOf(BYTES).dec(f.x.sload(f.self, bev(f))) as Uint8Array) : (bev(f) as Uint8Array);
      const i = iev(f) as bigint;
      if (i < 0n || i >= BigInt(v.length)) panic(PANIC_INDEX);
      return [v, Number(i)];
    };
    if (B.stScalar && B.lv) {
      // storage bytes: change the byte in a copy and store the copy
      const blv = B.lv;
      const at = (f: Frame, v: Uint8Array): number => {
        const i = iev(f) as bigint;
        if (i < 0n || i >= BigInt(v.length)) panic(PANIC_INDEX);
        return Number(i);
      };
      return {
        t: b1,
        ev: (f) => {
          const [v, i] = read(f);
          return BigInt(v[i]);
        },
        lv: {
          set: (f, nv) =>
            blv.update(f, (_, old: Uint8Array) => {
              const c = old.slice();
              c[at(f, c)] = Number(nv);
              return c;
            }),
          update: (f, op) => {
            let r: bigint = 0n;
            blv.update(f, (g, old: Uint8Array) => {
              const c = old.slice();
              const i = at(f, c);
              r = op(g, BigInt(c[i]));
              c[i] = Number(r);
              return c;
            });
            return r;
          },
        },
      };
    }
    return {
      t: b1,
      ev: (f) => {
        const [v, i] = read(f);
        return BigInt(v[i]);
      },
      lv: B.st
        ? undefined
        : {
            set: (f, v) => {
              const [a, i] = read(f);
              a[i] = Number(v);
            },
            update: (f, op) => {
              const [a, i] = read(f);
              const nv = op(f, BigInt(a[i]));
              a[i] = Number(nv);
              return nv;
            },
          },
    };
  }
  if (t.k === 'fbytes') {
    const n = t.n;
    return {
      t: fbytesT(1),
      ev: (f) => {
        const i = iev(f) as bigint;
        if (i < 0n || i >= BigInt(n)) panic(PANIC_INDEX);
        return ((bev(f) as bigint) >> BigInt((n - 1 - Number(i)) * 8)) & 0xffn;
      },
    };
  }
  return fail(node, `type ${typeName(t)} cannot be indexed`);
}

const MSG_MEMBERS: Record<string, CE> = {
  sender: { t: ADDRESS, ev: (f) => f.sender },
  value: { t: UINT256, ev: (f) => f.value },
};

function blockMember(node: Node, name: string): CE {
  switch (name) {
    case 'timestamp':
      return { t: UINT256, ev: (f) => BigInt(f.x.ctx.block.timestamp) };
    case 'number':
      return { t: UINT256, ev: (f) => BigInt(f.x.ctx.block.number) };
    // docs/conventions.md: block.coinbase is the zero address on this platform
    case 'coinbase':
      return constCE(ADDRESS, ZERO_ADDRESS);
    case 'difficulty':
    case 'prevrandao':
    case 'basefee':
    case 'blobbasefee':
      return constCE(UINT256, 0n);
    case 'gaslimit':
      return { t: UINT256, ev: (f) => f.x.ctx.tx.gasLimit };
    case 'chainid':
      return { t: UINT256, ev: (f) => (f.x.ctx.chainId === '' ? 0n : BigInt('0x' + f.x.ctx.chainId)) };
  }
  return fail(node, `unknown member block.${name}`);
}

function identityField(field: 'username' | 'organization' | 'organizationalUnit' | 'certificate'): CE {
  return { t: STRING, ev: (f) => f.x.ctx.identity?.[field] ?? '' };
}

function txMember(node: Node, name: string): CE {
  switch (name) {
    case 'origin':
      return { t: ADDRESS, ev: (f) => f.x.ctx.tx.origin };
    case 'gasprice':
      return { t: UINT256, ev: (f) => f.x.ctx.tx.gasPrice };
    case 'username':
      return identityField('username');
    case 'organization':
      return identityField('organization');
    case 'organizationalUnit':
    case 'group':
      return identityField('organizationalUnit');
    case 'certificate':
      return identityField('certificate');
  }
  return fail(node, `unknown member tx.${name}`);
}

export function memberAccess(sc: FnScope, node: AST.MemberAccess): CE {
  const m: string = node.memberName;
  const base = node.expression;
  if (m === 'selector' && ((base.type === 'Identifier' && isFree(sc, base.name)) || base.type === 'MemberAccess')) {
    // Err.selector / C.Err.selector: the 4 bytes that start the error's revert data
    const e = findError(sc, base);
    if (e) return constCE(fbytesT(4), BigInt('0x' + selectorOf(e.name, e.ps.map((p) => p.t))));
  }
  if (base.type === 'Identifier' && isFree(sc, base.name)) {
    if (base.name === 'msg' || base.name === 'block' || base.name === 'tx') sc.readsState(node);
    switch (base.name) {
      case 'msg':
        if (MSG_MEMBERS[m]) return MSG_MEMBERS[m];
        return fail(node, `unknown member msg.${m}`);
      case 'block':
        return blockMember(node, m);
      case 'tx':
        return txMember(node, m);
    }
    const named = lookupType(sc.unit, sc.owner, base.name) ?? (sc.cc.K ? lookupType(sc.unit, sc.cc.K, base.name) : undefined);
    if (named?.k === 'enum') {
      const i = named.members.indexOf(m);
      if (i < 0) fail(node, `${base.name} has no member ${m}`);
      return constCE(named, i);
    }
    const c = sc.unit.contracts.get(base.name);
    if (c) {
      // a constant of another contract or library: C.X
      for (const cc of c.linear) {
        const v = cc.stateVars.find((s) => s.name === m && s.isDeclaredConst);
        if (v) {
          const comp = sc.contract(c);
          const sv = comp.vars.get(m);
          if (sv?.ce) return sv.ce;
        }
      }
      const t = lookupType(sc.unit, c, m);
      if (t?.k === 'enum' || t?.k === 'struct') return fail(node, `${base.name}.${m} is a type`);
      return fail(node, `${base.name}.${m} is not a value`);
    }
  }
  if (base.type === 'MemberAccess' && base.expression.type === 'Identifier' && isFree(sc, base.expression.name)) {
    // C.E.Member: an enum declared in another contract
    const named = lookupType(sc.unit, sc.owner, `${base.expression.name}.${base.memberName}`);
    if (named?.k === 'enum') {
      const i = named.members.indexOf(m);
      if (i < 0) fail(node, `${named.name} has no member ${m}`);
      return constCE(named, i);
    }
  }
  if (base.type === 'FunctionCall' && base.expression.type === 'Identifier' && base.expression.name === 'type') {
    return typeInfo(sc, base.arguments[0], m, node);
  }
  const B = sc.expr(base);
  const t = B.t;
  const bev = B.ev;
  switch (t.k) {
    case 'struct': {
      const i = t.index.get(m);
      if (i === undefined) return fail(node, `struct ${t.name} has no member ${m}`);
      const ft = t.fields[i].t;
      if (B.st) {
        const suffix = '.' + m;
        return storageRef(ft, (f) => bev(f) + suffix);
      }
      return {
        t: ft,
        ev: (f) => (bev(f) as unknown[])[i],
        lv: {
          set: (f, v) => ((bev(f) as unknown[])[i] = v),
          update: (f, op) => {
            const o = bev(f) as unknown[];
            return (o[i] = op(f, o[i]));
          },
        },
      };
    }
    case 'array':
      if (m === 'length') {
        if (t.len !== null) return constCE(UINT256, BigInt(t.len));
        if (B.st) return { t: UINT256, ev: (f) => readLength(f.x, f.self, bev(f)) };
        return { t: UINT256, ev: (f) => BigInt((bev(f) as unknown[]).length) };
      }
      break;
    case 'bytes':
      if (m === 'length') {
        if (B.st) return { t: UINT256, ev: (f) => BigInt((codecOf(BYTES).dec(f.x.sload(f.self, bev(f))) as Uint8Array).length) };
        return { t: UINT256, ev: (f) => BigInt((bev(f) as Uint8Array).length) };
      }
      break;
    case 'string':
      // SolidVM: s.length is the length in bytes of the UTF-8 text
      if (m === 'length') return { t: UINT256, ev: (f) => BigInt(Buffer.byteLength(bev(f) as string, 'utf8')) };
      break;
    case 'fbytes':
      if (m === 'length') return constCE(UINT8, BigInt(t.n));
      break;
    case 'address':
    case 'contract':
      return addressMember(sc, t.k === 'contract' ? { t: ADDRESS, ev: bev } : B, m, node);
    case 'account':
      switch (m) {
        case 'chainId':
          return {
            t: UINT256,
            ev: (f) => {
              const a = bev(f) as AccountValue;
              const c = a.chain === null ? f.x.ctx.chainId : a.chain === 'main' ? '' : a.chain;
              return c === '' ? 0n : BigInt('0x' + c);
            },
          };
        case 'address':
          return { t: ADDRESS, ev: (f) => (bev(f) as AccountValue).address };
        default:
          // a block executes against its own chain's state only: another chain's balance, nonce or code
          // would be read from this one's, a wrong answer given silently, so the read fails instead
          return addressMember(sc, { t: ADDRESS, ev: (f) => localAccount(bev(f) as AccountValue, f.x.ctx.chainId, m) }, m, node);
      }
  }
  return fail(node, `type ${typeName(t)} has no member ${m}`);
}

/** The address of an account of the executing chain; a revert naming the chain for an account of another one. */
function localAccount(account: AccountValue, chainId: string, member: string): string {
  const chain = account.chain === null ? chainId : account.chain === 'main' ? '' : account.chain;
  if (chain !== chainId) revertWith(`account(…).${member}: the account is on ${chain === '' ? 'the main chain' : `chain ${chain}`}, and a transaction reads only the state of its own chain (${chainId === '' ? 'the main chain' : chainId})`);
  return account.address;
}

function addressMember(sc: FnScope, A: CE, m: string, node: Node): CE {
  const a = A.ev;
  if (m === 'balance' || m === 'nonce' || m === 'codehash' || m === 'code') sc.readsState(node);
  switch (m) {
    case 'balance':
      return { t: UINT256, ev: (f) => f.x.state.getAccount(a(f))?.balance ?? 0n };
    case 'nonce':
      return { t: UINT256, ev: (f) => f.x.state.getAccount(a(f))?.nonce ?? 0n };
    case 'codehash':
      return {
        t: fbytesT(32),
        ev: (f) => {
          const h = f.x.state.getAccount(a(f))?.codeHash;
          return h ? BigInt('0x' + h) : 0n;
        },
      };
    case 'code':
      return {
        t: BYTES,
        ev: (f) => {
          const h = f.x.state.getAccount(a(f))?.codeHash;
          return (h && f.x.state.getCode(h)) || new Uint8Array(0);
        },
      };
  }
  return fail(node, `address has no member ${m}`);
}

function typeInfo(sc: FnScope, arg: Node, m: string, node: Node): CE {
  if (arg.type === 'Identifier' && sc.unit.contracts.has(arg.name) && m === 'name') return { t: STRING, cv: arg.name, strLit: true, ev: () => arg.name };
  const t = arg.type === 'Identifier' ? lookupType(sc.unit, sc.owner, arg.name) : lookupTypeNode(sc, arg);
  if (!t) return fail(arg, 'unknown type');
  if (t.k === 'int') {
    if (m === 'max') return constCE(t, t.max);
    if (m === 'min') return constCE(t, t.min);
  }
  if (t.k === 'enum') {
    if (m === 'max') return constCE(t, t.members.length - 1);
    if (m === 'min') return constCE(t, 0);
  }
  return fail(node, `type(${typeName(t)}).${m} is not supported`);
}
