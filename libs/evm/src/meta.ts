// What a call needs to know of a contract beyond its bytecode — the ABI to
// encode JSON arguments and decode results, events and errors, the storage
// layout to name state variables — kept in the world state itself, so that a
// restarted node, and every other node replaying the chain, finds it:
//
// - the compiled unit's metadata is one content-addressed blob in the code
//   store (`putCode`): the sources plus solc's own ABI and storage layout of
//   each deployable contract. Only solc output and the sources, nothing this
//   library derives, so the blob (part of the state through its hash) does not
//   change when this library's xabi or rendering code does;
// - each contract created from source carries a pointer to it in its storage,
//   under the key `@evm` (never a 64-hex slot, so no EVM code can touch it):
//   `<blob hash>/<file>:<Contract>`.
//
// Contracts created from bare bytecode have no pointer: they are called with
// raw calldata, and their results stay ABI-encoded hex.
import type { WorldState } from '@platform/common';
import { keccak256Hex } from '@platform/crypto';
import { selectorOf, eventTopic, tupleOf, type AbiEntry, type AbiType } from './abi-types.js';
import type { EnumLookup } from './args.js';
import { simpleVars, type LayoutVar, type SolcStorageLayout } from './layout.js';
import { Lru } from './lru.js';
import type { CompiledContract, CompiledUnit } from './solc.js';

export const META_KEY = '@evm';

interface MetaBlob {
  format: 1;
  sources: Record<string, string>;
  enums: Record<string, string[]>;
  /** by `file:Name` */
  contracts: Record<string, { abi: AbiEntry[]; storageLayout: SolcStorageLayout }>;
}

export interface FnInfo {
  entry: AbiEntry;
  selector: string;
  inputs: AbiType[];
  outputs: AbiType[];
}

/** A contract's metadata, indexed for calls. */
export interface ContractInfo {
  name: string;
  /** `file:Name` */
  key: string;
  /** the value of the `@evm` pointer */
  pointer: string;
  sources: Record<string, string>;
  abi: AbiEntry[];
  ctor?: AbiEntry;
  /** public functions by name (overloads together) */
  functions: Map<string, AbiEntry[]>;
  /** by 8-hex selector */
  selectors: Map<string, FnInfo>;
  /** by ABI entry (so a call by name does not hash its signature again) */
  byEntry: Map<AbiEntry, FnInfo>;
  /** non-anonymous events by topic 0 (64 hex) */
  events: Map<string, { entry: AbiEntry; inputs: AbiType[] }>;
  /** custom errors by selector */
  errors: Map<string, { entry: AbiEntry; inputs: AbiType[] }>;
  vars: LayoutVar[];
  /** solc's storage layout, for decoding every other variable (slots.ts) */
  layout: SolcStorageLayout;
  enums: EnumLookup;
}

const utf8 = new TextEncoder();

/** An EVM's metadata caches: each compiled unit's blob, blobs parsed from the state, contracts' indexed metadata by pointer. */
export interface MetaCache {
  blobs: WeakMap<CompiledUnit, { bytes: Uint8Array; hash: string; meta: MetaBlob }>;
  parsed: Lru<string, MetaBlob>;
  infos: Lru<string, ContractInfo>;
}

export function createMetaCache(limits: { blobs?: number; infos?: number } = {}): MetaCache {
  return { blobs: new WeakMap(), parsed: new Lru(limits.blobs ?? 256), infos: new Lru(limits.infos ?? 1024) };
}

function blobOf(cache: MetaCache, unit: CompiledUnit): { bytes: Uint8Array; hash: string; meta: MetaBlob } {
  const blobs = cache.blobs;
  let b = blobs.get(unit);
  if (!b) {
    const meta: MetaBlob = { format: 1, sources: unit.sources, enums: unit.enums, contracts: {} };
    for (const c of unit.contracts) if (c.bin !== '') meta.contracts[`${c.file}:${c.name}`] = { abi: c.abi, storageLayout: c.storageLayout };
    const bytes = utf8.encode(JSON.stringify(meta));
    b = { bytes, hash: keccak256Hex(bytes), meta };
    blobs.set(unit, b);
  }
  return b;
}

function indexContract(meta: MetaBlob, pointer: string, key: string): ContractInfo | undefined {
  const c = meta.contracts[key];
  if (!c) return undefined;
  const functions = new Map<string, AbiEntry[]>();
  const selectors = new Map<string, FnInfo>();
  const byEntry = new Map<AbiEntry, FnInfo>();
  const events = new Map<string, { entry: AbiEntry; inputs: AbiType[] }>();
  const errors = new Map<string, { entry: AbiEntry; inputs: AbiType[] }>();
  for (const e of c.abi) {
    if (e.type === 'function') {
      const list = functions.get(e.name!) ?? [];
      list.push(e);
      functions.set(e.name!, list);
      const selector = selectorOf(e);
      const fn: FnInfo = { entry: e, selector, inputs: tupleOf(e.inputs).items, outputs: tupleOf(e.outputs).items };
      selectors.set(selector, fn);
      byEntry.set(e, fn);
    } else if (e.type === 'event' && !e.anonymous) events.set(eventTopic(e), { entry: e, inputs: tupleOf(e.inputs).items });
    else if (e.type === 'error') errors.set(selectorOf(e), { entry: e, inputs: tupleOf(e.inputs).items });
  }
  const enums = meta.enums;
  return {
    name: key.slice(key.lastIndexOf(':') + 1),
    key,
    pointer,
    sources: meta.sources,
    abi: c.abi,
    ctor: c.abi.find((e) => e.type === 'constructor'),
    functions,
    selectors,
    byEntry,
    events,
    errors,
    vars: simpleVars(c.storageLayout),
    layout: c.storageLayout,
    enums: (name) => enums[name],
  };
}

/** The metadata of a contract of a compiled unit; its pointer is what storeMeta writes. */
export function infoOfCompiled(cache: MetaCache, unit: CompiledUnit, c: CompiledContract): ContractInfo {
  const blob = blobOf(cache, unit);
  const pointer = `${blob.hash}/${c.file}:${c.name}`;
  const hit = cache.infos.get(pointer);
  if (hit) return hit;
  const info = indexContract(blob.meta, pointer, `${c.file}:${c.name}`);
  if (!info) throw new Error(`${c.name} is not deployable`);
  cache.infos.set(pointer, info);
  return info;
}

/** Records a new contract's metadata in the world state: the blob (once per unit) and the pointer. */
export function storeMeta(cache: MetaCache, state: WorldState, address: string, unit: CompiledUnit, c: CompiledContract): ContractInfo {
  const info = infoOfCompiled(cache, unit, c);
  const { bytes, hash } = blobOf(cache, unit);
  if (!state.getCode(hash)) state.putCode(bytes);
  state.putStorage(address, META_KEY, info.pointer);
  return info;
}

/** The metadata of the contract at an address, or undefined when it was created from bare bytecode. */
export function loadMeta(cache: MetaCache, state: WorldState, address: string): ContractInfo | undefined {
  const pointer = state.getStorage(address, META_KEY);
  if (!pointer) return undefined;
  const hit = cache.infos.get(pointer);
  if (hit) return hit;
  const hash = pointer.slice(0, 64);
  let meta = cache.parsed.get(hash);
  if (!meta) {
    const bytes = state.getCode(hash);
    if (!bytes) return undefined;
    meta = JSON.parse(new TextDecoder().decode(bytes)) as MetaBlob;
    cache.parsed.set(hash, meta);
  }
  const info = indexContract(meta, pointer, pointer.slice(65));
  if (info) cache.infos.set(pointer, info);
  return info;
}

/** Forgets parsed metadata (tests: a restarted node reads it back from the state). */
export function clearMetaCaches(cache: MetaCache): void {
  cache.parsed.clear();
  cache.infos.clear();
}
