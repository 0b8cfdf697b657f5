// EVM instances, reused: building one (opcode tables, precompiles) costs far
// more than a token transfer, so each chain keeps a few idle ones. An
// instance serves one transaction at a time (it holds the journal and the
// block of the running call), hence the pool rather than a single instance.
//
// Each instance has its own Common, whose Keccak is the node's WebAssembly one
// — or, for a transaction whose storage is to be decoded, the same one
// recording what it hashes (slots.ts needs the preimages of hashed slots).
// The EVM looks the function up on every KECCAK256, so switching it per
// transaction costs nothing, and a transaction that is not decoded runs the
// plain function.
//
// @ethereumjs/evm and @ethereumjs/common are loaded with the first engine: a
// node whose chains run SolidVM alone never loads them (measured: some
// 14 MiB of memory and 0.2–0.3 s of a start's CPU).
import type { Common } from '@ethereumjs/common';
import type { EVM } from '@ethereumjs/evm';
import { ExecFailure } from './errors.js';
import { WorldStateAdapter, type CodeCache } from './state-adapter.js';
import { keccak256 } from '@platform/crypto';

/** What a transaction hashed: inputs and their hashes, in order. */
export interface HashLog {
  inputs: Uint8Array[];
  outputs: Uint8Array[];
}

export interface Engine {
  evm: EVM;
  /** the running transaction's maxMemoryBytes, in 32-byte words, and the failure it gives */
  memory: { words: bigint; message: string };
  adapter: WorldStateAdapter;
  chainId: string;
  common: Common;
  /** set while a transaction's hashes are recorded */
  hashes: HashLog | null;
}

/** An EVM's idle engines by chain, at most `perChain` each, and the code cache their state adapters share. */
export interface EnginePool {
  idle: Map<string, Engine[]>;
  perChain: number;
  code: CodeCache;
}

export function createEnginePool(code: CodeCache, perChain = 4): EnginePool {
  return { idle: new Map(), perChain, code };
}
/**
 * The inputs worth keeping: a mapping key and slot (32 + 32 bytes, or a
 * string key and a slot), or a slot (32 bytes) whose array or string data
 * follows its hash. Longer inputs (code, signatures' messages) are not slots.
 */
const MIN_PREIMAGE = 32;
const MAX_PREIMAGE = 32 + 1024;
/**
 * A transaction's gas allows some 800,000 hashes; kept, they would hold
 * hundreds of megabytes. Real contracts hash a few per storage access, so
 * the rest of a transaction hashing past this is not recorded (slots that
 * only those hashes explain stay raw).
 */
const MAX_RECORDED = 65_536;

/**
 * The hardfork and chain of a chain's EVM. CHAINID reads as SolidVM's
 * block.chainid: 0 on the main chain, the 256-bit chain ID of a private chain.
 */
function commonFor(lib: typeof import('@ethereumjs/common'), chainId: string): Common {
  // Common deep-copies its config through JSON, which has no bigint: a 256-bit
  // chain ID goes in as hex text (Common reads it back with BigInt())
  const id = chainId === '' ? 0 : '0x' + chainId;
  // KECCAK256 and address derivation with the node's WebAssembly Keccak rather than the library's JavaScript one
  return lib.createCustomCommon({ chainId: id as unknown as number }, lib.Mainnet, { hardfork: lib.Hardfork.Cancun, customCrypto: { keccak256 } });
}

let libraries: Promise<[typeof import('@ethereumjs/evm'), typeof import('@ethereumjs/common')]> | null = null;
const ethereumjs = () => (libraries ??= Promise.all([import('@ethereumjs/evm'), import('@ethereumjs/common')]));

/** An engine for one transaction; `record`: keep the preimages it hashes (in `hashes`). */
export async function acquire(pool: EnginePool, chainId: string, record = false): Promise<Engine> {
  let e = pool.idle.get(chainId)?.pop();
  if (!e) {
    const [evmLib, commonLib] = await ethereumjs();
    const adapter = new WorldStateAdapter(pool.code);
    const common = commonFor(commonLib, chainId);
    e = { evm: await evmLib.createEVM({ common, stateManager: adapter }), adapter, chainId, common, hashes: null, memory: { words: 0n, message: '' } };
    // once per instance: its opcode table is built with it (the hardfork is pinned, so never again)
    limitMemory(e);
  }
  if (record) {
    const log: HashLog = { inputs: [], outputs: [] };
    e.hashes = log;
    e.common.customCrypto.keccak256 = (data: Uint8Array): Uint8Array => {
      const h = keccak256(data);
      // the EVM hands KECCAK256 a copy of memory, so the input can be kept as it is
      if (data.length >= MIN_PREIMAGE && data.length <= MAX_PREIMAGE && log.inputs.length < MAX_RECORDED) {
        log.inputs.push(data);
        log.outputs.push(h);
      }
      return h;
    };
  }
  return e;
}

export function release(pool: EnginePool, e: Engine): void {
  e.adapter.end();
  if (e.hashes) {
    e.hashes = null;
    e.common.customCrypto.keccak256 = keccak256;
  }
  let list = pool.idle.get(e.chainId);
  if (!list) pool.idle.set(e.chainId, (list = []));
  if (list.length < pool.perChain) list.push(e);
}

interface RunStateMemory {
  memoryWordCount: bigint;
}
type GasHandler = (runState: RunStateMemory, gas: bigint, common: Common) => bigint | Promise<bigint>;
const LIMITED = Symbol('memory limited');

/**
 * The chain's maxMemoryBytes, for every call frame: the EVM grows a frame's
 * memory only in the dynamic gas function of the opcode that touches it
 * (MSTORE, CALLDATACOPY, RETURN, CALL, LOG, …), which sets the frame's word
 * count before the opcode allocates anything. Each such function is wrapped
 * to fail the transaction once the count passes the limit — thrown as an
 * ExecFailure, not an EVM error, so no frame can catch it (as in SolidVM).
 * Without it only gas bounds memory, and a transaction with a large gas limit
 * makes the engine allocate until the process runs out.
 */
function limitMemory(e: Engine): void {
  const map = (e.evm as unknown as { _opcodeMap: Array<{ gasHandler?: GasHandler } & { [LIMITED]?: true }> })._opcodeMap;
  for (const entry of map) {
    const original = entry?.gasHandler;
    if (!original || entry[LIMITED]) continue;
    entry[LIMITED] = true;
    const memory = e.memory;
    entry.gasHandler = async (runState, gas, common) => {
      const charged = await original(runState, gas, common);
      if (runState.memoryWordCount > memory.words) throw new ExecFailure('LIMIT', memory.message);
      return charged;
    };
  }
}
