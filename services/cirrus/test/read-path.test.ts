// The gateway's read path (@platform/cirrus-read startCirrusReader, as the
// gateway runs it): cirrus grants its schema to a read-only role, a reader
// connected as that role answers searches. Against real PostgreSQL:
// - the role reads cirrus's schema and can do nothing else: no write of any
//   kind, no DDL, no temporary table, no other schema;
// - a contract's table (and a column added later) is queryable through the
//   reader as soon as cirrus has indexed it;
// - visibility: the reader answers exactly what cirrus's `cirrus.search`
//   answers for the same caller (rows, statuses, errors), and a private
//   chain's rows, tables and family names stay its members'.
import pg from 'pg';
import { CHAINS, handle, serve } from '@platform/bus';
import { PlatformError, createLogger, type Receipt } from '@platform/common';
import { startCirrusReader, type CirrusReader } from '@platform/cirrus-read';
import { Chain, Harness, SENDER, exec, logger } from './helpers.js';

const ITEM = `
contract Item {
  string name;
  uint qty;
  event Moved(uint n);
  constructor(string _name, uint _qty) { name = _name; qty = _qty; }
  function move(uint n) { qty = n; emit Moved(n); }
}`;
const ITEM_V2 = ITEM.replace('uint qty;', 'uint qty;\n  string note;').replace('function move', 'function setNote(string n) { note = n; }\n  function move');
const LEDGER = `
contract Ledger {
  uint total;
  constructor(uint t) { total = t; }
}`;

const READ_ROLE = 'cirrus_reader';
const PRIVATE = 'cd'.repeat(32);
/** who sees what: alice is a member of the private chain, bob is not */
const VISIBLE: Record<string, string[]> = { alice: ['', PRIVATE], bob: [''] };

const h = new Harness();
const main = new Chain({ organization: 'Acme' });
const priv = new Chain({ organization: 'Beta' }, PRIVATE);
let readUrl: string;
let reader: CirrusReader;
let chainsService: Awaited<ReturnType<typeof serve>> | undefined;
let block = 0;
const addr: Record<string, string> = {};

const created = (key: string, c: { r: Receipt; address: string }): Receipt => {
  addr[key] = c.address;
  return c.r;
};

/** Runs `sql` as the read role on a connection of its own; answers the SQLSTATE it failed with, or 'ok'. */
async function asReader(sql: string, setup: string[] = []): Promise<string> {
  const client = new pg.Client({ connectionString: readUrl });
  await client.connect();
  try {
    for (const s of setup) await client.query(s);
    await client.query(sql);
    return 'ok';
  } catch (err) {
    return (err as { code?: string }).code ?? String(err);
  } finally {
    await client.end();
  }
}

/** The reader's answer, or its error as {code, status, message, details}. */
async function viaReader(table: string, query: string, username: string, prefer?: string): Promise<unknown> {
  try {
    return await reader.search({ table, query, username, ...(prefer ? { prefer } : {}) }, VISIBLE[username]);
  } catch (err) {
    if (!(err instanceof PlatformError)) throw err;
    return { code: err.code, status: err.status, message: err.message, details: err.details };
  }
}

/** cirrus's own answer over the bus, in the same form. */
async function viaBus(table: string, query: string, username: string, prefer?: string): Promise<unknown> {
  try {
    const { body: _body, ...answer } = await h.search(table, query, prefer, username);
    return answer;
  } catch (err) {
    if (!(err instanceof PlatformError)) throw err;
    return { code: err.code, status: err.status, message: err.message, details: err.details };
  }
}

beforeAll(async () => {
  await h.start('cirrus_read_path', { readRole: READ_ROLE }, async () => {
    readUrl = await h.infra.postgres!.createReadRole(READ_ROLE, 'cirrus_read_path');
  });
  chainsService = await serve(h.nc, { name: 'chains', version: '0.0.0', logger: createLogger('chains', 'silent') }, [
    handle(CHAINS.visibleTo, ({ username }) => ({ chainIds: VISIBLE[username] ?? [''] })),
  ]);
  // what other services own: a schema of their own, and a table in public, both the database owner's
  await h.db.query('CREATE SCHEMA vault; CREATE TABLE vault.keys (username text, secret text); INSERT INTO vault.keys VALUES ($$alice$$, $$s3cret$$)');
  await h.db.query('CREATE TABLE public.notes (n text); INSERT INTO public.notes VALUES ($$x$$)');
  reader = startCirrusReader({ databaseUrl: readUrl, logger, applicationName: 'test-cirrus-read' });
  await h.publish(exec(++block, [created('a1', main.create(block, SENDER, ITEM, 'Item', { _name: 'apple', _qty: 3 })), created('a2', main.create(block, SENDER, ITEM, 'Item', { _name: 'pear', _qty: 9 }))]));
  await h.publish(exec(++block, [main.invoke(block, SENDER, addr.a1, 'move', { n: 4 })]));
  // on the private chain: another family of the same contract name, and a contract only it has
  await h.publish(exec(++block, [created('b1', priv.create(block, SENDER, ITEM, 'Item', { _name: 'secret', _qty: 7 })), created('l1', priv.create(block, SENDER, LEDGER, 'Ledger', { t: 100 }))], PRIVATE));
  await h.settled();
  // the reader's LISTEN connection is up once it remembers: wait until a search answers
  for (let i = 0; i < 100 && !(await reader.ready()); i++) await new Promise((r) => setTimeout(r, 50));
}, 120_000);

afterAll(async () => {
  await reader?.stop();
  await chainsService?.stop();
  await h.stop();
});

describe('the read role', () => {
  test('reads every table of the schema cirrus, those made after the grant too', async () => {
    const { rows } = await h.db.query<{ sql_name: string }>('SELECT sql_name FROM cirrus.tables ORDER BY sql_name');
    expect(rows.length).toBeGreaterThan(3);
    for (const { sql_name } of rows) expect([sql_name, await asReader(`SELECT * FROM cirrus.${sql_name} LIMIT 1`)]).toEqual([sql_name, 'ok']);
    for (const table of ['cirrus.tables', 'cirrus.names', 'cirrus.contracts', 'cirrus.progress']) expect([table, await asReader(`SELECT * FROM ${table} LIMIT 1`)]).toEqual([table, 'ok']);
  });

  test('writes nothing: read-only sessions, and without them no privilege to write, alter, create or drop', async () => {
    const table = await h.sqlTable('Acme-Item');
    // every session is read-only by default (25006)
    expect(await asReader(`DELETE FROM ${table}`)).toBe('25006');
    // and a session that turns that off still has no right to (42501)
    const writable = ['SET default_transaction_read_only = off'];
    const refused = [
      `INSERT INTO cirrus.names (api_name, sql_name) VALUES ('x', 'c_1')`,
      `UPDATE ${table} SET block_number = 0`,
      `DELETE FROM ${table}`,
      `TRUNCATE ${table}`,
      'UPDATE cirrus.progress SET last_seq = 0',
      `ALTER TABLE ${table} ADD COLUMN x text`,
      `DROP TABLE ${table}`,
      'CREATE TABLE cirrus.mine (x text)',
      'CREATE TABLE public.mine (x text)',
      'CREATE TEMP TABLE mine (x text)',
      'CREATE SCHEMA mine',
      `CREATE INDEX ON ${table} (address)`,
      'SET ROLE postgres',
    ];
    for (const sql of refused) expect([sql, await asReader(sql, writable)]).toEqual([sql, '42501']);
    // a GRANT of what it does not own grants nothing (PostgreSQL only warns)
    expect(await asReader('GRANT SELECT ON cirrus.names TO PUBLIC', writable)).toBe('ok');
    expect((await h.db.query("SELECT has_table_privilege('public', 'cirrus.names', 'SELECT') AS p")).rows[0].p).toBe(false);
    // nothing changed
    expect((await h.db.query(`SELECT count(*)::int AS n FROM ${table}`)).rows[0].n).toBe(2);
  });

  test("reads no other schema: another service's, public's tables", async () => {
    expect(await asReader('SELECT * FROM vault.keys')).toBe('42501');
    expect(await asReader('SELECT * FROM public.notes')).toBe('42501');
    expect(await asReader('SELECT 1 FROM pg_catalog.pg_class LIMIT 1')).toBe('ok');
  });

  test('has no attribute beyond logging in', async () => {
    const { rows } = await h.db.query('SELECT rolsuper, rolcreatedb, rolcreaterole, rolreplication, rolbypassrls, rolinherit, rolcanlogin, rolconfig FROM pg_roles WHERE rolname = $1', [READ_ROLE]);
    expect(rows[0]).toEqual({ rolsuper: false, rolcreatedb: false, rolcreaterole: false, rolreplication: false, rolbypassrls: false, rolinherit: false, rolcanlogin: true, rolconfig: ['default_transaction_read_only=on'] });
  });
});

describe('the reader', () => {
  test('answers as cirrus.search does, caller by caller: rows, statuses, Content-Range and errors', async () => {
    const cases: Array<[string, string, string?]> = [
      ['Acme-Item', 'select=name,qty&order=name'],
      ['Item', 'select=name,qty,chainId&order=name'],
      ['Beta-Item', 'select=name,qty'],
      ['Ledger', 'select=total'],
      ['history@Acme-Item', 'select=qty&order=qty'],
      ['Acme-Item.Moved', 'select=n'],
      ['Acme-Item', 'select=name&limit=1', 'count=exact'],
      ['Acme-Item', 'select=name&offset=5', 'count=exact'],
      ['Acme-Item', 'select=nope'],
      ['Acme-Item', 'qty=gt.x'],
      ['Nope', ''],
      ['Acme-Item', 'select=name&chainId=eq.' + PRIVATE],
    ];
    for (const username of ['alice', 'bob']) {
      for (const [table, query, prefer] of cases) {
        const expected = await viaBus(table, query, username, prefer);
        // twice: the second from the remembered plan
        for (let i = 0; i < 2; i++) expect([username, table, query, await viaReader(table, query, username, prefer)]).toEqual([username, table, query, expected]);
      }
    }
  });

  test("a private chain's rows, tables and family names are its members' only", async () => {
    // alice sees both families of Item: the bare name is ambiguous for her, and names them
    expect(await viaReader('Item', '', 'alice')).toMatchObject({ code: 'TABLE_AMBIGUOUS', status: 409, details: { tables: ['Acme-Item', 'Beta-Item'] } });
    // bob does not know of Beta-Item at all
    expect(await viaReader('Item', 'select=name&order=name', 'bob')).toMatchObject({ rows: '[{"name":"apple"},{"name":"pear"}]', status: 200 });
    expect(await viaReader('Beta-Item', '', 'bob')).toMatchObject({ code: 'TABLE_NOT_FOUND', status: 404 });
    expect(await viaReader('Ledger', '', 'bob')).toMatchObject({ code: 'TABLE_NOT_FOUND', status: 404 });
    expect(await viaReader('Ledger', 'select=total,chainId', 'alice')).toMatchObject({ rows: `[{"total":100,"chainId":"${PRIVATE}"}]`, status: 200 });
    // a filter naming the private chain finds nothing for bob
    expect(await viaReader('Beta-Item', `chainId=eq.${PRIVATE}`, 'alice')).toMatchObject({ status: 200 });
    expect(await viaReader('Acme-Item', `select=name&chainId=eq.${PRIVATE}`, 'bob')).toMatchObject({ rows: '[]', status: 200 });
  });

  test("a new contract's table, and a new column of an existing one, are queryable as soon as cirrus has indexed them", async () => {
    expect(await viaReader('Acme-Gadget', 'select=name', 'bob')).toMatchObject({ code: 'TABLE_NOT_FOUND' });
    await h.publish(exec(++block, [created('g1', main.create(block, SENDER, ITEM.replace('contract Item', 'contract Gadget'), 'Gadget', { _name: 'gizmo', _qty: 1 }))]));
    await h.settled();
    expect(await viaReader('Acme-Gadget', 'select=name,qty', 'bob')).toMatchObject({ rows: '[{"name":"gizmo","qty":1}]', status: 200 });
    expect(await viaReader('Acme-Item', 'select=note', 'bob')).toMatchObject({ code: 'BAD_QUERY' });
    const v2 = main.create(++block, SENDER, ITEM_V2, 'Item', { _name: 'plum', _qty: 5 });
    await h.publish(exec(block, [v2.r, main.invoke(block, SENDER, v2.address, 'setNote', { n: 'ripe' })]));
    await h.settled();
    expect(await viaReader('Acme-Item', 'select=name,note&note=not.is.null', 'bob')).toMatchObject({ rows: '[{"name":"plum","note":"ripe"}]', status: 200 });
  });

  test('is readable (readiness), and a database it cannot reach is 503, not a 500', async () => {
    expect(await reader.ready()).toBe(true);
    const lost = startCirrusReader({ databaseUrl: readUrl.replace(/:[^:@/]+@/, ':wrong@'), logger, applicationName: 'test-cirrus-read-wrong' });
    try {
      expect(await lost.ready()).toBe(false);
      await expect(lost.search({ table: 'Acme-Item', query: '', username: 'bob' }, [''])).rejects.toMatchObject({ code: 'UNAVAILABLE', status: 503 });
    } finally {
      await lost.stop();
    }
  });
});
