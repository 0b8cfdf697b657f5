// The query language through cirrus's endpoint (`cirrus.search`, what the
// gateway forwards `GET /cirrus/search/<table>` to) on data the indexer
// wrote, against hand-written SQL on the same tables: for every query of the
// corpus, the rows answered equal the statement's rows, in the statement's
// order. Statements are written against the internal tables; `{qty}` stands
// for the internal column of API column `qty` (the catalogue's mapping is
// the only thing taken from cirrus).
import { jsonText, parseJson } from '@platform/query';
import { Chain, Harness, SENDER, exec } from './helpers.js';

const LOT = `
contract Lot {
  enum Grade { Low, Mid, High }
  struct Meta { uint w; string tag; }
  string name;
  uint qty;
  int delta;
  bool active;
  Grade grade;
  address owner;
  Meta meta;
  mapping(string => uint) prices;
  uint[] sizes;
  event Sold(string who, uint n, bool ok);
  constructor(string _name, uint _qty, int _delta, bool _active, uint _grade, uint _w, string _tag) {
    name = _name; qty = _qty; delta = _delta; active = _active; grade = Grade(_grade); owner = msg.sender; meta = Meta(_w, _tag);
    prices[_name] = _qty; prices["all"] = _w; sizes.push(_qty); sizes.push(_w);
  }
  function sell(string who, uint n) { qty = qty - n; active = qty > 0; emit Sold(who, n, qty > 0); }
}`;

/** Deals refer to lots twice (`lot`, `alt`): the reverse embeds of Lot, told apart by hints. */
const DEAL = `${LOT}
contract Deal {
  Lot lot;
  Lot alt;
  uint qty;
  constructor(address l, address a, uint q) { lot = Lot(l); alt = Lot(a); qty = q; }
}`;

const NAMES = [
  'Widget', 'widget', 'Gadget, "big"', 'a%b', 'a_b', 'star*', 'back\\slash', 'space here', ' lead', 'émigré',
  'Hebdon, John', '(paren)', 'dot.ted', 'x', '', 'Widget 2', 'WIDGET', 'quote"inside', 'comma,end,', 'last',
];
const BIG = '9007199254740993';

const h = new Harness();
const chain = new Chain();
const OWNERS = ['11'.repeat(20), '22'.repeat(20), '33'.repeat(20)];

beforeAll(async () => {
  await h.start('cirrus_corpus');
  const created = NAMES.map((name, i) =>
    chain.create(1, OWNERS[i % 3], LOT, 'Lot', {
      _name: name,
      _qty: i === 7 ? BIG : String(i * 3),
      _delta: String(i % 2 === 0 ? -i : i),
      _active: i % 3 !== 0,
      _grade: i % 3,
      _w: i % 5,
      _tag: i % 4 === 0 ? 'red' : 'blue',
    }),
  );
  await h.publish(exec(1, created.slice(0, 10).map((c) => c.r)));
  await h.publish(exec(2, created.slice(10).map((c) => c.r)));
  // sales: history rows, events (two in one block), rows moving to later blocks
  await h.publish(exec(3, [chain.invoke(3, SENDER, created[4].address, 'sell', { who: 'Ann, "A"', n: 2 }), chain.invoke(3, SENDER, created[4].address, 'sell', { who: 'Bob', n: 10 })]));
  await h.publish(exec(4, [chain.invoke(4, SENDER, created[9].address, 'sell', { who: 'Cy%', n: 27 })]));
  // deals: several per lot, some lots with none, an `alt` that is no contract (NULL), two blocks
  const deal = (block: number, i: number) =>
    chain.create(block, OWNERS[i % 3], DEAL, 'Deal', { l: created[(i * 7) % 12].address, a: i % 4 === 0 ? OWNERS[0] : created[(i * 3) % 20].address, q: i * 5 }).r;
  await h.publish(exec(5, Array.from({ length: 8 }, (_, i) => deal(5, i))));
  await h.publish(exec(6, Array.from({ length: 6 }, (_, i) => deal(6, i + 8))));
  await h.settled();
}, 60_000);

afterAll(() => h.stop());

interface Case {
  table?: string;
  query: string;
  /** selected API columns (all of the table's when absent) */
  cols?: string[];
  where?: string;
  /** the default order of the table unless given */
  order?: string;
  tail?: string;
  prefer?: string;
  /**
   * A whole statement (one JSON text column) instead of the one built from
   * the fields above: `[Table]` is a table's SQL name, `{Table:column}` a
   * column's, `{column}` a column of the case's table as `t.<column>`.
   */
  sql?: string;
}

const CORPUS: Case[] = [
  { query: '' },
  { query: 'select=name,qty', cols: ['name', 'qty'] },
  { query: 'qty=eq.9', where: '{qty} = 9' },
  { query: 'qty=eq.9.0', where: '{qty} = 9' },
  { query: 'qty=eq.009', where: '{qty} = 9' },
  { query: 'qty=gt.1e1', where: '{qty} > 10' },
  { query: `qty=eq.${BIG}`, where: `{qty} = ${BIG}` },
  { query: 'qty=gt.9007199254740992', where: '{qty} > 9007199254740992' },
  { query: 'delta=lt.0', where: '{delta} < 0' },
  { query: 'delta=not.lt.0', where: 'NOT ({delta} < 0)' },
  { query: 'qty=neq.0', where: '{qty} <> 0' },
  { query: 'qty=lte.12&qty=gte.3', where: '{qty} <= 12 AND {qty} >= 3' },
  { query: 'active=is.true', where: '{active} IS TRUE' },
  { query: 'active=eq.f', where: '{active} = false' },
  { query: 'active=not.is.false', where: '{active} IS NOT FALSE' },
  { query: 'grade=eq.2', where: '{grade} = 2' },
  { query: 'grade=in.(0,2)', where: '{grade} IN (0, 2)' },
  { query: 'name=eq.Widget', where: "{name} = 'Widget'" },
  { query: 'name=eq.Gadget, "big"', where: `{name} = 'Gadget, "big"'` },
  { query: 'name=eq.', where: "{name} = ''" },
  { query: 'name=neq.', where: "{name} <> ''" },
  { query: 'name=like.*idget*', where: "{name} LIKE '%idget%'" },
  { query: 'name=ilike.widget*', where: "{name} ILIKE 'widget%'" },
  { query: 'name=like.a_b', where: "{name} LIKE 'a_b'" },
  { query: 'name=like.a%25b', where: "{name} LIKE 'a%b'" },
  { query: 'name=eq.star*', where: "{name} = 'star*'" },
  { query: 'name=like.back\\\\*', where: "{name} LIKE 'back\\\\%'" },
  { query: 'name=not.like.*,*', where: "NOT ({name} LIKE '%,%')" },
  { query: 'name=in.("Hebdon, John","quote\\"inside",x)', where: `{name} IN ('Hebdon, John', 'quote"inside', 'x')` },
  { query: 'name=in.()', where: 'FALSE' },
  { query: 'name=not.in.()', where: 'TRUE' },
  { query: 'name=eq.space+here', where: "{name} = 'space here'" },
  { query: 'name=eq.%20lead', where: "{name} = ' lead'" },
  { query: 'name=eq.%C3%A9migr%C3%A9', where: "{name} = 'émigré'" },
  { query: 'or=(qty.lt.3,name.eq.last)', where: "{qty} < 3 OR {name} = 'last'" },
  { query: 'or=(name.eq."comma,end,",name.eq."(paren)")', where: "{name} IN ('comma,end,', '(paren)')" },
  { query: 'not.or=(active.is.true,qty.gt.30)', where: 'NOT ({active} IS TRUE OR {qty} > 30)' },
  { query: 'and=(grade.eq.1,or(delta.gt.5,name.like.W*))', where: "{grade} = 1 AND ({delta} > 5 OR {name} LIKE 'W%')" },
  { query: 'or=(and(qty.gte.3,qty.lte.6),not.and(active.is.true,grade.neq.0))', where: '({qty} >= 3 AND {qty} <= 6) OR NOT ({active} IS TRUE AND {grade} <> 0)' },
  { query: 'meta->w=eq.3', where: "({meta} -> 'w') = '3'::jsonb" },
  { query: 'meta->>tag=eq.red&select=name', cols: ['name'], where: "({meta} ->> 'tag') = 'red'" },
  { query: `owner=eq.${OWNERS[1]}&select=name,owner`, cols: ['name', 'owner'], where: `{owner} = '${OWNERS[1]}'` },
  { query: 'order=qty.desc', order: '{qty} DESC' },
  { query: 'order=active.desc,name.asc', order: '{active} DESC, {name} ASC' },
  { query: 'order=delta.asc,address', order: '{delta} ASC, {address}' },
  { query: 'order=name&limit=5', order: '{name}', tail: 'LIMIT 5' },
  { query: 'order=name&limit=5&offset=5', order: '{name}', tail: 'LIMIT 5 OFFSET 5' },
  { query: 'order=qty&offset=18', order: '{qty}', tail: 'OFFSET 18' },
  { query: 'limit=0', tail: 'LIMIT 0' },
  { query: 'order=qty&limit=3', prefer: 'count=exact', order: '{qty}', tail: 'LIMIT 3' },
  // history: most recent first, rows of one block in reverse transaction order
  { table: 'history@Lot', query: 'select=qty,block_number', cols: ['qty', 'block_number'], order: '{block_number} DESC, h_seq DESC' },
  { table: 'history@Lot', query: 'name=eq.a%25b&select=qty,active', cols: ['qty', 'active'], where: "{name} = 'a%b'", order: '{block_number} DESC, h_seq DESC' },
  { table: 'history@Lot', query: 'order=block_number.asc,qty.desc&limit=4', order: '{block_number} ASC, {qty} DESC', tail: 'LIMIT 4' },
  // events: arguments are text, compared as text
  { table: 'Lot.Sold', query: '', order: '{id}' },
  { table: 'Lot.Sold', query: 'n=gt.10&select=who', cols: ['who'], where: "{n} > '10'", order: '{id}' },
  { table: 'Lot.Sold', query: 'who=eq.Ann, "A"', where: `{who} = 'Ann, "A"'`, order: '{id}' },
  { table: 'Lot.Sold', query: 'ok=eq.True&order=id.desc', where: "{ok} = 'True'", order: '{id} DESC' },
  // side tables
  { table: 'Lot-prices', query: 'key=eq.all&order=value.desc,address', where: "{key} = 'all'", order: '{value} DESC, {address}' },
  { table: 'Lot-prices', query: 'value=gte.20&key=neq.all', where: "{value} >= 20 AND {key} <> 'all'", order: '{address}, {chainId}, {key}' },
  { table: 'Lot-sizes', query: 'index=eq.1&value=in.(0,4)', where: '{index} = 1 AND {value} IN (0, 4)', order: '{address}, {chainId}, {index}' },
  // embeds: deals refer to lots (to one), lots embed the deals that refer to them (to many, [] when none), by hint
  {
    query: 'select=name,Deal!lot(qty)&order=name',
    sql: `SELECT json_build_object('name', {name}, 'Deal', coalesce((SELECT json_agg(json_build_object('qty', d.{Deal:qty}) ORDER BY d.block_number, d.address)
        FROM [Deal] d WHERE d.{Deal:lot} = t.address AND d.chain_id = t.chain_id AND d.chain_id = ''), '[]'))::text FROM [Lot] t WHERE t.chain_id = '' ORDER BY {name}`,
  },
  {
    query: 'select=address,alt:Deal!alt(address,qty),Deal!lot(lot)&qty=gt.5',
    sql: `SELECT json_build_object('address', t.address,
        'alt', coalesce((SELECT json_agg(json_build_object('address', d.address, 'qty', d.{Deal:qty}) ORDER BY d.block_number, d.address)
          FROM [Deal] d WHERE d.{Deal:alt} = t.address AND d.chain_id = t.chain_id AND d.chain_id = ''), '[]'),
        'Deal', coalesce((SELECT json_agg(json_build_object('lot', d.{Deal:lot}) ORDER BY d.block_number, d.address)
          FROM [Deal] d WHERE d.{Deal:lot} = t.address AND d.chain_id = t.chain_id AND d.chain_id = ''), '[]'))::text
      FROM [Lot] t WHERE t.chain_id = '' AND {qty} > 5 ORDER BY t.block_number, t.address`,
  },
  {
    query: 'select=name,deals:Deal!lot(qty,alt(name))&name=like.*idget*',
    sql: `SELECT json_build_object('name', {name}, 'deals', coalesce((SELECT json_agg(json_build_object('qty', d.{Deal:qty},
          'alt', (SELECT json_build_object('name', a.{Lot:name}) FROM [Lot] a WHERE a.address = d.{Deal:alt} AND a.chain_id = d.chain_id AND a.chain_id = ''))
        ORDER BY d.block_number, d.address) FROM [Deal] d WHERE d.{Deal:lot} = t.address AND d.chain_id = t.chain_id AND d.chain_id = ''), '[]'))::text
      FROM [Lot] t WHERE t.chain_id = '' AND {name} LIKE '%idget%' ORDER BY t.block_number, t.address`,
  },
  {
    query: 'select=name,Deal!alt(qty)&order=qty,address&limit=4&offset=2',
    prefer: 'count=exact',
    sql: `SELECT json_build_object('name', {name}, 'Deal', coalesce((SELECT json_agg(json_build_object('qty', d.{Deal:qty}) ORDER BY d.block_number, d.address)
        FROM [Deal] d WHERE d.{Deal:alt} = t.address AND d.chain_id = t.chain_id AND d.chain_id = ''), '[]'))::text
      FROM [Lot] t WHERE t.chain_id = '' ORDER BY {qty}, t.address LIMIT 4 OFFSET 2`,
  },
  {
    table: 'Deal',
    query: 'select=qty,lot(name),Lot!alt(name,grade)&order=qty.desc',
    sql: `SELECT json_build_object('qty', t.{Deal:qty},
        'lot', (SELECT json_build_object('name', l.{Lot:name}) FROM [Lot] l WHERE l.address = t.{Deal:lot} AND l.chain_id = t.chain_id AND l.chain_id = ''),
        'Lot', (SELECT json_build_object('name', l.{Lot:name}, 'grade', l.{Lot:grade}) FROM [Lot] l WHERE l.address = t.{Deal:alt} AND l.chain_id = t.chain_id AND l.chain_id = ''))::text
      FROM [Deal] t WHERE t.chain_id = '' ORDER BY t.{Deal:qty} DESC`,
  },
  {
    table: 'history@Deal',
    query: 'select=qty,lot(qty)&qty=lt.30',
    sql: `SELECT json_build_object('qty', t.{Deal:qty},
        'lot', (SELECT json_build_object('qty', l.{Lot:qty}) FROM [Lot] l WHERE l.address = t.{Deal:lot} AND l.chain_id = t.chain_id AND l.chain_id = ''))::text
      FROM [history@Deal] t WHERE t.chain_id = '' AND t.{Deal:qty} < 30 ORDER BY t.block_number DESC, t.h_seq DESC`,
  },
  // filters, order and pages of embedded resources; !inner, null filters on embeds, ordering by a to-one embed's column
  {
    query: 'select=name,Deal!lot(qty)&Deal.qty=gte.20&Deal.order=qty.desc&Deal.limit=2&order=name',
    sql: `SELECT json_build_object('name', {name}, 'Deal', coalesce((SELECT json_agg(json_build_object('qty', p.q) ORDER BY p.q DESC) FROM (
          SELECT d.{Deal:qty} AS q FROM [Deal] d WHERE d.{Deal:lot} = t.address AND d.chain_id = t.chain_id AND d.chain_id = '' AND d.{Deal:qty} >= 20
          ORDER BY d.{Deal:qty} DESC LIMIT 2) p), '[]'))::text FROM [Lot] t WHERE t.chain_id = '' ORDER BY {name}`,
  },
  {
    query: 'select=name,Deal!alt!inner(qty)&Deal.or=(qty.lt.20,qty.gt.50)&order=name',
    sql: `SELECT json_build_object('name', {name}, 'Deal', (SELECT json_agg(json_build_object('qty', d.{Deal:qty}) ORDER BY d.block_number, d.address)
        FROM [Deal] d WHERE d.{Deal:alt} = t.address AND d.chain_id = t.chain_id AND d.chain_id = '' AND (d.{Deal:qty} < 20 OR d.{Deal:qty} > 50)))::text
      FROM [Lot] t WHERE t.chain_id = '' AND EXISTS (SELECT 1 FROM [Deal] d WHERE d.{Deal:alt} = t.address AND d.chain_id = t.chain_id AND d.chain_id = ''
        AND (d.{Deal:qty} < 20 OR d.{Deal:qty} > 50)) ORDER BY {name}`,
  },
  {
    query: 'select=name,Deal!lot(qty)&Deal=is.null&order=name',
    sql: `SELECT json_build_object('name', {name}, 'Deal', '[]'::json)::text FROM [Lot] t WHERE t.chain_id = ''
      AND NOT EXISTS (SELECT 1 FROM [Deal] d WHERE d.{Deal:lot} = t.address AND d.chain_id = t.chain_id AND d.chain_id = '') ORDER BY {name}`,
  },
  {
    table: 'Deal',
    query: 'select=qty,alt(name,qty)&alt.qty=gt.20&alt=not.is.null&order=alt(name).desc,qty',
    sql: `SELECT json_build_object('qty', t.{Deal:qty}, 'alt', (SELECT json_build_object('name', l.{Lot:name}, 'qty', l.{Lot:qty}) FROM [Lot] l
          WHERE l.address = t.{Deal:alt} AND l.chain_id = t.chain_id AND l.chain_id = '' AND l.{Lot:qty} > 20))::text
      FROM [Deal] t WHERE t.chain_id = ''
        AND EXISTS (SELECT 1 FROM [Lot] l WHERE l.address = t.{Deal:alt} AND l.chain_id = t.chain_id AND l.chain_id = '' AND l.{Lot:qty} > 20)
      ORDER BY (SELECT l.{Lot:name} FROM [Lot] l WHERE l.address = t.{Deal:alt} AND l.chain_id = t.chain_id AND l.chain_id = '' AND l.{Lot:qty} > 20) DESC, t.{Deal:qty}`,
  },
  {
    table: 'Deal',
    query: 'select=qty,lot(name,Deal!alt(qty))&lot.Deal.qty=lt.40&lot.name=not.like.*W*&order=qty',
    sql: `SELECT json_build_object('qty', t.{Deal:qty}, 'lot', (SELECT json_build_object('name', l.{Lot:name}, 'Deal', coalesce(
          (SELECT json_agg(json_build_object('qty', d.{Deal:qty}) ORDER BY d.block_number, d.address) FROM [Deal] d
           WHERE d.{Deal:alt} = l.address AND d.chain_id = l.chain_id AND d.chain_id = '' AND d.{Deal:qty} < 40), '[]'))
        FROM [Lot] l WHERE l.address = t.{Deal:lot} AND l.chain_id = t.chain_id AND l.chain_id = '' AND NOT (l.{Lot:name} LIKE '%W%')))::text
      FROM [Deal] t WHERE t.chain_id = '' ORDER BY t.{Deal:qty}`,
  },
];

async function internal(table: string): Promise<{ sql: string; columns: Array<[string, string]> }> {
  const { rows } = await h.db.query<{ sql_name: string; columns: Array<[string, string]> }>(
    'SELECT t.sql_name, t.columns FROM cirrus.names n JOIN cirrus.tables t USING (sql_name) WHERE n.api_name = $1',
    [table],
  );
  return { sql: `cirrus.${rows[0].sql_name}`, columns: rows[0].columns.map(([api, sql]) => [api, sql]) };
}

const canonical = (text: string): string => jsonText(parseJson(text));

/** `[Table]` → its SQL table, `{Table:column}` → the column's SQL name (both from the catalogue). */
async function internalNames(text: string): Promise<string> {
  const names = new Set([...text.matchAll(/\[([^\]]+)\]|\{([^}:]+):[^}]+\}/g)].map((m) => m[1] ?? m[2]));
  const tables = new Map<string, Awaited<ReturnType<typeof internal>>>();
  for (const name of names) tables.set(name, await internal(name));
  return text
    .replace(/\[([^\]]+)\]/g, (_m, name: string) => tables.get(name)!.sql)
    .replace(/\{([^}:]+):([^}]+)\}/g, (_m, name: string, api: string) => new Map(tables.get(name)!.columns).get(api)!);
}

describe('the corpus through cirrus.search equals hand-written SQL', () => {
  test.each(CORPUS.map((c) => [`${c.table ?? 'Lot'}?${c.query}`, c] as const))('%s', async (_, c) => {
    const table = c.table ?? 'Lot';
    const { sql, columns } = await internal(table);
    const col = new Map(columns);
    const sub = (text: string) => text.replace(/\{([^}]+)\}/g, (_m, name: string) => `t.${col.get(name)!}`);
    const kind = table.startsWith('history@') ? 'history' : table.includes('.') ? 'event' : table.includes('-') ? 'side' : 'contract';
    const defaultOrder = { contract: '{block_number}, {address}', history: '{block_number} DESC, h_seq DESC', event: '{id}', side: '{address}, {chainId}' }[kind];
    const picked = (c.cols ?? columns.map(([api]) => api)).map((api) => `'${api.replace(/'/g, "''")}', t.${col.get(api)!}`).join(', ');
    const statement = c.sql
      ? sub(await internalNames(c.sql))
      : `SELECT json_build_object(${picked})::text AS row FROM ${sql} t WHERE t.chain_id = '' AND (${sub(c.where ?? 'TRUE')}) ORDER BY ${sub(c.order ?? defaultOrder)} ${c.tail ?? ''}`;
    const expected = (await h.db.query<Record<string, string>>(statement)).rows.map((r) => canonical(Object.values(r)[0]));
    const res = await h.search(table, c.query, c.prefer);
    const got = (parseJson(res.rows) as unknown[]).map((r) => jsonText(r as never));
    expect(got).toEqual(expected);
    if (c.prefer) {
      const total = Number((await h.db.query<{ n: string }>(`SELECT count(*) AS n FROM ${sql} t WHERE t.chain_id = '' AND (${sub(c.where ?? 'TRUE')})`)).rows[0].n);
      const from = Number(/OFFSET (\d+)/.exec(c.sql ?? c.tail ?? '')?.[1] ?? 0);
      expect(res.contentRange).toBe(got.length ? `${from}-${from + got.length - 1}/${total}` : `*/${total}`);
    }
  });

  test('the corpus covers every kind of table and finds rows for most queries', async () => {
    let nonEmpty = 0;
    for (const c of CORPUS) if (((await h.search(c.table ?? 'Lot', c.query, c.prefer)).body as unknown[]).length > 0) nonEmpty++;
    expect(nonEmpty).toBeGreaterThan(CORPUS.length * 0.8);
  });
});
