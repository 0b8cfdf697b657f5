import { clearIndexingCaches } from './indexing.js';
import { clearMetaCaches } from './meta.js';
import { clearCompileCache } from './solc.js';
import { clearCodeCache } from './state-adapter.js';

/** Empties every in-process cache (compiled units, contract metadata, code): the state of a freshly started node. */
export function clearCaches(): void {
  clearCompileCache();
  clearMetaCaches();
  clearCodeCache();
  clearIndexingCaches();
}
