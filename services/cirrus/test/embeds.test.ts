// Embedded resources through contract-typed variables, in both directions
// (PostgREST's many-to-one and one-to-many), across table versions, and the
// privacy of embedded tables: an embed into a table none of whose rows the
// caller may see answers exactly as an embed of a table that does not exist.
// A stand-in chains service answers `chains.visibleTo`: alice is a member of
// the private chain PRIVATE, bob of none.
import { CHAINS, handle, serve } from '@platform/bus';
import { createLogger, type Receipt } from '@platform/common';
import { Chain, Harness, OTHER, SENDER, exec } from './helpers.js';

const ITEM = `
contract Item {
  uint qty;
  constructor(uint _qty) { qty = _qty; }
}`;
const ORDER = `${ITEM}
contract Order {
  Item buyerItem;
  Item sellerItem;
  uint qty;
  constructor(address b, address s, uint q) { buyerItem = Item(b); sellerItem = Item(s); qty = q; }
}`;
const LISTING = `${ITEM}
contract Listing {
  Item item;
  constructor(address i) { item = Item(i); }
}`;
const BID = LISTING.replace('contract Listing', 'contract Bid');
const NODE = `
contract Node {
  Node next;
  uint n;
  constructor(address nx, uint _n) { next = Node(nx); n = _n; }
}`;
/** Links of two versions (`w` a string in the second), each referring to one of the first. */
const LINK = `
contract Link {
  Link prev;
  uint w;
  constructor(address p, uint _w) { prev = Link(p); w = _w; }
}`;
const VAULT = ITEM.replace('contract Item', 'contract Vault');
const PUB = `${VAULT}
contract Pub {
  Vault v;
  Vault w;
  uint k;
  constructor(address a, uint _k) { v = Vault(a); w = Vault(a); k = _k; }
}`;
const HOLDER = LISTING.replace('contract Listing', 'contract Holder');
/** A later upload whose variable changed type: a new table version of the family. */
const retyped = (src: string) => src.replaceAll('uint qty;', 'string qty;').replace('uint _qty', 'string _qty').replace('uint q)', 'string q)');

const GIZMO = ITEM.replace('contract Item', 'contract Gizmo');
const SECRET = ITEM.replace('contract Item', 'contract Secret');
const PRIVATE = 'ab'.repeat(32);
const h = new Harness();
const main = new Chain();
const priv = new Chain(null, PRIVATE);
let chainsService: Awaited<ReturnType<typeof serve>> | undefined;

const addr: Record<string, string> = {};
const created = (key: string, c: { r: Receipt; address: string }): Receipt => {
  addr[key] = c.address;
  return c.r;
};

beforeAll(async () => {
  await h.start('cirrus_embeds');
  const nc = h.nc;
  chainsService = await serve(nc, { name: 'chains', version: '0.0.0', logger: createLogger('chains', 'silent') }, [
    handle(CHAINS.visibleTo, ({ username }) => ({ chainIds: username === 'alice' ? ['', PRIVATE] : [''] })),
  ]);
  // items, then orders referring to them (one item referred to by none)
  await h.publish(
    exec(1, [
      created('i1', main.create(1, SENDER, ITEM, 'Item', { _qty: 1 })),
      created('i2', main.create(1, SENDER, ITEM, 'Item', { _qty: 2 })),
      created('i3', main.create(1, SENDER, ITEM, 'Item', { _qty: 3 })),
    ]),
  );
  await h.publish(
    exec(2, [
      created('o1', main.create(2, OTHER, ORDER, 'Order', { b: addr.i1, s: addr.i2, q: 10 })),
      created('o2', main.create(2, OTHER, ORDER, 'Order', { b: addr.i1, s: addr.i1, q: 4 })),
      created('o3', main.create(2, OTHER, ORDER, 'Order', { b: addr.i2, s: OTHER, q: 7 })),
      created('l1', main.create(2, OTHER, LISTING, 'Listing', { i: addr.i2 })),
    ]),
  );
  // a family referring to itself: n2 → n1 → (none)
  await h.publish(exec(3, [created('n1', main.create(3, SENDER, NODE, 'Node', { nx: SENDER, _n: 1 }))]));
  await h.publish(exec(4, [created('n2', main.create(4, SENDER, NODE, 'Node', { nx: addr.n1, _n: 2 })), created('n3', main.create(4, SENDER, NODE, 'Node', { nx: addr.n1, _n: 3 }))]));
  // new versions: Item@2 (qty a string) and Order@2; each refers to contracts of either version
  await h.publish(exec(5, [created('i4', main.create(5, SENDER, retyped(ITEM), 'Item', { _qty: 'four' }))]));
  await h.publish(
    exec(6, [
      created('o4', main.create(6, OTHER, retyped(ORDER), 'Order', { b: addr.i4, s: addr.i1, q: 'many' })),
      created('o5', main.create(6, OTHER, ORDER, 'Order', { b: addr.i4, s: addr.i3, q: 5 })),
    ]),
  );
  await h.publish(exec(9, [created('k1', main.create(9, SENDER, LINK, 'Link', { p: SENDER, _w: 1 }))]));
  await h.publish(exec(10, [created('k2', main.create(10, SENDER, LINK.replace('uint w;', 'string w;').replace('uint _w', 'string _w'), 'Link', { p: addr.k1, _w: 'two' }))]));
  // families of organizations: Acme's orders beside the plain ones; bids of Acme and Beta only
  const acme = new Chain({ organization: 'Acme' });
  const beta = new Chain({ organization: 'Beta' });
  await h.publish(
    exec(8, [
      created('ao', acme.create(8, '55'.repeat(20), ORDER, 'Order', { b: addr.i1, s: addr.i1, q: 99 })),
      created('ab', acme.create(8, '55'.repeat(20), BID, 'Bid', { i: addr.i2 })),
      created('bb', beta.create(8, '66'.repeat(20), BID, 'Bid', { i: addr.i2 })),
    ]),
  );
  // the private chain: vaults only there; an item there with a holder; a main-chain table referring to vaults
  await h.publish(exec(1, [created('v1', priv.create(1, SENDER, VAULT, 'Vault', { _qty: 9 })), created('pi', priv.create(1, SENDER, ITEM, 'Item', { _qty: 8 }))], PRIVATE));
  await h.publish(exec(2, [created('h1', priv.create(2, SENDER, HOLDER, 'Holder', { i: addr.pi }))], PRIVATE));
  await h.publish(exec(7, [created('p1', main.create(7, SENDER, PUB, 'Pub', { a: SENDER, _k: 1 }))]));
  await h.settled();
}, 60_000);

afterAll(async () => {
  await chainsService?.stop();
  await h.stop();
});

/** Rows as bob sees them (the main chain only), unless another user is named. */
const rows = async (table: string, query: string, username = 'bob') => (await h.search(table, query, undefined, username)).body;
/** Contracts of one block in the default order of contract tables (block_number, then address). */
const inOrder = (...keys: string[]) => [...keys].sort((a, b) => (addr[a] < addr[b] ? -1 : 1));

describe('reverse embeds: the rows that refer to this one', () => {
  test('each item embeds the array of orders whose buyerItem is it, [] when none, in the orders’ default order', async () => {
    const qty: Record<string, number> = { o1: 10, o2: 4 };
    expect(await rows('Item@1', 'select=address,Order!buyerItem(qty)&order=qty')).toEqual([
      { address: addr.i1, Order: inOrder('o1', 'o2').map((o) => ({ qty: qty[o] })) },
      { address: addr.i2, Order: [{ qty: 7 }] },
      { address: addr.i3, Order: [] },
    ]);
    expect(await rows('Item@1', `select=sold:Order!sellerItem(address,buyerItem)&address=eq.${addr.i1}`)).toEqual([
      { sold: [{ address: addr.o2, buyerItem: addr.i1 }, { address: addr.o4, buyerItem: addr.i4 }] },
    ]);
    // one referring variable: no hint needed; the family's name embeds too
    expect(await rows('Item@1', 'select=qty,Listing(address),byItem:Listing!item(item),family:Listing(address)&order=qty')).toEqual([
      { qty: 1, Listing: [], byItem: [], family: [] },
      { qty: 2, Listing: [{ address: addr.l1 }], byItem: [{ item: addr.i2 }], family: [{ address: addr.l1 }] },
      { qty: 3, Listing: [], byItem: [], family: [] },
    ]);
  });

  test('two variables referring to the table make a bare embed ambiguous: 400 naming the hints', async () => {
    const err = await h.failure('Item@1', 'select=address,Order(*)');
    expect([err.code, err.status]).toEqual(['BAD_QUERY', 400]);
    expect(err.message).toBe("'Order' is embeddable from 'Item@1' in more than one way: write one of Order!buyerItem(...), Order!sellerItem(...)");
    expect(err.details).toEqual({ relation: 'Order', table: 'Item@1', hints: ['Order!buyerItem', 'Order!sellerItem'] });
    expect((await h.failure('Item@1', 'select=Order!qty(*)')).message).toBe("no embeddable resource 'Order' through 'qty' from 'Item@1'");
  });

  test('families of one contract name: a family named exactly so takes the bare name; others are named in full', async () => {
    const i1 = `address=eq.${addr.i1}`;
    expect(await rows('Item@1', `select=Order!buyerItem(qty),Acme-Order!buyerItem(qty)&${i1}`)).toEqual([
      { Order: inOrder('o1', 'o2').map((o) => ({ qty: o === 'o1' ? 10 : 4 })), 'Acme-Order': [{ qty: 99 }] },
    ]);
    const err = await h.failure('Item@1', 'select=Bid(*)');
    expect(err.message).toBe("'Bid' is embeddable from 'Item@1' in more than one way: write one of Acme-Bid(...), Beta-Bid(...)");
    expect(await rows('Item@1', `select=Beta-Bid(address)&address=eq.${addr.i2}`)).toEqual([{ 'Beta-Bid': [{ address: addr.bb }] }]);
  });

  test('the forward direction is also spelled by the variable (PostgREST’s column embed)', async () => {
    expect(await rows('Order@1', `select=buyerItem(qty),seller:sellerItem(qty)&address=eq.${addr.o1}`)).toEqual([{ buyerItem: { qty: 1 }, seller: { qty: 2 } }]);
    expect(await rows('Order@1', `select=Item!sellerItem(address)&address=eq.${addr.o3}`)).toEqual([{ Item: null }]);
  });

  test('a family referring to itself: its name embeds the rows referring to this one, the variable the row it refers to', async () => {
    const n: Record<string, number> = { n2: 2, n3: 3 };
    expect(await rows('Node', 'select=n,Node(n),next(n)&order=n')).toEqual([
      { n: 1, Node: inOrder('n2', 'n3').map((k) => ({ n: n[k] })), next: null },
      { n: 2, Node: [], next: { n: 1 } },
      { n: 3, Node: [], next: { n: 1 } },
    ]);
    expect(await rows('Node', 'select=n,children:Node!next(n,Node(n)),next(next(n))&n=lte.2&order=n')).toEqual([
      { n: 1, children: inOrder('n2', 'n3').map((k) => ({ n: n[k], Node: [] })), next: null },
      { n: 2, children: [], next: { next: null } },
    ]);
  });
});

describe('filters, order, pages, !inner and null filters on embeds', () => {
  test('a filter on a reverse embed filters its array, not the items', async () => {
    expect(await rows('Item@1', 'select=qty,Order!buyerItem(qty)&Order.qty=gt.5&order=qty')).toEqual([
      { qty: 1, Order: [{ qty: 10 }] },
      { qty: 2, Order: [{ qty: 7 }] },
      { qty: 3, Order: [] },
    ]);
    // an alias names the embed; nested and/or trees and not. as at the top level
    expect(await rows('Item@1', 'select=qty,sold:Order!sellerItem(qty)&sold.or=(qty.lt.5,qty.eq.many)&order=qty')).toEqual([
      { qty: 1, sold: [{ qty: 4 }, { qty: 'many' }] },
      { qty: 2, sold: [] },
      { qty: 3, sold: [] },
    ]);
  });

  test('order, limit and offset page each embed’s rows, across the versions it reads', async () => {
    const i1 = `address=eq.${addr.i1}`;
    expect(await rows('Item@1', `select=Order!sellerItem(qty)&Order.order=block_number.desc&Order.limit=1&${i1}`)).toEqual([{ Order: [{ qty: 'many' }] }]);
    expect(await rows('Item@1', `select=Order!sellerItem(qty)&Order.order=block_number.desc&Order.offset=1&${i1}`)).toEqual([{ Order: [{ qty: 4 }] }]);
    // qty is a number in one version and a string in the other: one order over both has no meaning
    const err = await h.failure('Item@1', 'select=Order!sellerItem(qty)&Order.order=qty');
    expect([err.code, err.message]).toEqual(['BAD_QUERY', "'Order' cannot be ordered by a column whose type differs between the tables it reads"]);
  });

  test('a to-one embed whose row fails its filters is null; its variable names it in filters, in null filters and in related orders', async () => {
    expect(await rows('Order@1', 'select=qty,buyerItem(qty)&buyerItem.qty=eq.2&order=qty')).toEqual([
      { qty: 4, buyerItem: null },
      { qty: 5, buyerItem: null },
      { qty: 7, buyerItem: { qty: 2 } },
      { qty: 10, buyerItem: null },
    ]);
    // the embed, not the column of the same name, is what buyerItem=not.is.null tests
    expect(await rows('Order@1', 'select=qty,buyerItem(qty)&buyerItem.qty=eq.2&buyerItem=not.is.null')).toEqual([{ qty: 7, buyerItem: { qty: 2 } }]);
    // ordered by the address of the contract each order's sellerItem refers to; o3's refers to none
    const seller: Record<string, string> = { o1: addr.i2, o2: addr.i1, o5: addr.i3 };
    const qty: Record<string, number> = { o1: 10, o2: 4, o5: 5 };
    expect(await rows('Order@1', 'select=qty,sellerItem(address)&order=sellerItem(address).nullslast,qty')).toEqual([
      ...Object.keys(seller)
        .sort((a, b) => (seller[a] < seller[b] ? -1 : 1))
        .map((o) => ({ qty: qty[o], sellerItem: { address: seller[o] } })),
      { qty: 7, sellerItem: null },
    ]);
    expect((await h.failure('Order@1', 'select=qty,sellerItem(qty)&order=sellerItem(qty)')).message).toBe(
      "'sellerItem' cannot be ordered by a column whose type differs between the tables it reads",
    );
  });

  test('!inner and null filters keep or drop the parent rows', async () => {
    expect(await rows('Item@1', 'select=qty,Order!buyerItem!inner(qty)&Order.qty=lt.8&order=qty')).toEqual([
      { qty: 1, Order: [{ qty: 4 }] },
      { qty: 2, Order: [{ qty: 7 }] },
    ]);
    expect(await rows('Item@1', 'select=qty,Order!buyerItem(qty)&Order=is.null')).toEqual([{ qty: 3, Order: [] }]);
    expect(await rows('Order', 'select=qty,seller:Item!sellerItem!inner(qty)')).toEqual([{ qty: 'many', seller: { qty: 1 } }]);
    expect(await rows('Order@1', 'select=qty,seller:sellerItem!inner(qty)&seller.qty=gte.2&order=qty')).toEqual([
      { qty: 5, seller: { qty: 3 } },
      { qty: 10, seller: { qty: 2 } },
    ]);
  });

  test('an embed name that is not in select is a 400 naming it', async () => {
    for (const [query, name] of [
      ['select=qty&Order.qty=gt.5', 'Order'],
      ['select=qty,Order!buyerItem(qty)&Orders.limit=1', 'Orders'],
      ['select=qty,Order!buyerItem(qty)&Order.Item.qty=eq.1', 'Item'],
      ['select=qty&order=Order(qty)', 'Order'],
    ]) {
      const err = await h.failure('Item@1', query);
      expect([err.code, err.message]).toEqual(['BAD_QUERY', expect.stringContaining(`'${name}' is not an embedded resource in this request`) as unknown]);
    }
  });
});

describe('embeds across table versions', () => {
  test('a reference embeds the contract’s row from whichever version holds it', async () => {
    // Order@2 (qty a string) refers to an Item@2 contract and an Item@1 one
    expect(await rows('Order', 'select=qty,buyer:Item!buyerItem(qty),seller:Item!sellerItem(address,qty)')).toEqual([
      { qty: 'many', buyer: { qty: 'four' }, seller: { address: addr.i1, qty: 1 } },
    ]);
    expect(await rows('Order', 'select=qty,buyerItem(qty),sellerItem(qty)')).toEqual([{ qty: 'many', buyerItem: { qty: 'four' }, sellerItem: { qty: 1 } }]);
    expect(await rows('Order@1', `select=qty,buyerItem(*)&address=eq.${addr.o5}`)).toEqual([
      {
        qty: 5,
        buyerItem: expect.objectContaining({ address: addr.i4, chainId: '', qty: 'four', block_number: 5 }) as unknown,
      },
    ]);
  });

  test('a contract referring to its own kind across versions: both directions read both versions', async () => {
    expect(await rows('Link', 'select=w,prev(w),Link(w)')).toEqual([{ w: 'two', prev: { w: 1 }, Link: [] }]);
    expect(await rows('Link@1', 'select=w,prev(w),Link(w,prev(w))')).toEqual([{ w: 1, prev: null, Link: [{ w: 'two', prev: { w: 1 } }] }]);
  });

  test('a reverse embed reads every version of the referring family that has the variable', async () => {
    expect(await rows('Item', 'select=qty,Order!buyerItem(address,qty)')).toEqual([
      { qty: 'four', Order: inOrder('o4', 'o5').map((o) => ({ address: addr[o], qty: o === 'o4' ? 'many' : 5 })) },
    ]);
    expect(await rows('Item@1', `select=Order!sellerItem(qty)&address=eq.${addr.i1}`)).toEqual([{ Order: [{ qty: 4 }, { qty: 'many' }] }]);
  });
});

describe('privacy of embedded tables', () => {
  test('an embed into a table whose rows all lie on chains the caller cannot see answers as for a table that does not exist', async () => {
    for (const [hidden, missing] of [
      ['select=k,Vault(*)', 'select=k,Nope(*)'],
      ['select=k,Vault!v(*)', 'select=k,Nope!v(*)'],
      ['select=k,v(*)', 'select=k,nope(*)'],
    ]) {
      const refused = await h.failure('Pub', hidden, 'bob');
      const unknown = await h.failure('Pub', missing, 'bob');
      const name = (text: string) => text.replace(/'(Vault|v|Nope|nope)'/, "'X'");
      expect([refused.code, name(refused.message)]).toEqual([unknown.code, name(unknown.message)]);
      expect({ ...refused.details, relation: 'X' }).toEqual({ ...unknown.details, relation: 'X' });
    }
    // two variables referring to it are not an ambiguity either, for bob
    expect((await h.failure('Pub', 'select=Vault(*)', 'bob')).message).toBe("no embeddable resource 'Vault' from 'Pub'");
    // the top-level table is a 404 for bob; a member sees it and its embed
    expect((await h.failure('Vault', '', 'bob')).code).toBe('TABLE_NOT_FOUND');
    expect(await rows('Pub', 'select=k,Vault!v(qty)', 'alice')).toEqual([{ k: 1, Vault: null }]);
    expect(await rows('Vault', 'select=qty', 'alice')).toEqual([{ qty: 9 }]);
  });

  test('a reverse embed from a table whose rows are all on a chain the caller cannot see answers as an unknown one; rows stay filtered by chain', async () => {
    const refused = await h.failure('Item', 'select=Holder(*)', 'bob');
    expect([refused.code, refused.message]).toEqual(['BAD_QUERY', "no embeddable resource 'Holder' from 'Item'"]);
    // alice sees the private chain's item with its holder; main-chain rows have none (an embed joins on the same chain)
    expect(await rows('Item@1', 'select=address,chainId,Holder(address,chainId)&order=chainId,address', 'alice')).toEqual(
      [
        ...[addr.i1, addr.i2, addr.i3].sort().map((address) => ({ address, chainId: '', Holder: [] })),
        { address: addr.pi, chainId: PRIVATE, Holder: [{ address: addr.h1, chainId: PRIVATE }] },
      ],
    );
    // filters, !inner and null filters on it: alice's rows only on her chains; for bob, the same 400 as an unknown embed
    expect(await rows('Item@1', 'select=address,Holder!inner(address)&Holder.chainId=eq.' + PRIVATE, 'alice')).toEqual([
      { address: addr.pi, Holder: [{ address: addr.h1 }] },
    ]);
    expect(await rows('Item@1', 'select=address,Holder(address)&Holder=not.is.null', 'alice')).toEqual([{ address: addr.pi, Holder: [{ address: addr.h1 }] }]);
    for (const tail of ['Holder.chainId=eq.' + PRIVATE, 'Holder=not.is.null', 'Holder.limit=1', 'order=Holder(address)']) {
      const hidden = await h.failure('Item@1', `select=address,Holder(address)&${tail}`, 'bob');
      const unknown = await h.failure('Item@1', `select=address,Nope(address)&${tail.replace('Holder', 'Nope')}`, 'bob');
      expect([hidden.code, hidden.message.replace("'Holder'", "'X'")]).toEqual([unknown.code, unknown.message.replace("'Nope'", "'X'")]);
    }
    expect((await h.failure('Item@1', 'select=address,Holder!inner(address)', 'bob')).message).toBe("no embeddable resource 'Holder' from 'Item@1'");
    // bob sees the main chain's items only
    expect(await rows('Item@1', 'select=chainId,Listing(chainId)&order=qty', 'bob')).toEqual([
      { chainId: '', Listing: [] },
      { chainId: '', Listing: [{ chainId: '' }] },
      { chainId: '', Listing: [] },
    ]);
  });

  test('a bare name resolves among the tables the caller may see: a family on a chain the caller cannot see is neither named in a 409 nor found', async () => {
    const gamma = new Chain({ organization: 'Gamma' }, PRIVATE);
    const delta = new Chain({ organization: 'Delta' });
    await h.publish(exec(3, [created('g1', gamma.create(3, '77'.repeat(20), GIZMO, 'Gizmo', { _qty: 1 })), created('s1', gamma.create(3, '77'.repeat(20), SECRET, 'Secret', { _qty: 2 }))], PRIVATE));
    await h.publish(exec(11, [created('d1', delta.create(11, '88'.repeat(20), GIZMO, 'Gizmo', { _qty: 3 }))]));
    await h.settled();
    // bob sees the main chain only: Gizmo is Delta's, as if Gamma's did not exist
    for (const name of ['Gizmo', 'history@Gizmo']) expect((await h.search(name, 'select=address', undefined, 'bob')).status).toBe(200);
    expect(await rows('Gizmo', 'select=address,qty')).toEqual([{ address: addr.d1, qty: 3 }]);
    // a family all of whose rows bob cannot see: the same 404 as a name nobody has, naming nothing of Gamma's
    const hidden = await h.failure('Secret', '', 'bob');
    const missing = await h.failure('Nothing', '', 'bob');
    expect([hidden.code, hidden.message.replace('Secret', 'X')]).toEqual([missing.code, missing.message.replace('Nothing', 'X')]);
    expect(JSON.stringify(hidden)).not.toContain('Gamma');
    // alice, a member, sees both families: the 409 lists both; Secret is Gamma's
    const both = await h.failure('Gizmo', '', 'alice');
    expect([both.code, both.details]).toEqual(['TABLE_AMBIGUOUS', { table: 'Gizmo', tables: ['Delta-Gizmo', 'Gamma-Gizmo'] }]);
    expect(await rows('Secret', 'select=address', 'alice')).toEqual([{ address: addr.s1 }]);
  });

  test('a table name or a query parameter with a NUL or another control character is a 400 before any SQL', async () => {
    for (const table of ['Item\u0000', 'It\u0000em', '\u0000', 'Item\n', 'history@Item\u001f', 'Item\u007f']) {
      const err = await h.failure(table, '');
      expect([table, err.code]).toEqual([table, 'BAD_QUERY']);
    }
    for (const query of ['qty=eq.%00', 'qty%00=eq.1', 'select=qty%00', 'select=%22q%00ty%22', 'select=%22q%0Aty%22', 'select=a%00:qty', 'order=qty%00', 'or=(qty.eq.%00)', 'select=Order%00(*)', '%22qty%01%22=eq.1']) {
      const err = await h.failure('Item', query);
      expect([query, err.code]).toEqual([query, 'BAD_QUERY']);
    }
    // a message echoing a newline of the request reaches the caller whole (a NATS header cannot hold one: the bus flattens its summary)
    const echoed = await h.failure('Item', 'qty%0A=eq.1');
    expect([echoed.code, echoed.message]).toEqual(['BAD_QUERY', expect.stringContaining("'qty\n'")]);
  });
});
