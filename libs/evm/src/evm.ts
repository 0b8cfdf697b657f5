// createEvm(options): an EVM owning its caches (caches.ts), @platform/vm's
// executor over the node's WorldState. What a transaction carries:
// - creation: initOrData is either Solidity source as UTF-8 (compiled by the
//   VM, cached, its ABI kept with the contract; metadata.name picks the
//   contract, metadata.args the constructor arguments) or init bytecode,
//   optionally followed by ABI-encoded constructor arguments (a raw
//   transaction); metadata.src, when present, is the source of that bytecode,
//   so the ABI is kept too;
// - call: metadata.funcName with metadata.args (JSON, ABI-encoded by the VM),
//   or else initOrData as calldata (selector + ABI-encoded arguments).
import type { ExecutionContext, Transaction, WorldState } from '@platform/common';
import { hexToBytes } from '@platform/crypto';
import type { VmExecutor } from '@platform/vm';
import { clearEvmCaches, createEvmCaches, type EvmCacheLimits, type EvmCaches } from './caches.js';
import { callContract, createContract, type ExecOptions, type ExecOutcome } from './exec.js';
import { loadMeta, type ContractInfo } from './meta.js';
import { readContractState } from './outcome.js';
import type { CallRequest, CreateRequest } from './prepare.js';
import { compileCacheStats, compileSolidity, compileUnitOffThread, type Compilation, type CompiledUnit } from './solc.js';

export interface EvmOptions extends ExecOptions {
  /** the caches to use (shared by EVMs given the same); default: new ones with `limits` */
  caches?: EvmCaches;
  /** how much new caches keep */
  limits?: EvmCacheLimits;
}

/** An EVM: @platform/vm's executor, and the request-level API and compiler around the caches it keeps. */
export interface Evm extends VmExecutor {
  readonly kind: 'EVM';
  readonly caches: EvmCaches;
  /** Creates a contract from source (compiled with solc, cached) or bytecode; the creator's own nonce is left as it was. */
  createContract(state: WorldState, ctx: ExecutionContext, req: CreateRequest): Promise<ExecOutcome>;
  /** Calls a contract: a method by name with JSON arguments (ABI-encoded here), or raw calldata. */
  callContract(state: WorldState, ctx: ExecutionContext, req: CallRequest): Promise<ExecOutcome>;
  create(state: WorldState, ctx: ExecutionContext, tx: Transaction): Promise<ExecOutcome>;
  call(state: WorldState, ctx: ExecutionContext, tx: Transaction): Promise<ExecOutcome>;
  /** Before a block: new sources compile on solc's worker thread, so that executing them finds them compiled. */
  prepare(tx: Transaction): Promise<void>;
  /** solc 0.8.37 on this thread, cached; throws SolidityCompileError */
  compileSolidity(sources: string | Record<string, string>, contractName?: string): Compilation;
  /** solc on its worker thread, into the same cache; rejects with SolidityCompileError */
  compileUnitOffThread(sources: string | Record<string, string>): Promise<CompiledUnit>;
  /** the metadata of the contract at an address; undefined when created from bare bytecode */
  contractMeta(state: WorldState, address: string): ContractInfo | undefined;
  /** the simple state variables of the contract at an address; undefined when its layout is unknown */
  readContractState(state: WorldState, address: string): Record<string, unknown> | undefined;
  compileCacheStats(): { hits: number; misses: number; size: number; limit: number };
  /** empties the caches: the state of a freshly started node */
  clearCaches(): void;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Solidity source, or null for bytecode. Init code starts with bytes that are
 * not valid UTF-8 text (0x60 0x80 …), and source names a contract.
 */
function sourceText(initOrData: string): string | null {
  let text: string;
  try {
    text = utf8.decode(hexToBytes(initOrData));
  } catch {
    return null;
  }
  return /\b(contract|library|interface)\s+\w+/.test(text) ? text : null;
}

/** What a CONTRACT transaction asks the EVM. */
export function evmCreationOf(tx: Transaction): CreateRequest {
  const src = sourceText(tx.initOrData);
  const req: CreateRequest = { creator: tx.from, nonce: BigInt(tx.nonce) };
  if (src !== null) req.src = src;
  else {
    req.bytecode = tx.initOrData;
    if (tx.metadata.src) req.src = tx.metadata.src;
  }
  if (tx.metadata.name) req.contractName = tx.metadata.name;
  if (tx.metadata.args !== undefined && tx.metadata.args !== '') req.args = tx.metadata.args;
  return req;
}

/** What a FUNCTION transaction asks the EVM. */
export function evmCallOf(tx: Transaction): CallRequest {
  const req: CallRequest = { caller: tx.from, address: tx.to! };
  if (tx.metadata.funcName) {
    req.method = tx.metadata.funcName;
    if (tx.metadata.args !== undefined && tx.metadata.args !== '') req.args = tx.metadata.args;
  } else {
    req.data = tx.initOrData;
  }
  return req;
}

/**
 * An EVM with its own caches (or those given) and limits. `decodeStorage`:
 * its state changes decode every changed storage path for indexing (INDEX_EVM).
 */
export function createEvm(options: EvmOptions = {}): Evm {
  const caches = options.caches ?? createEvmCaches(options.limits);
  const exec: ExecOptions = { decodeStorage: options.decodeStorage === true };
  const evm: Evm = {
    kind: 'EVM',
    caches,
    createContract: (state, ctx, req) => createContract(caches, state, ctx, req, exec),
    callContract: (state, ctx, req) => callContract(caches, state, ctx, req, exec),
    create: (state, ctx, tx) => evm.createContract(state, ctx, evmCreationOf(tx)),
    call: (state, ctx, tx) => evm.callContract(state, ctx, evmCallOf(tx)),
    async prepare(tx) {
      const src = sourceText(tx.initOrData) ?? tx.metadata.src;
      // a source that does not compile is remembered too: execution reports it without another run
      if (src) await compileUnitOffThread(caches.compile, src).catch(() => undefined);
    },
    compileSolidity: (sources, contractName) => compileSolidity(caches.compile, sources, contractName),
    compileUnitOffThread: (sources) => compileUnitOffThread(caches.compile, sources),
    contractMeta: (state, address) => loadMeta(caches.meta, state, address),
    readContractState: (state, address) => readContractState(caches.meta, state, address),
    compileCacheStats: () => compileCacheStats(caches.compile),
    clearCaches: () => clearEvmCaches(caches),
  };
  return evm;
}
