// The `order` parameter (PostgREST's `pOrder`):
//   order := term ("," term)*
//   term  := field ["." ("asc" | "desc")] ["." ("nullsfirst" | "nullslast")]
// A term must end at `,` or the end: `id.descc` and `id.asc.nlsfst` are errors,
// as in PostgREST's QuerySpec "order syntax errors". Ordering by an embedded
// resource's column (`Item(name).desc`) is refused with a message.
import type { OrderTerm } from '../ast.js';
import type { Cursor } from './cursor.js';
import { field } from './names.js';

function termEnd(c: Cursor): boolean {
  return c.done || c.peek() === ',';
}

function term(c: Cursor): OrderTerm {
  const f = field(c);
  if (c.peek() === '(') c.fail("'.', ',' or end of order (ordering by an embedded resource is not supported)");
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
  return { field: f, direction, nulls };
}

export function orderList(c: Cursor): OrderTerm[] {
  const terms = [term(c)];
  while (c.eat(',')) terms.push(term(c));
  return terms;
}
