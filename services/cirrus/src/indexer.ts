// One ExecResult (one block) into the read model, inside the caller's
// transaction: contract tables created/altered from the xabi of contracts
// created in it, one row per contract account upserted per state change, a
// history row per changing transaction, event rows in emission order.
// This slice indexes SolidVM contracts of the main chain only.
import { MAIN_CHAIN, type ContractStateChange, type EventLog, type ExecResult, type Receipt, type XabiType } from '@platform/common';
import type { Client } from './db.js';
import { MAPPING_VALUE, TableSet, historyName, qualified, type ColumnDef, type TableRec } from './tables.js';

export type Warn = (fields: Record<string, unknown>, message: string) => void;

/** The spec's `block_timestamp`: `YYYY-MM-DD HH:MM:SS UTC` from seconds since the epoch. */
export function formatTimestamp(seconds: number): string {
  return `${new Date(seconds * 1000).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

interface BlockFacts {
  hash: string;
  number: number;
  timestamp: string;
}

const indexed = (x: { chainId: string; vm?: string }): boolean => x.chainId === MAIN_CHAIN && (x.vm === undefined || x.vm === 'SolidVM');

export async function applyExecResult(client: Client, seq: number, exec: ExecResult, warn: Warn): Promise<void> {
  if (exec.chainId !== MAIN_CHAIN) return;
  const tables = new TableSet(client, seq, warn);
  const block: BlockFacts = { hash: exec.block.hash, number: exec.block.number, timestamp: formatTimestamp(exec.block.timestamp) };
  for (const receipt of exec.receipts) {
    if (receipt.status !== 'Success') continue;
    for (const created of receipt.contractsCreated) {
      if (!indexed(created)) continue;
      // a variable's entry is its type with flags; constants are not state
      const vars = Object.entries(created.xabi.vars).filter(([, v]) => v.constant !== true);
      await tables.ensureContract(created.name, vars.map(([name, v]) => [name, v as XabiType]));
    }
    for (const change of receipt.stateChanges) {
      if (!indexed(change)) continue;
      await applyStateChange(client, tables, block, receipt, change, warn);
    }
    // a selfdestruct need not change storage: the receipt's list is the authority
    for (const address of receipt.contractsDeleted) await deleteContract(client, tables, address, exec.chainId);
    for (const event of receipt.events) {
      if (event.chainId !== MAIN_CHAIN) continue;
      await applyEvent(client, tables, block, receipt, event);
    }
  }
}

function inheritedValues(block: BlockFacts, receipt: Receipt, change: { address: string; chainId: string }): unknown[] {
  const recordId = change.chainId === MAIN_CHAIN ? change.address : `${change.address}:${change.chainId}`;
  return [change.address, change.chainId, recordId, block.hash, block.timestamp, block.number, receipt.transactionHash, receipt.from];
}

/** A state variable's JSON value as its column's parameter. */
function columnValue(col: ColumnDef, state: Record<string, unknown>): unknown {
  const [name, , type, origin] = col;
  if (origin === 'mapping') return MAPPING_VALUE;
  const v = state[name];
  if (v === undefined || v === null) return null;
  // a value that does not fit the column (a later upload changed the variable's
  // type: the column keeps its first type) is NULL, never an SQL error that
  // would stop the indexer
  switch (type) {
    case 'boolean':
      return v === true || v === 'true' ? true : v === false || v === 'false' ? false : null;
    case 'numeric':
      return (typeof v === 'string' || typeof v === 'number') && /^-?\d+(\.\d+)?$/.test(String(v)) ? String(v) : null;
    case 'integer':
      return (typeof v === 'string' || typeof v === 'number') && /^\d{1,9}$/.test(String(v)) ? String(v) : null;
    default:
      return typeof v === 'string' ? v : JSON.stringify(v);
  }
}

async function applyStateChange(client: Client, tables: TableSet, block: BlockFacts, receipt: Receipt, change: ContractStateChange, warn: Warn): Promise<void> {
  if (change.deleted) {
    await deleteContract(client, tables, change.address, change.chainId);
    return;
  }
  const table = await tables.get(change.contractName);
  if (table?.kind !== 'contract') {
    warn({ contract: change.contractName, address: change.address }, 'a state change of a contract whose creation was never seen; not indexed');
    return;
  }
  await client.query('INSERT INTO cirrus.contracts (address, chain_id, contract) VALUES ($1, $2, $3) ON CONFLICT (address, chain_id) DO UPDATE SET contract = EXCLUDED.contract', [
    change.address,
    change.chainId,
    table.apiName,
  ]);
  const values = [...inheritedValues(block, receipt, change), ...table.columns.filter((c) => c[3] !== 'inherited').map((c) => columnValue(c, change.state))];
  const names = [...table.columns.filter((c) => c[3] === 'inherited'), ...table.columns.filter((c) => c[3] !== 'inherited')].map((c) => c[1]);
  await upsert(client, table, names, values);
  const history = (await tables.get(historyName(change.contractName)))!;
  const placeholders = values.map((_, i) => `$${i + 1}`).join(', ');
  await client.query(`INSERT INTO ${qualified(history.sqlName)} (${names.join(', ')}) VALUES (${placeholders})`, values);
}

/** A destroyed contract loses its row (its history stays). */
async function deleteContract(client: Client, tables: TableSet, address: string, chainId: string): Promise<void> {
  const { rows } = await client.query<{ contract: string }>('DELETE FROM cirrus.contracts WHERE address = $1 AND chain_id = $2 RETURNING contract', [address, chainId]);
  const gone = rows[0] ? await tables.get(rows[0].contract) : undefined;
  if (gone) await client.query(`DELETE FROM ${qualified(gone.sqlName)} WHERE address = $1 AND chain_id = $2`, [address, chainId]);
}

async function upsert(client: Client, table: TableRec, names: string[], values: unknown[]): Promise<void> {
  const placeholders = values.map((_, i) => `$${i + 1}`).join(', ');
  const updates = names.filter((n) => n !== 'address' && n !== 'chain_id').map((n) => `${n} = EXCLUDED.${n}`).join(', ');
  await client.query(`INSERT INTO ${qualified(table.sqlName)} (${names.join(', ')}) VALUES (${placeholders}) ON CONFLICT (address, chain_id) DO UPDATE SET ${updates}`, values);
}

async function applyEvent(client: Client, tables: TableSet, block: BlockFacts, receipt: Receipt, event: EventLog): Promise<void> {
  // events of contracts cirrus indexes (SolidVM ones: their table exists)
  if ((await tables.get(event.contractName))?.kind !== 'contract') return;
  const table = await tables.ensureEvent(event.contractName, event.name, event.args.map(([name]) => name));
  const args = new Map(event.args);
  const cols = table.columns.filter((c) => c[3] === 'arg');
  const names = ['address', 'chain_id', ...cols.map((c) => c[1]), 'transaction_hash', 'block_number', 'block_timestamp'];
  const values = [event.address, event.chainId, ...cols.map((c) => args.get(c[0]) ?? null), receipt.transactionHash, block.number, block.timestamp];
  await client.query(`INSERT INTO ${qualified(table.sqlName)} (${names.join(', ')}) VALUES (${values.map((_, i) => `$${i + 1}`).join(', ')})`, values);
}
