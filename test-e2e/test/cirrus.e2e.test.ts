// Cirrus through the REST interface of a whole node: contracts uploaded and
// called through the transaction endpoint appear in their tables, their
// updates in history (most recent first), their events in event tables, their
// arrays and mappings in side tables, EVM contracts with INDEX_EVM; errors are
// JSON bodies with stable codes; random query strings never make a 500.
import fc from 'fast-check';
import pg from 'pg';
import { api, devToken, startTestNode, type TestNode } from './harness.js';

const NODE_START_MS = 180_000;

const SHELF = `
contract Shelf {
  struct Book { string title; uint pages; }
  string owner;
  uint count;
  Book featured;
  mapping(string => uint) stock;
  string[] tags;
  event Added(string title, uint pages, bool rare);
  constructor(string _owner) { owner = _owner; }
  function add(string title, uint pages, bool rare) {
    count += 1; stock[title] += 1; tags.push(title); featured = Book(title, pages);
    emit Added(title, pages, rare);
  }
  function take(string title) { count -= 1; stock[title] -= 1; tags.pop(); }
}`;

const EVM_STORE = `
// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;
contract Store {
  struct Note { uint256 n; string text; }
  uint256 public value;
  string public label;
  mapping(address => uint256) public seen;
  uint256[] public history;
  Note public last;
  function set(uint256 v, string memory l) public { value = v; label = l; seen[msg.sender] = v; history.push(v); last = Note(v, l); }
}`;

describe('cirrus on a node', () => {
  let node: TestNode;
  let token: string;
  let shelf: string;
  let store: string;
  let carol: string;

  /** A search, polled until the index has caught up (indexing follows execution asynchronously). */
  const search = async (path: string, caughtUp: (rows: any[]) => boolean = () => true, headers: Record<string, string> = {}) => {
    for (let i = 0; ; i++) {
      const response = await fetch(`${node.gatewayUrl}/cirrus/search/${path}`, { headers: { authorization: `Bearer ${token}`, ...headers } });
      const body = (await response.json()) as any;
      if ((response.ok && Array.isArray(body) && caughtUp(body)) || i === 150) return { status: response.status, headers: response.headers, body };
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  const tx = async (txs: unknown[]) => {
    const res = await api(node, 'POST', '/platform/v2.3/transaction?resolve=true', token, { txs });
    expect(res.status).toBe(200);
    for (const r of res.body) expect(r.status).toBe('Success');
    return res.body;
  };
  const call = (method: string, args: unknown) => ({ type: 'FUNCTION', payload: { contractAddress: shelf, method, args, metadata: { VM: 'SolidVM' } } });

  beforeAll(async () => {
    node = await startTestNode({ IDENTITY_REQUIRED: 'false', INDEX_EVM: 'true' });
    token = await devToken(node, 'carol', 'Acme');
    const key = await api(node, 'POST', '/platform/v2.3/key', token);
    expect(key.status).toBe(200);
    carol = String(key.body.address).replace(/^0x/, '');
    const [up] = await tx([{ type: 'CONTRACT', payload: { contract: 'Shelf', src: SHELF, args: { _owner: 'carol' }, metadata: { VM: 'SolidVM' } } }]);
    shelf = up.data.contents.address;
    // two calls in one request, then a third
    await tx([call('add', { title: 'Dune', pages: 412, rare: false }), call('add', { title: 'Ubik, "1969"', pages: 202, rare: true })]);
    await tx([call('take', { title: 'Ubik, "1969"' })]);
    const [evm] = await tx([{ type: 'CONTRACT', payload: { contract: 'Store', src: EVM_STORE } }]);
    store = evm.data.contents.address;
    await tx([{ type: 'FUNCTION', payload: { contractAddress: store, method: 'set', args: { v: 42, l: 'answer' } } }]);
  }, NODE_START_MS);
  afterAll(async () => node?.destroy(), NODE_START_MS);

  test('an uploaded contract has its row with the inherited columns, a struct as JSON and a mapping as 40 zeros', async () => {
    const res = await search(`Shelf?address=eq.${shelf}`, (rows) => rows[0]?.count === 1);
    expect(res.status).toBe(200);
    const [row] = res.body;
    expect(row).toMatchObject({ address: shelf, chainId: '', record_id: shelf, owner: 'carol', count: 1, featured: { title: 'Ubik, "1969"', pages: 202 }, stock: '0'.repeat(40) });
    expect(row.block_timestamp).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
    expect(row.block_number).toBeGreaterThan(0);
    expect(row.transaction_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(Object.keys(row)).not.toContain('tags');
  });

  test('the table is named after the uploader\'s organization; the bare name resolves while it is the only one', async () => {
    const full = await search(`Acme-Shelf?address=eq.${shelf}&select=address`, (rows) => rows.length === 1);
    expect(full.body).toEqual([{ address: shelf }]);
    // the genesis certificate registry has no organization: its table keeps the bare name
    const cert = await search('Certificate?commonName=eq.carol&select=commonName,organization', (rows) => rows.length === 1);
    expect(cert.body).toEqual([{ commonName: 'carol', organization: 'Acme' }]);
  });

  test('history: one row per changing transaction, most recent first, also within a block', async () => {
    const res = await search(`history@Shelf?address=eq.${shelf}&select=count,featured->>title`, (rows) => rows.length >= 4);
    expect(res.body).toEqual([
      { count: 1, title: 'Ubik, "1969"' },
      { count: 2, title: 'Ubik, "1969"' },
      { count: 1, title: 'Dune' },
      { count: 0, title: '' },
    ]);
  });

  test('events: text arguments in emission order', async () => {
    const res = await search(`Shelf.Added?address=eq.${shelf}&select=title,pages,rare&order=id`, (rows) => rows.length >= 2);
    expect(res.body).toEqual([
      { title: 'Dune', pages: '412', rare: 'False' },
      { title: 'Ubik, "1969"', pages: '202', rare: 'True' },
    ]);
  });

  test('side tables: a mapping entry per key, an array element per index, kept in step', async () => {
    const stock = await search(`Shelf-stock?address=eq.${shelf}&select=key,value&order=key`, (rows) => rows.length === 1);
    // the entry taken back to zero is gone
    expect(stock.body).toEqual([{ key: 'Dune', value: 1 }]);
    const tags = await search(`Shelf-tags?address=eq.${shelf}&select=index,value`, (rows) => rows.length === 1);
    expect(tags.body).toEqual([{ index: 0, value: 'Dune' }]);
    const quoted = await search(`Shelf.Added?title=in.("Ubik, \\"1969\\"")&select=pages`);
    expect(quoted.body).toEqual([{ pages: '202' }]);
  });

  test('an EVM contract is indexed with INDEX_EVM: its struct as JSON, its mapping entries and array elements in side tables', async () => {
    const res = await search(`Store?address=eq.${store}&select=value,label,seen,last`, (rows) => rows[0]?.value === 42);
    expect(res.body).toEqual([{ value: 42, label: 'answer', seen: '0'.repeat(40), last: { n: 42, text: 'answer' } }]);
    const seen = await search(`Store-seen?address=eq.${store}&select=key,value`, (rows) => rows.length === 1);
    expect(seen.body).toEqual([{ key: carol, value: 42 }]);
    const history = await search(`Store-history?address=eq.${store}&select=index,value`, (rows) => rows.length === 1);
    expect(history.body).toEqual([{ index: 0, value: 42 }]);
  });

  test('Prefer: count=exact answers Content-Range; an offset past the end is 416 with the error body', async () => {
    const page = await search(`history@Shelf?address=eq.${shelf}&select=count&limit=1`, () => true, { prefer: 'count=exact' });
    expect(page.status).toBe(206);
    expect(page.headers.get('content-range')).toBe('0-0/4');
    const past = await fetch(`${node.gatewayUrl}/cirrus/search/Shelf?offset=10`, { headers: { authorization: `Bearer ${token}`, prefer: 'count=exact' } });
    expect(past.status).toBe(416);
    // PostgREST 12 (RangeQuery.rangeStatusHeader) sends the header with its 416: `*/<total>`
    expect(past.headers.get('content-range')).toMatch(/^\*\/\d+$/);
    expect(((await past.json()) as any).error.code).toBe('RANGE_NOT_SATISFIABLE');
  });

  test('bad queries are 400 and unknown tables 404, as JSON error bodies without SQL', async () => {
    const column = await api(node, 'GET', '/cirrus/search/Shelf?colour=eq.red', token);
    expect(column.status).toBe(400);
    expect(column.body.error).toMatchObject({ code: 'BAD_QUERY' });
    expect(column.body.error.message).toContain('colour');
    const value = await api(node, 'GET', '/cirrus/search/Shelf?count=gt.many', token);
    expect([value.status, value.body.error.code]).toEqual([400, 'BAD_QUERY']);
    const missing = await api(node, 'GET', '/cirrus/search/Nope', token);
    expect([missing.status, missing.body.error.code]).toEqual([404, 'TABLE_NOT_FOUND']);
    for (const body of [column.body, value.body, missing.body]) expect(JSON.stringify(body)).not.toMatch(/select |from |where |cirrus\.|c_\d/i);
    expect((await api(node, 'GET', '/cirrus/search/Shelf')).status).toBe(401);
  });

  test('once another organization uploads a contract of the same name, the bare name is 409 listing both tables', async () => {
    const other = await devToken(node, 'dave', 'Beta');
    expect((await api(node, 'POST', '/platform/v2.3/key', other)).status).toBe(200);
    const up = await api(node, 'POST', '/platform/v2.3/transaction?resolve=true', other, {
      txs: [{ type: 'CONTRACT', payload: { contract: 'Shelf', src: SHELF, args: { _owner: 'dave' }, metadata: { VM: 'SolidVM' } } }],
    });
    expect(up.body[0].status).toBe('Success');
    await search('Beta-Shelf?select=owner', (rows) => rows.length === 1);
    const ambiguous = await api(node, 'GET', '/cirrus/search/Shelf?select=owner', token);
    expect(ambiguous.status).toBe(409);
    expect(ambiguous.body.error).toMatchObject({ code: 'TABLE_AMBIGUOUS', details: { tables: ['Acme-Shelf', 'Beta-Shelf'] } });
    expect(ambiguous.body.error.message).toContain('Acme-Shelf, Beta-Shelf');
    expect((await search('Acme-Shelf-tags?select=value')).body).toEqual([{ value: 'Dune' }]);
  });

  test('random query strings never make a 500: every answer is rows or a JSON error with a 4xx', async () => {
    const tables = ['Shelf', 'history@Shelf', 'Shelf.Added', 'Shelf-stock', 'Shelf-tags', 'Store', 'Nope', 'Shelf-nope'];
    const names = ['count', 'owner', 'featured', 'featured->title', 'key', 'value', 'index', 'title', 'rare', 'address', 'block_number', 'x'];
    const ops = ['eq', 'neq', 'lt', 'gte', 'like', 'ilike', 'in', 'is', 'not.eq', 'not.in', 'cs', ''];
    const values = fc.oneof(fc.constantFrom('1', '-2.5', 'null', 'true', '*a*', '("a","b,c")', '()', 'Dune', '', '1e999', '%', '"'), fc.string({ maxLength: 8 }));
    const filter = fc.tuple(fc.constantFrom(...names), fc.constantFrom(...ops), values).map(([n, o, v]) => `${encodeURIComponent(n)}=${o}${o ? '.' : ''}${encodeURIComponent(v)}`);
    const extra = fc.constantFrom('select=count', 'select=*', 'select=value,key', 'order=count.desc.nullsfirst', 'order=nope', 'limit=2', 'offset=1', 'limit=-1', 'or=(count.gt.0,owner.eq.x)', 'and=(', 'select=Item(*)');
    const query = fc.tuple(fc.constantFrom(...tables), fc.array(fc.oneof(filter, extra), { maxLength: 4 }));
    await fc.assert(
      fc.asyncProperty(query, async ([table, params]) => {
        const response = await fetch(`${node.gatewayUrl}/cirrus/search/${encodeURIComponent(table)}?${params.join('&')}`, { headers: { authorization: `Bearer ${token}` } });
        const body = (await response.json()) as any;
        expect(response.status).toBeLessThan(500);
        if (response.status >= 400) expect(typeof body.error?.code).toBe('string');
        else expect(Array.isArray(body)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
  test("the gateway reads cirrus's schema itself, as the read-only role, which can read nothing else and write nothing", async () => {
    // the launcher made the role and gave the gateway its URL; cirrus granted it the schema
    expect(node.cirrusReadDatabaseUrl).toMatch(/^postgres:\/\/cirrus_reader:/);
    const admin = new pg.Client({ connectionString: node.databaseUrl });
    const reader = new pg.Client({ connectionString: node.cirrusReadDatabaseUrl! });
    await admin.connect();
    await reader.connect();
    try {
      // the searches above went through the gateway's own connections, not cirrus
      await search(`Acme-Shelf?address=eq.${shelf}&select=owner`, (rows) => rows.length === 1);
      const { rows } = await admin.query<{ usename: string }>("SELECT DISTINCT usename FROM pg_stat_activity WHERE application_name LIKE 'gateway-cirrus-read%'");
      expect(rows).toEqual([{ usename: 'cirrus_reader' }]);
      const sqlName = (await reader.query<{ sql_name: string }>("SELECT sql_name FROM cirrus.names WHERE api_name = 'Acme-Shelf'")).rows[0].sql_name;
      const refusal = async (sql: string) => reader.query(sql).then(() => 'ok', (err: { code?: string }) => err.code);
      await reader.query('SET default_transaction_read_only = off');
      expect(await refusal(`UPDATE cirrus.${sqlName} SET block_number = 0`)).toBe('42501');
      expect(await refusal(`DELETE FROM cirrus.names`)).toBe('42501');
      expect(await refusal('CREATE TABLE cirrus.x (y text)')).toBe('42501');
      // every other service's schema is closed to it
      for (const schema of ['vault', 'tx', 'chains']) {
        const table = (await admin.query<{ t: string }>('SELECT table_name AS t FROM information_schema.tables WHERE table_schema = $1 LIMIT 1', [schema])).rows[0].t;
        expect([schema, await refusal(`SELECT * FROM ${schema}.${table} LIMIT 1`)]).toEqual([schema, '42501']);
      }
      expect((await search(`Acme-Shelf?address=eq.${shelf}&select=owner`)).body).toEqual([{ owner: 'carol' }]);
      // /ready counts the read model as part of cirrus's check
      const ready = await fetch(`${node.gatewayUrl}/ready`);
      expect(((await ready.json()) as any).checks.cirrus).toBe(true);
    } finally {
      await reader.end();
      await admin.end();
    }
  });
});
