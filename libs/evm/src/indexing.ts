// What a transaction did to a contract's storage, decoded for indexing: the
// storage paths it changed in SolidVM's form (mapping entries, array
// elements and lengths, struct members) and the values of its structs and
// arrays. Run only for transactions executed with `decodeStorage` (the block
// service's INDEX_EVM); otherwise an EVM state change names simple variables
// only and none of this is computed.
import type { WorldState } from '@platform/common';
import { hexToBytes } from '@platform/crypto';
import type { HashLog } from './engine.js';
import { staticPreimages } from './folded.js';
import { readValue, storageModel, wordBig, wordReader, type SlotReader, type StorageModel } from './layout.js';
import { Lru } from './lru.js';
import type { ContractInfo } from './meta.js';
import { Preimages, SlotResolver, changedPaths, isHashed } from './slots.js';

/** An EVM's decoding caches: storage models by contract, and the static preimages of a contract's runtime code by metadata pointer (the same pointer, the same code and layout). */
export interface IndexingCache {
  models: WeakMap<ContractInfo, StorageModel>;
  statics: Lru<string, Array<[bigint, Uint8Array]>>;
}

export function createIndexingCache(limit = 256): IndexingCache {
  return { models: new WeakMap(), statics: new Lru(limit) };
}

function modelOf(cache: IndexingCache, info: ContractInfo): StorageModel {
  let m = cache.models.get(info);
  if (!m) cache.models.set(info, (m = storageModel(info.layout)));
  return m;
}

/** The preimages a transaction recorded, made searchable once for all the contracts it changed. */
export class TxPreimages {
  private table: Preimages | undefined;

  constructor(
    private readonly log: HashLog | null,
    readonly cache: IndexingCache,
  ) {}

  get(): Preimages {
    if (!this.table) {
      this.table = new Preimages();
      const log = this.log;
      if (log) for (let i = 0; i < log.inputs.length; i++) this.table.add(wordBig(log.outputs[i]), log.inputs[i]);
    }
    return this.table;
  }
}

export interface StorageDecoding {
  /** changed paths with their stored text (null: the default) */
  paths: Map<string, string | null>;
  /** structs, and the arrays the transaction changed (all of them at a creation), by name, in SolidVM's JSON form */
  values: Record<string, unknown>;
}

interface Subject {
  info: ContractInfo;
  state: WorldState;
  address: string;
  /** the changed slots (64 hex) */
  slots: string[];
  before: SlotReader;
  created: boolean;
  /** init code of a contract this transaction created (its constructor's constant keys are there) */
  initCode?: string;
  /** the paths reported as simple variables */
  simple: Set<string>;
}

/** The top-level name of a path: `.m<1>.x` → `m`. */
const rootOf = (path: string): string => /^\.([A-Za-z_$][\w$]*)/.exec(path)?.[1] ?? '';

export function decodeStorage(s: Subject, tx: TxPreimages): StorageDecoding {
  const model = modelOf(tx.cache, s.info);
  const now = wordReader((slot) => s.state.getStorage(s.address, slot));
  const before = wordReader(s.before);
  const slots = s.slots.map((k) => BigInt('0x' + k));
  const hashed = slots.some((slot) => isHashed(model, slot));
  const pre = hashed ? tx.get() : new Preimages();
  let resolver = new SlotResolver(model, pre, before, now);
  if (hashed && slots.some((slot) => isHashed(model, slot) && resolver.nodesAt(slot).length === 0)) {
    // a slot the run's own hashing does not explain: the preimages solc hashed at compile time
    // (facts like the others, so they join the transaction's table)
    const size = pre.size;
    pre.addAll(staticsOf(tx.cache, s, model));
    if (pre.size > size) resolver = new SlotResolver(model, pre, before, now);
  }
  const paths = changedPaths(resolver, slots, before, now, s.simple);
  const changed = new Set([...paths.keys()].map(rootOf));
  const values: Record<string, unknown> = {};
  for (const m of model.top.members) {
    const k = m.ty.k;
    if (k === 'struct' || ((k === 'fixed' || k === 'dynamic') && (s.created || changed.has(m.name)))) values[m.name] = readValue(m.ty, m.slot, m.offset, now);
  }
  return { paths, values };
}

function staticsOf(cache: IndexingCache, s: Subject, model: StorageModel): Array<[bigint, Uint8Array]> {
  const runtime = (): Uint8Array => {
    const codeHash = s.state.getAccount(s.address)?.codeHash;
    return (codeHash && s.state.getCode(codeHash)) || new Uint8Array(0);
  };
  const sources = Object.values(s.info.sources);
  if (s.initCode) return staticPreimages(model, sources, [runtime(), hexToBytes(s.initCode)]);
  let hit = cache.statics.get(s.info.pointer);
  if (!hit) cache.statics.set(s.info.pointer, (hit = staticPreimages(model, sources, [runtime()])));
  return hit;
}
