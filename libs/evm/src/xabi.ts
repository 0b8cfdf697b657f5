// The xabi of a solc-compiled contract, in the platform's layout
// (docs/conventions.md "Transactions"), the same shape SolidVM gives: funcs and
// constr from the ABI (its `internalType`s name structs, enums, contracts),
// and what the ABI does not say (modifiers, state variables, constants, struct
// members, enum names, `using`) from solc's AST.
import type { Xabi, XabiFunc, XabiType } from '@platform/common';
import { selectorOf, signature, type AbiEntry, type AbiParam } from './abi-types.js';

/** A node of solc's JSON AST; only the fields read here are relied on. */
export type AstNode = Record<string, any>;

/** Every ContractDefinition by AST id (bases may live in other files) and every enum's members. */
export interface AstIndex {
  contracts: Map<number, AstNode>;
  /** enum members by bare name and by `Contract.Enum` */
  enums: Map<string, string[]>;
  /** user-defined value types: name → underlying type text */
  udvts: Map<string, string>;
}

export function indexAst(asts: AstNode[]): AstIndex {
  const idx: AstIndex = { contracts: new Map(), enums: new Map(), udvts: new Map() };
  const visit = (n: AstNode, scope: string) => {
    if (n.nodeType === 'ContractDefinition') {
      idx.contracts.set(n.id, n);
      for (const c of n.nodes ?? []) visit(c, n.name);
    } else if (n.nodeType === 'EnumDefinition') {
      const names = (n.members ?? []).map((m: AstNode) => m.name as string);
      if (!idx.enums.has(n.name)) idx.enums.set(n.name, names);
      idx.enums.set(scope ? `${scope}.${n.name}` : n.name, names);
    } else if (n.nodeType === 'UserDefinedValueTypeDefinition') {
      const under = n.underlyingType?.typeDescriptions?.typeString ?? n.underlyingType?.name;
      if (under) {
        idx.udvts.set(n.name, under);
        if (scope) idx.udvts.set(`${scope}.${n.name}`, under);
      }
    }
  };
  for (const ast of asts) for (const n of ast.nodes ?? []) visit(n, '');
  return idx;
}

const LOCATION = / (storage ref|storage pointer|memory|calldata|storage|slice)\b/g;
const lastSegment = (s: string) => s.slice(s.lastIndexOf('.') + 1);

/**
 * A type as solc writes it (AST `typeString`, storage-layout `label`, ABI
 * `internalType`) → the xabi's tagged type. Unknown forms read as dynamic bytes
 * rather than failing an upload over a description.
 */
export function xabiTypeOf(text: string, idx: AstIndex): XabiType {
  const s = text.replace(LOCATION, '').trim();
  const map = /^mapping\((.*)\)$/.exec(s);
  if (map) {
    const [k, v] = splitMapping(map[1]);
    return { type: 'Mapping', key: xabiTypeOf(k, idx), value: xabiTypeOf(v, idx) };
  }
  const arr = /^(.*)\[(\d*)\]$/.exec(s);
  if (arr) {
    const entry = xabiTypeOf(arr[1], idx);
    return arr[2] === '' ? { type: 'Array', entry } : { type: 'Array', entry, length: Number(arr[2]) };
  }
  const int = /^(u?)int(\d*)$/.exec(s);
  if (int) return { type: 'Int', signed: int[1] === '', bytes: int[2] === '' ? 32 : Number(int[2]) / 8 };
  const fb = /^bytes(\d+)$/.exec(s);
  if (fb) return { type: 'Bytes', dynamic: false, bytes: Number(fb[1]) };
  if (s === 'bytes') return { type: 'Bytes', dynamic: true };
  if (s === 'string') return { type: 'String', dynamic: true };
  if (s === 'bool') return { type: 'Bool' };
  if (s === 'address' || s === 'address payable') return { type: 'Address' };
  if (s.startsWith('struct ')) return { type: 'Struct', typedef: lastSegment(s.slice(7)) };
  if (s.startsWith('enum ')) {
    const name = s.slice(5);
    const names = idx.enums.get(name) ?? idx.enums.get(lastSegment(name));
    return names ? { type: 'Enum', typedef: lastSegment(name), names } : { type: 'Enum', typedef: lastSegment(name) };
  }
  if (s.startsWith('contract ')) return { type: 'Contract', typedef: lastSegment(s.slice(9)) };
  const udvt = idx.udvts.get(s) ?? idx.udvts.get(lastSegment(s));
  if (udvt) return xabiTypeOf(udvt, idx);
  if (s.startsWith('function ')) return { type: 'Bytes', dynamic: false, bytes: 24 };
  return { type: 'Bytes', dynamic: true };
}

/** `K => V` at the top level (V may itself be a mapping). */
function splitMapping(body: string): [string, string] {
  let depth = 0;
  for (let i = 0; i < body.length - 1; i++) {
    const c = body[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (depth === 0 && c === '=' && body[i + 1] === '>') return [body.slice(0, i).trim(), body.slice(i + 2).trim()];
  }
  return [body, 'bytes'];
}

function paramType(p: AbiParam, idx: AstIndex): XabiType {
  const t = xabiTypeOf(p.internalType ?? p.type, idx);
  // an internalType we cannot read (a user-defined value type from elsewhere): the ABI type is exact
  return t.type === 'Bytes' && t.dynamic && p.type !== 'bytes' ? xabiTypeOf(p.type, idx) : t;
}

function funcOf(e: AbiEntry, fn: AstNode | undefined, idx: AstIndex): XabiFunc {
  const args: XabiFunc['args'] = {};
  (e.inputs ?? []).forEach((p, i) => (args[p.name || `#${i}`] = { ...paramType(p, idx), index: i }));
  const vals: XabiFunc['vals'] = {};
  (e.outputs ?? []).forEach((p, i) => (vals[p.name || `#${i}`] = paramType(p, idx)));
  return {
    args,
    vals,
    stateMutability: e.stateMutability,
    visibility: fn?.visibility ?? 'public',
    modifiers: (fn?.modifiers ?? []).map((m: AstNode) => m.modifierName?.name ?? m.modifierName?.namePath).filter(Boolean),
  };
}

function literal(n: AstNode | undefined): unknown {
  if (n?.nodeType !== 'Literal') return undefined;
  if (n.kind === 'bool') return n.value === 'true';
  return n.value;
}

const KIND = { contract: 'ContractKind', interface: 'InterfaceKind', library: 'LibraryKind' } as const;

/** The xabi of contract `c` (a ContractDefinition) given its ABI. */
export function xabiOf(c: AstNode, abi: AbiEntry[], idx: AstIndex): Xabi {
  // base first, as SolidVM lists inherited members
  const linear: AstNode[] = [...(c.linearizedBaseContracts ?? [c.id])]
    .reverse()
    .map((id: number) => idx.contracts.get(id))
    .filter((n): n is AstNode => n !== undefined);
  const members = (type: string) => linear.flatMap((b) => (b.nodes ?? []).filter((n: AstNode) => n.nodeType === type));
  const fnBySelector = new Map<string, AstNode>();
  for (const f of members('FunctionDefinition')) if (f.functionSelector) fnBySelector.set(f.functionSelector, f);

  const abiBySelector = new Map(abi.filter((e) => e.type === 'function').map((e) => [selectorOf(e), e]));
  // in declaration order, base first, so the first of overloads keeps the bare
  // name as in SolidVM; getters of public variables are listed under vars
  const funcs: Xabi['funcs'] = {};
  const done = new Set<string>();
  for (const f of members('FunctionDefinition')) {
    const e = f.functionSelector && abiBySelector.get(f.functionSelector);
    if (!e || done.has(f.functionSelector)) continue;
    done.add(f.functionSelector);
    funcs[e.name! in funcs ? signature(e) : e.name!] = funcOf(e, fnBySelector.get(f.functionSelector), idx);
  }
  const ctor = abi.find((e) => e.type === 'constructor');
  // the most derived constructor: the one the ABI's constructor entry describes
  const ctorNode = members('FunctionDefinition').findLast((f) => f.kind === 'constructor');
  const constr = ctor ? funcOf(ctor, ctorNode, idx) : null;

  const vars: Record<string, unknown> = {};
  for (const v of members('VariableDeclaration')) {
    if (!v.stateVariable) continue;
    const entry: Record<string, unknown> = { ...xabiTypeOf(v.typeDescriptions?.typeString ?? '', idx), public: v.visibility === 'public', constant: v.constant === true };
    const init = literal(v.value);
    if (init !== undefined) entry.initialValue = init;
    if (v.mutability === 'immutable') entry.immutable = true;
    vars[v.name] = entry;
  }

  const types: Record<string, unknown> = {};
  for (const st of members('StructDefinition')) {
    const fields: Record<string, unknown> = {};
    (st.members ?? []).forEach((m: AstNode, i: number) => (fields[m.name] = { ...xabiTypeOf(m.typeDescriptions?.typeString ?? '', idx), index: i }));
    types[st.name] = { type: 'Struct', fields };
  }
  for (const en of members('EnumDefinition')) types[en.name] = { type: 'Enum', names: (en.members ?? []).map((m: AstNode) => m.name) };

  const modifiers: Record<string, unknown> = {};
  for (const m of members('ModifierDefinition')) {
    const args: Record<string, unknown> = {};
    (m.parameters?.parameters ?? []).forEach((p: AstNode, i: number) => (args[p.name] = { ...xabiTypeOf(p.typeDescriptions?.typeString ?? '', idx), index: i }));
    modifiers[m.name] = { args };
  }

  const events: Xabi['events'] = {};
  for (const e of abi) {
    if (e.type !== 'event') continue;
    events[e.name!] = { anonymous: e.anonymous === true, logs: (e.inputs ?? []).map((p, i) => [p.name || `arg${i}`, paramType(p, idx)]) };
  }

  const using: Record<string, unknown> = {};
  for (const u of members('UsingForDirective')) {
    const lib = u.libraryName?.name ?? u.libraryName?.namePath;
    if (lib) using[lib] = { type: u.typeName?.typeDescriptions?.typeString ?? '*' };
  }

  const kind = c.abstract ? 'AbstractKind' : KIND[c.contractKind as keyof typeof KIND];
  return { funcs, constr, vars: vars as Xabi['vars'], types, modifiers, events, kind, using };
}
