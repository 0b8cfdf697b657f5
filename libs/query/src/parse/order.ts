// The `order` parameter (PostgREST's `pOrder`):
//   order := term ("," term)*
//   term  := (field | name "(" field ")") ["." ("asc" | "desc")] ["." ("nullsfirst" | "nullslast")]
// A term must end at `,` or the end: `id.descc` and `id.asc.nlsfst` are errors,
// as in PostgREST's QuerySpec "order syntax errors". `Item(name).desc` orders
// by a column of the to-one embed `Item` (PostgREST 11's `pOrderRelationTerm`:
// one level, the planner checks it is an embed of the same level and to-one).
import type { OrderTerm } from '../ast.js';
import type { Cursor } from './cursor.js';
import { field } from './names.js';

function termEnd(c: Cursor): boolean {
  return c.done || c.peek() === ',';
}

function term(c: Cursor): OrderTerm {
  let f = field(c);
  let relation: string | undefined;
  if (c.peek() === '(') {
    if (f.path.length > 0) c.fail("'.', ',' or end of order");
    relation = f.name;
    c.pos++;
    f = field(c);
    c.expect(')', "')' after the embedded resource's column");
    c.skipSpaces();
  }
  let direction: OrderTerm['direction'] = null;
  let nulls: OrderTerm['nulls'] = null;
  if (!termEnd(c)) {
    c.expect('.', "'.', ',' or end of order");
    if (c.eat('asc')) direction = 'asc';
    else if (c.eat('desc')) direction = 'desc';
    else if (c.eat('nullsfirst')) nulls = 'first';
    else if (c.eat('nullslast')) nulls = 'last';
    else c.fail('asc, desc, nullsfirst or nullslast');
  }
  if (direction !== null && !termEnd(c)) {
    c.expect('.', "'.', ',' or end of order");
    if (c.eat('nullsfirst')) nulls = 'first';
    else if (c.eat('nullslast')) nulls = 'last';
    else c.fail('nullsfirst or nullslast');
  }
  c.skipSpaces();
  if (!termEnd(c)) c.fail("',' or end of order");
  return relation === undefined ? { field: f, direction, nulls } : { relation, field: f, direction, nulls };
}

export function orderList(c: Cursor): OrderTerm[] {
  const terms = [term(c)];
  while (c.eat(',')) terms.push(term(c));
  return terms;
}
