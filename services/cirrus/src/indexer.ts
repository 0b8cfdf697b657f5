// ExecResults (blocks) into the read model, inside the caller's
// transaction: contract tables created/altered from the xabi of contracts
// created in it, one row per contract account upserted per state change, a
// history row per changing transaction, side-table rows for arrays and
// mappings, event rows in emission order. Every chain's, each row carrying
// its chain ID (who may see which is the query's business).
import { MAIN_CHAIN, type ContractStateChange, type CreatedContract, type EventLog, type ExecResult, type Receipt, type XabiType } from '@platform/common';
import { jsonText } from '@platform/query';
import { Batch } from './batch.js';
import type { Client } from './db.js';
import { familyOf } from './naming.js';
import { isDefault, keyValue, parsePath, updateValue, type Segment } from './paths.js';
import { defaultOf, jsonOf, scalarParam, shapeOf, columnTypeOf, storable, type Shape } from './shapes.js';
import { INHERITED, MAPPING_VALUE, TableSet, type CatalogueCache, type NewVar, type TableRec, type VarDef, type Warn } from './tables.js';

export type { Warn } from './tables.js';

export interface IndexOptions {
  /** index EVM contracts too (INDEX_EVM) */
  indexEvm: boolean;
}

/** The spec's `block_timestamp`: `YYYY-MM-DD HH:MM:SS UTC` from seconds since the epoch. */
export function formatTimestamp(seconds: number): string {
  return `${new Date(seconds * 1000).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

interface BlockFacts {
  hash: string;
  number: number;
  timestamp: string;
}

const contractKey = (address: string, chainId: string): string => `${address}\0${chainId}`;
/** The address of a contract reference (`<address>` or `<address>:<chain>`). */
const refAddress = (value: string): string => value.split(':')[0];
const ZERO_ADDRESS = '0'.repeat(40);

/** What applying one block needs at hand: its tables, its write batch, the contracts it touches. */
class BlockApply {
  readonly tables: TableSet;
  /** contract account → its table (null: a contract cirrus does not index) */
  readonly contracts: Map<string, string | null>;

  constructor(
    cache: CatalogueCache,
    readonly client: Client,
    seq: number,
    readonly exec: ExecResult,
    readonly warn: Warn,
    readonly options: IndexOptions,
    /** the write batch of the blocks applied together */
    readonly batch: Batch,
  ) {
    this.tables = new TableSet(cache, client, seq, warn, () => this.batch.flush());
    this.contracts = cache.contracts;
  }

  readonly block = (): BlockFacts => ({ hash: this.exec.block.hash, number: this.exec.block.number, timestamp: formatTimestamp(this.exec.block.timestamp) });

  indexes(vm: string | undefined): boolean {
    return vm === undefined || vm === 'SolidVM' || (vm === 'EVM' && this.options.indexEvm);
  }

  /** contract accounts looked up in this block and found not to exist */
  private readonly absent = new Set<string>();

  /** Records which of these accounts are contracts (and their tables), in one query. */
  private async lookup(addresses: Iterable<string>): Promise<void> {
    const chainId = this.exec.chainId;
    const wanted = [...new Set(addresses)].filter((a) => !this.contracts.has(contractKey(a, chainId)) && !this.absent.has(contractKey(a, chainId)));
    if (wanted.length === 0) return;
    const { rows } = await this.client.query<{ address: string; sql_name: string | null }>(
      'SELECT address, sql_name FROM cirrus.contracts WHERE chain_id = $1 AND address = ANY($2)',
      [chainId, wanted],
    );
    for (const r of rows) this.contracts.set(contractKey(r.address, chainId), r.sql_name);
    for (const a of wanted) if (!this.contracts.has(contractKey(a, chainId))) this.absent.add(contractKey(a, chainId));
  }

  /**
   * The tables of every contract the block's changes and events name, and the
   * contracts their contract-typed variables refer to: a few queries a block.
   */
  async prefetch(): Promise<void> {
    const successes = this.exec.receipts.filter((r) => r.status === 'Success');
    const named = successes.flatMap((r) => [...r.stateChanges.map((c) => c.address), ...r.events.map((e) => e.address)]);
    await this.lookup(named);
    const sqlNames = new Set(named.flatMap((a) => this.contracts.get(contractKey(a, this.exec.chainId)) ?? []));
    const tables = await this.tables.load(sqlNames);
    await this.tables.load(tables.flatMap((t) => t.vars.flatMap((v) => (v.side ? [v.side] : []))));
    const referred: string[] = [];
    for (const change of successes.flatMap((r) => r.stateChanges)) {
      const sqlName = this.contracts.get(contractKey(change.address, change.chainId));
      const table = sqlName ? await this.tables.get(sqlName) : undefined;
      for (const v of table?.vars ?? []) if (v.ref && typeof change.state[v.name] === 'string') referred.push(refAddress(change.state[v.name] as string));
    }
    await this.lookup(referred);
  }

  /** Whether a contract account exists (created and not destroyed). */
  async exists(address: string, chainId: string): Promise<boolean> {
    await this.lookup([address]);
    return this.contracts.has(contractKey(address, chainId));
  }

  created(address: string, chainId: string, sqlName: string | null): void {
    this.absent.delete(contractKey(address, chainId));
    this.contracts.set(contractKey(address, chainId), sqlName);
  }

  destroyed(address: string, chainId: string): void {
    this.contracts.delete(contractKey(address, chainId));
    this.absent.add(contractKey(address, chainId));
  }

  async tableOf(address: string, chainId: string): Promise<TableRec | undefined> {
    const sqlName = this.contracts.get(contractKey(address, chainId));
    return sqlName ? this.tables.get(sqlName) : undefined;
  }
}

/**
 * Applies consecutive blocks (each with its stream sequence) through one
 * write batch, flushed once at the end: a contract changed in several of them
 * is written once, with its last state. `cache` is the catalogue as the
 * previous block left it (see CatalogueCache).
 */
export async function applyExecResults(client: Client, blocks: Array<{ seq: number; exec: ExecResult }>, warn: Warn, options: IndexOptions, cache: CatalogueCache): Promise<void> {
  const batch = new Batch(client);
  for (const { seq, exec } of blocks) await applyBlock(new BlockApply(cache, client, seq, exec, (fields, message) => warn({ ...fields, seq }, message), options, batch));
  await batch.flush();
}

async function applyBlock(b: BlockApply): Promise<void> {
  const exec = b.exec;
  await b.prefetch();
  const block = b.block();
  for (const receipt of exec.receipts) {
    if (receipt.status !== 'Success') continue;
    for (const created of receipt.contractsCreated) if (created.chainId === exec.chainId) await registerContract(b, created);
    // every chain's rows go in, each with its chain ID (who sees them is the query's business, search.ts);
    // a block describes its own chain only: anything else in it is not taken on its word
    for (const change of receipt.stateChanges) {
      if (change.chainId === exec.chainId) await applyStateChange(b, block, receipt, change);
    }
    // a selfdestruct need not change storage: the receipt's list is the authority
    for (const address of receipt.contractsDeleted) await deleteContract(b, address, exec.chainId);
    for (const event of receipt.events) {
      if (event.chainId === exec.chainId) await applyEvent(b, block, receipt, event);
    }
  }
}

/**
 * The variables of an upload as shapes; constants are not state. EVM
 * contracts' come alike: the block service decodes their storage into
 * SolidVM's paths and values (libs/evm, `decodeStorage`).
 */
function varsOf(created: CreatedContract): NewVar[] {
  const out: NewVar[] = [];
  for (const [name, v] of Object.entries(created.xabi.vars)) {
    if (v.constant === true) continue;
    const shape = shapeOf(v as XabiType, created.xabi.types ?? {});
    const t = v as XabiType;
    out.push(t.type === 'Contract' ? [name, shape, t.typedef] : [name, shape]);
  }
  return out;
}

async function registerContract(b: BlockApply, created: CreatedContract): Promise<void> {
  let sqlName: string | null = null;
  if (b.indexes(created.vm)) {
    const table = await b.tables.ensureContract(storable(familyOf(created)), created.name, varsOf(created), true);
    sqlName = table.sqlName;
  }
  b.created(created.address, created.chainId, sqlName);
  await b.client.query('INSERT INTO cirrus.contracts (address, chain_id, sql_name) VALUES ($1, $2, $3) ON CONFLICT (address, chain_id) DO UPDATE SET sql_name = EXCLUDED.sql_name', [
    created.address,
    created.chainId,
    sqlName,
  ]);
}

function inheritedValues(block: BlockFacts, receipt: Receipt, change: { address: string; chainId: string }): unknown[] {
  const recordId = change.chainId === MAIN_CHAIN ? change.address : `${change.address}:${change.chainId}`;
  return [change.address, change.chainId, recordId, block.hash, block.timestamp, block.number, receipt.transactionHash, receipt.from];
}

/** A state variable's column value from the VM's JSON of the whole contract. */
function columnValue(v: VarDef, state: Record<string, unknown>): unknown {
  if (v.shape.k === 'mapping') return MAPPING_VALUE;
  const value = state[v.name];
  if (value === undefined || value === null) return null;
  // a value that does not fit its column is NULL, never an SQL error that would stop the indexer
  if (columnTypeOf(v.shape) === 'jsonb') return jsonText(jsonOf(v.shape, value));
  return scalarParam(v.shape, value);
}

async function applyStateChange(b: BlockApply, block: BlockFacts, receipt: Receipt, change: ContractStateChange): Promise<void> {
  if (change.deleted) {
    await deleteContract(b, change.address, change.chainId);
    return;
  }
  const known = b.contracts.has(contractKey(change.address, change.chainId));
  const table = await b.tableOf(change.address, change.chainId);
  if (!table) {
    if (!known && b.indexes(change.vm)) b.warn({ contract: change.contractName, address: change.address }, 'a state change of a contract whose creation was never seen; not indexed');
    return;
  }
  const columns = table.vars.filter((v) => v.column !== undefined);
  const names = [...INHERITED.map((c) => c[1]), ...columns.map((v) => v.column!)];
  const values = [...inheritedValues(block, receipt, change), ...columns.map((v) => columnValue(v, change.state))];
  // the spec: a contract-typed variable referring to a contract that does not exist is NULL
  for (const [i, v] of columns.entries()) {
    const value = values[INHERITED.length + i];
    if (v.ref && typeof value === 'string' && (refAddress(value) === ZERO_ADDRESS || !(await b.exists(refAddress(value), change.chainId)))) values[INHERITED.length + i] = null;
  }
  b.batch.upsert(table, names, values, change.created);
  b.batch.insert(await b.tables.historyOf(table), names, values);
  await applySides(b, table, change);
}

/** Side tables: an array is rewritten whole when it changed; a mapping's changed entries are written one by one. */
async function applySides(b: BlockApply, table: TableRec, change: ContractStateChange): Promise<void> {
  const sides = table.vars.filter((v) => v.side !== undefined);
  if (sides.length === 0) return;
  const touched = new Map<string, Array<[readonly Segment[], unknown]>>();
  for (const [path, raw] of Object.entries(change.diff)) {
    const parsed = parsePath(path);
    if (!parsed) continue;
    let list = touched.get(parsed.name);
    if (!list) touched.set(parsed.name, (list = []));
    list.push([parsed.segments, raw]);
  }
  for (const v of sides) {
    if (v.shape.k === 'array') {
      if (!change.created && !touched.has(v.name)) continue;
      const value = change.state[v.name];
      const elem = v.shape.elem;
      const asColumn = (e: unknown) => (columnTypeOf(elem) === 'jsonb' ? jsonText(jsonOf(elem, e)) : scalarParam(elem, e));
      b.batch.replaceArray(await b.tables.side(v), change.address, change.chainId, Array.isArray(value) ? value.map((e, i) => [i, asColumn(e)]) : []);
    } else if (v.shape.k === 'mapping') {
      for (const [segments, raw] of touched.get(v.name) ?? []) await applyEntry(b, v, v.shape, change, segments, typeof raw === 'string' ? raw : null);
    }
  }
}

async function applyEntry(b: BlockApply, v: VarDef, shape: Extract<Shape, { k: 'mapping' }>, change: ContractStateChange, segments: readonly Segment[], raw: string | null): Promise<void> {
  const first = segments[0];
  if (first?.k !== 'key') return;
  const keyShape = shape.key;
  const key = keyValue(keyShape, first.text);
  const keyParam = columnTypeOf(keyShape) === 'jsonb' ? JSON.stringify(key) : scalarParam(keyShape, key);
  if (keyParam === null) {
    b.warn({ variable: v.name, address: change.address, key: first.text }, 'a mapping key does not fit its column; the entry is not indexed');
    return;
  }
  const side = await b.tables.side(v);
  const valueShape = shape.value;
  if (columnTypeOf(valueShape) !== 'jsonb') {
    if (segments.length !== 1) return;
    b.batch.setEntry(side, change.address, change.chainId, keyParam, raw === null ? undefined : scalarParam(valueShape, raw));
    return;
  }
  const current = (await b.batch.entryValue(side.sqlName, change.address, change.chainId, keyParam)) ?? defaultOf(valueShape);
  const next = updateValue(current, valueShape, segments, raw, 1);
  const gone = isDefault(valueShape, next);
  b.batch.rememberEntry(side.sqlName, change.address, change.chainId, keyParam, gone ? undefined : next);
  b.batch.setEntry(side, change.address, change.chainId, keyParam, gone ? undefined : jsonText(next));
}

/** A destroyed contract loses its row and side-table rows (its history stays). */
async function deleteContract(b: BlockApply, address: string, chainId: string): Promise<void> {
  const { rows } = await b.client.query<{ sql_name: string | null }>('DELETE FROM cirrus.contracts WHERE address = $1 AND chain_id = $2 RETURNING sql_name', [address, chainId]);
  b.destroyed(address, chainId);
  const gone = rows[0]?.sql_name ? await b.tables.get(rows[0].sql_name) : undefined;
  if (gone) b.batch.remove([gone, ...(await Promise.all(gone.vars.filter((v) => v.side).map((v) => b.tables.side(v))))], address, chainId);
}

async function applyEvent(b: BlockApply, block: BlockFacts, receipt: Receipt, event: EventLog): Promise<void> {
  // events of contracts cirrus indexes only
  const owner = await b.tableOf(event.address, event.chainId);
  if (!owner) return;
  const table = await b.tables.ensureEvent(owner.family, owner.contract, event.name, event.args.map(([name]) => name));
  const args = new Map(event.args);
  const cols = table.columns.filter((c) => c[3] === 'arg');
  const names = ['address', 'chain_id', ...cols.map((c) => c[1]), 'transaction_hash', 'block_number', 'block_timestamp'];
  const arg = (name: string) => {
    const value = args.get(name);
    return typeof value === 'string' ? storable(value) : null;
  };
  b.batch.insert(table, names, [event.address, event.chainId, ...cols.map((c) => arg(c[0])), receipt.transactionHash, block.number, block.timestamp]);
}
