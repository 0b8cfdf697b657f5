// The xabi of a contract (docs/conventions.md "Transactions": the platform's layout).
import type { Xabi, XabiFunc, XabiType } from '@platform/common';
import { compilerFor } from './compiler.js';
import { SolidVMCompileError } from './errors.js';
import type { CFn, CompiledUnit } from './scope.js';
import { scalarXabiType, type SType } from './types.js';
import { resolveType } from './unit.js';

export function xabiType(t: SType): XabiType {
  switch (t.k) {
    case 'struct':
      return { type: 'Struct', typedef: t.name };
    case 'array':
      return t.len === null ? { type: 'Array', entry: xabiType(t.elem) } : { type: 'Array', entry: xabiType(t.elem), length: t.len };
    case 'mapping':
      return { type: 'Mapping', key: xabiType(t.key), value: xabiType(t.value) };
    default: {
      const scalar = scalarXabiType(t);
      if (!scalar) throw new Error(`no xabi type for ${t.k}`);
      return scalar;
    }
  }
}

function funcOf(fn: CFn): XabiFunc {
  const args: XabiFunc['args'] = {};
  fn.params.forEach((p, i) => (args[p.name || `#${i}`] = { ...xabiType(p.t), index: i }));
  const vals: XabiFunc['vals'] = {};
  fn.returns.forEach((r, i) => (vals[r.name || `#${i}`] = xabiType(r.t)));
  const out: XabiFunc = { args, vals, visibility: fn.visibility };
  out.stateMutability = fn.mutability ?? undefined;
  const decl = fn.node;
  out.modifiers = decl?.type === 'FunctionDefinition' ? decl.modifiers.map((m) => m.name) : [];
  return out;
}

const KIND = { contract: 'ContractKind', interface: 'InterfaceKind', library: 'LibraryKind', abstract: 'AbstractKind' } as const;

/** The xabi of a contract, interface, abstract contract or library of a compiled unit. */
export function xabiOf(cu: CompiledUnit, contractName: string): Xabi {
  const c = cu.unit.contracts.get(contractName);
  if (!c) throw new SolidVMCompileError(`no contract ${contractName} in the source`);
  const cc = compilerFor(cu, c);
  const funcs: Xabi['funcs'] = {};
  for (const [name, fns] of cc.fnTable) {
    fns.forEach((fn, i) => {
      if (fn.visibility !== 'public' && fn.visibility !== 'external') return;
      funcs[i === 0 ? name : fn.sig] = funcOf(fn);
    });
  }
  const ctorNode = c.linear.find((b) => b.ctor)?.ctor ?? null;
  const constr = ctorNode && c.ctor ? funcOf(cc.shell(c.ctor, c)) : null;
  const vars: Record<string, unknown> = {};
  for (const sv of cc.vars.values()) {
    const v: Record<string, unknown> = { ...xabiType(sv.t), public: sv.isPublic, constant: sv.constant };
    const init = sv.node.expression;
    if (init && (init.type === 'NumberLiteral' || init.type === 'BooleanLiteral' || init.type === 'StringLiteral')) {
      v.initialValue = init.type === 'NumberLiteral' ? init.number : init.value;
    }
    if (sv.immutable) v.immutable = true;
    vars[sv.name] = v;
  }
  const types: Record<string, unknown> = {};
  for (const b of [...c.linear].reverse()) {
    for (const [name, st] of b.structs) {
      const fields: Record<string, unknown> = {};
      // (a member of an internal function type is never in an argument or a result: it has no xabi type)
      st.fields.forEach((f, i) => {
        if (f.t.k !== 'function') fields[f.name] = { ...xabiType(f.t), index: i };
      });
      types[name] = { type: 'Struct', fields };
    }
    for (const [name, en] of b.enums) types[name] = { type: 'Enum', names: en.members };
  }
  const modifiers: Record<string, unknown> = {};
  for (const b of [...c.linear].reverse()) {
    for (const [name, m] of b.modifiers) {
      const args: Record<string, unknown> = {};
      (m.parameters ?? []).forEach((p, i) => (args[p.name!] = { ...xabiType(resolveType(cu.unit, b, p.typeName!)), index: i }));
      modifiers[name] = { args };
    }
  }
  const events: Xabi['events'] = {};
  for (const b of [...c.linear].reverse()) {
    for (const [name, e] of b.events) {
      events[name] = {
        anonymous: e.anonymous,
        logs: e.node.parameters.map((p, i) => [p.name ?? `arg${i}`, xabiType(resolveType(cu.unit, b, p.typeName!))]),
      };
    }
  }
  const using: Record<string, unknown> = {};
  for (const u of c.usingFor) if (u.lib) using[u.lib] = u.type ? { type: u.type.type === 'ElementaryTypeName' ? u.type.name : u.type.type === 'UserDefinedTypeName' ? u.type.namePath : 'type' } : { type: '*' };
  return { funcs, constr, vars: vars as Xabi['vars'], types, modifiers, events, kind: KIND[c.kind], using };
}
