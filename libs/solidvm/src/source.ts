// From source text to syntax tree: SolidVM's forms the Solidity parser does
// not accept are rewritten before parsing (try blocks, `catch Err`, `throw`,
// `>>>`), the tree is marked with each node's file, and a parse that fails
// is reported with its position.
import { parse, tokenize } from '@solidity-parser/parser';
import type { AST } from './ast.js';
import { SolidVMCompileError } from './errors.js';

/** Marks every node with its file name, for error positions. */
// (it walks every value of the tree: nodes, lists, names and positions)
function tagFile(node: any, file: string): void {
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

export function parseFile(file: string, src: string): AST.SourceUnit {
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
