// Cirrus on real NATS (JetStream) and PostgreSQL: ExecResults made by running
// SolidVM are published to the EXEC stream; the tables, history, events and
// the search endpoint are checked, a full redelivery of the stream changes
// nothing, and a reindex rebuilds the same model.
import { STREAMS } from '@platform/bus';
import { PlatformError, type ExecResult, type Receipt } from '@platform/common';
import { EXEC_MAX_IN_FLIGHT } from '../src/consumer.js';
import { formatTimestamp } from '../src/index.js';
import { Chain, Harness, OTHER, SENDER, blockHash, exec } from './helpers.js';
const SRC = `
contract Item {
  enum Status { Draft, Active, Retired }
  string name;
  uint qty;
  bool active;
  Status status;
  address owner;
  mapping(address => uint) balances;
  uint[] history;
  uint constant LIMIT = 10;
  event Moved(address to, uint n, bool ok);
  constructor(string _name, uint _qty) { name = _name; qty = _qty; owner = msg.sender; }
  function move(uint n) { qty = n; active = true; status = Status.Active; balances[msg.sender] = n; emit Moved(msg.sender, n, true); }
  function rename(string _name) { name = _name; }
  function kill() { selfdestruct(payable(msg.sender)); }
}`;
// a later upload of the same contract name with one more variable: the table gains a column
const SRC_V2 = SRC.replace('uint[] history;', 'uint[] history;\n  string note;').replace('function rename', 'function setNote(string n) { note = n; }\n  function rename');

const h = new Harness();
const chain = new Chain();
const create = (block: number, from: string, args: unknown, src = SRC) => chain.create(block, from, src, 'Item', args);
const invoke = (block: number, from: string, address: string, method: string, args: unknown) => chain.invoke(block, from, address, method, args);
const publish = (e: ExecResult) => h.publish(e);
const settled = () => h.settled();
const search = (table: string, query: string, prefer?: string) => h.search(table, query, prefer);
const dump = () => h.dump();

let a: string;
let b: string;
let c2: string;

beforeAll(async () => {
  await h.start('cirrus_test');

  // block 1: two Items created
  const ca = create(1, SENDER, { _name: 'Widget', _qty: 5 });
  const cb = create(1, OTHER, { _name: 'Gadget, "big"', _qty: 50 });
  a = ca.address;
  b = cb.address;
  await publish(exec(1, [ca.r, cb.r]));
  // block 2: two transactions on `a` in one block (two history rows), one with an event
  await publish(exec(2, [invoke(2, SENDER, a, 'move', { n: 7 }), invoke(2, OTHER, a, 'move', { n: 9 })]));
  // block 3: a second upload of Item with a new variable, and a rename of b
  const cc = create(3, SENDER, { _name: 'Sprocket', _qty: 1 }, SRC_V2);
  c2 = cc.address;
  await publish(exec(3, [cc.r, invoke(3, SENDER, c2, 'setNote', { n: 'hello' }), invoke(3, OTHER, b, 'rename', { _name: 'Gizmo' })]));
  await settled();
}, 60_000);

afterAll(() => h.stop());

describe('indexer', () => {
  test('formats block timestamps as the spec does', () => {
    expect(formatTimestamp(1_700_000_010)).toBe('2023-11-14 22:13:30 UTC');
  });

  test('the catalogue maps API names to internal identifiers', async () => {
    const { rows } = await h.db.query<{ api_name: string; sql_name: string; kind: string }>(
      'SELECT n.api_name, t.sql_name, t.kind FROM cirrus.names n JOIN cirrus.tables t USING (sql_name) ORDER BY n.api_name',
    );
    // a contract of no organization keeps the bare name; version 1 answers to both names
    expect(rows.map((r) => [r.api_name, r.kind])).toEqual([
      ['Item', 'contract'],
      ['Item-balances', 'side'],
      ['Item-history', 'side'],
      ['Item.Moved', 'event'],
      ['Item@1', 'contract'],
      ['Item@1-balances', 'side'],
      ['Item@1-history', 'side'],
      ['history@Item', 'history'],
      ['history@Item@1', 'history'],
    ]);
    for (const r of rows) expect(r.sql_name).toMatch(/^c_\d+$/);
  });

  test('one row per contract with the inherited columns and one column per non-mapping variable', async () => {
    const { rows } = await h.db.query(`SELECT * FROM ${await h.sqlTable('Item')} WHERE address = $1`, [a]);
    const res = await search('Item', `address=eq.${a}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      {
        address: a,
        chainId: '',
        record_id: a,
        block_hash: blockHash(2),
        block_timestamp: formatTimestamp(1_700_000_020),
        block_number: 2,
        transaction_hash: rows[0].transaction_hash,
        transaction_sender: OTHER,
        name: 'Widget',
        qty: 9,
        active: true,
        status: 1,
        owner: SENDER,
        balances: '0'.repeat(40),
        note: null,
      },
    ]);
    // arrays are side tables, not columns; constants are not state
    expect(Object.keys((res.body as object[])[0])).not.toContain('history');
    expect(Object.keys((res.body as object[])[0])).not.toContain('LIMIT');
  });

  test('a later upload with a new variable adds a column; updates overwrite the row', async () => {
    const res = await search('Item', 'select=address,name,qty,note&order=qty.asc');
    expect(res.body).toEqual([
      { address: c2, name: 'Sprocket', qty: 1, note: 'hello' },
      { address: a, name: 'Widget', qty: 9, note: null },
      { address: b, name: 'Gizmo', qty: 50, note: null },
    ]);
  });

  test('history has one row per changing transaction, most recent first', async () => {
    const res = await search('history@Item', `address=eq.${a}&select=block_number,qty,status,transaction_sender`);
    const rows = res.body as Array<{ block_number: number; qty: number }>;
    // newest block first; within one block, the later transaction first
    expect(rows).toEqual([
      { block_number: 2, qty: 9, status: 1, transaction_sender: OTHER },
      { block_number: 2, qty: 7, status: 1, transaction_sender: SENDER },
      { block_number: 1, qty: 5, status: 0, transaction_sender: SENDER },
    ]);
    // an explicit order applies as given; the tie-breaker is not a column
    expect((await h.failure('history@Item', 'select=h_seq')).code).toBe('BAD_QUERY');
    const all = await search('history@Item', 'select=count');
    expect(all.body).toEqual([{ count: 7 }]); // 2 creations + 2 moves + creation + setNote + rename
  });

  test('event rows: id in emission order, address, text arguments, transaction and block', async () => {
    const res = await search('Item.Moved', 'order=id');
    const rows = res.body as Array<Record<string, unknown>>;
    expect(rows.map((r) => [r.address, r.to, r.n, r.ok, r.block_number, r.block_timestamp])).toEqual([
      [a, SENDER, '7', 'True', 2, formatTimestamp(1_700_000_020)],
      [a, OTHER, '9', 'True', 2, formatTimestamp(1_700_000_020)],
    ]);
    expect(Object.keys(rows[0])).toEqual(['id', 'address', 'chainId', 'to', 'n', 'ok', 'transaction_hash', 'block_number', 'block_timestamp']);
    expect(Number(rows[1].id)).toBeGreaterThan(Number(rows[0].id));
    // arguments are text: a text comparison
    expect((await search('Item.Moved', 'n=eq.9&select=to')).body).toEqual([{ to: OTHER }]);
  });
});

describe('search', () => {
  test('eq filter on text with PostgREST quoting literal in a plain filter', async () => {
    expect((await search('Item', 'name=eq.Widget&select=qty')).body).toEqual([{ qty: 9 }]);
    expect((await search('Item', 'name=in.("Gizmo","Widget")&select=name&order=name.desc')).body).toEqual([{ name: 'Widget' }, { name: 'Gizmo' }]);
    expect((await search('Item', 'qty=gte.9&active=is.true&select=address')).body).toEqual([{ address: a }]);
  });

  test('default order: block_number, then address', async () => {
    const rows = (await search('Item', 'select=address,block_number')).body as Array<{ address: string; block_number: number }>;
    const sorted = [...rows].sort((x, y) => x.block_number - y.block_number || (x.address < y.address ? -1 : 1));
    expect(rows).toEqual(sorted);
  });

  test('limit, offset and Prefer: count=exact answer Content-Range and status', async () => {
    const page = await search('Item', 'select=name&order=name&limit=2', 'count=exact');
    expect(page).toMatchObject({ status: 206, contentRange: '0-1/3', body: [{ name: 'Gizmo' }, { name: 'Sprocket' }] });
    const last = await search('Item', 'select=name&order=name&limit=2&offset=2', 'count=exact');
    expect(last).toMatchObject({ status: 206, contentRange: '2-2/3', body: [{ name: 'Widget' }] });
    const whole = await search('Item', 'select=name&order=name', 'count=exact');
    expect(whole).toMatchObject({ status: 200, contentRange: '0-2/3' });
    const past = await search('Item', 'limit=2&offset=10', 'count=exact');
    expect(past).toMatchObject({ status: 416, contentRange: '*/3', body: [] });
    const noCount = await search('Item', 'select=name&limit=2');
    expect(noCount).toMatchObject({ status: 200, contentRange: '0-1/*' });
  });

  test('unknown tables are 404, unknown columns and malformed queries 400, without SQL', async () => {
    const failure = (table: string, query: string) => h.failure(table, query);
    const missing = await failure('Nope', '');
    expect(missing).toBeInstanceOf(PlatformError);
    expect(missing.code).toBe('TABLE_NOT_FOUND');
    const column = await failure('Item', 'colour=eq.red');
    expect(column.code).toBe('BAD_QUERY');
    expect(column.message).toContain('colour');
    expect(column.message).not.toMatch(/c_\d|v_\d|cirrus\./);
    expect((await failure('Item', 'qty=eq.abc')).code).toBe('BAD_QUERY');
  });

  test('casts: the value as the type asked for; one the data does not fit is a 400 naming the cast, without SQL', async () => {
    expect((await search('Item', 'name=eq.Widget&select=n:name,qty::text,active::int')).body).toEqual([{ n: 'Widget', qty: '9', active: 1 }]);
    const bad = await h.failure('Item', 'name=eq.Widget&select=name::numeric');
    expect(bad).toMatchObject({ code: 'BAD_QUERY', details: { casts: ['name::numeric'] } });
    expect(bad.message).not.toMatch(/SELECT|c_\d|v_\d|cirrus\./);
    expect((await h.failure('Item', 'select=qty::date')).message).toContain("cannot cast 'qty' to 'date'");
  });
});

describe('idempotence', () => {
  test('the durable consumer has a short ack wait, so a crashed instance holds blocks back for 5 s at most, and receives blocks ahead', async () => {
    const info = await h.jsm.consumers.info(STREAMS.exec.name, 'cirrus');
    expect(info.config.ack_wait).toBe(5_000 * 1_000_000);
    expect(info.config.max_ack_pending).toBe(EXEC_MAX_IN_FLIGHT);
  });

  test('redelivering the whole stream changes nothing', async () => {
    const before = await dump();
    await h.stopCirrus();
    // a new durable consumer from the first message: every ExecResult comes again
    await h.jsm.consumers.delete(STREAMS.exec.name, 'cirrus');
    await h.startCirrus();
    const info = async () => (await h.jsm.consumers.info(STREAMS.exec.name, 'cirrus')).ack_floor.stream_seq;
    const deadline = Date.now() + 15_000;
    while ((await info()) < h.published) {
      if (Date.now() > deadline) throw new Error('redelivery not acknowledged');
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(await dump()).toEqual(before);
  });

  test('a new block after a restart is applied', async () => {
    await publish(exec(4, [invoke(4, SENDER, b, 'move', { n: 3 })]));
    await settled();
    expect((await search('Item', `address=eq.${b}&select=qty,block_number`)).body).toEqual([{ qty: 3, block_number: 4 }]);
    expect((await search('Item.Moved', 'select=count')).body).toEqual([{ count: 3 }]);
  });

  test('failed receipts and other chains are not indexed; a destroyed contract loses its row', async () => {
    const before = await dump();
    const failed: Receipt = { ...invoke(5, SENDER, a, 'move', { n: 99 }), status: 'Failure', message: 'reverted' };
    await publish(exec(5, [failed]));
    await publish({ ...exec(6, [invoke(6, SENDER, a, 'move', { n: 98 })]), chainId: 'ab'.repeat(32) });
    await settled();
    expect(await dump()).toEqual(before);

    await publish(exec(7, [invoke(7, SENDER, c2, 'kill', {})]));
    await settled();
    expect((await search('Item', 'select=address&order=address')).body).toEqual([a, b].sort().map((address) => ({ address })));
    expect((await search('history@Item', `address=eq.${c2}&select=count`)).body).toEqual([{ count: 2 }]);
  });

  test('a later upload that changes a variable\'s type gets a new table version; the indexer goes on', async () => {
    const before = (await search('Item@1', 'select=address&order=address')).body;
    const odd = create(8, SENDER, { _name: 'Odd', _qty: 'lots' }, SRC.replace('uint qty;', 'string qty;').replace('string _name, uint _qty', 'string _name, string _qty').replace('function move(uint n) { qty = n;', 'function move(uint n) {'));
    await publish(exec(8, [odd.r]));
    await publish(exec(9, [invoke(9, SENDER, a, 'rename', { _name: 'Widget II' })]));
    await settled();
    // the family's name designates the newest version; the first stays as Item@1
    expect((await search('Item', 'select=address,name,qty')).body).toEqual([{ address: odd.address, name: 'Odd', qty: 'lots' }]);
    expect((await search('Item@2', 'qty=eq.lots&select=name')).body).toEqual([{ name: 'Odd' }]);
    expect((await search('Item@1', 'select=address&order=address')).body).toEqual(before);
    // (the VM's state of `a` includes the move of the block on another chain, which cirrus skipped)
    expect((await search('Item@1', `address=eq.${a}&select=name,qty`)).body).toEqual([{ name: 'Widget II', qty: 98 }]);
    expect((await search('history@Item@2', 'select=count')).body).toEqual([{ count: 1 }]);
    // side tables follow their version
    expect((await search('Item-balances', 'select=count')).body).toEqual([{ count: 0 }]);
    expect((await search('Item@1-balances', `address=eq.${a}&select=key,value&order=value`)).body).toEqual([
      { key: SENDER, value: 7 },
      { key: OTHER, value: 9 },
    ]);
  });
});

describe('reindex', () => {
  test('dropping the read model and rebuilding it from the stream gives the same model', async () => {
    const before = await dump();
    await h.stopCirrus();
    await h.startCirrus({ reindex: true });
    await settled();
    const deadline = Date.now() + 15_000;
    while ((await h.jsm.consumers.info(STREAMS.exec.name, 'cirrus')).ack_floor.stream_seq < h.published) {
      if (Date.now() > deadline) throw new Error('reindex not finished');
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(await dump()).toEqual(before);
  });

  test('a migration that changes the model\'s shape rebuilds it from the stream at the next start', async () => {
    const before = await dump();
    await h.stopCirrus();
    // as if the last migration (a rebuild one) had not been applied yet
    await h.db.query('DELETE FROM cirrus.migrations WHERE version = (SELECT max(version) FROM cirrus.migrations)');
    // only a redelivery of the whole stream can bring the progress back; applied on the old tables it would double history
    await h.db.query("UPDATE cirrus.progress SET last_seq = 0 WHERE consumer = 'cirrus'");
    await h.startCirrus();
    await settled();
    expect(await h.applied()).toBe(h.published);
    expect(await dump()).toEqual(before);
  });

  test('a model dropped without its consumer (a crash in the middle of a reindex) is rebuilt whole at the next start', async () => {
    const before = await dump();
    await h.stopCirrus();
    // the durable consumer still stands past every message; only the model is gone
    await h.db.query('DROP SCHEMA cirrus CASCADE');
    await h.startCirrus();
    await settled();
    expect(await h.applied()).toBe(h.published);
    expect(await dump()).toEqual(before);
  });
});
