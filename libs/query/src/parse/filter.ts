// Filter expressions (PostgREST's `pOpExpr`, `pListVal`, `pLogicTree`):
//   expr  := ["not."] ( "in." list | "is." trilean | op "." value )
//   list  := "(" [element ("," element)*] ")"
//   logic := ["not."] ("and" | "or") "(" (logic | field "." expr) ("," ...)* ")"
// Values are where the quoting rules live (docs/conventions.md "Cirrus: PostgREST
// semantics that are easy to get wrong"):
// - a plain filter's value is the rest of the parameter, verbatim: quotes,
//   commas and parentheses are literal (`name=eq."a,b"` looks for `"a,b"`);
// - inside `in.(…)`, `or=(…)`, `and=(…)` a value ends at `,` or `)` unless it
//   is double-quoted ("a,b" with `\"` and `\\` escapes), and a quote that is
//   not followed by `,`/`)` is an ordinary character (QuerySpec "IN values
//   without quotes": `in.(Double"Quote"McGraw")`);
// - in a logic tree a `{...}` value is kept whole, commas included.
import type { ComparisonOperator, Condition, Predicate, Trilean } from '../ast.js';
import type { Cursor } from './cursor.js';
import { field, fieldText, quoted } from './names.js';

const COMPARISONS: ReadonlySet<string> = new Set(['eq', 'neq', 'lt', 'lte', 'gt', 'gte', 'like', 'ilike']);
/** PostgREST operators this language does not offer: named as such in errors. */
const UNSUPPORTED: ReadonlySet<string> = new Set([
  'cs', 'cd', 'ov', 'sl', 'sr', 'nxr', 'nxl', 'adj', 'match', 'imatch', 'isdistinct', 'fts', 'plfts', 'phfts', 'wfts',
]);

/** Nesting of and/or trees; deeper trees are refused before they reach PostgreSQL's stack limit. */
export const MAX_LOGIC_DEPTH = 32;

type ValueMode = 'plain' | 'logic';

/** The end of a value inside a list or a logic tree. */
const endsListValue = (c: Cursor) => c.done || c.peek() === ',' || c.peek() === ')';

function untilDelimiter(c: Cursor): string {
  const start = c.pos;
  while (!endsListValue(c)) c.pos++;
  return c.text.slice(start, c.pos);
}

/** A quoted value counts only when `,` or `)` (or the end) follows it. */
function quotedElement(c: Cursor): string | undefined {
  if (c.peek() !== '"') return undefined;
  return c.attempt(() => {
    const value = quoted(c);
    if (!endsListValue(c)) c.fail("',' or ')'");
    return value;
  });
}

function listElement(c: Cursor): string {
  return quotedElement(c) ?? untilDelimiter(c);
}

/** `(a,"b,c", d)`: PostgREST keeps the spaces inside elements except before the first. */
function list(c: Cursor): string[] {
  c.skipSpaces();
  c.expect('(');
  c.skipSpaces();
  const values = [listElement(c)];
  while (c.eat(',')) values.push(listElement(c));
  c.skipSpaces();
  c.expect(')', "',' or ')'");
  c.skipSpaces();
  // PostgREST treats a list that is one empty element as the empty list: in.() and in.("") match nothing
  return values.length === 1 && values[0] === '' ? [] : values;
}

function logicValue(c: Cursor): string {
  const q = quotedElement(c);
  if (q !== undefined) return q;
  if (c.peek() === '{') {
    const end = c.text.indexOf('}', c.pos);
    const brace = c.text.indexOf('{', c.pos + 1);
    if (end > 0 && (brace < 0 || brace > end)) {
      const value = c.text.slice(c.pos, end + 1);
      c.pos = end + 1;
      return value;
    }
  }
  return untilDelimiter(c);
}

function trilean(c: Cursor): Trilean {
  for (const word of ['null', 'unknown', 'true', 'false'] as const) {
    if (c.text.slice(c.pos, c.pos + word.length).toLowerCase() === word) {
      c.pos += word.length;
      return word;
    }
  }
  return c.fail('null or a trilean value (unknown, true, false)');
}

/** `[not.]op.value`: the negation and the predicate. */
export function opExpr(c: Cursor, mode: ValueMode): { negated: boolean; predicate: Predicate } {
  const negated = c.eat('not.');
  if (c.eat('in.')) return { negated, predicate: { op: 'in', values: list(c) } };
  if (c.eat('is.')) return { negated, predicate: { op: 'is', value: trilean(c) } };
  // the operator runs to the first dot; inside a logic tree it cannot cross a `,` or `)`
  const limit = mode === 'logic' ? untilDelimiterIndex(c) : c.text.length;
  const dot = c.text.indexOf('.', c.pos);
  if (dot < 0 || dot > limit) c.fail('an operator (eq, neq, lt, lte, gt, gte, like, ilike, in, is) followed by a dot');
  const op = c.text.slice(c.pos, dot);
  if (!COMPARISONS.has(op)) {
    const known = UNSUPPORTED.has(op.replace(/\(.*$/, ''));
    c.fail(known ? `a supported operator (${op} is not supported)` : `an operator (unknown operator ${JSON.stringify(op)})`);
  }
  c.pos = dot + 1;
  const value = mode === 'logic' ? logicValue(c) : c.text.slice(c.pos);
  if (mode === 'plain') c.pos = c.text.length;
  return { negated, predicate: { op: op as ComparisonOperator, value } };
}

function untilDelimiterIndex(c: Cursor): number {
  let i = c.pos;
  while (i < c.text.length && c.text[i] !== ',' && c.text[i] !== ')') i++;
  return i;
}

/**
 * A logic tree after its operator: `(a.eq.1,or(b.gt.2,c.is.null))`. The
 * parameter `not.or=(…)` arrives here as op `or`, negated.
 */
export function logicTree(c: Cursor, op: 'and' | 'or', negated: boolean, source: string, depth = 1): Condition {
  if (depth > MAX_LOGIC_DEPTH) c.fail(`at most ${MAX_LOGIC_DEPTH} levels of nested and/or`);
  c.skipSpaces();
  c.expect('(');
  const children: Condition[] = [];
  do {
    c.skipSpaces();
    children.push(logicChild(c, source, depth));
    c.skipSpaces();
  } while (c.eat(','));
  c.expect(')', "',' or ')'");
  c.skipSpaces();
  return { kind: 'logic', op, negated, children, source };
}

/** `and(`, `or(`, `not.and(`, `not.or(` at the cursor (sticky: matched in place, no copy). */
const NESTED = /(not\.)?(and|or)[ \t]*\(/y;

function logicChild(c: Cursor, source: string, depth: number): Condition {
  NESTED.lastIndex = c.pos;
  const nested = NESTED.exec(c.text);
  if (nested) {
    c.pos += (nested[1] ?? '').length + nested[2].length;
    return logicTree(c, nested[2] as 'and' | 'or', nested[1] !== undefined, source, depth + 1);
  }
  if (c.done || c.peek() === ',' || c.peek() === ')') c.fail('a filter (field.op.value) or and(...)/or(...)');
  const start = c.pos;
  const f = field(c);
  c.expect('.', "'.' after the field name, or and(...)/or(...)");
  const { negated, predicate } = opExpr(c, 'logic');
  return { kind: 'filter', field: f, negated, predicate, source: c.text.slice(start, c.pos).trim() || fieldText(f) };
}
