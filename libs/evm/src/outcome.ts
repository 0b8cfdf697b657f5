// After a successful run: what the transaction did, in the forms the block
// service publishes — contracts created (with their metadata recorded in the
// state), state changes per contract, events.
import type { ContractStateChange, CreatedContract, EventLog, ExecutionContext, WorldState, Xabi } from '@platform/common';
import { bytesToHex } from '@platform/crypto';
import { decodeLog, type RawLog } from './decode.js';
import { decodeStorage, type TxPreimages } from './indexing.js';
import { readVar, type SlotReader } from './layout.js';
import type { EvmCaches } from './caches.js';
import { loadMeta, storeMeta, type ContractInfo, type MetaCache } from './meta.js';
import { compileUnit, emptyXabi, type CompiledContract, type CompiledUnit } from './solc.js';
import type { WorldStateAdapter } from './state-adapter.js';

/** Does deployed code equal a compiled runtime, ignoring the bytes the constructor filled (immutables)? */
function sameCode(code: string, c: CompiledContract): boolean {
  if (code.length !== c.binRuntime.length) return false;
  let from = 0;
  for (const [start, length] of c.immutables) {
    if (code.slice(from, start * 2) !== c.binRuntime.slice(from, start * 2)) return false;
    from = (start + length) * 2;
  }
  return code.slice(from) === c.binRuntime.slice(from);
}

export interface Created {
  address: string;
  codeHash: string;
  /** the contract's name: from its source, or as the creation named it */
  name: string;
  contract?: CompiledContract;
  info?: ContractInfo;
}

/**
 * Records the metadata of every contract this transaction deployed: the one
 * it created from source, and those created by `new`, recognised by their code
 * among the contracts compiled with it (the same sources, so every node
 * recognises the same ones).
 */
export function recordCreated(
  caches: EvmCaches,
  state: WorldState,
  adapter: WorldStateAdapter,
  top: { address: string; name?: string; unit?: CompiledUnit; contract?: CompiledContract },
  scope: ContractInfo | undefined,
): Created[] {
  const out: Created[] = [];
  let unit = top.unit;
  for (const [address, codeHash] of adapter.deployed) {
    const acct = state.getAccount(address);
    if (!acct || acct.codeHash !== codeHash) continue; // its creation was reverted, or it selfdestructed
    let contract: CompiledContract | undefined;
    if (address === top.address && top.contract) contract = top.contract;
    else {
      if (!unit && scope) unit = compileUnit(caches.compile, scope.sources);
      const code = bytesToHex(state.getCode(codeHash) ?? new Uint8Array(0));
      contract = unit?.contracts.find((c) => sameCode(code, c));
    }
    if (!contract || !unit) {
      // bare bytecode: only a name the creation gave is known
      const name = address === top.address ? (top.name ?? '') : '';
      if (name) state.putAccount(address, { ...acct, contractName: name });
      out.push({ address, codeHash, name });
      continue;
    }
    const info = storeMeta(caches.meta, state, address, unit, contract);
    state.putAccount(address, { ...acct, contractName: contract.name });
    out.push({ address, codeHash, name: contract.name, contract, info });
  }
  // the contract the transaction created first, then those its constructor or the call created
  return out.sort((a, b) => (a.address === top.address ? -1 : b.address === top.address ? 1 : 0));
}

export function createdContracts(created: Created[], ctx: ExecutionContext, topAddress: string, appName: string | null): CreatedContract[] {
  return created.map((c) => ({
    address: c.address,
    chainId: ctx.chainId,
    name: c.name,
    codeHash: c.codeHash,
    vm: 'EVM',
    creatorOrg: ctx.identity?.organization ?? null,
    appName: c.address === topAddress ? null : appName,
    xabi: (c.contract?.xabi ?? emptyXabi()) as Xabi,
    ...(c.contract ? { bin: c.contract.bin, binRuntime: c.contract.binRuntime } : {}),
  }));
}

/**
 * One ContractStateChange per contract whose storage changed, or that was
 * created or deleted. `diff` holds each changed slot (64-hex key → new 64-hex
 * value, null when cleared) and, when the storage layout is known, each
 * changed simple variable as `.name` → its value (SolidVM's path form);
 * `state` holds every simple variable's current value.
 *
 * With `decode` (the preimages the transaction hashed), the diff also names
 * every other changed path as SolidVM does (`.m<k>`, `.arr[i]`, `.arr.length`,
 * `.s.field`, with their stored text, null for the default), and `state` also
 * holds the structs and the arrays the transaction changed (every array at a
 * creation): what cirrus indexes.
 */
export function stateChanges(
  meta: MetaCache,
  state: WorldState,
  ctx: ExecutionContext,
  adapter: WorldStateAdapter,
  created: Created[],
  deleted: string[],
  decode?: TxPreimages,
): ContractStateChange[] {
  const createdSet = new Set(created.map((c) => c.address));
  const touched = new Set([...adapter.originals.keys(), ...createdSet, ...deleted]);
  const out: ContractStateChange[] = [];
  for (const address of touched) {
    const origs = adapter.originals.get(address);
    const diff: Record<string, unknown> = {};
    if (origs) {
      for (const [slot, before] of origs) {
        const now = state.getStorage(address, slot);
        if (now !== before) diff[slot] = now ?? null;
      }
    }
    const isCreated = createdSet.has(address);
    const isDeleted = deleted.includes(address);
    if (!isCreated && !isDeleted && Object.keys(diff).length === 0) continue;
    const acct = state.getAccount(address);
    if (!isDeleted && acct?.vm !== 'EVM') continue; // an account that is not an EVM contract has no storage of ours
    const info = isDeleted ? undefined : loadMeta(meta, state, address);
    const current: Record<string, unknown> = {};
    if (info) {
      const now: SlotReader = (slot) => state.getStorage(address, slot);
      const before: SlotReader = (slot) => (origs?.has(slot) ? origs.get(slot) : state.getStorage(address, slot));
      for (const v of info.vars) {
        const value = readVar(v, now);
        current[v.name] = value;
        if (Object.keys(diff).length && (isCreated || JSON.stringify(readVar(v, before)) !== JSON.stringify(value))) diff[`.${v.name}`] = value;
      }
      const slots = decode ? Object.keys(diff).filter((k) => k[0] !== '.') : [];
      if (decode && (slots.length || isCreated)) {
        const initCode = created.find((c) => c.address === address)?.contract?.bin;
        const simple = new Set(info.vars.map((v) => `.${v.name}`));
        const d = decodeStorage({ info, state, address, slots, before, created: isCreated, simple, ...(initCode ? { initCode } : {}) }, decode);
        for (const [path, text] of d.paths) diff[path] = text;
        Object.assign(current, d.values);
      }
    }
    out.push({
      address,
      chainId: ctx.chainId,
      contractName: info?.name ?? acct?.contractName ?? '',
      codeHash: acct?.codeHash ?? created.find((c) => c.address === address)?.codeHash ?? '',
      vm: 'EVM',
      created: isCreated,
      deleted: isDeleted,
      state: current,
      diff,
    });
  }
  return out;
}

export function eventsOf(meta: MetaCache, state: WorldState, ctx: ExecutionContext, logs: Array<[Uint8Array, Uint8Array[], Uint8Array]>): { events: EventLog[]; raw: RawLog[] } {
  const events: EventLog[] = [];
  const raw: RawLog[] = [];
  const infos = new Map<string, ContractInfo | undefined>();
  for (const log of logs) {
    const address = bytesToHex(log[0]);
    raw.push({ address, topics: log[1].map(bytesToHex), data: bytesToHex(log[2]) });
    if (!infos.has(address)) infos.set(address, loadMeta(meta, state, address));
    const ev = decodeLog(log, infos.get(address), ctx.chainId, events.length);
    if (ev) events.push(ev);
  }
  return { events, raw };
}

/**
 * The simple state variables (value types, string, bytes) of the EVM contract
 * at an address, by name, as JSON; undefined when its layout is unknown
 * (created from bare bytecode).
 */
export function readContractState(meta: MetaCache, state: WorldState, address: string): Record<string, unknown> | undefined {
  const info = loadMeta(meta, state, address);
  if (!info) return undefined;
  const read: SlotReader = (slot) => state.getStorage(address, slot);
  return Object.fromEntries(info.vars.map((v) => [v.name, readVar(v, read)]));
}
