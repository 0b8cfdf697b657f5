// The public entry points: createContract and callContract, the EVM's
// counterparts of SolidVM's, returning the same ExecOutcome shape. Nothing
// here throws for a failing transaction: a failure is an outcome with ok=false,
// a stable code, a message, and the world state as it was (the whole run sits
// inside one checkpoint of the WorldState's journal).
import type { EVM } from '@ethereumjs/evm';
import { createZeroAddress, type Address as EthAddress, createAddressFromString } from '@ethereumjs/util';
import { limitMessage, limitsOf, type ExecutionContext, type ExecutionLimits, type WorldState } from '@platform/common';
import type { VmOutcome } from '@platform/vm';
import { bytesToHex, contractAddress, strip0x } from '@platform/crypto';
import { haltReason, returnValues, revertReason, type RawLog } from './decode.js';
import { acquire, release } from './engine.js';
import type { EvmCaches } from './caches.js';
import { ExecFailure, badArguments, type FailureCode } from './errors.js';
import { UNMETERED_GAS_LIMIT, intrinsicGas, totalGasUsed } from './gas.js';
import { loadMeta, type ContractInfo, type FnInfo } from './meta.js';
import { TxPreimages } from './indexing.js';
import { createdContracts, eventsOf, recordCreated, stateChanges } from './outcome.js';
import { prepareCall, prepareCreate, type CallRequest, type CreateRequest, type PreparedCreate } from './prepare.js';

/**
 * @platform/vm's outcome: `returnValues` empty when the ABI is unknown (see
 * `response`), `response` the returned bytes as hex (ABI-encoded; on failure
 * the revert data, empty for a creation), `events` the logs decoded by the
 * emitting contract's ABI, arguments as strings — plus every log as emitted.
 */
export interface ExecOutcome extends VmOutcome {
  /** every log as emitted, decodable or not */
  logs: RawLog[];
  /** always 0: the EVM meters gas, not interpreter steps (kept for SolidVM's shape) */
  steps: number;
}

export type { CallRequest, CreateRequest } from './prepare.js';

export interface ExecOptions {
  /**
   * Decode every changed storage path (mapping entries, array elements,
   * struct members) and the values of structs and changed arrays into the
   * state changes, as SolidVM reports them: what an indexer of EVM contracts
   * needs. Off, a state change names simple variables only, and the run
   * records nothing for it.
   */
  decodeStorage?: boolean;
}

function failure(code: FailureCode, message: string, more: { gasUsed?: bigint; address?: string; response?: string } = {}): ExecOutcome {
  const out: ExecOutcome = {
    ok: false,
    code,
    message,
    returnValues: [],
    response: more.response ?? '',
    events: [],
    logs: [],
    stateChanges: [],
    contractsCreated: [],
    contractsDeleted: [],
    gasUsed: more.gasUsed ?? 0n,
    steps: 0,
  };
  if (more.address !== undefined) out.address = more.address;
  return out;
}

function address40(a: string, what: string): string {
  const h = strip0x(String(a).trim()).toLowerCase();
  if (!/^[0-9a-f]{40}$/.test(h)) badArguments(`${what} must be 40 hex digits, got ${JSON.stringify(a)}`);
  return h;
}

const eth = (a: string): EthAddress => createAddressFromString('0x' + a);

interface Job {
  caller: string;
  /** the called contract; absent for a creation */
  to?: string;
  data: Uint8Array;
  value: bigint;
  /** creation: the creator's nonce that the address derives from */
  nonce?: bigint;
  /** creation: the new address; call: the target */
  address: string;
  compiled?: PreparedCreate['compiled'];
  /** the target's metadata (a call) or the created contract's (a creation) */
  info?: ContractInfo;
  fn?: FnInfo;
  /** the contract the user addressed: the appName of contracts it creates */
  appName: string | null;
}

/** The block as the EVM sees it: SolidVM's view (coinbase zero, no difficulty or base fee). */
function blockOf(ctx: ExecutionContext, gasLimit: bigint) {
  return {
    header: {
      number: BigInt(ctx.block.number),
      coinbase: createZeroAddress(),
      timestamp: BigInt(ctx.block.timestamp),
      difficulty: 0n,
      prevRandao: new Uint8Array(32),
      gasLimit,
      baseFeePerGas: 0n,
      getBlobGasPrice: () => 0n,
    },
  };
}

/** What runTx would warm before execution (EIP-2929, EIP-3651), so gas matches Ethereum's. */
function warm(evm: EVM, job: Job): void {
  evm.journal.addAlwaysWarmAddress(job.caller);
  if (job.to) evm.journal.addAlwaysWarmAddress(job.to);
  evm.journal.addAlwaysWarmAddress('00'.repeat(20));
  for (const p of evm.precompiles.keys()) evm.journal.addAlwaysWarmAddress(p);
}

/** EIP-6780: a selfdestruct removes only a contract created in the same transaction. */
function destroy(state: WorldState, selfdestruct: Map<string, string> | undefined, created: Set<string> | undefined): string[] {
  const gone: string[] = [];
  for (const hex of selfdestruct?.keys() ?? []) {
    if (!created?.has(hex)) continue;
    const a = strip0x(hex).toLowerCase();
    for (const k of [...state.storageEntries(a)].map(([key]) => key)) state.putStorage(a, k, undefined);
    state.deleteAccount(a);
    gone.push(a);
  }
  return gone;
}

async function execute(caches: EvmCaches, state: WorldState, ctx: ExecutionContext, job: Job, options: ExecOptions): Promise<ExecOutcome> {
  const creation = job.to === undefined;
  const intrinsic = intrinsicGas(job.data, creation);
  const limit = ctx.gasEnabled ? ctx.tx.gasLimit : UNMETERED_GAS_LIMIT;
  const where = creation ? job.address : undefined;
  if (intrinsic > limit) return failure('OUT_OF_GAS', `out of gas: the gas limit ${limit} is below the transaction's intrinsic cost ${intrinsic}`, { gasUsed: limit, address: where });
  const engine = await acquire(caches.engines, ctx.chainId, options.decodeStorage === true);
  const { evm, adapter } = engine;
  const limits = limitsOf(ctx.protocol);
  adapter.begin(state);
  adapter.limitState(limits.maxStateBytes, limitMessage('maxStateBytes', limits));
  engine.memory.words = BigInt(Math.floor(limits.maxMemoryBytes / 32));
  engine.memory.message = limitMessage('maxMemoryBytes', limits);
  state.checkpoint();
  let open = true;
  try {
    const creatorBefore = creation ? state.getAccount(job.caller) : undefined;
    // the EVM derives a creation's address from the creator's nonce and bumps it;
    // the sender's nonce is the block service's, so it is set for the run and restored
    if (creation) state.putAccount(job.caller, { ...(creatorBefore ?? { balance: 0n, codeHash: null }), nonce: job.nonce! });
    warm(evm, job);
    const res = await evm.runCall({
      caller: eth(job.caller),
      origin: eth(ctx.tx.origin ? address40(ctx.tx.origin, 'the origin') : job.caller),
      to: job.to === undefined ? undefined : eth(job.to),
      data: job.data,
      value: job.value,
      gasLimit: limit - intrinsic,
      gasPrice: ctx.tx.gasPrice,
      block: blockOf(ctx, limit),
      skipNonceIncrement: !creation,
    });
    const r = res.execResult;
    const gasUsed = totalGasUsed(intrinsic, r.executionGasUsed, r.exceptionError ? 0n : (r.gasRefund ?? 0n));
    if (r.exceptionError) {
      state.revert();
      open = false;
      const error = r.exceptionError.error;
      const why = error === 'revert' ? revertReason(r.returnValue, [job.info]) : haltReason(error);
      if (error === 'create collision') why.message = `a contract already exists at ${job.address}`;
      if (why.message === 'reverted without a reason' && job.value > 0n) {
        const payable = (creation ? job.info?.ctor : job.fn?.entry)?.stateMutability;
        if (payable !== undefined && payable !== 'payable') why.message = `${creation ? 'the constructor' : `function ${job.fn!.entry.name}`} is not payable`;
      }
      return failure(why.code, why.message, { gasUsed, address: where, response: bytesToHex(r.returnValue) });
    }
    if (creation) {
      const made = res.createdAddress ? bytesToHex(res.createdAddress.bytes) : '';
      if (made !== job.address) throw new Error(`the EVM created ${made}, expected ${job.address}`);
      const acct = state.getAccount(job.caller)!;
      if (!creatorBefore && acct.balance === 0n) state.deleteAccount(job.caller);
      else state.putAccount(job.caller, { ...acct, nonce: creatorBefore?.nonce ?? 0n });
    }
    checkOutputLimits(limits, r.logs ?? [], r.returnValue);
    const deleted = destroy(state, r.selfdestruct, r.createdAddresses);
    // EIP-161: accounts the run touched and left empty do not remain
    await evm.journal.cleanup();
    const top = { address: job.address, name: job.appName ?? undefined, unit: job.compiled?.unit, contract: job.compiled?.contract };
    const created = recordCreated(caches, state, adapter, top, job.info);
    const { events, raw } = eventsOf(caches.meta, state, ctx, r.logs ?? []);
    const out: ExecOutcome = {
      ok: true,
      message: 'Success!',
      returnValues: !creation && job.fn ? (returnValues(job.fn.outputs, r.returnValue) ?? []) : [],
      response: creation ? '' : bytesToHex(r.returnValue),
      events,
      logs: raw,
      stateChanges: stateChanges(caches.meta, state, ctx, adapter, created, deleted, engine.hashes ? new TxPreimages(engine.hashes, caches.indexing) : undefined),
      contractsCreated: createdContracts(created, ctx, creation ? job.address : '', job.appName),
      contractsDeleted: deleted,
      gasUsed,
      steps: 0,
    };
    if (creation) out.address = job.address;
    state.commit();
    open = false;
    return out;
  } catch (e) {
    if (open) {
      adapter.unwind();
      state.revert();
    }
    if (e instanceof ExecFailure) return failure(e.code, e.message, { address: where });
    throw e;
  } finally {
    // warm sets and transient storage belong to one transaction
    evm.journal.cleanJournal();
    evm.transientStorage.clear();
    release(caches.engines, engine);
  }
}

/** The limits checked on what a successful run produced: its logs and its return data (the throw reverts the run). */
function checkOutputLimits(limits: ExecutionLimits, logs: Array<[Uint8Array, Uint8Array[], Uint8Array]>, returned: Uint8Array): void {
  if (logs.length > limits.maxEvents) throw new ExecFailure('LIMIT', limitMessage('maxEvents', limits));
  let bytes = 0;
  for (const [, topics, data] of logs) bytes += 32 * topics.length + data.length;
  if (bytes > limits.maxEventBytes) throw new ExecFailure('LIMIT', limitMessage('maxEventBytes', limits));
  if (returned.length > limits.maxReturnBytes) throw new ExecFailure('LIMIT', limitMessage('maxReturnBytes', limits));
}

function valueOf(ctx: ExecutionContext, v: bigint | undefined): bigint {
  // the spec: value is ignored when gas is disabled
  return ctx.gasEnabled ? (v ?? ctx.tx.value) : 0n;
}

/**
 * Creates a contract: from source (compiled with solc, cached; its ABI kept
 * with the contract) or from bytecode. The address is the last 20 bytes of
 * Keccak-256 of RLP [creator, nonce]. The creator's own nonce is left as it
 * was: bumping it is the block service's.
 */
export async function createContract(caches: EvmCaches, state: WorldState, ctx: ExecutionContext, req: CreateRequest, options: ExecOptions = {}): Promise<ExecOutcome> {
  let creator: string;
  try {
    creator = address40(req.creator, 'the creator');
  } catch (e) {
    if (e instanceof ExecFailure) return failure(e.code, e.message);
    throw e;
  }
  const nonce = req.nonce ?? state.getAccount(creator)?.nonce ?? 0n;
  const address = contractAddress(creator, nonce);
  let prep: PreparedCreate;
  try {
    prep = prepareCreate(caches, req);
  } catch (e) {
    if (e instanceof ExecFailure) return failure(e.code, e.message, { address });
    throw e;
  }
  return execute(caches, state, ctx, {
    caller: creator,
    data: prep.initCode,
    value: valueOf(ctx, req.value),
    nonce,
    address,
    compiled: prep.compiled,
    info: prep.compiled?.info,
    appName: prep.name || null,
  }, options);
}

/** Calls a contract: a method by name with JSON arguments (ABI-encoded here), or raw calldata. */
export async function callContract(caches: EvmCaches, state: WorldState, ctx: ExecutionContext, req: CallRequest, options: ExecOptions = {}): Promise<ExecOutcome> {
  let job: Job;
  try {
    const address = address40(req.address, 'the contract address');
    const caller = address40(req.caller, 'the caller');
    const acct = state.getAccount(address);
    if (!acct?.codeHash) return failure('NO_CONTRACT', `no contract at address ${address}`);
    if (acct.vm === 'SolidVM') return failure('NO_CONTRACT', `${address} is a SolidVM contract${acct.contractName ? ` (${acct.contractName})` : ''}: call it with the VM SolidVM`);
    const info = loadMeta(caches.meta, state, address);
    const prep = prepareCall(info, req, address);
    job = { caller, to: address, data: prep.data, value: valueOf(ctx, req.value), address, info, fn: prep.fn, appName: info?.name ?? acct.contractName ?? null };
  } catch (e) {
    if (e instanceof ExecFailure) return failure(e.code, e.message);
    throw e;
  }
  return execute(caches, state, ctx, job, options);
}
