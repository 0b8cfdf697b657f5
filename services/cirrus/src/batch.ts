// The writes of one block, gathered and sent as few multi-row statements as
// possible: the last state of each contract row (one upsert per table), every
// history and event row in order (one insert per table), side-table entries
// (the last value of each), arrays replaced whole, destroyed contracts removed.
// Flushed before any DDL and at the end of the block, inside the block's
// transaction.
import { parseJson, type JsonValue } from '@platform/query';
import type { Client } from './db.js';
import { qualified } from './tables.js';

type Param = unknown;

/** rows × columns per statement: PostgreSQL takes at most 65,535 bound parameters */
const MAX_PARAMS = 30_000;

const contractKey = (address: string, chainId: string): string => `${address}\0${chainId}`;

interface Rows {
  table: string;
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
  private upserts = new Map<string, { columns: string[]; rows: Map<string, Param[]> }>();
  /** side table → contract → its array's rows, replacing the stored ones */
  private replaced = new Map<string, Map<string, { address: string; chainId: string; rows: Array<[Param, Param]> }>>();
  /** side table → entry → its last value */
  private entries = new Map<string, Map<string, Entry>>();
  /** table → contracts whose rows go */
  private removed = new Map<string, Map<string, [string, string]>>();
  /** complex entry values read or written during this block (stored form) */
  private overlay = new Map<string, JsonValue | undefined>();

  constructor(private readonly client: Client) {}

  insert(table: string, columns: string[], row: Param[]): void {
    const key = `${table}\0${columns.join(',')}`;
    let rows = this.inserts.get(key);
    if (!rows) this.inserts.set(key, (rows = { table, columns, rows: [] }));
    rows.rows.push(row);
  }

  /** The row of a contract (first two values: address, chain ID); a later one in the block replaces it. */
  upsert(table: string, columns: string[], row: Param[]): void {
    let t = this.upserts.get(table);
    if (!t || t.columns.join(',') !== columns.join(',')) {
      if (t) throw new Error(`rows of ${table} with two column lists in one batch`);
      this.upserts.set(table, (t = { columns, rows: new Map() }));
    }
    t.rows.set(contractKey(row[0] as string, row[1] as string), row);
  }

  replaceArray(table: string, address: string, chainId: string, rows: Array<[Param, Param]>): void {
    let t = this.replaced.get(table);
    if (!t) this.replaced.set(table, (t = new Map()));
    t.set(contractKey(address, chainId), { address, chainId, rows });
  }

  /** A mapping entry: `value` undefined deletes it. `keyText` identifies the key within the block. */
  setEntry(table: string, address: string, chainId: string, keyText: string, key: Param, value: Param | undefined): void {
    let t = this.entries.get(table);
    if (!t) this.entries.set(table, (t = new Map()));
    t.set(`${contractKey(address, chainId)}\0${keyText}`, { address, chainId, key, value });
  }

  /** A complex entry's stored value (this block's latest, else the database's); undefined when there is none. */
  async entryValue(table: string, address: string, chainId: string, keyText: string, key: Param): Promise<JsonValue | undefined> {
    const id = `${table}\0${contractKey(address, chainId)}\0${keyText}`;
    if (this.overlay.has(id)) return this.overlay.get(id);
    const { rows } = await this.client.query<{ v: string | null }>(`SELECT v::text AS v FROM ${qualified(table)} WHERE address = $1 AND chain_id = $2 AND k = $3`, [address, chainId, key]);
    const value = rows[0]?.v == null ? undefined : parseJson(rows[0].v);
    this.overlay.set(id, value);
    return value;
  }

  rememberEntry(table: string, address: string, chainId: string, keyText: string, value: JsonValue | undefined): void {
    this.overlay.set(`${table}\0${contractKey(address, chainId)}\0${keyText}`, value);
  }

  /** A destroyed contract: its rows in these tables go, and so does anything of it still pending. */
  remove(tables: string[], address: string, chainId: string): void {
    const key = contractKey(address, chainId);
    for (const table of tables) {
      this.upserts.get(table)?.rows.delete(key);
      this.replaced.get(table)?.delete(key);
      const entries = this.entries.get(table);
      if (entries) for (const id of [...entries.keys()]) if (id.startsWith(`${key}\0`)) entries.delete(id);
      for (const id of [...this.overlay.keys()]) if (id.startsWith(`${table}\0${key}\0`)) this.overlay.delete(id);
      let r = this.removed.get(table);
      if (!r) this.removed.set(table, (r = new Map()));
      r.set(key, [address, chainId]);
    }
  }

  async flush(): Promise<void> {
    for (const [table, contracts] of this.removed) await this.deleteContracts(table, [...contracts.values()]);
    for (const [table, contracts] of this.replaced) {
      const list = [...contracts.values()];
      await this.deleteContracts(table, list.map((c) => [c.address, c.chainId]));
      const rows = list.flatMap((c) => c.rows.map(([k, v]) => [c.address, c.chainId, k, v]));
      await this.write(table, ['address', 'chain_id', 'k', 'v'], rows, '');
    }
    for (const [table, entries] of this.entries) {
      const all = [...entries.values()];
      const gone = all.filter((e) => e.value === undefined);
      for (let i = 0; i < gone.length; i += MAX_PARAMS / 3) {
        const chunk = gone.slice(i, i + MAX_PARAMS / 3);
        await this.client.query(
          `DELETE FROM ${qualified(table)} WHERE (address, chain_id, k) IN (${chunk.map((_, j) => `($${3 * j + 1}, $${3 * j + 2}, $${3 * j + 3})`).join(', ')})`,
          chunk.flatMap((e) => [e.address, e.chainId, e.key]),
        );
      }
      const kept = all.filter((e) => e.value !== undefined).map((e) => [e.address, e.chainId, e.key, e.value]);
      await this.write(table, ['address', 'chain_id', 'k', 'v'], kept, ' ON CONFLICT (address, chain_id, k) DO UPDATE SET v = EXCLUDED.v');
    }
    for (const [table, { columns, rows }] of this.upserts) {
      const updates = columns.filter((c) => c !== 'address' && c !== 'chain_id').map((c) => `${c} = EXCLUDED.${c}`);
      await this.write(table, columns, [...rows.values()], ` ON CONFLICT (address, chain_id) DO UPDATE SET ${updates.join(', ')}`);
    }
    for (const { table, columns, rows } of this.inserts.values()) await this.write(table, columns, rows, '');
    this.inserts = new Map();
    this.upserts = new Map();
    this.replaced = new Map();
    this.entries = new Map();
    this.removed = new Map();
  }

  private async deleteContracts(table: string, contracts: Array<[string, string]>): Promise<void> {
    for (let i = 0; i < contracts.length; i += MAX_PARAMS / 2) {
      const chunk = contracts.slice(i, i + MAX_PARAMS / 2);
      await this.client.query(`DELETE FROM ${qualified(table)} WHERE (address, chain_id) IN (${chunk.map((_, j) => `($${2 * j + 1}, $${2 * j + 2})`).join(', ')})`, chunk.flat());
    }
  }

  /** Multi-row INSERTs (rows in order), chunked to stay under the parameter limit. */
  private async write(table: string, columns: string[], rows: Param[][], tail: string): Promise<void> {
    const per = Math.max(1, Math.floor(MAX_PARAMS / columns.length));
    for (let i = 0; i < rows.length; i += per) {
      const chunk = rows.slice(i, i + per);
      const values = chunk.map((_, r) => `(${columns.map((_, c) => `$${r * columns.length + c + 1}`).join(', ')})`).join(', ');
      await this.client.query(`INSERT INTO ${qualified(table)} (${columns.join(', ')}) VALUES ${values}${tail}`, chunk.flat());
    }
  }
}
