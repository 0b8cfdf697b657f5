// A compilation unit: the parsed sources, their declarations collected by
// scope, inheritance linearised (C3, as Solidity does), and type names
// resolved. Function bodies are compiled later, per deployable contract
// (compiler.ts), because virtual dispatch and `super` depend on the most
// derived contract.
import { parse, tokenize } from '@solidity-parser/parser';
import { SolidVMCompileError } from './errors.js';
import { elementaryType, type EnumT, type SType, type StructT } from './types.js';

export type Node = any;

export interface EventDef {
  name: string;
  node: Node;
  anonymous: boolean;
  params: Array<{ name: string; t: SType; indexed: boolean }>;
  /** resolved lazily: event parameter types may use types declared later */
  resolved: boolean;
  scope: ContractInfo | null;
}

export interface ErrorDef {
  name: string;
  node: Node;
  scope: ContractInfo | null;
}

export interface ContractInfo {
  name: string;
  kind: 'contract' | 'interface' | 'library' | 'abstract';
  node: Node;
  file: string;
  /** C3 linearisation: this contract first, then bases from most to least derived */
  linear: ContractInfo[];
  structs: Map<string, StructT>;
  enums: Map<string, EnumT>;
  udvts: Map<string, SType>;
  events: Map<string, EventDef>;
  errors: Map<string, ErrorDef>;
  modifiers: Map<string, Node>;
  functions: Node[];
  stateVars: Node[];
  /** `using L for T` (T null: `*`) */
  usingFor: Array<{ lib: string | null; fns: string[]; type: Node | null }>;
  ctor: Node | null;
}

export interface Unit {
  files: Record<string, string>;
  contracts: Map<string, ContractInfo>;
  structs: Map<string, StructT>;
  enums: Map<string, EnumT>;
  udvts: Map<string, SType>;
  events: Map<string, EventDef>;
  errors: Map<string, ErrorDef>;
  freeFunctions: Node[];
  constants: Map<string, Node>;
  /** file-level `using L for T global` and plain file-level using */
  usingFor: Array<{ lib: string | null; fns: string[]; type: Node | null }>;
}

export function posOf(node: Node, file?: string): { file: string; line: number; column: number } | undefined {
  const loc = node?.loc?.start;
  if (!loc) return undefined;
  return { file: file ?? node.__file ?? '', line: loc.line, column: loc.column + 1 };
}

export function fail(node: Node, message: string): never {
  throw new SolidVMCompileError(message, posOf(node));
}

/** Marks every node with its file name, for error positions. */
function tagFile(node: Node, file: string): void {
  if (node === null || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    for (const n of node) tagFile(n, file);
    return;
  }
  if (typeof node.type === 'string') Object.defineProperty(node, '__file', { value: file, enumerable: false });
  // the parser reads an unnamed `address payable` parameter (`returns (address payable)`)
  // as an `address` named "payable"; `payable` is a keyword, never a name
  if (node.type === 'VariableDeclaration' && node.name === 'payable' && node.typeName?.type === 'ElementaryTypeName' && node.typeName.name === 'address') {
    node.name = null;
    node.identifier = null;
    node.typeName.stateMutability = 'payable';
  }
  for (const k in node) {
    if (k !== 'loc' && k !== 'range') tagFile(node[k], file);
  }
}

/** Prefix of the names the rewrite below introduces; no contract can declare them (they are reserved). */
export const SVM_MARK = '__solidvm_';

/**
 * SolidVM's error handling beyond Solidity (docs/conventions.md): `try { … }
 * catch DivideByZero { … } catch Err(uint a) { … }` and `throw Err(args)`.
 * The Solidity parser accepts none of it, so before parsing these forms are
 * rewritten, token by token, into Solidity the parser takes, with markers the
 * compiler recognises:
 * - `try {` becomes `try __solidvm_try() {` (a try whose guarded code is the block);
 * - `catch Name {` becomes `catch Error(bool __solidvm_Name) {`, and
 *   `catch Name(T a)` becomes `catch Error(bool __solidvm_Name, T a)`
 *   (a clause that catches the error called Name);
 * - `throw Name(…)` becomes `revert Name(…)`.
 * Lines are kept; columns after a rewrite on the same line shift by a few characters.
 */
export function rewriteSolidVMErrors(src: string): string {
  if (!/\btry\s*\{|\bthrow\s+[A-Za-z_$]|\bcatch\s+(?!Error\b|Panic\b)[A-Za-z_$]/.test(src)) return src;
  let toks: Array<{ type: string; value?: string; range?: [number, number] }>;
  try {
    toks = tokenize(src, { range: true }) as typeof toks;
  } catch {
    return src;
  }
  const edits: Array<[number, number, string]> = [];
  for (let i = 0; i + 1 < toks.length; i++) {
    const t = toks[i];
    const next = toks[i + 1];
    if (!t.range || !next.range) continue;
    if (t.value === 'try' && next.value === '{') edits.push([t.range[1], t.range[1], ` ${SVM_MARK}try()`]);
    else if (t.value === 'throw' && next.type === 'Identifier' && toks[i + 2]?.value === '(') edits.push([t.range[0], t.range[1], 'revert']);
    else if (t.value === 'catch' && next.type === 'Identifier' && next.value !== 'Error' && next.value !== 'Panic') {
      const after = toks[i + 2];
      const marker = `bool ${SVM_MARK}${next.value}`;
      if (after?.value === '{') edits.push([next.range[0], next.range[1], `Error(${marker})`]);
      else if (after?.value === '(' && after.range) {
        const empty = toks[i + 3]?.value === ')';
        edits.push([next.range[0], after.range[1], `Error(${marker}${empty ? '' : ', '}`]);
      }
    }
  }
  let out = src;
  // token ranges are [start, end); apply from the end so earlier offsets stay valid
  for (const [a, b, text] of edits.reverse()) out = out.slice(0, a) + text + out.slice(b);
  return out;
}

/**
 * SolidVM's unsigned shift `>>>` and `>>>=` (docs/conventions.md): the
 * Solidity parser reads `>>>` as `>>` followed by `>`, so each is written
 * `>> ` or `>>= ` (same length: positions are kept) and its offset
 * returned; `markUnsignedShifts` gives the parsed operator back its name.
 */
export function rewriteUnsignedShifts(src: string): { src: string; at: number[] } {
  if (!src.includes('>>>')) return { src, at: [] };
  let toks: Array<{ value?: string; range?: [number, number] }>;
  try {
    toks = tokenize(src, { range: true }) as typeof toks;
  } catch {
    return { src, at: [] };
  }
  const at: number[] = [];
  let out = src;
  for (let i = 0; i + 1 < toks.length; i++) {
    const t = toks[i];
    const next = toks[i + 1];
    if (t.value !== '>>' || !t.range || !next.range || next.range[0] !== t.range[1]) continue;
    if (next.value === '>') out = out.slice(0, t.range[0]) + '>> ' + out.slice(next.range[1]);
    else if (next.value === '>=') out = out.slice(0, t.range[0]) + '>>= ' + out.slice(next.range[1]);
    else continue;
    at.push(t.range[0]);
    i++;
  }
  return { src: out, at };
}

/** Renames the `>>`/`>>=` operators found at the offsets `rewriteUnsignedShifts` returned to `>>>`/`>>>=`. */
function markUnsignedShifts(node: any, at: Set<number>): void {
  if (!node || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    for (const n of node) markUnsignedShifts(n, at);
    return;
  }
  if (node.type === 'BinaryOperation' && (node.operator === '>>' || node.operator === '>>=') && node.left?.range && node.right?.range) {
    for (const o of at) {
      if (o >= node.left.range[1] && o < node.right.range[0]) {
        node.operator = node.operator === '>>' ? '>>>' : '>>>=';
        break;
      }
    }
  }
  for (const k in node) if (k !== 'loc' && k !== 'range') markUnsignedShifts(node[k], at);
}

function parseFile(file: string, src: string): Node {
  try {
    const shifts = rewriteUnsignedShifts(rewriteSolidVMErrors(src));
    const ast = parse(shifts.src, { loc: true, range: shifts.at.length > 0, tolerant: false });
    if (shifts.at.length) markUnsignedShifts(ast, new Set(shifts.at));
    tagFile(ast, file);
    return ast;
  } catch (err: any) {
    const e = err?.errors?.[0];
    if (e) throw new SolidVMCompileError(e.message, { file, line: e.line, column: e.column + 1 });
    // The parser reports most syntax errors itself, but on some (a keyword used
    // as a name, an operator with no operand) it fails while building its tree,
    // before reporting: find the offending token ourselves.
    const at = suspectToken(src);
    throw new SolidVMCompileError(at ? `syntax error at '${at.value}'` : 'syntax error', { file, line: at?.loc.start.line ?? 1, column: (at?.loc.start.column ?? 0) + 1 });
  }
}

/** The first token that cannot follow the one before it: a keyword where a name belongs, or an operator missing its operand. */
function suspectToken(src: string): { value: string; loc: { start: { line: number; column: number } } } | undefined {
  let toks: Array<{ type: string; value?: string; loc?: { start: { line: number; column: number } } }>;
  try {
    toks = tokenize(src, { loc: true }) as typeof toks;
  } catch {
    return undefined;
  }
  const operand = /^(=|\+|-|\*|\/|%|\*\*|==|!=|<|>|<=|>=|&&|\|\||&|\||\^|<<|>>|\+=|-=|\*=|\/=|\?|:|,)$/;
  for (let i = 1; i < toks.length; i++) {
    const prev = toks[i - 1];
    const t = toks[i];
    if (!t.loc || t.value === undefined) continue;
    const nameExpected = prev.type === 'Type' || prev.type === 'Identifier' || (prev.type === 'Punctuator' && prev.value === ']');
    if (nameExpected && t.type === 'Keyword' && !['memory', 'storage', 'calldata', 'public', 'private', 'internal', 'external', 'constant', 'immutable', 'indexed', 'payable', 'pure', 'view', 'returns', 'override', 'virtual', 'is', 'anonymous'].includes(t.value)) {
      return { value: t.value, loc: t.loc };
    }
    if (nameExpected && t.type === 'Keyword' && t.value === 'is' && prev.type !== 'Identifier') return { value: t.value, loc: t.loc };
    if (prev.type === 'Punctuator' && operand.test(prev.value ?? '') && t.type === 'Punctuator' && [';', ')', ']', '}'].includes(t.value)) {
      return { value: t.value, loc: t.loc };
    }
  }
  return undefined;
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
  const structNodes: Array<[StructT, Node, ContractInfo | null]> = [];
  const udvtNodes: Array<[Map<string, SType>, Node]> = [];
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
          unit.enums.set(node.name, { k: 'enum', name: node.name, members: node.members.map((m: Node) => m.name) });
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
    node.members.forEach((m: Node, i: number) => {
      if (st.index.has(m.name)) fail(m, `duplicate member ${m.name}`);
      st.fields.push({ name: m.name, t: resolveType(unit, scope, m.typeName) });
      st.index.set(m.name, i);
    });
  }
  return unit;
}

function eventDef(node: Node, scope: ContractInfo | null): EventDef {
  return { name: node.name, node, anonymous: !!node.isAnonymous, params: [], resolved: false, scope };
}

function usingOf(node: Node): { lib: string | null; fns: string[]; type: Node | null } {
  return { lib: node.libraryName ?? null, fns: node.functions ?? [], type: node.typeName ?? null };
}

function collectContract(
  node: Node,
  file: string,
  structNodes: Array<[StructT, Node, ContractInfo | null]>,
  udvtNodes: Array<[Map<string, SType>, Node]>,
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
  for (const sub of node.subNodes) {
    switch (sub.type) {
      case 'StateVariableDeclaration':
        for (const v of sub.variables) {
          // `account` is SolidVM's type and cast (docs/conventions.md): a state variable of that name would hide it
          if (v.name === 'account') fail(v, '`account` is a reserved word in SolidVM: a state variable cannot be named account');
          declare(v, v.name);
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
        c.enums.set(sub.name, { k: 'enum', name: sub.name, members: sub.members.map((m: Node) => m.name) });
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
  const bases: ContractInfo[] = c.node.baseContracts.map((b: Node) => {
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
      const list = (ps: Node[]) => ps.map((p: Node) => resolveType(unit, scope, p.typeName));
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
      return node.components.length === 1 ? constRat(unit, scope, node.components[0]) : undefined;
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

/** An exact rational number n/d: d > 0, in lowest terms (Solidity's rational constants). */
export interface Rat {
  n: bigint;
  d: bigint;
}

function gcd(a: bigint, b: bigint): bigint {
  if (a < 0n) a = -a;
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

export function rat(n: bigint, d: bigint): Rat {
  if (d < 0n) {
    n = -n;
    d = -d;
  }
  const g = gcd(n, d);
  return g > 1n ? { n: n / g, d: d / g } : { n, d };
}

/** A bound on the size of constants (solc's is 4096 bits), so that `10 ** 10 ** 10` fails at compile time. */
const MAX_BITS = 4096;

function tooLarge(r: Rat): boolean {
  return (r.n < 0n ? -r.n : r.n).toString(16).length * 4 > MAX_BITS + 4 || r.d.toString(16).length * 4 > MAX_BITS + 4;
}

/**
 * Exact arithmetic and comparisons on rational constants: a rational, a
 * bool, or undefined when the expression has no constant value (division by
 * zero, a fractional or huge exponent, bit operators on a fraction).
 */
export function ratOp(op: string, a: Rat, b: Rat): Rat | boolean | undefined {
  let r: Rat;
  switch (op) {
    case '+':
      r = rat(a.n * b.d + b.n * a.d, a.d * b.d);
      break;
    case '-':
      r = rat(a.n * b.d - b.n * a.d, a.d * b.d);
      break;
    case '*':
      r = rat(a.n * b.n, a.d * b.d);
      break;
    case '/':
      if (b.n === 0n) return undefined;
      r = rat(a.n * b.d, a.d * b.n);
      break;
    case '%': {
      if (b.n === 0n) return undefined;
      // a - b * trunc(a / b): the sign of the dividend, as for integers
      const q = (a.n * b.d) / (a.d * b.n);
      r = rat(a.n * b.d - q * b.n * a.d, a.d * b.d);
      break;
    }
    case '**': {
      if (b.d !== 1n || b.n > 4096n || b.n < -4096n) return undefined;
      if (b.n < 0n && a.n === 0n) return undefined;
      const e = b.n < 0n ? -b.n : b.n;
      const n = a.n ** e;
      const d = a.d ** e;
      r = b.n < 0n ? rat(d, n) : { n, d };
      break;
    }
    case '<':
      return a.n * b.d < b.n * a.d;
    case '>':
      return a.n * b.d > b.n * a.d;
    case '<=':
      return a.n * b.d <= b.n * a.d;
    case '>=':
      return a.n * b.d >= b.n * a.d;
    case '==':
      return a.n === b.n && a.d === b.d;
    case '!=':
      return a.n !== b.n || a.d !== b.d;
    default:
      return undefined;
  }
  return tooLarge(r) ? undefined : r;
}

const UNITS: Record<string, bigint> = {
  wei: 1n,
  gwei: 10n ** 9n,
  szabo: 10n ** 12n,
  finney: 10n ** 15n,
  ether: 10n ** 18n,
  seconds: 1n,
  minutes: 60n,
  hours: 3600n,
  days: 86400n,
  weeks: 604800n,
  years: 31536000n,
};

/** A number literal's exact value: decimal, hex or scientific (`15e-1`, `2.5e3`), times its unit. */
export function parseNumberRational(text: string, unitName: string | null): Rat {
  const t = text.replace(/_/g, '');
  const mult = unitName ? UNITS[unitName] : 1n;
  if (mult === undefined) throw new Error(`unknown unit ${unitName}`);
  if (/^0x/i.test(t)) return { n: BigInt(t) * mult, d: 1n };
  const m = /^(\d*)(?:\.(\d*))?(?:[eE](-?\d+))?$/.exec(t);
  if (!m) throw new Error(`bad number ${text}`);
  const intPart = m[1] || '0';
  const frac = m[2] ?? '';
  const exp = Number(m[3] ?? '0');
  // value = (intPart.frac) * 10^exp * mult, as num / 10^den
  const den = frac.length - exp;
  if (Math.abs(den) > 4096) throw new Error(`number ${text} is too large`);
  const num = BigInt(intPart + frac) * mult;
  return den <= 0 ? { n: num * 10n ** BigInt(-den), d: 1n } : rat(num, 10n ** BigInt(den));
}

/** A rational's value in SolidVM's decimal: 18 fractional digits, truncated toward zero. */
export function ratToDecimal(r: Rat): bigint {
  return (r.n * 10n ** 18n) / r.d;
}

/**
 * A number literal: a bigint when it is an integer (hex, `1e18`, `2.5 ether`,
 * `15e-1 * 2` once folded), otherwise { decimal } scaled by 10^18 (SolidVM's decimal type).
 */
export function parseNumberLiteral(text: string, unitName: string | null): bigint | { decimal: bigint } {
  const r = parseNumberRational(text, unitName);
  return r.d === 1n ? r.n : { decimal: ratToDecimal(r) };
}
