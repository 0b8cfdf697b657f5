// The `select` parameter (PostgREST's `pFieldForest`):
//   select := item ("," item)*            spaces allowed around items
//   item   := "*"
//           | [alias ":"] name ("!" (hint | "inner" | "left"))* "(" select ")"   embedded resource
//           | [alias ":"] "count()"                             the row count
//           | [alias ":"] name [json path] ["::" type]          a column, cast
// `!inner` drops the parent rows that have no embedded row, `!left` (the
// default) keeps them. Spreads (`...Item(*)`) are refused with a message
// saying so rather than misread; which cast types exist is the planner's
// business.
import type { SelectItem } from '../ast.js';
import type { Cursor } from './cursor.js';
import { aliasPrefix, field, fieldName } from './names.js';

/** How deep embedded resources may nest (`a(b(c(...)))`). */
export const MAX_EMBED_DEPTH = 8;

export function selectList(c: Cursor, depth = 0): SelectItem[] {
  const items: SelectItem[] = [];
  do {
    c.skipSpaces();
    items.push(selectItem(c, depth));
    c.skipSpaces();
  } while (c.eat(','));
  return items;
}

/** After an item: a separator, the end of an embed, or the end of the parameter. */
function itemEnd(c: Cursor): void {
  if (!(c.done || c.peek() === ',' || c.peek() === ')')) c.fail("',' or end of select");
}

function selectItem(c: Cursor, depth: number): SelectItem {
  if (c.eat('*')) {
    itemEnd(c);
    return { kind: 'star' };
  }
  if (c.startsWith('...')) c.fail('a column or embedded resource (spread embeds ...Item(*) are not supported)');
  const as = aliasPrefix(c);
  const start = c.pos;
  const name = fieldName(c);
  if (name === 'count' && c.eat('()')) {
    c.skipSpaces();
    itemEnd(c);
    return { kind: 'count', alias: as };
  }
  if (c.peek() === '(' || c.peek() === '!') return embed(c, name, as, depth);
  c.pos = start;
  const f = field(c);
  const cast = c.eat('::') ? castType(c) : null;
  itemEnd(c);
  return { kind: 'field', field: f, alias: as, cast };
}

/** A type name after `::`: letters, digits and underscores, starting with a letter (PostgREST's `pIdentifier` for casts). */
function castType(c: Cursor): string {
  const match = /^[A-Za-z][A-Za-z0-9_]*/.exec(c.text.slice(c.pos));
  if (!match) c.fail('a type name after ::');
  c.pos += match![0].length;
  return match![0].toLowerCase();
}

function embed(c: Cursor, relation: string, as: string | null, depth: number): SelectItem {
  let hint: string | null = null;
  let inner: boolean | null = null;
  while (c.eat('!')) {
    const param = fieldName(c);
    if (param === 'inner' || param === 'left') {
      if (inner !== null) c.fail("'(' (at most one of !inner and !left)");
      // !left is the default join: embedding never drops rows
      inner = param === 'inner';
      continue;
    }
    if (hint !== null) c.fail("'(' (at most one hint)");
    hint = param;
  }
  if (depth + 1 > MAX_EMBED_DEPTH) c.fail(`at most ${MAX_EMBED_DEPTH} levels of embedded resources`);
  c.expect('(');
  const select = selectList(c, depth + 1);
  c.expect(')', "',' or ')'");
  c.skipSpaces();
  itemEnd(c);
  return { kind: 'embed', relation, alias: as, hint, inner: inner ?? false, select };
}
