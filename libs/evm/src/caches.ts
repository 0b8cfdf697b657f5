// Everything an EVM keeps between transactions, each EVM its own (createEvm
// takes them, or their limits, as options): compiled units, contracts'
// metadata, deployed code, the decoding caches of INDEX_EVM, idle engines.
// The solc compiler and its worker thread are loaded once per process: they
// hold no chain's data.
import { createEnginePool, type EnginePool } from './engine.js';
import { createIndexingCache, type IndexingCache } from './indexing.js';
import { Lru } from './lru.js';
import { clearMetaCaches, createMetaCache, type MetaCache } from './meta.js';
import { clearCompileCache, createCompileCache, type CompileCache } from './solc.js';
import type { CodeCache } from './state-adapter.js';

/** How much each cache keeps (entries, least recently used evicted first). */
export interface EvmCacheLimits {
  /** compiled units (and sources that do not compile), default 64 */
  compiledUnits?: number;
  /** metadata blobs parsed from the state, default 256 */
  metaBlobs?: number;
  /** contracts' indexed metadata, default 1024 */
  contractInfos?: number;
  /** deployed code by hash, default 512 */
  code?: number;
  /** static preimages for storage decoding (INDEX_EVM), default 256 */
  staticPreimages?: number;
  /** idle engines kept per chain, default 4 */
  idleEnginesPerChain?: number;
}

export interface EvmCaches {
  compile: CompileCache;
  meta: MetaCache;
  code: CodeCache;
  indexing: IndexingCache;
  engines: EnginePool;
}

export function createEvmCaches(limits: EvmCacheLimits = {}): EvmCaches {
  const code: CodeCache = new Lru(limits.code ?? 512);
  return {
    compile: createCompileCache(limits.compiledUnits ?? 64),
    meta: createMetaCache({ blobs: limits.metaBlobs, infos: limits.contractInfos }),
    code,
    indexing: createIndexingCache(limits.staticPreimages ?? 256),
    engines: createEnginePool(code, limits.idleEnginesPerChain ?? 4),
  };
}

/** Empties the caches (compiled units, contract metadata, code, decoding): the state of a freshly started node. */
export function clearEvmCaches(c: EvmCaches): void {
  clearCompileCache(c.compile);
  clearMetaCaches(c.meta);
  c.code.clear();
  c.indexing.statics.clear();
  c.engines.idle.clear();
}
