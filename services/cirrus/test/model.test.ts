// The read model beyond the spec's columns: side tables for arrays and
// mappings kept in step with every change and delete, structs as jsonb, all
// queryable with the same language; table names from the creator's
// organization and application, bare names and their 409.
import { loadConfig, type Receipt } from '@platform/common';
import { Chain, Harness, OTHER, SENDER, exec } from './helpers.js';

const SHOP = `
contract Shop {
  enum Status { Draft, Active, Retired }
  struct P { uint x; string s; bool b; }
  P p;
  P[] ps;
  uint[] arr;
  uint[3] fx;
  mapping(address => uint) balances;
  mapping(uint => string) names;
  mapping(string => bool) flags;
  mapping(Status => uint) byStatus;
  mapping(address => mapping(uint => bool)) nested;
  mapping(uint => P) structs;
  mapping(uint => uint[]) marr;
  constructor() { }
  function fill() {
    balances[msg.sender] = 5; names[7] = "seven"; names[8] = "eight"; flags["a,b"] = true; byStatus[Status.Active] = 2;
    nested[msg.sender][3] = true; structs[1] = P(4, "four", true); arr.push(1); arr.push(2); fx[1] = 9;
    p = P(1, "s", true); ps.push(P(2, "t", false)); marr[1].push(5); marr[1].push(6);
  }
  function clear() { delete balances[msg.sender]; arr.pop(); delete structs[1]; names[7] = ""; marr[1].pop(); nested[msg.sender][3] = false; }
  function setField(uint k, uint x) { structs[k].x = x; }
}`;

const ITEM = `
contract Item {
  uint qty;
  event Moved(uint n);
  constructor(uint _qty) { qty = _qty; }
  function move(uint n) { qty = n; emit Moved(n); }
}`;
const MARKET = `${ITEM}
contract Market {
  Item last;
  function list(uint q) { last = new Item(q); }
  function point(address a) { last = Item(a); }
}`;

const h = new Harness();
const plain = new Chain();
const acme = new Chain({ organization: 'Acme' });
const beta = new Chain({ organization: 'Beta' });
let shop: string;
let acmeItem: string;
let market: string;

beforeAll(async () => {
  await h.start('cirrus_model');
  const s = plain.create(1, SENDER, SHOP, 'Shop', {});
  shop = s.address;
  await h.publish(exec(1, [s.r]));
  await h.publish(exec(2, [plain.invoke(2, SENDER, shop, 'fill', {})]));
  const i = acme.create(3, OTHER, ITEM, 'Item', { _qty: 1 });
  acmeItem = i.address;
  await h.publish(exec(3, [i.r, acme.invoke(3, OTHER, acmeItem, 'move', { n: 2 })]));
  await h.settled();
}, 60_000);

afterAll(() => h.stop());

describe('structs and side tables', () => {
  test('a struct is a jsonb column: integers as numbers, filterable by ->/->>', async () => {
    expect((await h.search('Shop', 'select=p')).body).toEqual([{ p: { x: 1, s: 's', b: true } }]);
    expect((await h.search('Shop', 'p->x=eq.1&p->>s=eq.s&select=x:p->x')).body).toEqual([{ x: 1 }]);
    expect((await h.search('Shop', 'p->x=gt.1&select=address')).body).toEqual([]);
  });

  test('arrays: one row per element with index and value; fixed arrays have every element', async () => {
    expect((await h.search('Shop-arr', 'select=address,chainId,index,value')).body).toEqual([
      { address: shop, chainId: '', index: 0, value: 1 },
      { address: shop, chainId: '', index: 1, value: 2 },
    ]);
    expect((await h.search('Shop-fx', 'select=index,value')).body).toEqual([
      { index: 0, value: 0 },
      { index: 1, value: 9 },
      { index: 2, value: 0 },
    ]);
    expect((await h.search('Shop-ps', 'select=value')).body).toEqual([{ value: { x: 2, s: 't', b: false } }]);
    expect((await h.search('Shop-ps', 'value->>s=eq.t&select=index')).body).toEqual([{ index: 0 }]);
  });

  test('mappings: one row per entry with key and value, keys typed by the key type', async () => {
    expect((await h.search('Shop-balances', `key=eq.${SENDER}&select=value`)).body).toEqual([{ value: 5 }]);
    expect((await h.search('Shop-names', 'select=key,value&order=key.desc')).body).toEqual([
      { key: 8, value: 'eight' },
      { key: 7, value: 'seven' },
    ]);
    expect((await h.search('Shop-names', 'key=gt.7.5&select=value')).body).toEqual([{ value: 'eight' }]);
    // a string key with a comma: literal in a plain filter, quoted in in.(…)
    expect((await h.search('Shop-flags', 'key=eq.a,b&select=value')).body).toEqual([{ value: true }]);
    expect((await h.search('Shop-flags', 'key=in.("a,b")&select=value')).body).toEqual([{ value: true }]);
    expect((await h.search('Shop-byStatus', 'select=key,value')).body).toEqual([{ key: 1, value: 2 }]);
    // nested mappings, structs and arrays as values are jsonb
    expect((await h.search('Shop-nested', 'select=key,value')).body).toEqual([{ key: SENDER, value: { '3': true } }]);
    expect((await h.search('Shop-structs', 'select=key,value')).body).toEqual([{ key: 1, value: { x: 4, s: 'four', b: true } }]);
    expect((await h.search('Shop-marr', 'select=key,value')).body).toEqual([{ key: 1, value: [5, 6] }]);
    // the contract table keeps the spec's 40 zeros for a mapping; arrays are not columns
    const row = ((await h.search('Shop', 'select=*')).body as Array<Record<string, unknown>>)[0];
    expect(row.balances).toBe('0'.repeat(40));
    expect(Object.keys(row)).not.toContain('arr');
  });

  test('side tables follow changes and deletes: cleared entries and popped elements go', async () => {
    await h.publish(exec(4, [plain.invoke(4, SENDER, shop, 'clear', {}), plain.invoke(4, SENDER, shop, 'setField', { k: 2, x: 11 })]));
    await h.settled();
    expect((await h.search('Shop-balances', 'select=count')).body).toEqual([{ count: 0 }]);
    expect((await h.search('Shop-names', 'select=key')).body).toEqual([{ key: 8 }]);
    expect((await h.search('Shop-arr', 'select=index,value')).body).toEqual([{ index: 0, value: 1 }]);
    expect((await h.search('Shop-nested', 'select=count')).body).toEqual([{ count: 0 }]);
    expect((await h.search('Shop-marr', 'select=value')).body).toEqual([{ value: [5] }]);
    // a struct entry: one field set on an absent entry, the other fields at their defaults
    expect((await h.search('Shop-structs', 'select=key,value')).body).toEqual([{ key: 2, value: { x: 11, s: '', b: false } }]);
  });

  test('a side table whose name another table holds is refused; its versioned name still works', async () => {
    // `Shop-structs` as the family of a contract `structs` of organization `Shop`
    const org = new Chain({ organization: 'Shop' });
    const c = org.create(5, '33'.repeat(20), 'contract structs { uint n; constructor() { n = 1; } }', 'structs', {});
    await h.publish(exec(5, [c.r]));
    await h.settled();
    expect((await h.search('Shop-structs', 'select=n')).body).toEqual([{ n: 1 }]);
    expect((await h.search('Shop@1-structs', 'select=key')).body).toEqual([{ key: 2 }]);
  });
});

describe('values PostgreSQL cannot store', () => {
  test('a NUL character or an unpaired surrogate becomes U+FFFD; the indexer goes on', async () => {
    const src = `contract Odd {
      struct P { string s; }
      string name; P p; mapping(string => string) m; string[] list;
      event E(string s);
      function set(string s) { name = s; p = P(s); m[s] = s; list.push(s); emit E(s); }
    }`;
    const odd = plain.create(20, SENDER, src, 'Odd', {});
    const bad = 'a\u0000b\uD800c';
    await h.publish(exec(20, [odd.r, plain.invoke(20, SENDER, odd.address, 'set', { s: bad })]));
    await h.publish(exec(21, [plain.invoke(21, SENDER, odd.address, 'set', { s: 'fine' })]));
    await h.settled();
    const good = 'a\uFFFDb\uFFFDc';
    expect((await h.search('history@Odd', 'select=name,p')).body).toEqual([
      { name: 'fine', p: { s: 'fine' } },
      { name: good, p: { s: good } },
      { name: '', p: { s: '' } },
    ]);
    expect((await h.search('Odd-m', 'select=key,value&order=key')).body).toEqual([{ key: good, value: good }, { key: 'fine', value: 'fine' }].sort((x, y) => (x.key < y.key ? -1 : 1)));
    expect((await h.search('Odd-list', 'select=value')).body).toEqual([{ value: good }, { value: 'fine' }]);
    expect((await h.search('Odd.E', 'select=s')).body).toEqual([{ s: good }, { s: 'fine' }]);
    // two keys the VM tells apart that are stored alike: one entry, the later value
    await h.publish(exec(22, [plain.invoke(22, SENDER, odd.address, 'set', { s: 'k\u0000' }), plain.invoke(22, SENDER, odd.address, 'set', { s: 'k\uFFFD' })]));
    await h.settled();
    expect((await h.search('Odd-m', 'key=like.k*&select=key,value')).body).toEqual([{ key: 'k\uFFFD', value: 'k\uFFFD' }]);
  });
});

describe('naming', () => {
  test('a contract uploaded by a member of an organization is <org>-<Contract>; its bare name resolves while unique', async () => {
    expect((await h.search('Acme-Item', 'select=address,qty')).body).toEqual([{ address: acmeItem, qty: 2 }]);
    expect((await h.search('Item', 'select=address,qty')).body).toEqual([{ address: acmeItem, qty: 2 }]);
    expect((await h.search('history@Item', 'select=qty')).body).toEqual([{ qty: 2 }, { qty: 1 }]);
    expect((await h.search('Item.Moved', 'select=n')).body).toEqual([{ n: '2' }]);
    expect((await h.search('Acme-Item.Moved', 'select=n')).body).toEqual([{ n: '2' }]);
  });

  test('a contract created by an application is <org>-<app>-<Contract>; the application is <org>-<app>', async () => {
    const m = acme.create(6, OTHER, MARKET, 'Market', {});
    market = m.address;
    await h.publish(exec(6, [m.r, acme.invoke(6, OTHER, market, 'list', { q: 7 })]));
    await h.settled();
    expect((await h.search('Acme-Market', 'select=address')).body).toEqual([{ address: market }]);
    expect((await h.search('Acme-Market-Item', 'select=qty')).body).toEqual([{ qty: 7 }]);
  });

  test('a contract-typed variable embeds the contract it refers to; a reference to no contract is NULL', async () => {
    const [{ last }] = (await h.search('Acme-Market', 'select=last')).body as Array<{ last: string }>;
    expect((await h.search('Acme-Market', 'select=address,Item(address,qty)')).body).toEqual([{ address: market, Item: { address: last, qty: 7 } }]);
    expect((await h.search('Acme-Market', 'select=item:Item!last(qty)')).body).toEqual([{ item: { qty: 7 } }]);
    await h.publish(exec(7, [acme.invoke(7, OTHER, market, 'point', { a: SENDER })]));
    await h.settled();
    expect((await h.search('Acme-Market', 'select=last,Item(qty)')).body).toEqual([{ last: null, Item: null }]);
    expect((await h.search('history@Acme-Market', 'select=last&order=block_number.desc&limit=1')).body).toEqual([{ last: null }]);
    expect((await h.failure('Acme-Market', 'select=Nope(*)')).code).toBe('BAD_QUERY');
  });

  test('a bare name of several tables is 409 listing the full names', async () => {
    const i = beta.create(8, '44'.repeat(20), ITEM, 'Item', { _qty: 3 });
    await h.publish(exec(8, [i.r]));
    await h.settled();
    for (const name of ['Item', 'history@Item', 'Item.Moved']) {
      const err = await h.failure(name, '');
      expect(err.code).toBe('TABLE_AMBIGUOUS');
      expect(err.message).toContain('Acme-Item, Acme-Market-Item, Beta-Item');
      expect(err.details).toMatchObject({ tables: ['Acme-Item', 'Acme-Market-Item', 'Beta-Item'] });
    }
    expect((await h.search('Beta-Item', 'select=qty')).body).toEqual([{ qty: 3 }]);
    expect((await h.failure('Nope-Item', '')).code).toBe('TABLE_NOT_FOUND');
  });
});

describe('EVM contracts', () => {
  // what libs/evm puts in a receipt with decodeStorage (the block service's
  // INDEX_EVM): the xabi from solc's AST, `state` with the variables decoded by
  // the storage layout, raw slots and SolidVM's storage paths in `diff`
  const token = 'e0'.repeat(20);
  const evmReceipt = (): Receipt => ({
    transactionHash: 'ee'.repeat(32),
    from: SENDER,
    status: 'Success',
    message: 'Success!',
    kind: 'EVM',
    response: '',
    returnValues: [],
    contractsCreated: [
      {
        address: token,
        chainId: '',
        name: 'Token',
        codeHash: 'cc'.repeat(32),
        vm: 'EVM',
        creatorOrg: null,
        appName: null,
        xabi: {
          funcs: {},
          constr: null,
          vars: {
            name: { type: 'String', dynamic: true, public: true, constant: false },
            totalSupply: { type: 'Int', signed: false, bytes: 32, public: true, constant: false },
            paused: { type: 'Bool', public: true, constant: false },
            balanceOf: { type: 'Mapping', key: { type: 'Address' }, value: { type: 'Int', signed: false, bytes: 32 }, public: true, constant: false },
            holders: { type: 'Array', entry: { type: 'Address' }, public: false, constant: false },
          } as never,
          types: {},
          modifiers: {},
          events: {},
          kind: 'ContractKind',
          using: {},
        },
      },
    ],
    contractsDeleted: [],
    gasUsed: '0',
    etherUsed: '0',
    stateChanges: [
      {
        address: token,
        chainId: '',
        contractName: 'Token',
        codeHash: 'cc'.repeat(32),
        vm: 'EVM',
        created: true,
        deleted: false,
        state: { name: 'Gold', totalSupply: '1000', paused: false, holders: [SENDER] },
        diff: { ['00'.repeat(31) + '01']: '3e8', '.totalSupply': '1000', [`.balanceOf<${SENDER}>`]: '1000', '.holders[0]': SENDER, '.holders.length': '1' },
      },
    ],
    events: [{ address: token, chainId: '', contractName: 'Token', name: 'Transfer', args: [['from', '0'.repeat(40)], ['to', SENDER], ['value', '1000']], index: 0 }],
    time: 1,
    trace: '',
  });

  test('indexed only with INDEX_EVM: columns, a mapping as 40 zeros, side tables from the decoded paths', async () => {
    await h.publish(exec(9, [evmReceipt()]));
    await h.settled();
    expect((await h.failure('Token', '')).code).toBe('TABLE_NOT_FOUND');

    await h.stopCirrus();
    await h.startCirrus({ config: loadConfig({ LOG_LEVEL: 'silent', INDEX_EVM: 'true' }), reindex: true });
    await h.settled();
    expect((await h.search('Token', 'select=address,name,totalSupply,paused,balanceOf')).body).toEqual([
      { address: token, name: 'Gold', totalSupply: 1000, paused: false, balanceOf: '0'.repeat(40) },
    ]);
    expect((await h.search('Token.Transfer', 'select=to,value')).body).toEqual([{ to: SENDER, value: '1000' }]);
    expect((await h.search('Token-balanceOf', 'select=key,value')).body).toEqual([{ key: SENDER, value: 1000 }]);
    expect((await h.search('Token-holders', 'select=index,value')).body).toEqual([{ index: 0, value: SENDER }]);
    // the rebuild re-indexed the SolidVM contracts too
    expect((await h.search('Acme-Item', 'select=qty')).body).toEqual([{ qty: 2 }]);
  });
});
