// A compilation unit: the parsed sources, their declarations collected by
// scope, inheritance linearised (C3, as Solidity does), and type names
// resolved. Function bodies are compiled later, per deployable contract
// (compiler.ts), because virtual dispatch and `super` depend on the most
// derived contract.
import { asNode, asNodes, fileOf, type AST, type Node } from './ast.js';
import { SolidVMCompileError } from './errors.js';
import { parseNumberRational, ratOp, type Rat } from './rational.js';
import { parseFile } from './source.js';
import { elementaryType, type EnumT, type SType, type StructT } from './types.js';

export interface EventDef {
  name: string;
  node: AST.EventDefinition;
  anonymous: boolean;
  params: Array<{ name: string; t: SType; indexed: boolean }>;
  /** resolved lazily: event parameter types may use types declared later */
  resolved: boolean;
  scope: ContractInfo | null;
}

export interface ErrorDef {
  name: string;
  node: AST.CustomErrorDefinition;
  scope: ContractInfo | null;
}

/** `using L for T` or `using {f, g} for T` (type null: `*`) */
export interface UsingFor {
  lib: string | null;
  fns: string[];
  type: AST.TypeName | null;
}

export interface ContractInfo {
  name: string;
  kind: 'contract' | 'interface' | 'library' | 'abstract';
  node: AST.ContractDefinition;
  file: string;
  /** C3 linearisation: this contract first, then bases from most to least derived */
  linear: ContractInfo[];
  structs: Map<string, StructT>;
  enums: Map<string, EnumT>;
  udvts: Map<string, SType>;
  events: Map<string, EventDef>;
  errors: Map<string, ErrorDef>;
  modifiers: Map<string, AST.ModifierDefinition>;
  functions: AST.FunctionDefinition[];
  stateVars: AST.StateVariableDeclarationVariable[];
  usingFor: UsingFor[];
  ctor: AST.FunctionDefinition | null;
}

export interface Unit {
  files: Record<string, string>;
  contracts: Map<string, ContractInfo>;
  structs: Map<string, StructT>;
  enums: Map<string, EnumT>;
  udvts: Map<string, SType>;
  events: Map<string, EventDef>;
  errors: Map<string, ErrorDef>;
  freeFunctions: AST.FunctionDefinition[];
  constants: Map<string, AST.FileLevelConstant>;
  /** file-level `using L for T global` and plain file-level using */
  usingFor: UsingFor[];
}

export function posOf(node: Node, file?: string): { file: string; line: number; column: number } | undefined {
  const loc = node?.loc?.start;
  if (!loc) return undefined;
  return { file: file ?? fileOf(node) ?? '', line: loc.line, column: loc.column + 1 };
}

export function fail(node: Node, message: string): never {
  throw new SolidVMCompileError(message, posOf(node));
}

export function buildUnit(files: Record<string, string>): Unit {
  const unit: Unit = {
    files,
    contracts: new Map(),
    structs: new Map(),
    enums: new Map(),
    udvts: new Map(),
    events: new Map(),
    errors: new Map(),
    freeFunctions: [],
    constants: new Map(),
    usingFor: [],
  };
  const structNodes: Array<[StructT, AST.StructDefinition, ContractInfo | null]> = [];
  const udvtNodes: Array<[Map<string, SType>, AST.TypeDefinition]> = [];
  // Sorting file names keeps the result independent of object key order.
  for (const file of Object.keys(files).sort()) {
    const ast = parseFile(file, files[file]);
    for (const node of ast.children) {
      switch (node.type) {
        case 'PragmaDirective':
        case 'ImportDirective':
          // all files of the upload form one namespace; imports need no resolution
          break;
        case 'ContractDefinition': {
          if (unit.contracts.has(node.name)) fail(node, `duplicate declaration of contract ${node.name}`);
          unit.contracts.set(node.name, collectContract(node, file, structNodes, udvtNodes));
          break;
        }
        case 'StructDefinition': {
          const st: StructT = { k: 'struct', name: node.name, fields: [], index: new Map() };
          if (unit.structs.has(node.name)) fail(node, `duplicate declaration of ${node.name}`);
          unit.structs.set(node.name, st);
          structNodes.push([st, node, null]);
          break;
        }
        case 'EnumDefinition':
          unit.enums.set(node.name, { k: 'enum', name: node.name, members: node.members.map((m) => m.name) });
          break;
        case 'FunctionDefinition':
          unit.freeFunctions.push(node);
          break;
        case 'FileLevelConstant':
          if (unit.constants.has(node.name)) fail(node, `duplicate declaration of ${node.name}`);
          unit.constants.set(node.name, node);
          break;
        case 'EventDefinition':
          unit.events.set(node.name, eventDef(node, null));
          break;
        case 'CustomErrorDefinition':
          unit.errors.set(node.name, { name: node.name, node, scope: null });
          break;
        case 'TypeDefinition':
          udvtNodes.push([unit.udvts, node]);
          break;
        case 'UsingForDeclaration':
          unit.usingFor.push(usingOf(node));
          break;
        default:
          fail(node, `unsupported top-level ${node.type}`);
      }
    }
  }
  for (const [map, node] of udvtNodes) {
    const t = elementaryType(node.definition.name);
    if (!t) fail(node, `unsupported underlying type ${node.definition.name}`);
    map.set(node.name, t);
  }
  for (const c of unit.contracts.values()) linearise(unit, c, new Set());
  for (const [st, node, scope] of structNodes) {
    node.members.forEach((m, i) => {
      // (the grammar gives every member a name and a type)
      const name = m.name!;
      if (st.index.has(name)) fail(m, `duplicate member ${name}`);
      st.fields.push({ name, t: resolveType(unit, scope, m.typeName!) });
      st.index.set(name, i);
    });
  }
  return unit;
}

function eventDef(node: AST.EventDefinition, scope: ContractInfo | null): EventDef {
  return { name: node.name, node, anonymous: !!node.isAnonymous, params: [], resolved: false, scope };
}

function usingOf(node: AST.UsingForDeclaration): UsingFor {
  return { lib: node.libraryName ?? null, fns: node.functions ?? [], type: node.typeName ?? null };
}

function collectContract(
  node: AST.ContractDefinition,
  file: string,
  structNodes: Array<[StructT, AST.StructDefinition, ContractInfo | null]>,
  udvtNodes: Array<[Map<string, SType>, AST.TypeDefinition]>,
): ContractInfo {
  const kind = node.kind === 'interface' ? 'interface' : node.kind === 'library' ? 'library' : node.kind === 'abstract' ? 'abstract' : 'contract';
  const c: ContractInfo = {
    name: node.name,
    kind,
    node,
    file,
    linear: [],
    structs: new Map(),
    enums: new Map(),
    udvts: new Map(),
    events: new Map(),
    errors: new Map(),
    modifiers: new Map(),
    functions: [],
    stateVars: [],
    usingFor: [],
    ctor: null,
  };
  const names = new Set<string>();
  const declare = (n: Node, name: string) => {
    if (names.has(name)) fail(n, `duplicate declaration of ${name} in ${c.name}`);
    names.add(name);
  };
  for (const sub of asNodes(node.subNodes)) {
    switch (sub.type) {
      case 'StateVariableDeclaration':
        for (const v of sub.variables) {
          // `account` is SolidVM's type and cast (docs/conventions.md): a state variable of that name would hide it
          if (v.name === 'account') fail(v, '`account` is a reserved word in SolidVM: a state variable cannot be named account');
          declare(v, v.name!);
          c.stateVars.push(v);
        }
        break;
      case 'FunctionDefinition':
        if (sub.isConstructor) {
          if (c.ctor) fail(sub, 'more than one constructor');
          c.ctor = sub;
        } else if (sub.name === c.name && !sub.isFallback && !sub.isReceiveEther && kind === 'contract') {
          // pre-0.5 constructor named after the contract (legacy syntax)
          if (c.ctor) fail(sub, 'more than one constructor');
          c.ctor = sub;
        } else c.functions.push(sub);
        break;
      case 'ModifierDefinition':
        declare(sub, sub.name);
        c.modifiers.set(sub.name, sub);
        break;
      case 'StructDefinition': {
        declare(sub, sub.name);
        const st: StructT = { k: 'struct', name: sub.name, fields: [], index: new Map() };
        c.structs.set(sub.name, st);
        structNodes.push([st, sub, c]);
        break;
      }
      case 'EnumDefinition':
        declare(sub, sub.name);
        c.enums.set(sub.name, { k: 'enum', name: sub.name, members: sub.members.map((m) => m.name) });
        break;
      case 'EventDefinition':
        c.events.set(sub.name, eventDef(sub, c));
        break;
      case 'CustomErrorDefinition':
        declare(sub, sub.name);
        c.errors.set(sub.name, { name: sub.name, node: sub, scope: c });
        break;
      case 'UsingForDeclaration':
        c.usingFor.push(usingOf(sub));
        break;
      case 'TypeDefinition':
        declare(sub, sub.name);
        udvtNodes.push([c.udvts, sub]);
        break;
      default:
        fail(sub, `unsupported ${sub.type} in contract ${c.name}`);
    }
  }
  return c;
}

function linearise(unit: Unit, c: ContractInfo, visiting: Set<string>): ContractInfo[] {
  if (c.linear.length) return c.linear;
  if (visiting.has(c.name)) fail(c.node, `cyclic inheritance involving ${c.name}`);
  visiting.add(c.name);
  const bases: ContractInfo[] = c.node.baseContracts.map((b) => {
    const bc = unit.contracts.get(b.baseName.namePath);
    if (!bc) fail(b, `unknown base contract ${b.baseName.namePath}`);
    return bc;
  });
  // Solidity: in `is A, B` the rightmost base is the most derived.
  const rev = [...bases].reverse();
  const lists = [...rev.map((b) => [...linearise(unit, b, visiting)]), [...rev]];
  const out: ContractInfo[] = [c];
  while (lists.some((l) => l.length)) {
    let head: ContractInfo | undefined;
    for (const l of lists) {
      if (!l.length) continue;
      const cand = l[0];
      if (!lists.some((o) => o.indexOf(cand) > 0)) {
        head = cand;
        break;
      }
    }
    if (!head) fail(c.node, `linearization of inheritance graph impossible for ${c.name}`);
    out.push(head);
    for (const l of lists) if (l[0] === head) l.shift();
  }
  visiting.delete(c.name);
  c.linear = out;
  return out;
}

/** Looks up a named type in a contract's scope (own, then bases), then at file level. */
export function lookupType(unit: Unit, scope: ContractInfo | null, name: string): SType | undefined {
  const dot = name.indexOf('.');
  if (dot > 0) {
    const c = unit.contracts.get(name.slice(0, dot));
    if (!c) return undefined;
    return lookupType(unit, c, name.slice(dot + 1));
  }
  if (scope) {
    for (const c of scope.linear) {
      const t = c.structs.get(name) ?? c.enums.get(name) ?? c.udvts.get(name);
      if (t) return t;
    }
  }
  const t = unit.structs.get(name) ?? unit.enums.get(name) ?? unit.udvts.get(name);
  if (t) return t;
  if (unit.contracts.has(name)) return { k: 'contract', name };
  return elementaryType(name);
}

export function resolveType(unit: Unit, scope: ContractInfo | null, node: Node): SType {
  if (!node) fail(node, 'missing type');
  switch (node.type) {
    case 'ElementaryTypeName': {
      if (node.name === 'var') fail(node, '`var` needs an initial value');
      const t = elementaryType(node.name);
      if (!t) fail(node, `unknown type ${node.name}`);
      return t;
    }
    case 'UserDefinedTypeName': {
      const t = lookupType(unit, scope, node.namePath);
      if (!t) fail(node, `unknown type ${node.namePath}`);
      return t;
    }
    case 'ArrayTypeName': {
      const elem = resolveType(unit, scope, node.baseTypeName);
      let len: number | null = null;
      if (node.length) {
        const v = constInt(unit, scope, node.length);
        if (v === undefined || v < 0n || v > 1_000_000n) fail(node.length, 'array length must be a constant integer');
        len = Number(v);
      }
      return { k: 'array', elem, len };
    }
    case 'Mapping':
      return { k: 'mapping', key: resolveType(unit, scope, node.keyType), value: resolveType(unit, scope, node.valueType) };
    case 'FunctionTypeName': {
      if (node.visibility === 'external') fail(node, 'external function types are not supported');
      const list = (ps: AST.VariableDeclaration[]) => ps.map((p) => resolveType(unit, scope, p.typeName!));
      return { k: 'function', params: list(node.parameterTypes ?? []), returns: list(node.returnTypes ?? []), mutability: node.stateMutability ?? null };
    }
    default:
      return fail(node, `unsupported type ${node.type}`);
  }
}

/** Evaluates a constant integer expression (array lengths): literals, arithmetic, named constants. */
export function constInt(unit: Unit, scope: ContractInfo | null, node: Node): bigint | undefined {
  const r = constRat(unit, scope, node);
  return r && r.d === 1n ? r.n : undefined;
}

/** The exact value of a constant expression, as Solidity's rational constants (intermediate fractions kept). */
function constRat(unit: Unit, scope: ContractInfo | null, node: Node): Rat | undefined {
  switch (node.type) {
    case 'NumberLiteral':
      try {
        return parseNumberRational(node.number, node.subdenomination);
      } catch {
        return undefined;
      }
    case 'BinaryOperation': {
      const a = constRat(unit, scope, node.left);
      const b = constRat(unit, scope, node.right);
      if (a === undefined || b === undefined) return undefined;
      const v = ratOp(node.operator, a, b);
      return typeof v === 'object' ? v : undefined;
    }
    case 'UnaryOperation': {
      const a = node.operator === '-' ? constRat(unit, scope, node.subExpression) : undefined;
      return a && { n: -a.n, d: a.d };
    }
    case 'TupleExpression':
      return node.components.length === 1 ? constRat(unit, scope, asNode(node.components[0])!) : undefined;
    case 'Identifier': {
      if (scope) {
        for (const c of scope.linear) {
          const v = c.stateVars.find((s) => s.name === node.name && s.isDeclaredConst);
          if (v) return v.expression ? constRat(unit, scope, v.expression) : undefined;
        }
      }
      const fc = unit.constants.get(node.name);
      return fc ? constRat(unit, null, fc.initialValue) : undefined;
    }
    default:
      return undefined;
  }
}

