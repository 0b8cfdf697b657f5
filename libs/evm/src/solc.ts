// Solidity compilation with solc 0.8.37 (its wasm build, no network), pinned to
// the EVM's hardfork, optimizer on. solc takes 0.3–2 s a run, so results are
// kept in a bounded LRU keyed by Keccak-256 of the standard-JSON input, each
// EVM's own (CompileCache); solc itself is loaded on first use (≈0.7 s), once
// per process like its worker thread, so importing this package is cheap.
import { createRequire } from 'node:module';
import type { Xabi } from '@platform/common';
import { hexToBytes, keccak256Hex } from '@platform/crypto';
import type { AbiEntry } from './abi-types.js';
import { SolidityCompileError, type SolcMessage } from './errors.js';
import type { SolcStorageLayout } from './layout.js';
import { Lru } from './lru.js';
import { compileOffThread } from './solc-thread.js';
import { indexAst, xabiOf, type AstIndex, type AstNode } from './xabi.js';

/** The hardfork the EVM runs and solc targets: the two must agree. */
export const EVM_VERSION = 'cancun';
export const SOLC_VERSION = '0.8.37';
export const OPTIMIZER = { enabled: true, runs: 200 } as const;
/** The file name a single source string is compiled under (it is part of the bytecode's metadata hash). */
export const DEFAULT_FILE = 'contract.sol';

export interface CompiledContract {
  name: string;
  file: string;
  abi: AbiEntry[];
  /** init code, hex without 0x; empty for interfaces and abstract contracts */
  bin: string;
  /** deployed code, hex without 0x */
  binRuntime: string;
  /** Keccak-256 of binRuntime: the code hash of a deployed instance unless it has immutables */
  codeHash: string;
  xabi: Xabi;
  /** solc's storage layout: slots of the state variables */
  storageLayout: SolcStorageLayout;
  /** byte ranges of binRuntime that the constructor fills (immutables) */
  immutables: Array<[number, number]>;
  /** libraries whose address the init code still needs (placeholders in bin) */
  unlinked: string[];
}

/** One solc run's result, cached. */
export interface CompiledUnit {
  /** Keccak-256 of the standard-JSON input */
  key: string;
  sources: Record<string, string>;
  contracts: CompiledContract[];
  warnings: SolcMessage[];
  /** enum members by name (`E` and `C.E`), for enum arguments given by name */
  enums: Record<string, string[]>;
}

/** An EVM's compiled units by Keccak-256 of the standard-JSON input, and the sources that do not compile (the same errors again without another run). */
export interface CompileCache {
  units: Lru<string, CompiledUnit>;
  failures: Lru<string, SolidityCompileError>;
}

export function createCompileCache(limit = 64): CompileCache {
  return { units: new Lru(limit), failures: new Lru(limit) };
}

type Solc = { compile(input: string): string; version(): string };
let solc: Solc | undefined;

function loadSolc(): Solc {
  solc ??= createRequire(import.meta.url)('solc') as Solc;
  return solc;
}

export function normaliseSources(src: string | Record<string, string>): Record<string, string> {
  if (typeof src === 'string') return { [DEFAULT_FILE]: src };
  // sorted, so the same files given in another order hit the same cache entry and bytecode
  return Object.fromEntries(Object.keys(src).sort().map((k) => [k, src[k]]));
}

function standardInput(sources: Record<string, string>): string {
  return JSON.stringify({
    language: 'Solidity',
    sources: Object.fromEntries(Object.entries(sources).map(([k, v]) => [k, { content: v }])),
    settings: {
      evmVersion: EVM_VERSION,
      optimizer: OPTIMIZER,
      outputSelection: {
        '*': {
          '*': ['abi', 'evm.bytecode.object', 'evm.bytecode.linkReferences', 'evm.deployedBytecode.object', 'evm.deployedBytecode.immutableReferences', 'storageLayout'],
          '': ['ast'],
        },
      },
    },
  });
}

function messageOf(e: any): SolcMessage {
  const m: SolcMessage = { severity: e.severity, type: e.type, message: e.message, formatted: e.formattedMessage ?? e.message };
  if (e.sourceLocation?.file) m.file = e.sourceLocation.file;
  return m;
}

/** The standard-JSON input of some sources, and its cache key. */
function inputOf(src: string | Record<string, string>): { sources: Record<string, string>; input: string; key: string } {
  const sources = normaliseSources(src);
  if (Object.keys(sources).length === 0) throw new SolidityCompileError([{ severity: 'error', type: 'InputError', message: 'no source given', formatted: 'no source given' }]);
  const input = standardInput(sources);
  return { sources, input, key: keccak256Hex(input) };
}

/** What the caches know of an input: its unit, or its compile error (both deterministic), or nothing. */
function cached(cache: CompileCache, key: string): CompiledUnit | undefined {
  const hit = cache.units.get(key);
  if (hit) return hit;
  const failed = cache.failures.get(key);
  if (failed) throw failed;
  return undefined;
}

/** The unit of solc's output, cached; a SolidityCompileError, cached too, when the source does not compile. */
function unitOf(cache: CompileCache, key: string, sources: Record<string, string>, output: string): CompiledUnit {
  const out = JSON.parse(output);
  const messages: SolcMessage[] = (out.errors ?? []).map(messageOf);
  const errors = messages.filter((m) => m.severity === 'error');
  if (errors.length) {
    const err = new SolidityCompileError(errors);
    cache.failures.set(key, err);
    throw err;
  }
  const asts: AstNode[] = Object.values<any>(out.sources ?? {}).map((s) => s.ast);
  const idx = indexAst(asts);
  const unit: CompiledUnit = { key, sources, contracts: unitContracts(out, asts, idx), warnings: messages.filter((m) => m.severity !== 'error'), enums: Object.fromEntries(idx.enums) };
  cache.units.set(key, unit);
  return unit;
}

/** Compiles (or finds in the cache) every contract of the sources, on this thread. Throws SolidityCompileError. */
export function compileUnit(cache: CompileCache, src: string | Record<string, string>): CompiledUnit {
  const { sources, input, key } = inputOf(src);
  return cached(cache, key) ?? unitOf(cache, key, sources, loadSolc().compile(input));
}

/**
 * The same as `compileUnit`, with solc on a worker thread, so that a new
 * source does not hold this thread for the 0.3–2 s of a run; the unit lands in
 * the same cache, so a later `compileUnit` of these sources costs nothing.
 * Callers that must not block (the compile endpoint, a block about to be
 * executed) compile this way first.
 */
export async function compileUnitOffThread(cache: CompileCache, src: string | Record<string, string>): Promise<CompiledUnit> {
  const { sources, input, key } = inputOf(src);
  return cached(cache, key) ?? unitOf(cache, key, sources, await compileOffThread(input));
}

function unitContracts(out: any, asts: AstNode[], idx: AstIndex): CompiledContract[] {
  const defs = new Map<string, AstNode>();
  for (const ast of asts) for (const n of ast.nodes ?? []) if (n.nodeType === 'ContractDefinition') defs.set(`${ast.absolutePath}:${n.name}`, n);
  const contracts: CompiledContract[] = [];
  for (const [file, cs] of Object.entries<any>(out.contracts ?? {})) {
    for (const [name, c] of Object.entries<any>(cs)) {
      const binRuntime: string = c.evm?.deployedBytecode?.object ?? '';
      const immutables = Object.values<Array<{ start: number; length: number }>>(c.evm?.deployedBytecode?.immutableReferences ?? {})
        .flat()
        .map((r): [number, number] => [r.start, r.length])
        .sort((a, b) => a[0] - b[0]);
      const unlinked = Object.values<Record<string, unknown>>(c.evm?.bytecode?.linkReferences ?? {}).flatMap((libs) => Object.keys(libs));
      const def = defs.get(`${file}:${name}`);
      contracts.push({
        name,
        file,
        abi: c.abi,
        bin: c.evm?.bytecode?.object ?? '',
        binRuntime,
        // placeholders of unlinked libraries are not hex: such code has no hash yet
        codeHash: /^[0-9a-f]*$/i.test(binRuntime) ? keccak256Hex(hexToBytes(binRuntime)) : '',
        xabi: def ? xabiOf(def, c.abi, idx) : emptyXabi(),
        storageLayout: c.storageLayout ?? { storage: [], types: null },
        immutables,
        unlinked,
      });
    }
  }
  return contracts;
}

export function emptyXabi(): Xabi {
  return { funcs: {}, constr: null, vars: {}, types: {}, modifiers: {}, events: {}, kind: 'ContractKind', using: {} };
}

/**
 * A contract of a unit by name, or by `file:Name` when two files define the
 * same name. Throws SolidityCompileError naming what is there when absent.
 */
export function findContract(unit: CompiledUnit, name: string): CompiledContract {
  const colon = name.lastIndexOf(':');
  const matches = colon > 0 ? unit.contracts.filter((c) => c.file === name.slice(0, colon) && c.name === name.slice(colon + 1)) : unit.contracts.filter((c) => c.name === name);
  if (matches.length === 1) return matches[0];
  const msg =
    matches.length === 0
      ? `no contract named ${name} in the source (it defines ${unit.contracts.map((c) => c.name).join(', ') || 'none'})`
      : `${name} is defined in several files (${matches.map((c) => c.file).join(', ')}): name it as file:${name}`;
  throw new SolidityCompileError([{ severity: 'error', type: 'InputError', message: msg, formatted: msg }]);
}

export interface Compilation {
  /** by contract name (`file:Name` for a name that several files define) */
  contracts: Record<string, CompiledContract>;
  /** solc's warnings, formatted */
  warnings: string[];
}

/**
 * Compiles Solidity source (one string, or files by name) with solc 0.8.37,
 * evmVersion cancun, optimizer on; cached by Keccak-256 of the input. With
 * `contractName`, only that contract is returned (a SolidityCompileError if
 * the source has none by that name). Throws SolidityCompileError (code
 * COMPILE_ERROR) with solc's messages when the source does not compile.
 */
export function compileSolidity(cache: CompileCache, sources: string | Record<string, string>, contractName?: string): Compilation {
  const unit = compileUnit(cache, sources);
  const warnings = unit.warnings.map((w) => w.formatted.trim());
  if (contractName !== undefined) {
    const c = findContract(unit, contractName);
    return { contracts: { [contractName]: c }, warnings };
  }
  const contracts: Record<string, CompiledContract> = {};
  for (const c of unit.contracts) contracts[unit.contracts.filter((o) => o.name === c.name).length > 1 ? `${c.file}:${c.name}` : c.name] = c;
  return { contracts, warnings };
}

/** Hits and misses of the compile cache, for the benchmark and metrics. */
export function compileCacheStats(cache: CompileCache): { hits: number; misses: number; size: number; limit: number } {
  return { hits: cache.units.hits, misses: cache.units.misses, size: cache.units.size, limit: cache.units.limit };
}

export function clearCompileCache(cache: CompileCache): void {
  cache.units.clear();
  cache.failures.clear();
}
