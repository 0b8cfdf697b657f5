// Cirrus on real NATS (JetStream) and PostgreSQL: ExecResults made by running
// SolidVM (genuine stateChanges, events, contractsCreated with their xabi) are
// published to the EXEC stream; the tables, history, events and the search
// endpoint are checked, and a full redelivery of the stream changes nothing.
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import pg from 'pg';
import { CIRRUS, STREAMS, call, connectBus, ensureStream, type NatsConnection, type SearchResponse } from '@platform/bus';
import { PlatformError, createLogger, loadConfig, type ExecResult, type ExecutionContext, type Receipt } from '@platform/common';
import { startTestInfra, type TestInfra } from '@platform/launcher';
import { MemoryWorldState, callContract, createContract, type ExecOutcome } from '@platform/solidvm';
import { formatTimestamp, startCirrus, type RunningCirrus } from '../src/index.js';

const SENDER = '11'.repeat(20);
const OTHER = '22'.repeat(20);
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

let infra: TestInfra;
let databaseUrl: string;
let db: pg.Pool;
let nc: NatsConnection;
let js: JetStreamClient;
let jsm: JetStreamManager;
let cirrus: RunningCirrus | undefined;
const logger = createLogger('cirrus', 'silent');

const state = new MemoryWorldState();
let txCounter = 0;
const nonces = new Map<string, bigint>();
const hashOf = (n: number) => n.toString(16).padStart(64, '0');

function ctx(block: number, from: string): ExecutionContext {
  return {
    chainId: '',
    block: { number: block, timestamp: 1_700_000_000 + block * 10, coinbase: '' },
    tx: { hash: hashOf(++txCounter), origin: from, gasPrice: 0n, gasLimit: 10_000_000n, value: 0n },
    identity: null,
    protocol: { stepLimit: 1_000_000, gasTableVersion: 1 },
    gasEnabled: false,
  };
}

function receipt(c: ExecutionContext, from: string, o: ExecOutcome): Receipt {
  if (!o.ok) throw new Error(o.message);
  return {
    transactionHash: c.tx.hash,
    from,
    status: 'Success',
    message: o.message,
    kind: 'SolidVM',
    response: o.response,
    returnValues: o.returnValues,
    contractsCreated: o.contractsCreated,
    contractsDeleted: o.contractsDeleted,
    gasUsed: o.gasUsed.toString(),
    etherUsed: '0',
    stateChanges: o.stateChanges,
    events: o.events,
    time: 1,
    trace: '',
  };
}

function create(block: number, from: string, args: unknown, src = SRC): { r: Receipt; address: string } {
  const c = ctx(block, from);
  const nonce = nonces.get(from) ?? 0n;
  nonces.set(from, nonce + 1n);
  const o = createContract(state, c, { creator: from, src, contractName: 'Item', args, nonce });
  return { r: receipt(c, from, o), address: o.address! };
}

function invoke(block: number, from: string, address: string, method: string, args: unknown): Receipt {
  const c = ctx(block, from);
  return receipt(c, from, callContract(state, c, { caller: from, address, method, args }));
}

const blockHash = (n: number) => `b${n}`.padEnd(64, '0');
function exec(number: number, receipts: Receipt[]): ExecResult {
  return { chainId: '', block: { number, hash: blockHash(number), timestamp: 1_700_000_000 + number * 10, parentHash: blockHash(number - 1), stateRoot: '00'.repeat(32) }, receipts };
}

let published = 0;
async function publish(e: ExecResult): Promise<void> {
  await js.publish(`exec.main`, JSON.stringify(e), { msgID: `main:${e.block.number}` });
  published++;
}

async function applied(): Promise<number> {
  const { rows } = await db.query<{ last_seq: string }>("SELECT last_seq FROM cirrus.progress WHERE consumer = 'cirrus'").catch(() => ({ rows: [] as { last_seq: string }[] }));
  return rows[0] ? Number(rows[0].last_seq) : 0;
}

async function settled(): Promise<void> {
  const deadline = Date.now() + 15_000;
  while ((await applied()) < published) {
    if (Date.now() > deadline) throw new Error(`indexer stuck at ${await applied()} of ${published}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function search(table: string, query: string, prefer?: string): Promise<SearchResponse & { body: unknown }> {
  const res = await call(nc, CIRRUS.search, { table, query, username: 'alice', ...(prefer ? { prefer } : {}) });
  return { ...res, body: JSON.parse(res.rows) };
}

async function sqlTable(api: string): Promise<string> {
  const { rows } = await db.query<{ sql_name: string }>('SELECT sql_name FROM cirrus.tables WHERE api_name = $1', [api]);
  return `cirrus.${rows[0].sql_name}`;
}

async function dump(): Promise<unknown> {
  const { rows: tables } = await db.query<{ api_name: string; sql_name: string; columns: unknown }>('SELECT api_name, sql_name, columns FROM cirrus.tables ORDER BY api_name');
  const out: Record<string, unknown> = {};
  for (const t of tables) out[t.api_name] = { columns: t.columns, rows: (await db.query(`SELECT * FROM cirrus.${t.sql_name} ORDER BY 1, 2`)).rows };
  return out;
}

let a: string;
let b: string;
let c2: string;

beforeAll(async () => {
  infra = await startTestInfra({ nats: true, postgres: true });
  databaseUrl = await infra.postgres!.createDatabase('cirrus_test');
  db = new pg.Pool({ connectionString: databaseUrl });
  nc = await connectBus({ url: infra.nats!.url, name: 'cirrus-test', logger });
  jsm = await jetstreamManager(nc);
  await ensureStream(jsm, STREAMS.exec);
  js = jetstream(nc);
  cirrus = await startCirrus({ config: loadConfig({ LOG_LEVEL: 'silent' }), logger, natsUrl: infra.nats!.url, databaseUrl });

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

afterAll(async () => {
  await cirrus?.stop();
  await nc?.drain();
  await db?.end();
  await infra?.stop();
});

describe('indexer', () => {
  test('formats block timestamps as the spec does', () => {
    expect(formatTimestamp(1_700_000_010)).toBe('2023-11-14 22:13:30 UTC');
  });

  test('the catalogue maps API names to internal identifiers', async () => {
    const { rows } = await db.query<{ api_name: string; sql_name: string; kind: string }>('SELECT api_name, sql_name, kind FROM cirrus.tables ORDER BY api_name');
    expect(rows.map((r) => [r.api_name, r.kind])).toEqual([
      ['Item', 'contract'],
      ['Item.Moved', 'event'],
      ['history@Item', 'history'],
    ]);
    for (const r of rows) expect(r.sql_name).toMatch(/^c_\d+$/);
  });

  test('one row per contract with the inherited columns and one column per non-mapping variable', async () => {
    const { rows } = await db.query(`SELECT * FROM ${await sqlTable('Item')} WHERE address = $1`, [a]);
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
    // arrays are not columns in this slice; constants are not state
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
    // newest block first; within one block the order is not pinned yet (see README, gaps)
    expect(rows.map((r) => r.block_number)).toEqual([2, 2, 1]);
    expect(new Set(rows.slice(0, 2))).toEqual(
      new Set([
        { block_number: 2, qty: 9, status: 1, transaction_sender: OTHER },
        { block_number: 2, qty: 7, status: 1, transaction_sender: SENDER },
      ]),
    );
    expect(rows[2]).toEqual({ block_number: 1, qty: 5, status: 0, transaction_sender: SENDER });
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
    const failure = async (table: string, query: string) => {
      try {
        await search(table, query);
      } catch (err) {
        return err as PlatformError;
      }
      throw new Error('expected an error');
    };
    const missing = await failure('Nope', '');
    expect(missing).toBeInstanceOf(PlatformError);
    expect(missing.code).toBe('NOT_FOUND');
    const column = await failure('Item', 'colour=eq.red');
    expect(column.code).toBe('BAD_QUERY');
    expect(column.message).toContain('colour');
    expect(column.message).not.toMatch(/c_\d|v_\d|cirrus\./);
    expect((await failure('Item', 'qty=eq.abc')).code).toBe('BAD_QUERY');
  });
});

describe('idempotence', () => {
  test('the durable consumer has a short ack wait, so a crashed instance holds blocks back for 5 s at most', async () => {
    const info = await jsm.consumers.info(STREAMS.exec.name, 'cirrus');
    expect(info.config.ack_wait).toBe(5_000 * 1_000_000);
    expect(info.config.max_ack_pending).toBe(1);
  });

  test('redelivering the whole stream changes nothing', async () => {
    const before = await dump();
    await cirrus!.stop();
    cirrus = undefined;
    // a new durable consumer from the first message: every ExecResult comes again
    await jsm.consumers.delete(STREAMS.exec.name, 'cirrus');
    cirrus = await startCirrus({ config: loadConfig({ LOG_LEVEL: 'silent' }), logger, natsUrl: infra.nats!.url, databaseUrl });
    const info = async () => (await jsm.consumers.info(STREAMS.exec.name, 'cirrus')).ack_floor.stream_seq;
    const deadline = Date.now() + 15_000;
    while ((await info()) < published) {
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

  test('a later upload that changes a variable\'s type does not stop the indexer', async () => {
    const odd = create(8, SENDER, { _name: 'Odd', _qty: 'lots' }, SRC.replace('uint qty;', 'string qty;').replace('string _name, uint _qty', 'string _name, string _qty').replace('function move(uint n) { qty = n;', 'function move(uint n) {'));
    await publish(exec(8, [odd.r]));
    await publish(exec(9, [invoke(9, SENDER, a, 'rename', { _name: 'Widget II' })]));
    await settled();
    // the column keeps its first type: the new upload's value does not fit and is NULL
    expect((await search('Item', `address=eq.${odd.address}&select=name,qty`)).body).toEqual([{ name: 'Odd', qty: null }]);
    expect((await search('Item', `address=eq.${a}&select=name`)).body).toEqual([{ name: 'Widget II' }]);
  });
});
