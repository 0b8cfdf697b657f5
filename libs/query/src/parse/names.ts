// Field names and JSON paths, PostgREST's `pFieldName` and `pJsonPath`:
// - a name is letters, digits, `_`, `$` and spaces (trimmed), possibly joined
//   by `-` (a dash not starting `->`), so `field-with_sep` is one name;
// - or a double-quoted name with backslash escapes, for names holding `.`,
//   `,`, `:`, `(`... (`"a.dotted.column"`, PostgREST QuerySpec "reserved characters");
// - a path is `->key`, `->>key` or an array index `->0` / `->-1` (an index
//   only when a delimiter follows, otherwise it is a key named "0").
import type { FieldRef, JsonStep } from '../ast.js';
import type { Cursor } from './cursor.js';

const NAME_CHAR = /[\p{L}0-9_ $]/u;

function nameChar(c: Cursor): boolean {
  if (c.done) return false;
  const code = c.text.charCodeAt(c.pos);
  // ASCII first: a-z, A-Z, 0-9, _, space, $ (the common case, without a regular expression)
  if (code < 128) {
    return (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57) || code === 95 || code === 32 || code === 36;
  }
  return NAME_CHAR.test(c.text.charAt(c.pos));
}

/** A double-quoted text: `\x` stands for `x` (any character, PostgREST's `pQuotedValue`). */
export function quoted(c: Cursor): string {
  c.expect('"', 'a double quote');
  let out = '';
  for (;;) {
    if (c.done) c.fail('a closing double quote');
    const ch = c.peek();
    if (ch === '"') break;
    if (ch === '\\') {
      c.pos++;
      if (c.done) c.fail('a character after the backslash');
    }
    out += c.peek();
    c.pos++;
  }
  c.pos++;
  return out;
}

/**
 * An unquoted name at the cursor, or null (the cursor unmoved): the parts of
 * name characters joined by dashes, each part trimmed.
 */
function bareName(c: Cursor): string | null {
  const start = c.pos;
  const parts: string[] = [];
  for (;;) {
    const partStart = c.pos;
    while (nameChar(c)) c.pos++;
    if (c.pos === partStart) {
      c.pos = start;
      return null;
    }
    parts.push(c.text.slice(partStart, c.pos).trim());
    // a dash joins two parts of a name unless it starts an arrow
    if (c.peek() === '-' && c.peek(1) !== '>') c.pos++;
    else return parts.join('-');
  }
}

/** Control characters (C0, DEL) in a name: no column, table or alias has them, and they would only reach SQL. */
// eslint-disable-next-line no-control-regex -- control characters are what it looks for
const CONTROL = /[\u0000-\u001f\u007f]/;

/** A double-quoted name: any character but a control character. */
function quotedName(c: Cursor): string {
  const start = c.pos;
  const name = quoted(c);
  if (CONTROL.test(name)) {
    c.pos = start;
    c.fail('a name without control characters');
  }
  return name;
}

export function fieldName(c: Cursor): string {
  if (c.peek() === '"') return quotedName(c);
  return bareName(c) ?? c.fail('a field name (letters, digits, _, $ or a "quoted name")');
}

/** `name:` before a field or embed (a single colon: `::` is a cast), or null with the cursor unmoved. */
export function aliasPrefix(c: Cursor): string | null {
  const start = c.pos;
  const name = c.peek() === '"' ? c.attempt(() => quotedName(c)) : bareName(c);
  if (name !== null && name !== undefined && c.peek() === ':' && c.peek(1) !== ':') {
    c.pos++;
    return name;
  }
  c.pos = start;
  return null;
}

/** Ends an array index: what may follow `->0` (PostgREST's list, plus `)` inside an embed). */
function indexEnds(c: Cursor): boolean {
  return c.done || c.startsWith('->') || c.startsWith('::') || ['.', ',', ')'].includes(c.peek());
}

export function jsonPath(c: Cursor): JsonStep[] {
  const steps: JsonStep[] = [];
  for (;;) {
    const arrow = c.eat('->>') ? '->>' : c.eat('->') ? '->' : null;
    if (arrow === null) return steps;
    let index: number | undefined;
    const m = /^-?[0-9]+/.exec(c.text.slice(c.pos, c.pos + 24));
    if (m) {
      c.pos += m[0].length;
      if (indexEnds(c)) index = Number(m[0]);
      else c.pos -= m[0].length;
    }
    steps.push({ arrow, key: index ?? fieldName(c) });
  }
}

/** PostgREST's `pField`: surrounding spaces, a name, an optional JSON path. */
export function field(c: Cursor): FieldRef {
  c.skipSpaces();
  const name = fieldName(c);
  const path = jsonPath(c);
  c.skipSpaces();
  return { name, path };
}

/** A field as text for messages: `meta->owner->>name`. */
export function fieldText(f: FieldRef): string {
  return f.name + f.path.map((s) => `${s.arrow}${s.key}`).join('');
}
