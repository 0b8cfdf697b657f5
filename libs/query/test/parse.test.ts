// Table-driven tests of the parser: every construct of the grammar and every
// error. Sources of the behaviours pinned are in README.md ("Semantics").
import { PlatformError } from '@platform/common';
import { type Condition, type QueryAst, parseQuery, prefersCount } from '../src/index.js';

const f = (name: string, path: Array<{ arrow: '->' | '->>'; key: string | number }> = []) => ({ name, path });
const filter = (source: string, field: ReturnType<typeof f>, predicate: unknown, negated = false) => ({
  kind: 'filter',
  field,
  negated,
  predicate,
  source,
});
/** The condition of a single filter parameter, e.g. `where('name=eq.x')`. */
const where = (query: string): Condition => {
  const ast = parseQuery(query);
  expect(ast.where).toHaveLength(1);
  return ast.where[0];
};
/** A condition without its source text, for comparing nested trees. */
const strip = (c: Condition): unknown =>
  c.kind === 'filter'
    ? { field: c.field, negated: c.negated, predicate: c.predicate }
    : { op: c.op, negated: c.negated, children: c.children.map(strip) };

describe('parseQuery: defaults', () => {
  test('no parameters: all columns, no filters, no order, no limit, offset 0, no count', () => {
    expect(parseQuery('')).toEqual<QueryAst>({ select: [{ kind: 'star' }], where: [], order: null, limit: null, offset: 0, count: false, embedded: [] });
  });
  test('accepts a string with or without ?, URLSearchParams, and pairs', () => {
    const expected = parseQuery('id=eq.1');
    expect(parseQuery('?id=eq.1')).toEqual(expected);
    expect(parseQuery(new URLSearchParams('id=eq.1'))).toEqual(expected);
    expect(parseQuery([['id', 'eq.1']])).toEqual(expected);
  });
});

describe('parseQuery: filters', () => {
  test.each<[string, unknown]>([
    ['id=eq.5', filter('id=eq.5', f('id'), { op: 'eq', value: '5' })],
    ['id=neq.5', filter('id=neq.5', f('id'), { op: 'neq', value: '5' })],
    ['id=lt.5', filter('id=lt.5', f('id'), { op: 'lt', value: '5' })],
    ['id=lte.5', filter('id=lte.5', f('id'), { op: 'lte', value: '5' })],
    ['id=gt.5', filter('id=gt.5', f('id'), { op: 'gt', value: '5' })],
    ['id=gte.5', filter('id=gte.5', f('id'), { op: 'gte', value: '5' })],
    ['name=like.*a_b%', filter('name=like.*a_b%', f('name'), { op: 'like', value: '*a_b%' })],
    ['name=ilike.*A*', filter('name=ilike.*A*', f('name'), { op: 'ilike', value: '*A*' })],
    ['id=not.eq.5', filter('id=not.eq.5', f('id'), { op: 'eq', value: '5' }, true)],
    // a plain filter's value is everything after the operator, verbatim
    ['name=eq.a,b', filter('name=eq.a,b', f('name'), { op: 'eq', value: 'a,b' })],
    ['name=eq."q"', filter('name=eq."q"', f('name'), { op: 'eq', value: '"q"' })],
    ['name=eq.a.b.c', filter('name=eq.a.b.c', f('name'), { op: 'eq', value: 'a.b.c' })],
    ['name=eq.(x)', filter('name=eq.(x)', f('name'), { op: 'eq', value: '(x)' })],
    ['name=eq.', filter('name=eq.', f('name'), { op: 'eq', value: '' })],
    ['name=eq.a+b', filter('name=eq.a b', f('name'), { op: 'eq', value: 'a b' })],
    ['name=eq.50%25', filter('name=eq.50%', f('name'), { op: 'eq', value: '50%' })],
    // is: null and trileans, any case
    ['a=is.null', filter('a=is.null', f('a'), { op: 'is', value: 'null' })],
    ['a=is.NULL', filter('a=is.NULL', f('a'), { op: 'is', value: 'null' })],
    ['a=is.True', filter('a=is.True', f('a'), { op: 'is', value: 'true' })],
    ['a=is.FAlSe', filter('a=is.FAlSe', f('a'), { op: 'is', value: 'false' })],
    ['a=is.UnKnOwN', filter('a=is.UnKnOwN', f('a'), { op: 'is', value: 'unknown' })],
    ['a=not.is.null', filter('a=not.is.null', f('a'), { op: 'is', value: 'null' }, true)],
    // in: quoting and escapes, spaces, empty lists
    ['a=in.(1,2,3)', filter('a=in.(1,2,3)', f('a'), { op: 'in', values: ['1', '2', '3'] })],
    ['a=in.("x,y",z)', filter('a=in.("x,y",z)', f('a'), { op: 'in', values: ['x,y', 'z'] })],
    ['a=in.("a\\"b","c\\\\d","\\e")', filter('a=in.("a\\"b","c\\\\d","\\e")', f('a'), { op: 'in', values: ['a"b', 'c\\d', 'e'] })],
    ['a=in.(")', filter('a=in.(")', f('a'), { op: 'in', values: ['"'] })],
    ['a=in.(x"y"z)', filter('a=in.(x"y"z)', f('a'), { op: 'in', values: ['x"y"z'] })],
    ['a=in.("x"y)', filter('a=in.("x"y)', f('a'), { op: 'in', values: ['"x"y'] })],
    ['a=in.("x)")', filter('a=in.("x)")', f('a'), { op: 'in', values: ['x)'] })],
    ['a=in.( 1, 2 )', filter('a=in.( 1, 2 )', f('a'), { op: 'in', values: ['1', ' 2 '] })],
    ['a=in.()', filter('a=in.()', f('a'), { op: 'in', values: [] })],
    ['a=in.(    )', filter('a=in.(    )', f('a'), { op: 'in', values: [] })],
    ['a=in.("")', filter('a=in.("")', f('a'), { op: 'in', values: [] })],
    ['a=in.(,)', filter('a=in.(,)', f('a'), { op: 'in', values: ['', ''] })],
    ['a=not.in.()', filter('a=not.in.()', f('a'), { op: 'in', values: [] }, true)],
    // field names: dashes, spaces, quotes, JSON paths
    ['field-with_sep=eq.1', filter('field-with_sep=eq.1', f('field-with_sep'), { op: 'eq', value: '1' })],
    ['"a.b,c"=eq.1', filter('"a.b,c"=eq.1', f('a.b,c'), { op: 'eq', value: '1' })],
    ['my+col=eq.1', filter('my col=eq.1', f('my col'), { op: 'eq', value: '1' })],
    ['Ünïcode=eq.1', filter('Ünïcode=eq.1', f('Ünïcode'), { op: 'eq', value: '1' })],
    ['meta->a=eq.1', filter('meta->a=eq.1', f('meta', [{ arrow: '->', key: 'a' }]), { op: 'eq', value: '1' })],
    ['meta->>a=eq.1', filter('meta->>a=eq.1', f('meta', [{ arrow: '->>', key: 'a' }]), { op: 'eq', value: '1' })],
    [
      'meta->a->0->>-1=eq.1',
      filter('meta->a->0->>-1=eq.1', f('meta', [{ arrow: '->', key: 'a' }, { arrow: '->', key: 0 }, { arrow: '->>', key: -1 }]), {
        op: 'eq',
        value: '1',
      }),
    ],
    ['meta->1a=eq.1', filter('meta->1a=eq.1', f('meta', [{ arrow: '->', key: '1a' }]), { op: 'eq', value: '1' })],
  ])('%s', (query, expected) => {
    expect(where(query)).toEqual(expected);
  });

  test('repeated filters all apply, in order', () => {
    const ast = parseQuery('a=gt.1&a=lt.5&b=is.null');
    expect(ast.where.map((c) => c.source)).toEqual(['a=gt.1', 'a=lt.5', 'b=is.null']);
  });
});

describe('parseQuery: and/or trees', () => {
  const eq = (name: string, value: string, negated = false) => ({ field: f(name), negated, predicate: { op: 'eq', value } });
  test.each<[string, unknown]>([
    ['or=(a.eq.1,b.eq.2)', { op: 'or', negated: false, children: [eq('a', '1'), eq('b', '2')] }],
    ['and=(a.eq.1)', { op: 'and', negated: false, children: [eq('a', '1')] }],
    ['not.or=(a.eq.1,b.eq.2)', { op: 'or', negated: true, children: [eq('a', '1'), eq('b', '2')] }],
    ['not.and=(a.eq.1,b.eq.2)', { op: 'and', negated: true, children: [eq('a', '1'), eq('b', '2')] }],
    [
      'or=(a.eq.1,and(b.eq.2,not.or(c.eq.3,d.not.eq.4)))',
      {
        op: 'or',
        negated: false,
        children: [
          eq('a', '1'),
          { op: 'and', negated: false, children: [eq('b', '2'), { op: 'or', negated: true, children: [eq('c', '3'), eq('d', '4', true)] }] },
        ],
      },
    ],
    // quoted values end at their closing quote; unquoted ones at , or )
    ['or=(a.eq."x,y",b.eq."(p)")', { op: 'or', negated: false, children: [eq('a', 'x,y'), eq('b', '(p)')] }],
    ['or=(a.eq."x"y,b.eq.2)', { op: 'or', negated: false, children: [eq('a', '"x"y'), eq('b', '2')] }],
    ['or=(a.eq.{1,2},b.eq.3)', { op: 'or', negated: false, children: [eq('a', '{1,2}'), eq('b', '3')] }],
    ['or=(a.eq.,b.eq.)', { op: 'or', negated: false, children: [eq('a', ''), eq('b', '')] }],
    // spaces around fields and separators are dropped, spaces inside values kept
    ['or=( a.eq.x y , b.eq.2 )', { op: 'or', negated: false, children: [eq('a', 'x y '), eq('b', '2 ')] }],
    [
      'and=( and ( id.in.( 1, 2, 3 ) , id.eq.3 ) , or ( id.eq.2 , id.eq.3 ) )',
      {
        op: 'and',
        negated: false,
        children: [
          {
            op: 'and',
            negated: false,
            children: [{ field: f('id'), negated: false, predicate: { op: 'in', values: ['1', ' 2', ' 3 '] } }, eq('id', '3 ')],
          },
          { op: 'or', negated: false, children: [eq('id', '2 '), eq('id', '3 ')] },
        ],
      },
    ],
    [
      'or=(a.in.(1,"2,3"),a.is.null,a.like.*x*)',
      {
        op: 'or',
        negated: false,
        children: [
          { field: f('a'), negated: false, predicate: { op: 'in', values: ['1', '2,3'] } },
          { field: f('a'), negated: false, predicate: { op: 'is', value: 'null' } },
          { field: f('a'), negated: false, predicate: { op: 'like', value: '*x*' } },
        ],
      },
    ],
    ['or=(meta->>a.eq.1)', { op: 'or', negated: false, children: [{ field: f('meta', [{ arrow: '->>', key: 'a' }]), negated: false, predicate: { op: 'eq', value: '1' } }] }],
  ])('%s', (query, expected) => {
    expect(strip(where(query))).toEqual(expected);
  });
});

describe('parseQuery: select', () => {
  test.each<[string, unknown]>([
    ['select=*', [{ kind: 'star' }]],
    ['select=id,name', [{ kind: 'field', field: f('id'), alias: null, cast: null }, { kind: 'field', field: f('name'), alias: null, cast: null }]],
    ['select= id , name ', [{ kind: 'field', field: f('id'), alias: null, cast: null }, { kind: 'field', field: f('name'), alias: null, cast: null }]],
    ['select=myId:id', [{ kind: 'field', field: f('id'), alias: 'myId', cast: null }]],
    ['select="a:b":"c.d"', [{ kind: 'field', field: f('c.d'), alias: 'a:b', cast: null }]],
    ['select=meta->a->>b', [{ kind: 'field', field: f('meta', [{ arrow: '->', key: 'a' }, { arrow: '->>', key: 'b' }]), alias: null, cast: null }]],
    ['select=x:meta->0', [{ kind: 'field', field: f('meta', [{ arrow: '->', key: 0 }]), alias: 'x', cast: null }]],
    ['select=count', [{ kind: 'field', field: f('count'), alias: null, cast: null }]],
    ['select=count()', [{ kind: 'count', alias: null }]],
    ['select=id::text', [{ kind: 'field', field: f('id'), alias: null, cast: 'text' }]],
    ['select=n:meta->>a::INT,id', [{ kind: 'field', field: f('meta', [{ arrow: '->>', key: 'a' }]), alias: 'n', cast: 'int' }, { kind: 'field', field: f('id'), alias: null, cast: null }]],
    ['select=Item(qty::numeric)', [{ kind: 'embed', relation: 'Item', alias: null, hint: null, inner: false, select: [{ kind: 'field', field: f('qty'), alias: null, cast: 'numeric' }] }]],
    ['select=total:count()', [{ kind: 'count', alias: 'total' }]],
    ['select=*,Item(*)', [{ kind: 'star' }, { kind: 'embed', relation: 'Item', alias: null, hint: null, inner: false, select: [{ kind: 'star' }] }]],
    [
      'select=id,it:Acme-Item(id,name)',
      [
        { kind: 'field', field: f('id'), alias: null, cast: null },
        {
          kind: 'embed',
          relation: 'Acme-Item',
          alias: 'it',
          hint: null,
          inner: false,
          select: [
            { kind: 'field', field: f('id'), alias: null, cast: null },
            { kind: 'field', field: f('name'), alias: null, cast: null },
          ],
        },
      ],
    ],
    ['select=Item!owner(id)', [{ kind: 'embed', relation: 'Item', alias: null, hint: 'owner', inner: false, select: [{ kind: 'field', field: f('id'), alias: null, cast: null }] }]],
    ['select=Item!left(id)', [{ kind: 'embed', relation: 'Item', alias: null, hint: null, inner: false, select: [{ kind: 'field', field: f('id'), alias: null, cast: null }] }]],
    [
      'select=A(B(C(*)))',
      [{ kind: 'embed', relation: 'A', alias: null, hint: null, inner: false, select: [{ kind: 'embed', relation: 'B', alias: null, hint: null, inner: false, select: [{ kind: 'embed', relation: 'C', alias: null, hint: null, inner: false, select: [{ kind: 'star' }] }] }] }],
    ],
    ['select=Item!inner(id)', [{ kind: 'embed', relation: 'Item', alias: null, hint: null, inner: true, select: [{ kind: 'field', field: f('id'), alias: null, cast: null }] }]],
    ['select=x:Item!owner!inner(*)', [{ kind: 'embed', relation: 'Item', alias: 'x', hint: 'owner', inner: true, select: [{ kind: 'star' }] }]],
    ['select=Item!inner!owner(*)', [{ kind: 'embed', relation: 'Item', alias: null, hint: 'owner', inner: true, select: [{ kind: 'star' }] }]],
    ['select=Item!left!owner(*)', [{ kind: 'embed', relation: 'Item', alias: null, hint: 'owner', inner: false, select: [{ kind: 'star' }] }]],
    ['select=Item( id , x:name )', [{ kind: 'embed', relation: 'Item', alias: null, hint: null, inner: false, select: [{ kind: 'field', field: f('id'), alias: null, cast: null }, { kind: 'field', field: f('name'), alias: 'x', cast: null }] }]],
  ])('%s', (query, expected) => {
    expect(parseQuery(query).select).toEqual(expected);
  });
});

describe('parseQuery: parameters of embedded resources', () => {
  const embedded = (path: string[], more: Record<string, unknown> = {}) => ({ path, where: [], order: null, limit: null, offset: 0, ...more });
  test.each<[string, unknown]>([
    ['Item.name=eq.x', [embedded(['Item'], { where: [filter('Item.name=eq.x', f('name'), { op: 'eq', value: 'x' })] })]],
    ['Item.qty=not.in.(1,"2,3")', [embedded(['Item'], { where: [filter('Item.qty=not.in.(1,"2,3")', f('qty'), { op: 'in', values: ['1', '2,3'] }, true)] })]],
    ['Item.name=eq.a,b.c', [embedded(['Item'], { where: [filter('Item.name=eq.a,b.c', f('name'), { op: 'eq', value: 'a,b.c' })] })]],
    ['Item.Owner.name=like.*a*', [embedded(['Item', 'Owner'], { where: [filter('Item.Owner.name=like.*a*', f('name'), { op: 'like', value: '*a*' })] })]],
    ['Item.meta->>a=is.null', [embedded(['Item'], { where: [filter('Item.meta->>a=is.null', f('meta', [{ arrow: '->>', key: 'a' }]), { op: 'is', value: 'null' })] })]],
    ['"a.b"."c.d"=eq.1', [embedded(['a.b'], { where: [filter('"a.b"."c.d"=eq.1', f('c.d'), { op: 'eq', value: '1' })] })]],
    ['Acme-Order.qty=gt.1', [embedded(['Acme-Order'], { where: [filter('Acme-Order.qty=gt.1', f('qty'), { op: 'gt', value: '1' })] })]],
    // an embed's own parameters
    ['Item.order=qty.desc,id', [embedded(['Item'], { order: [{ field: f('qty'), direction: 'desc', nulls: null }, { field: f('id'), direction: null, nulls: null }] })]],
    ['Item.order=Owner(name)', [embedded(['Item'], { order: [{ relation: 'Owner', field: f('name'), direction: null, nulls: null }] })]],
    ['Item.limit=2&Item.offset=3', [embedded(['Item'], { limit: 2, offset: 3 })]],
    ['Item.limit=0&Item.offset=-5', [embedded(['Item'], { limit: 0 })]],
    ['Item.Owner.limit=1', [embedded(['Item', 'Owner'], { limit: 1 })]],
    // repeated and several embeds: one entry per path, in the order first given, filters ANDed
    [
      'Item.a=eq.1&Other.b=eq.2&Item.c=is.null',
      [
        embedded(['Item'], { where: [filter('Item.a=eq.1', f('a'), { op: 'eq', value: '1' }), filter('Item.c=is.null', f('c'), { op: 'is', value: 'null' })] }),
        embedded(['Other'], { where: [filter('Other.b=eq.2', f('b'), { op: 'eq', value: '2' })] }),
      ],
    ],
  ])('%s', (query, expected) => {
    const ast = parseQuery(query);
    expect(ast.where).toEqual([]);
    expect(ast.embedded).toEqual(expected);
  });

  test.each<[string, unknown]>([
    ['Item.or=(a.eq.1,b.is.null)', { op: 'or', negated: false, children: [{ field: f('a'), negated: false, predicate: { op: 'eq', value: '1' } }, { field: f('b'), negated: false, predicate: { op: 'is', value: 'null' } }] }],
    ['Item.and=(a.eq.1)', { op: 'and', negated: false, children: [{ field: f('a'), negated: false, predicate: { op: 'eq', value: '1' } }] }],
    ['Item.not.or=(a.eq.1)', { op: 'or', negated: true, children: [{ field: f('a'), negated: false, predicate: { op: 'eq', value: '1' } }] }],
    ['Item.B.not.and=(a.eq.1)', { op: 'and', negated: true, children: [{ field: f('a'), negated: false, predicate: { op: 'eq', value: '1' } }] }],
  ])('%s', (query, expected) => {
    const [e] = parseQuery(query).embedded;
    expect(e.where).toHaveLength(1);
    expect(e.where[0].source).toBe(query);
    expect(strip(e.where[0])).toEqual(expected);
  });

  test('an embed filter and a top-level null filter on an embed are told apart by the key', () => {
    const ast = parseQuery('Item=not.is.null&Item.qty=gt.1');
    expect(ast.where).toEqual([filter('Item=not.is.null', f('Item'), { op: 'is', value: 'null' }, true)]);
    expect(ast.embedded.map((e) => e.path)).toEqual([['Item']]);
  });
});

describe('parseQuery: order, limit, offset, Prefer', () => {
  test.each<[string, unknown]>([
    ['order=id', [{ field: f('id'), direction: null, nulls: null }]],
    ['order=id.asc', [{ field: f('id'), direction: 'asc', nulls: null }]],
    ['order=id.desc', [{ field: f('id'), direction: 'desc', nulls: null }]],
    ['order=id.nullsfirst', [{ field: f('id'), direction: null, nulls: 'first' }]],
    ['order=id.desc.nullslast', [{ field: f('id'), direction: 'desc', nulls: 'last' }]],
    [
      'order=a.desc,b,c.asc.nullsfirst',
      [
        { field: f('a'), direction: 'desc', nulls: null },
        { field: f('b'), direction: null, nulls: null },
        { field: f('c'), direction: 'asc', nulls: 'first' },
      ],
    ],
    ['order= a , b.desc', [{ field: f('a'), direction: null, nulls: null }, { field: f('b'), direction: 'desc', nulls: null }]],
    ['order=meta->a.desc', [{ field: f('meta', [{ arrow: '->', key: 'a' }]), direction: 'desc', nulls: null }]],
    ['order=meta->0.desc', [{ field: f('meta', [{ arrow: '->', key: 0 }]), direction: 'desc', nulls: null }]],
    // a column of a to-one embed (PostgREST 11+)
    ['order=Owner(name).desc', [{ relation: 'Owner', field: f('name'), direction: 'desc', nulls: null }]],
    [
      'order=Owner(meta->a).nullsfirst,id',
      [
        { relation: 'Owner', field: f('meta', [{ arrow: '->', key: 'a' }]), direction: null, nulls: 'first' },
        { field: f('id'), direction: null, nulls: null },
      ],
    ],
    ['order= x ( name ) .asc', [{ relation: 'x', field: f('name'), direction: 'asc', nulls: null }]],
  ])('%s', (query, expected) => {
    expect(parseQuery(query).order).toEqual(expected);
  });

  test.each<[string, number | null, number]>([
    ['limit=10', 10, 0],
    ['limit=0', 0, 0],
    ['offset=5', null, 5],
    ['offset=-4', null, 0],
    ['limit=3&offset=2', 3, 2],
    ['limit=007', 7, 0],
    [`limit=${Number.MAX_SAFE_INTEGER}`, Number.MAX_SAFE_INTEGER, 0],
  ])('%s', (query, limit, offset) => {
    const ast = parseQuery(query);
    expect([ast.limit, ast.offset]).toEqual([limit, offset]);
  });

  test.each<[string | null | undefined, boolean]>([
    ['count=exact', true],
    ['return=representation, count=exact', true],
    ['COUNT=EXACT', true],
    ['count=planned', true],
    ['count=estimated', true],
    ['count=none', false],
    ['return=minimal', false],
    ['', false],
    [null, false],
    [undefined, false],
  ])('Prefer: %s', (prefer, count) => {
    expect(prefersCount(prefer)).toBe(count);
    expect(parseQuery('', { prefer }).count).toBe(count);
  });
});

describe('parseQuery: errors are 400 BAD_QUERY naming the offending part', () => {
  test.each<[string, string]>([
    // filters
    ['id=5', "the filter 'id=5' has no operator"],
    ['id=', "the filter 'id' has no operator"],
    ['id', "the filter 'id' has no operator"],
    ['id=eq', "the filter 'id=eq' has no operator"],
    ['id=foo.1', 'unknown operator "foo"'],
    ['id=EQ.1', 'unknown operator "EQ"'],
    ['id=not.foo.1', 'unknown operator "foo"'],
    ['id=not.5', 'expected an operator'],
    ['arr=cs.{1}', 'cs is not supported'],
    ['t=fts.word', 'fts is not supported'],
    ['t=fts(english).word', 'fts(english) is not supported'],
    ['a=is.nil', 'null or a trilean value'],
    ['a=is.ok', 'null or a trilean value'],
    ['a=is.nullx', 'expected end of input'],
    ['a=is.', 'null or a trilean value'],
    ['a=in.1,2', "expected '('"],
    ['a=in.(1,2', "expected ',' or ')'"],
    ['a=in.(1,2)x', 'expected end of input'],
    ['a(b)=eq.1', "failed to parse the parameter name 'a(b)'"],
    // parameters of embedded resources
    ['Item.name=5', "the filter 'Item.name=5' has no operator"],
    ['Item.name=', "the filter 'Item.name' has no operator"],
    ['Item.name=xx.1', 'unknown operator "xx"'],
    ['Item.=eq.1', 'a field name'],
    ['Item.meta->a.b=eq.1', 'expected end of the parameter name'],
    ['meta->a.b=eq.1', "expected '.' or end of the parameter name"],
    ['Item.select=id', 'the columns of Item are chosen in select: Item(...)'],
    ['Item.order=id.up', "failed to parse Item.order ('id.up')"],
    ['Item.order=', 'the parameter Item.order is empty'],
    ['Item.order=a&Item.order=b', 'the parameter Item.order is given more than once'],
    ['Item.limit=1&Item.limit=1', 'the parameter Item.limit is given more than once'],
    ['Item.limit=-1', 'Item.limit must be zero or more'],
    ['Item.limit=x', 'Item.limit must be an integer'],
    ['Item.offset=1.5', 'Item.offset must be an integer'],
    ['Item.or=(a.eq.1', "expected ',' or ')'"],
    ['Item.or=', 'the parameter Item.or is empty'],
    ['=eq.1', 'a parameter has no name'],
    ['"unterminated=eq.1', "failed to parse the parameter name"],
    ['columns=a,b', 'the parameter columns applies to writes'],
    ['on_conflict=a', 'the parameter on_conflict applies to writes'],
    // logic trees
    ['or=()', 'a filter (field.op.value) or and(...)/or(...)'],
    ['or=', 'the parameter or is empty'],
    ['or=a.eq.1', "expected '('"],
    ['or=(a.eq.1', "expected ',' or ')'"],
    ['or=(a.eq.1))', 'expected end of input'],
    ['or=(a.eq.1,)', 'a filter (field.op.value) or and(...)/or(...)'],
    ['or=(a)', "'.' after the field name"],
    ['or=(a.xx.1)', 'unknown operator "xx"'],
    ['or=(id.in.1,2,id.eq.3)', "expected '('"],
    ['or=(ord(id.eq.1))', "'.' after the field name"],
    ['or=(id.eq.1,not.xor(id.eq.2))', 'unknown operator "xor(id"'],
    ['and=(a.is.nullx)', "expected ',' or ')'"],
    [`or=${'or('.repeat(40)}a.eq.1${')'.repeat(40)}`.replace('or=or(', 'or=('), 'levels of nested and/or'],
    // select
    ['select=', 'the parameter select is empty'],
    ['select=id,', 'a field name'],
    ['select=id::', 'a type name after ::'],
    ['select=id::1x', 'a type name after ::'],
    ['select=id::text::int', "',' or end of select"],
    ['select=...Item(*)', 'spread embeds'],
    ['select=Item!a!b(*)', 'at most one hint'],
    ['select=Item!inner!left(*)', 'at most one of !inner and !left'],
    ['select=Item!inner!inner(*)', 'at most one of !inner and !left'],
    ['select=Item(*', "expected ',' or ')'"],
    ['select=Item()', 'a field name'],
    ['select=a:*', 'a field name'],
    ['select=id)', 'expected end of input'],
    ['select=*x', "',' or end of select"],
    ['select=a(b(c(d(e(f(g(h(i(*)))))))))', 'levels of embedded resources'],
    ['select=id&select=name', 'the parameter select is given more than once'],
    // order
    ['order=', 'the parameter order is empty'],
    ['order=id.ac', 'asc, desc, nullsfirst or nullslast'],
    ['order=id.descc', "',' or end of order"],
    ['order=id.nulsfist', 'asc, desc, nullsfirst or nullslast'],
    ['order=id.nullslasttt', "',' or end of order"],
    ['order=id.asc.nlsfst', 'nullsfirst or nullslast'],
    ['order=id.asc.smth34', 'nullsfirst or nullslast'],
    ['order=id.asc.nullslasttt', "',' or end of order"],
    ['order=id.desc ', "'.', ',' or end of order"],
    ['order=id,', 'a field name'],
    ['order=Item(name.desc', "')' after the embedded resource's column"],
    ['order=Item(A(name))', "')' after the embedded resource's column"],
    ['order=meta->a(x)', "'.', ',' or end of order"],
    ['order=Item()', 'a field name'],
    ['order=a&order=b', 'the parameter order is given more than once'],
    // limit, offset
    ['limit=-1', 'limit must be zero or more'],
    ['limit=abc', 'limit must be an integer'],
    ['limit=1.5', 'limit must be an integer'],
    ['limit=', 'the parameter limit is empty'],
    ['limit=99999999999999999999', 'limit must be at most'],
    ['offset=x', 'offset must be an integer'],
    ['limit=1&limit=2', 'the parameter limit is given more than once'],
  ])('%s', (query, message) => {
    let error: unknown;
    try {
      parseQuery(query);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(PlatformError);
    expect((error as PlatformError).code).toBe('BAD_QUERY');
    expect((error as PlatformError).status).toBe(400);
    expect((error as PlatformError).message).toContain(message);
  });

  test('a failed parse says which parameter, what it was and where', () => {
    expect(() => parseQuery('order=id.ac')).toThrow("failed to parse order ('id.ac') at column 4: expected asc, desc, nullsfirst or nullslast");
  });

  test('a long offending value is shortened in the message', () => {
    const long = 'x'.repeat(5000);
    try {
      parseQuery(`order=${long}.up`);
      throw new Error('no error');
    } catch (err) {
      expect((err as Error).message.length).toBeLessThan(400);
    }
  });

  test('a NUL anywhere, and a control character in a quoted name, is refused before any name is looked up', () => {
    for (const query of ['a%00=eq.1', 'a=eq.x%00', 'select=a%00', 'order=a%00.desc', 'select=Item%00(*)', 'or=(a.eq.%00)', '%00=x']) {
      expect(() => parseQuery(query)).toThrow('holds a NUL character (%00)');
    }
    for (const query of ['select=%22a%01b%22', 'select=%22a%0Ab%22', '%22a%1Fb%22=eq.1', 'select=%22x%7F%22:a', 'order=%22a%09%22']) {
      expect(() => parseQuery(query)).toThrow('a name without control characters');
    }
    // in quoted values a newline or a tab is text like any other
    expect(parseQuery('a=in.(%22x%0Ay%22)').where).toHaveLength(1);
  });

  test('more than 1000 conditions are refused', () => {
    const many = Array.from({ length: 1001 }, (_, i) => `a${i}=eq.1`).join('&');
    expect(() => parseQuery(many)).toThrow('at most 1000 filter conditions');
  });
});
