// planQuery: the checks against the catalogue (every name, every value's type)
// and the SQL it produces: parameterised, identifiers from the catalogue only.
import { PlatformError } from '@platform/common';
import { type CatalogueTable, catalogueOf, columnsOf, parseQuery, planQuery } from '../src/index.js';
import { LONG_NAME, VISIBLE, catalogue, counterTable, itemTable, oldItemTable, orderTable, ownerTable, secretTable } from './fixtures.js';

const plan = (query: string, table = 'Acme-Item', visibleChains = VISIBLE, cat = catalogue) =>
  planQuery(parseQuery(query), cat, { table, visibleChains });

function failure(run: () => unknown): PlatformError {
  try {
    run();
  } catch (err) {
    if (err instanceof PlatformError) return err;
    throw err;
  }
  throw new Error('expected a PlatformError');
}

/** Internal names that must never reach a message. */
const INTERNAL = ['t_item', 't_order', 't_owner', 't_counter', 't_secret', 'c_long', 'c_sep', 'chain_id', 'SELECT', '"q"', '?::'];

describe('planQuery: tables', () => {
  test('an unknown table is 404 TABLE_NOT_FOUND naming it', () => {
    const err = failure(() => plan('', 'Nope'));
    expect([err.code, err.status]).toEqual(['TABLE_NOT_FOUND', 404]);
    expect(err.message).toBe("no table named 'Nope'");
  });

  test('a table whose rows all lie on chains the caller cannot see is the same 404', () => {
    const hidden = failure(() => plan('', 'Acme-Secret'));
    expect([hidden.code, hidden.message]).toEqual(['TABLE_NOT_FOUND', "no table named 'Acme-Secret'"]);
    expect(plan('', 'Acme-Secret', ['c2']).table).toBe('Acme-Secret');
  });

  test('a PlatformError of the catalogue (an ambiguous bare name) passes through', () => {
    const ambiguous = catalogueOf([]);
    ambiguous.table = (name) => {
      throw new PlatformError('TABLE_AMBIGUOUS', `${name} is ambiguous: Acme-Item, Other-Item`);
    };
    expect(failure(() => plan('', 'Item', VISIBLE, ambiguous)).code).toBe('TABLE_AMBIGUOUS');
  });
});

describe('planQuery: every name and value is checked (400 BAD_QUERY naming it)', () => {
  test.each<[string, string, string?]>([
    // unknown columns, wherever they appear
    ['nope=eq.1', "column 'nope' does not exist in 'Acme-Item'"],
    ['select=id,nope', "column 'nope' does not exist in 'Acme-Item'"],
    ['order=nope', "column 'nope' does not exist in 'Acme-Item'"],
    ['or=(id.eq.1,nope.eq.2)', "column 'nope' does not exist in 'Acme-Item'"],
    ['select=Owner(nope)', "column 'nope' does not exist in 'Acme-Owner'"],
    ['select=count&order=nope', "column 'nope' does not exist in 'Acme-Item'"],
    ['Id=eq.1', "column 'Id' does not exist"],
    // casts to a type a select cannot cast to
    ['select=id::date', "cannot cast 'id' to 'date': the types a select can cast to are text,"],
    ['select=Owner(name::money)', "cannot cast 'name' to 'money'"],
    // values of the wrong type
    ['id=gt.abc', "invalid value 'abc' in 'id=gt.abc': it is not a number"],
    ['qty=eq.1e1001', 'it is not a number'],
    ['qty=eq.NaN', 'it is not a number'],
    ['qty=eq.0x10', 'it is not a number'],
    ['qty=eq.', "invalid value '' in 'qty=eq.'"],
    ['qty=in.(1,x)', "invalid value 'x' in 'qty=in.(1,x)'"],
    ['qty=in.( ,3,4)', "invalid value '' in 'qty=in.( ,3,4)'"],
    ['or=(qty.gt.1,qty.lt.z)', "invalid value 'z' in 'qty.lt.z'"],
    ['active=eq.maybe', "invalid value 'maybe' in 'active=eq.maybe': it is not a boolean"],
    ['active=eq.o', 'it is not a boolean'],
    ['meta=eq.{a:1}', 'it is not JSON'],
    ['meta->a=eq.abc', 'it is not JSON'],
    ['meta=eq."%5Cu0000"', 'it is not JSON'],
    ['meta=eq."%5Cud800"', 'it is not JSON'],
    ['name=eq.a%00b', "the parameter 'name' holds a NUL character (%00)"],
    // operators on the wrong type
    ['qty=like.1*', "'qty=like.1*': like applies to text, not to numeric"],
    ['active=ilike.t*', 'ilike applies to text, not to boolean'],
    ['meta->a=like.x', 'like applies to text, not to jsonb'],
    ['name=is.true', "'name=is.true': is.true applies to boolean columns only"],
    ['qty=is.unknown', 'is.unknown applies to boolean columns only'],
    ['name=like.abc%5C', 'a like pattern cannot end with an unpaired backslash'],
    // JSON paths
    ['name->a=eq.1', "'name->a': -> and ->> apply to jsonb columns, 'name' is text"],
    ['meta->>a->b=eq.1', '->> yields text, so it can only be the last step of a path'],
    ['meta->99999999999=eq.1', 'array index 99999999999 is out of range'],
    ['select=meta->>a->>b', '->> yields text'],
    // count
    ['select=id,count', 'count cannot be combined with other columns'],
    ['select=count(),count()&id=eq.1', ''],
    ['select=Owner(count())', 'count() is not supported inside an embedded resource'],
    // embedded resources
    ['select=Nope(*)', "no embeddable resource 'Nope' from 'Acme-Item'"],
    ['select=Owner!nope(*)', "no embeddable resource 'Owner' through 'nope' from 'Acme-Item'"],
    ['select=Owner(*)', "'Owner' is embeddable from 'Acme-Counter' in more than one way: write one of Owner!a(...), Owner!b(...)", 'Acme-Counter'],
    ['select=Acme-Order(*)', "'Acme-Order' is embeddable from 'Acme-Item' in more than one way: write one of Acme-Order!buyer(...), Acme-Order!seller(...)"],
    ['select=Acme-Order!nope(*)', "no embeddable resource 'Acme-Order' through 'nope' from 'Acme-Item'"],
    ['select=Item(*)', "'Item' is embeddable from 'Acme-Order' in more than one way: write one of Item!buyer(...), Item!seller(...)", 'Acme-Order'],
    ['select=Item!buyer(nope)', "column 'nope' does not exist in 'Acme-Item'", 'Acme-Order'],
    ['select=Items(Nope(*))', "no embeddable resource 'Nope' from 'Acme-Item'", 'Acme-Owner'],
    // parameters of embedded resources: the embed must be in select (PostgREST's PGRST108), its columns and values checked
    ['Nope.qty=eq.1', "'Nope' is not an embedded resource in this request"],
    ['select=id,Owner(*)&Nope.qty=eq.1', "'Nope' is not an embedded resource in this request"],
    ['select=id,Owner(*)&Owner.Acme-Item.qty=eq.1', "'Acme-Item' is not an embedded resource in this request"],
    ['select=id,Owner(*)&Owner.order=name&Nope.limit=1', "'Nope' is not an embedded resource in this request"],
    ['select=id,Owner(*)&Owner.nope=eq.1', "column 'nope' does not exist in 'Acme-Owner'"],
    ['select=id,Owner(*)&Owner.or=(name.eq.a,nope.eq.b)', "column 'nope' does not exist in 'Acme-Owner'"],
    ['select=id,Owner(*)&Owner.order=nope', "column 'nope' does not exist in 'Acme-Owner'"],
    ['select=id,Owner(*)&Owner.score=eq.abc', "invalid value 'abc' in 'Owner.score=eq.abc': it is not a number"],
    ['select=id,Owner(*)&Owner.name=is.true', "'Owner.name=is.true': is.true applies to boolean columns only"],
    ['select=id,Nope(*)&Nope.qty=eq.1', "no embeddable resource 'Nope' from 'Acme-Item'"],
    ['select=id,Owner!inner(nope)', "column 'nope' does not exist in 'Acme-Owner'"],
    ['select=id,Nope!inner(*)', "no embeddable resource 'Nope' from 'Acme-Item'"],
    ['select=a:Owner(*),b:Owner(*)&Owner.name=eq.x', "'Owner' names more than one embedded resource of select: give them aliases"],
    ['select=id,b:Owner(*)&b.limit=1&Owner.limit=2', "limit is given twice for the embedded resource 'Owner'"],
    ['select=address,Items(name)&Items.nope=eq.1', "column 'nope' does not exist in 'Acme-Item'", 'Acme-Owner'],
    // only is.null and not.is.null test an embed; other operators take the name for a column
    ['select=id,Owner(*)&Owner=eq.1', "column 'Owner' does not exist in 'Acme-Item'"],
    ['select=count&Owner=is.null', "column 'Owner' does not exist in 'Acme-Item'"],
    // related orders: a to-one embed of the same level, named by its alias if it has one
    ['select=id,Owner(*)&order=Acme-Order(id)', "'Acme-Order' is not an embedded resource in this request"],
    ['order=Owner(name)', "'Owner' is not an embedded resource in this request"],
    ['select=id,b:Owner(*)&order=Owner(name)', "'Owner' is not an embedded resource in this request"],
    ['select=id,Acme-Order!buyer(*)&order=Acme-Order(id)', "a related order on 'Acme-Order' is not possible: it is not a to-one embedded resource of 'Acme-Item'"],
    ['select=id,Owner(*)&order=Owner(nope)', "column 'nope' does not exist in 'Acme-Owner'"],
    ['select=id,Owner(*)&order=Owner(name->a)', "'name->a': -> and ->> apply to jsonb columns"],
    ['select=count&order=Owner(name)', "'Owner' is not an embedded resource in this request"],
  ])('%s', (...row) => {
    // a rest parameter: jest would take a third declared parameter for a done callback
    const [query, message, table] = row;
    if (message === '') {
      // two counts are fine (both the count)
      expect(plan(query, table).columns).toEqual([
        { key: 'count', kind: 'count' },
        { key: 'count', kind: 'count' },
      ]);
      return;
    }
    const err = failure(() => plan(query, table));
    expect([err.code, err.status]).toEqual(['BAD_QUERY', 400]);
    expect(err.message).toContain(message);
    for (const internal of INTERNAL) expect(err.message).not.toContain(internal);
  });

  test('an ambiguous embed names the hints that pick each relation in its details', () => {
    const err = failure(() => plan('select=Acme-Order(*)'));
    expect(err.details).toEqual({ relation: 'Acme-Order', table: 'Acme-Item', hints: ['Acme-Order!buyer', 'Acme-Order!seller'] });
    expect(plan('select=Acme-Order!buyer(id)').columns.map((c) => c.key)).toEqual(['Acme-Order']);
  });

  test('when two relations share a name and a hint, the suggestion is another name that picks one alone', () => {
    const rel = (name: string, target: string) => ({ name, target, on: [['address', 'item'], ['chainId', 'chainId']] as const, cardinality: 'many' as const, hint: 'item' });
    const order = (name: string, sql: string): CatalogueTable => ({
      name,
      sql,
      chainColumn: 'chainId',
      columns: columnsOf([
        ['chainId', 'chain_id', 'text'],
        ['item', 'item', 'text'],
      ]),
    });
    const item: CatalogueTable = {
      name: 'Item',
      sql: 't_i',
      chainColumn: 'chainId',
      columns: columnsOf([
        ['address', 'address', 'text'],
        ['chainId', 'chain_id', 'text'],
      ]),
      relations: [rel('Order', 'A-Order'), rel('Order', 'B-Order'), rel('A-Order', 'A-Order'), rel('B-Order', 'B-Order')],
    };
    const cat = catalogueOf([item, order('A-Order', 't_a'), order('B-Order', 't_b')]);
    const err = failure(() => plan('select=Order!item(*)', 'Item', VISIBLE, cat));
    expect(err.message).toBe("'Order' is embeddable from 'Item' in more than one way: write one of A-Order(...), B-Order(...)");
    expect(plan('select=A-Order(*)', 'Item', VISIBLE, cat).sql).toContain('"t_a"');
  });

  /** A table of the main chain with relations into Acme-Secret, whose rows are all on c2. */
  const pointer: CatalogueTable = {
    name: 'Pointer',
    sql: 't_pointer',
    chainColumn: 'chainId',
    columns: columnsOf([
      ['chainId', 'chain_id', 'text'],
      ['id', 'id', 'integer'],
      ['a', 'a', 'integer'],
      ['b', 'b', 'integer'],
    ]),
    relations: [
      { name: 'Acme-Secret', target: 'Acme-Secret', on: [['a', 'id']], cardinality: 'one' },
      { name: 'Thing', target: 'Acme-Secret', on: [['a', 'id']], cardinality: 'one' },
      { name: 'Thing', target: 'Pointer', on: [['b', 'id']], cardinality: 'one' },
      // a relation over two tables, one of which the caller cannot see: only the other is read
      { name: 'Both', target: 'Acme-Secret', alsoIn: ['Pointer'], on: [['a', 'id']], cardinality: 'many' },
    ],
  };

  test('an embed into a table the caller cannot see reads like one that does not exist', () => {
    const cat = catalogueOf([pointer, secretTable]);
    const hidden = failure(() => plan('select=*,Acme-Secret(*)', 'Pointer', VISIBLE, cat));
    const missing = failure(() => plan('select=*,Nope(*)', 'Pointer', VISIBLE, cat));
    expect([hidden.message, hidden.details]).toEqual([missing.message.replace("'Nope'", "'Acme-Secret'"), { ...missing.details, relation: 'Acme-Secret' }]);
    expect(plan('select=*,Acme-Secret(*)', 'Pointer', ['c2'], cat).columns.map((c) => c.key)).toEqual(['chainId', 'id', 'a', 'b', 'Acme-Secret']);
  });

  test('relations into tables the caller cannot see are left out before names, hints and ambiguity are looked at', () => {
    const cat = catalogueOf([pointer, secretTable]);
    // not ambiguous for a caller who cannot see Acme-Secret: the other relation is the only one
    expect(plan('select=Thing(*)', 'Pointer', VISIBLE, cat).sql).not.toContain('t_secret');
    expect(failure(() => plan('select=Thing!a(*)', 'Pointer', VISIBLE, cat)).message).toBe("no embeddable resource 'Thing' through 'a' from 'Pointer'");
    expect(failure(() => plan('select=Thing(*)', 'Pointer', ['c2'], cat)).message).toContain('write one of Thing!a(...), Thing!b(...)');
    const both = plan('select=Both(id)', 'Pointer', VISIBLE, cat).sql;
    expect(both).not.toContain('t_secret');
    expect(plan('select=Both(id)', 'Pointer', ['', 'c2'], cat).sql).toContain('UNION ALL');
  });

  test('parameters on an embed the caller cannot see answer exactly as on one that does not exist', () => {
    const cat = catalogueOf([pointer, secretTable]);
    for (const tail of ['Acme-Secret.id=eq.1', 'Acme-Secret.order=id', 'Acme-Secret.limit=1', 'Acme-Secret=is.null', 'order=Acme-Secret(id)']) {
      const hidden = failure(() => plan(`select=*,Acme-Secret(*)&${tail}`, 'Pointer', VISIBLE, cat));
      const missing = failure(() => plan(`select=*,Nope(*)&${tail.replace('Acme-Secret', 'Nope')}`, 'Pointer', VISIBLE, cat));
      expect([hidden.message, hidden.details]).toEqual([missing.message.replace("'Nope'", "'Acme-Secret'"), { ...missing.details, relation: 'Acme-Secret' }]);
    }
    const inner = failure(() => plan('select=*,Acme-Secret!inner(*)', 'Pointer', VISIBLE, cat));
    expect(inner.message).toBe("no embeddable resource 'Acme-Secret' from 'Pointer'");
    // a relation over two tables reads only the visible one, filters and !inner included
    const both = plan('select=Both!inner(id)&Both.id=gt.1', 'Pointer', VISIBLE, cat).sql;
    expect(both).not.toContain('t_secret');
  });

  test('an embed ordered by a column whose type differs between the tables it reads is refused', () => {
    const version = (name: string, sql: string, type: 'text' | 'integer'): CatalogueTable => ({
      name,
      sql,
      chainColumn: null,
      columns: columnsOf([
        ['address', 'address', 'text'],
        ['owner', 'owner', 'text'],
        ['qty', 'qty', type],
      ]),
    });
    const owner: CatalogueTable = {
      name: 'O',
      sql: 't_o',
      chainColumn: null,
      columns: columnsOf([['address', 'address', 'text']]),
      relations: [{ name: 'I', target: 'I', alsoIn: ['I@1'], on: [['address', 'owner']], cardinality: 'many' }],
    };
    const cat = catalogueOf([owner, version('I', 't_i2', 'text'), version('I@1', 't_i1', 'integer')]);
    expect(failure(() => plan('select=I(*)&I.order=qty', 'O', VISIBLE, cat)).message).toBe("'I' cannot be ordered by a column whose type differs between the tables it reads");
    // filters are typed per table: each version compares with its own type, and a value or operator that does not fit one matches none of its rows
    expect(plan('select=I(*)&I.qty=eq.5&I.order=address', 'O', VISIBLE, cat).bindings).toEqual(expect.arrayContaining(['5']));
    for (const filter of ['I.qty=eq.abc', 'I.qty=like.a*', 'I.or=(qty.eq.abc,qty.is.null)']) {
      const p = plan(`select=I(*)&${filter}`, 'O', VISIBLE, cat);
      expect(p.sql).toMatch(/"t_i2" AS e\d+ WHERE [^)]*"qty"/);
      expect(p.sql).toContain('FALSE');
    }
    expect(failure(() => plan('select=I(*)&I.nope=eq.1', 'O', VISIBLE, cat)).message).toBe("column 'nope' does not exist in 'I'");
    expect(failure(() => plan('select=I(*)&I.address=like.1%5C', 'O', VISIBLE, cat)).message).toContain('cannot end with an unpaired backslash');
  });

  test('more than 1000 output columns are refused', () => {
    const select = Array.from({ length: 1001 }, () => 'id').join(',');
    expect(failure(() => plan(`select=${select}`)).message).toBe('at most 1000 columns can be selected');
  });
});

describe('planQuery: the SQL', () => {
  test('request values are bound, never spliced; identifiers are the catalogue SQL names', () => {
    const evil = `x'); DROP TABLE q.t_item; --`;
    const p = plan(
      `select=id,${encodeURIComponent(LONG_NAME)},Owner(name)&name=eq.${encodeURIComponent(evil)}&or=(name.like.*${encodeURIComponent('\'"')}*,meta->>${encodeURIComponent('"k\\"ey"')}.eq.v)&order=meta->${encodeURIComponent('"o\'rder"')}.desc&limit=7&offset=3`,
    );
    for (const value of [evil, `'"`, 'k"ey', "o'rder", LONG_NAME, 'Owner', 'Acme-Item']) expect(p.sql).not.toContain(value);
    expect(p.bindings).toEqual(expect.arrayContaining([evil, `%'"%`, 'k"ey', "o'rder", 'name', 7, 3]));
    expect(p.sql).toContain('"q"."t_item" AS t0');
    expect(p.sql).toContain('t0."c_long"');
    expect(p.sql).toContain('"q"."t_owner" AS e1');
    // the placeholders and the bindings agree
    expect(p.sql.replace(/\\\?/g, '').split('?').length - 1).toBe(p.bindings.length);
  });

  test('the visibility predicate is in every WHERE, embedded ones included, bound as one array', () => {
    const p = plan('select=id,Owner(name,Acme-Item(id))');
    expect(p.sql.match(/"chain_id" = ANY\(\?::text\[\]\)/g)).toHaveLength(3);
    expect(p.bindings.filter((b) => Array.isArray(b) && b.join() === VISIBLE.join())).toHaveLength(3);
  });

  test('values of embedded filters, pages and null filters are bound; the embed tests are EXISTS on the same rows', () => {
    const evil = `x'); DROP TABLE q.t_owner; --`;
    const p = plan(`select=id,Owner!inner(name),Acme-Order!buyer(id)&Owner.name=eq.${encodeURIComponent(evil)}&Acme-Order.limit=4&Acme-Order.offset=2&Acme-Order=not.is.null`);
    expect(p.sql).not.toContain(evil);
    expect(p.bindings).toEqual(expect.arrayContaining([evil, 4, 2]));
    expect(p.sql.replace(/\\\?/g, '').split('?').length - 1).toBe(p.bindings.length);
    // the embed's filter is in its subquery and in the EXISTS of !inner; the page in the EXISTS of the null filter
    expect(p.bindings.filter((b) => b === evil)).toHaveLength(2);
    expect(p.sql).toMatch(/EXISTS \(SELECT 1 FROM "q"\."t_order" AS e\d+ WHERE .* LIMIT \? OFFSET \?\)/);
  });

  test('a to-one embed over two tables exists when either has its row, as one term of the WHERE', () => {
    const p = plan('select=id,Item!seller!inner(name)', 'Acme-Order');
    expect(p.sql).toMatch(/ AND \(EXISTS \(SELECT 1 FROM "q"\."t_item" AS e\d+ WHERE .*\) OR EXISTS \(SELECT 1 FROM "q"\."t_item_v1" AS e\d+ WHERE .*\)\) ORDER BY/);
  });

  test('a table of no chain gets no visibility predicate', () => {
    expect(plan('', 'Certificate').sql).not.toContain('ANY');
  });

  test('without order, the default order of the table; with it, only the terms given', () => {
    expect(plan('').sql).toMatch(/ORDER BY t0\."block_number", t0\."address"$/);
    expect(plan('order=qty.desc.nullslast,id').sql).toMatch(/ORDER BY t0\."qty" DESC NULLS LAST, t0\."id"$/);
    expect(plan('', 'Acme-Owner').sql).not.toContain('ORDER BY');
  });

  test('an internal default-order column orders rows but is neither selected nor filterable', () => {
    const history: CatalogueTable = {
      name: 'history@Acme-Item',
      sql: 'h_item',
      chainColumn: null,
      columns: columnsOf([['block_number', 'block_number', 'integer']]),
      defaultOrder: [{ column: 'block_number', direction: 'desc' }, { column: 'h_seq', internal: true, direction: 'desc' }],
    };
    const cat = catalogueOf([history]);
    expect(plan('', history.name, VISIBLE, cat).sql).toBe('SELECT t0."block_number" FROM "h_item" AS t0 WHERE TRUE ORDER BY t0."block_number" DESC, t0."h_seq" DESC');
    expect(plan('select=*', history.name, VISIBLE, cat).columns.map((c) => c.key)).toEqual(['block_number']);
    for (const query of ['select=h_seq', 'h_seq=eq.1', 'order=h_seq']) expect(failure(() => plan(query, history.name, VISIBLE, cat)).code).toBe('BAD_QUERY');
  });

  test('count=exact adds the total as the last output column, and a statement for an empty page', () => {
    const p = planQuery(parseQuery('qty=gt.5&limit=2', { prefer: 'count=exact' }), catalogue, { table: 'Acme-Item', visibleChains: VISIBLE });
    expect(p.count).toBe(true);
    expect(p.sql).toContain('(SELECT count(*) FROM "q"."t_item" AS t0 WHERE');
    expect(p.countSql).toMatch(/^SELECT count\(\*\) FROM "q"\."t_item" AS t0 WHERE/);
    expect(p.countBindings).toEqual([VISIBLE, '5']);
  });

  test('a `?` or `"` in a catalogue identifier is quoted and escaped, never a placeholder', () => {
    const odd: CatalogueTable = { name: 'Odd', sql: 'we?ird"name', chainColumn: null, columns: columnsOf([['a', 'col?"x', 'text']]) };
    const p = plan('a=eq.1', 'Odd', VISIBLE, catalogueOf([odd]));
    expect(p.sql).toBe('SELECT t0."col\\?""x" FROM "we\\?ird""name" AS t0 WHERE t0."col\\?""x" = ?::text');
  });

  test('tables and relations of the fixtures are consistent', () => {
    for (const t of [itemTable, oldItemTable, orderTable, ownerTable, counterTable]) expect(plan('select=*', t.name).columns.length).toBe(t.columns.size);
  });
});
