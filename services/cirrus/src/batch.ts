// The writes of one block, gathered and sent as few multi-row statements as
// possible: the last state of each contract row (one upsert per table), every
// history and event row in order (one insert per table), side-table entries
// (the last value of each), arrays replaced whole, destroyed contracts removed.
// Flushed before any DDL and at the end of the block, inside the block's
// transaction.
import { parseJson, type JsonValue } from '@platform/query';
import type { Client } from './db.js';
import { SQL_TYPE } from './shapes.js';
import { qualified, type TableRec } from './tables.js';

type Param = unknown;
type Table = Pick<TableRec, 'sqlName' | 'columns'>;

/** rows per statement: each column travels as one array parameter */
const MAX_ROWS = 20_000;

/** The SQL type of a column, for the arrays rows travel in. */
function sqlTypeOf(table: Table, column: string): string {
  if (column === 'block_number') return 'bigint';
  const def = table.columns.find((c) => c[1] === column);
  if (!def) throw new Error(`column ${column} is not in the catalogue of ${table.sqlName}`);
  return SQL_TYPE[def[2]];
}

/** `unnest($1::text[], $2::numeric[], …)`: rows as one array per column, in order. */
function unnest(table: Table, columns: string[], from = 1): string {
  return `unnest(${columns.map((c, i) => `$${from + i}::${sqlTypeOf(table, c)}[]`).join(', ')})`;
}

const transpose = (rows: Param[][], width: number): Param[][] => Array.from({ length: width }, (_, c) => rows.map((r) => r[c]));

const contractKey = (address: string, chainId: string): string => `${address}\0${chainId}`;
const entryId = (address: string, chainId: string, key: Param): string => `${contractKey(address, chainId)}\0${JSON.stringify(key)}`;

interface Rows {
  table: Table;
  columns: string[];
  rows: Param[][];
}

interface Entry {
  address: string;
  chainId: string;
  key: Param;
  /** the value to store; undefined: delete the entry */
  value: Param | undefined;
}

export class Batch {
  private inserts = new Map<string, Rows>();
  /** the last row of each contract; `insert`: the block created it (else the row exists and is updated) */
  private upserts = new Map<string, { table: Table; columns: string[]; rows: Map<string, { row: Param[]; insert: boolean }> }>();
  /** side table → contract → its array's rows, replacing the stored ones */
  private replaced = new Map<string, { table: Table; contracts: Map<string, { address: string; chainId: string; rows: Array<[Param, Param]> }> }>();
  /** side table → entry → its last value */
  private entries = new Map<string, { table: Table; entries: Map<string, Entry> }>();
  /** table → contracts whose rows go */
  private removed = new Map<string, { table: Table; contracts: Map<string, [string, string]> }>();
  /** complex entry values read or written during this block (stored form) */
  private overlay = new Map<string, JsonValue | undefined>();

  constructor(private readonly client: Client) {}

  insert(table: Table, columns: string[], row: Param[]): void {
    const key = `${table.sqlName}\0${columns.join(',')}`;
    let rows = this.inserts.get(key);
    if (!rows) this.inserts.set(key, (rows = { table, columns, rows: [] }));
    rows.rows.push(row);
  }

  /**
   * The row of a contract (first two values: address, chain ID); a later one
   * in the block replaces it. `created`: the row is new (an insert); else it
   * exists since the contract's creation and is updated, which is cheaper
   * than an insert that conflicts.
   */
  upsert(table: Table, columns: string[], row: Param[], created: boolean): void {
    // DDL flushes the batch first, so one table has one column list here; keyed by both all the same
    const id = `${table.sqlName}\0${columns.join(',')}`;
    let t = this.upserts.get(id);
    if (!t) this.upserts.set(id, (t = { table, columns, rows: new Map() }));
    const key = contractKey(row[0] as string, row[1] as string);
    t.rows.set(key, { row, insert: created || (t.rows.get(key)?.insert ?? false) });
  }

  replaceArray(table: Table, address: string, chainId: string, rows: Array<[Param, Param]>): void {
    let t = this.replaced.get(table.sqlName);
    if (!t) this.replaced.set(table.sqlName, (t = { table, contracts: new Map() }));
    t.contracts.set(contractKey(address, chainId), { address, chainId, rows });
  }

  /**
   * A mapping entry: `value` undefined deletes it. Entries are told apart by
   * the key as stored (two keys the VM tells apart may be stored alike, e.g.
   * after U+FFFD replaced a NUL): one statement must not write a row twice.
   */
  setEntry(table: Table, address: string, chainId: string, key: Param, value: Param | undefined): void {
    let t = this.entries.get(table.sqlName);
    if (!t) this.entries.set(table.sqlName, (t = { table, entries: new Map() }));
    t.entries.set(entryId(address, chainId, key), { address, chainId, key, value });
  }

  /** A complex entry's stored value (this block's latest, else the database's); undefined when there is none. */
  async entryValue(table: string, address: string, chainId: string, key: Param): Promise<JsonValue | undefined> {
    const id = `${table}\0${entryId(address, chainId, key)}`;
    if (this.overlay.has(id)) return this.overlay.get(id);
    const { rows } = await this.client.query<{ v: string | null }>(`SELECT v::text AS v FROM ${qualified(table)} WHERE address = $1 AND chain_id = $2 AND k = $3`, [address, chainId, key]);
    const value = rows[0]?.v == null ? undefined : parseJson(rows[0].v);
    this.overlay.set(id, value);
    return value;
  }

  rememberEntry(table: string, address: string, chainId: string, key: Param, value: JsonValue | undefined): void {
    this.overlay.set(`${table}\0${entryId(address, chainId, key)}`, value);
  }

  /** A destroyed contract: its rows in these tables go, and so does anything of it still pending. */
  remove(tables: Table[], address: string, chainId: string): void {
    const key = contractKey(address, chainId);
    for (const table of tables) {
      const name = table.sqlName;
      for (const u of this.upserts.values()) if (u.table.sqlName === name) u.rows.delete(key);
      this.replaced.get(name)?.contracts.delete(key);
      const entries = this.entries.get(name)?.entries;
      if (entries) for (const id of [...entries.keys()]) if (id.startsWith(`${key}\0`)) entries.delete(id);
      for (const id of [...this.overlay.keys()]) if (id.startsWith(`${name}\0${key}\0`)) this.overlay.delete(id);
      let r = this.removed.get(name);
      if (!r) this.removed.set(name, (r = { table, contracts: new Map() }));
      r.contracts.set(key, [address, chainId]);
    }
  }

  async flush(): Promise<void> {
    for (const { table, contracts } of this.removed.values()) await this.deleteContracts(table, [...contracts.values()]);
    for (const { table, contracts } of this.replaced.values()) {
      const list = [...contracts.values()];
      await this.deleteContracts(table, list.map((c) => [c.address, c.chainId]));
      const rows = list.flatMap((c) => c.rows.map(([k, v]) => [c.address, c.chainId, k, v]));
      await this.write(table, ['address', 'chain_id', 'k', 'v'], rows, '');
    }
    for (const { table, entries } of this.entries.values()) {
      const all = [...entries.values()];
      const gone = all.filter((e) => e.value === undefined);
      for (let i = 0; i < gone.length; i += MAX_ROWS) {
        const chunk = gone.slice(i, i + MAX_ROWS);
        await this.client.query(
          `DELETE FROM ${qualified(table.sqlName)} WHERE (address, chain_id, k) IN (SELECT * FROM ${unnest(table, ['address', 'chain_id', 'k'])})`,
          transpose(chunk.map((e) => [e.address, e.chainId, e.key]), 3),
        );
      }
      const kept = all.filter((e) => e.value !== undefined).map((e) => [e.address, e.chainId, e.key, e.value]);
      await this.write(table, ['address', 'chain_id', 'k', 'v'], kept, ' ON CONFLICT (address, chain_id, k) DO UPDATE SET v = EXCLUDED.v');
    }
    for (const { table, columns, rows } of this.upserts.values()) {
      const all = [...rows.values()];
      const set = columns.filter((c) => c !== 'address' && c !== 'chain_id');
      const inserted = all.filter((r) => r.insert).map((r) => r.row);
      await this.write(table, columns, inserted, ` ON CONFLICT (address, chain_id) DO UPDATE SET ${set.map((c) => `${c} = EXCLUDED.${c}`).join(', ')}`);
      const updated = all.filter((r) => !r.insert).map((r) => r.row);
      const alias = columns.map((_, i) => `x${i}`);
      for (let i = 0; i < updated.length; i += MAX_ROWS) {
        await this.client.query(
          `UPDATE ${qualified(table.sqlName)} AS t SET ${set.map((c) => `${c} = u.x${columns.indexOf(c)}`).join(', ')}
           FROM ${unnest(table, columns)} AS u(${alias.join(', ')}) WHERE t.address = u.x${columns.indexOf('address')} AND t.chain_id = u.x${columns.indexOf('chain_id')}`,
          transpose(updated.slice(i, i + MAX_ROWS), columns.length),
        );
      }
    }
    for (const { table, columns, rows } of this.inserts.values()) await this.write(table, columns, rows, '');
    this.inserts = new Map();
    this.upserts = new Map();
    this.replaced = new Map();
    this.entries = new Map();
    this.removed = new Map();
  }

  private async deleteContracts(table: Table, contracts: Array<[string, string]>): Promise<void> {
    for (let i = 0; i < contracts.length; i += MAX_ROWS) {
      const chunk = contracts.slice(i, i + MAX_ROWS);
      await this.client.query(`DELETE FROM ${qualified(table.sqlName)} WHERE (address, chain_id) IN (SELECT * FROM ${unnest(table, ['address', 'chain_id'])})`, transpose(chunk, 2));
    }
  }

  /** INSERTs of rows sent as one array per column, in order (identity columns number them as given). */
  private async write(table: Table, columns: string[], rows: Param[][], tail: string): Promise<void> {
    const alias = columns.map((_, i) => `x${i}`);
    for (let i = 0; i < rows.length; i += MAX_ROWS) {
      const chunk = rows.slice(i, i + MAX_ROWS);
      await this.client.query(
        `INSERT INTO ${qualified(table.sqlName)} (${columns.join(', ')}) SELECT ${alias.join(', ')} FROM ${unnest(table, columns)} WITH ORDINALITY AS u(${alias.join(', ')}, n) ORDER BY n${tail}`,
        transpose(chunk, columns.length),
      );
    }
  }
}
