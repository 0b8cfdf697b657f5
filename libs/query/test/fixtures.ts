// Tables, rows and the catalogue the tests query. API names differ from SQL
// names on purpose (`Acme-Item` is `q.t_item`, `chainId` is `chain_id`, a
// 90-byte variable name is `c_long`), so a test passing through means the
// mapping was used. Rows cover what is easy to get wrong: integers beyond 2^53,
// `7.0` and `007`-style numbers, NULLs in every column, jsonb with big numbers,
// text with commas, quotes, parentheses, `%`, `_`, `*` and backslashes, and
// rows on a chain the caller cannot see (c2), which must never come back.
import type { Knex } from 'knex';
import { type CatalogueRelation, type CatalogueTable, catalogueOf, columnsOf } from '../src/index.js';

/** The caller of most tests sees the main chain and c1, not c2. */
export const VISIBLE = ['', 'c1'];
export const LONG_NAME = 'aVeryLongStateVariableNameThatIsDefinitelyLongerThanSixtyThreeBytesWhenWrittenOutInFull';

/** The orders whose buyer / seller is this item: the reverse of the orders' references, told apart by hints. */
const ORDERS_OF_ITEM: CatalogueRelation[] = [
  { name: 'Acme-Order', target: 'Acme-Order', on: [['address', 'buyer'], ['chainId', 'chainId']], cardinality: 'many', hint: 'buyer' },
  { name: 'Acme-Order', target: 'Acme-Order', on: [['address', 'seller'], ['chainId', 'chainId']], cardinality: 'many', hint: 'seller' },
];

export const itemTable: CatalogueTable = {
  name: 'Acme-Item',
  sql: { schema: 'q', name: 't_item' },
  chainColumn: 'chainId',
  columns: columnsOf([
    ['id', 'id', 'integer'],
    ['address', 'address', 'text'],
    ['chainId', 'chain_id', 'text'],
    ['name', 'name', 'text'],
    ['qty', 'qty', 'integer'],
    ['price', 'price', 'numeric'],
    ['active', 'active', 'boolean'],
    ['meta', 'meta', 'jsonb'],
    ['owner', 'owner', 'text'],
    ['block_number', 'block_number', 'integer'],
    ['block_timestamp', 'block_timestamp', 'text'],
    [LONG_NAME, 'c_long', 'text'],
    ['field-with_sep', 'c_sep', 'text'],
  ]),
  relations: [{ name: 'Owner', target: 'Acme-Owner', on: [['owner', 'address'], ['chainId', 'chainId']], cardinality: 'one' }, ...ORDERS_OF_ITEM],
  defaultOrder: [{ column: 'block_number' }, { column: 'address' }],
};

/**
 * An older version of the items' table (cirrus: `<table>@1`): other items,
 * and other columns (`weight`, no `qty`). Relations over both versions read
 * both, with `alsoIn`.
 */
export const oldItemTable: CatalogueTable = {
  name: 'Acme-Item@1',
  sql: { schema: 'q', name: 't_item_v1' },
  chainColumn: 'chainId',
  columns: columnsOf([
    ['address', 'address', 'text'],
    ['chainId', 'chain_id', 'text'],
    ['name', 'name', 'text'],
    ['weight', 'weight', 'numeric'],
    ['owner', 'owner', 'text'],
    ['block_number', 'block_number', 'integer'],
  ]),
  relations: ORDERS_OF_ITEM,
  defaultOrder: [{ column: 'block_number' }, { column: 'address' }],
};

/** Orders referring to two items each (buyer's and seller's), of either version. */
export const orderTable: CatalogueTable = {
  name: 'Acme-Order',
  sql: { schema: 'q', name: 't_order' },
  chainColumn: 'chainId',
  columns: columnsOf([
    ['id', 'id', 'integer'],
    ['chainId', 'chain_id', 'text'],
    ['buyer', 'buyer', 'text'],
    ['seller', 'seller', 'text'],
    ['qty', 'qty', 'integer'],
    ['block_number', 'block_number', 'integer'],
  ]),
  relations: [
    { name: 'Item', target: 'Acme-Item', alsoIn: ['Acme-Item@1'], on: [['buyer', 'address'], ['chainId', 'chainId']], cardinality: 'one' },
    { name: 'Item', target: 'Acme-Item', alsoIn: ['Acme-Item@1'], on: [['seller', 'address'], ['chainId', 'chainId']], cardinality: 'one' },
  ],
  defaultOrder: [{ column: 'block_number', direction: 'desc' }, { column: 'id' }],
};

export const ownerTable: CatalogueTable = {
  name: 'Acme-Owner',
  sql: { schema: 'q', name: 't_owner' },
  chainColumn: 'chainId',
  columns: columnsOf([
    ['address', 'address', 'text'],
    ['chainId', 'chain_id', 'text'],
    ['name', 'name', 'text'],
    ['score', 'score', 'numeric'],
  ]),
  relations: [
    { name: 'Acme-Item', target: 'Acme-Item', on: [['address', 'owner'], ['chainId', 'chainId']], cardinality: 'many' },
    // the items of both versions, in one list
    { name: 'Items', target: 'Acme-Item', alsoIn: ['Acme-Item@1'], on: [['address', 'owner'], ['chainId', 'chainId']], cardinality: 'many' },
  ],
};

/** A table with a column named `count`, and two references to owners (an ambiguous embed). */
export const counterTable: CatalogueTable = {
  name: 'Acme-Counter',
  sql: 't_counter',
  chainColumn: 'chainId',
  columns: columnsOf([
    ['id', 'id', 'integer'],
    ['chainId', 'chain_id', 'text'],
    ['count', 'count', 'integer'],
    ['a', 'a', 'text'],
    ['b', 'b', 'text'],
  ]),
  relations: [
    { name: 'Owner', target: 'Acme-Owner', on: [['a', 'address'], ['chainId', 'chainId']], cardinality: 'one' },
    { name: 'Owner', target: 'Acme-Owner', on: [['b', 'address'], ['chainId', 'chainId']], cardinality: 'one' },
  ],
};

/** Rows on no chain: everyone sees them. */
export const certTable: CatalogueTable = {
  name: 'Certificate',
  sql: { schema: 'q', name: 't_cert' },
  chainColumn: null,
  columns: columnsOf([
    ['commonName', 'common_name', 'text'],
    ['userAddress', 'user_address', 'text'],
  ]),
};

/** A table whose rows are all on c2: a 404 for the callers of these tests. */
export const secretTable: CatalogueTable = {
  name: 'Acme-Secret',
  sql: { schema: 'q', name: 't_secret' },
  chainColumn: 'chainId',
  chains: new Set(['c2']),
  columns: columnsOf([
    ['id', 'id', 'integer'],
    ['chainId', 'chain_id', 'text'],
  ]),
};

export const catalogue = catalogueOf([itemTable, oldItemTable, orderTable, ownerTable, counterTable, certTable, secretTable]);

/** [id, address, chain, name, qty, price, active, meta, owner, block, timestamp, long, sep] */
type ItemRow = [number, string, string, string | null, string | null, string | null, boolean | null, string | null, string | null, number, string, string | null, string | null];

const ITEMS: ItemRow[] = [
  [1, 'a01', '', 'apple', '5', '1.50', true, '{"a": 1, "tags": ["x", "y"]}', 'o1', 10, '2024-01-01 10:00:00 UTC', 'long-1', 'sep-1'],
  [2, 'a02', '', 'banana', '7.0', '0.25', false, '{"a": 2, "big": 123456789012345678901234567890}', 'o1', 10, '2024-01-01 10:00:00 UTC', null, 'sep-2'],
  [3, 'a03', '', 'cherry', '9007199254740993', '100', null, '{"a": "1", "nested": {"k": "v"}}', 'o2', 11, '2024-01-02 09:30:00 UTC', 'long-3', null],
  [4, 'a04', '', 'a,b', '-12', null, true, '[1, 2, 3]', 'o3', 12, '2024-01-03 00:00:00 UTC', null, null],
  [5, 'a05', '', '"quoted"', '0', '0', false, null, null, 12, '2024-01-03 00:00:01 UTC', null, null],
  [6, 'a06', '', '(paren)', '123456789012345678901234567890', '3.14159', true, '{"a": null}', 'o1', 13, '2024-02-01 12:00:00 UTC', null, null],
  [7, 'a07', '', '50% off', '50', '2.5', true, '{"tags": []}', 'o2', 14, '2024-02-02 12:00:00 UTC', null, null],
  [8, 'a08', '', 'under_score', null, null, null, null, 'nobody', 14, '2024-02-03 12:00:00 UTC', null, null],
  [9, 'a09', '', 'star*name', '5', '1.5', false, '{"a": 1}', 'o1', 15, '2024-03-01 00:00:00 UTC', null, null],
  [10, 'a10', '', 'back\\slash', '99', '-0.5', true, '{"a": 3, "b": true}', 'o3', 16, '2024-03-02 00:00:00 UTC', null, null],
  [11, 'a11', '', 'Apple pie', '6', '6.00', true, '{"a": 4}', 'o2', 17, '2024-03-03 00:00:00 UTC', null, null],
  [12, 'a12', '', 'dot.ted', '-9007199254740993', '7', false, '"just a string"', 'o1', 18, '2024-04-01 00:00:00 UTC', null, null],
  [13, 'a13', '', 'café', '13', '13', true, '{"a": 5}', null, 19, '2024-04-02 00:00:00 UTC', null, null],
  [14, 'a14', '', '', '14', null, false, '{}', 'o3', 20, '2024-04-03 00:00:00 UTC', null, null],
  [15, 'a15', '', null, '15', '15', null, '{"a": 6}', 'o1', 21, '2024-05-01 00:00:00 UTC', null, null],
  [16, 'b01', 'c1', 'c1 apple', '5', '1', true, '{"a": 1}', 'o1', 5, '2024-01-01 00:00:00 UTC', null, null],
  [17, 'b02', 'c1', 'c1 banana', '1000', '2', false, null, 'o9', 6, '2024-01-01 00:00:01 UTC', null, null],
  [18, 'b03', 'c1', 'c1 cherry', null, '3', null, '{"a": 2}', 'o1', 7, '2024-01-01 00:00:02 UTC', null, null],
  [19, 'c01', 'c2', 'secret apple', '5', '1', true, '{"a": 1}', 'o1', 8, '2024-01-01 00:00:00 UTC', 'long-secret', null],
  [20, 'c02', 'c2', 'secret banana', '7', '2', false, '{"a": 2}', 'o1', 9, '2024-01-01 00:00:00 UTC', null, null],
];

const OWNERS: Array<[string, string, string, string | null]> = [
  ['o1', '', 'Olive', '10'],
  ['o2', '', 'Oscar', '20.5'],
  ['o3', '', 'Otto', null],
  ['o1', 'c1', 'Olive on c1', '11'],
  ['o1', 'c2', 'Olive on c2', '12'],
  ['o4', '', 'Orphan owner', '0'],
];

/** [address, chain, name, weight, owner, block]: block numbers interleave with the newer items' */
const OLD_ITEMS: Array<[string, string, string, string | null, string, number]> = [
  ['v01', '', 'old apple', '3', 'o1', 10],
  ['v02', '', 'old pear', null, 'o2', 13],
  ['v03', 'c1', 'old c1 plum', '4', 'o1', 6],
  ['v04', 'c2', 'old secret', '5', 'o1', 9],
];

/** [id, chain, buyer, seller, qty, block]: items of both versions, a missing one, one of another chain */
const ORDERS: Array<[number, string, string, string, string, number]> = [
  [1, '', 'a01', 'v01', '5', 30],
  [2, '', 'v01', 'a02', '7', 31],
  [3, '', 'a01', 'nope', '2', 31],
  [4, 'c1', 'b01', 'v03', '9', 33],
  [5, 'c2', 'c01', 'v04', '1', 34],
  [6, '', 'v02', 'v02', '8', 29],
  [7, '', 'b01', 'a01', '3', 35],
];

export async function createFixtures(knex: Knex): Promise<void> {
  await knex.raw('DROP SCHEMA IF EXISTS q CASCADE');
  await knex.raw('CREATE SCHEMA q');
  await knex.raw(`CREATE TABLE q.t_item (
    id numeric PRIMARY KEY, address text NOT NULL, chain_id text NOT NULL, name text, qty numeric, price numeric,
    active boolean, meta jsonb, owner text, block_number numeric NOT NULL, block_timestamp text NOT NULL,
    c_long text, c_sep text, UNIQUE (address, chain_id))`);
  await knex.raw(`CREATE TABLE q.t_item_v1 (address text NOT NULL, chain_id text NOT NULL, name text, weight numeric, owner text, block_number numeric NOT NULL, PRIMARY KEY (address, chain_id))`);
  await knex.raw(`CREATE TABLE q.t_order (id numeric PRIMARY KEY, chain_id text NOT NULL, buyer text, seller text, qty numeric, block_number numeric NOT NULL)`);
  await knex.raw(`CREATE TABLE q.t_owner (address text NOT NULL, chain_id text NOT NULL, name text, score numeric, PRIMARY KEY (address, chain_id))`);
  await knex.raw(`DROP TABLE IF EXISTS t_counter`);
  await knex.raw(`CREATE TABLE t_counter (id numeric PRIMARY KEY, chain_id text NOT NULL, count numeric, a text, b text)`);
  await knex.raw(`CREATE TABLE q.t_cert (common_name text, user_address text)`);
  await knex.raw(`CREATE TABLE q.t_secret (id numeric, chain_id text)`);
  for (const r of ITEMS) {
    await knex.raw(`INSERT INTO q.t_item VALUES (?, ?, ?, ?, ?::numeric, ?::numeric, ?, ?::jsonb, ?, ?, ?, ?, ?)`, r);
  }
  for (const r of OLD_ITEMS) await knex.raw(`INSERT INTO q.t_item_v1 VALUES (?, ?, ?, ?::numeric, ?, ?)`, r);
  for (const r of ORDERS) await knex.raw(`INSERT INTO q.t_order VALUES (?, ?, ?, ?, ?::numeric, ?)`, r);
  for (const o of OWNERS) await knex.raw(`INSERT INTO q.t_owner VALUES (?, ?, ?, ?::numeric)`, o);
  await knex.raw(`INSERT INTO t_counter VALUES (1, '', 3, 'o1', 'o2'), (2, '', NULL, 'o3', NULL), (3, 'c2', 1, 'o1', 'o1')`);
  await knex.raw(`INSERT INTO q.t_cert VALUES ('alice', 'aa01'), ('bob', 'bb02')`);
  await knex.raw(`INSERT INTO q.t_secret VALUES (1, 'c2')`);
}
