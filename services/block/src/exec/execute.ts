// Executing a block's transactions in order against an overlay, one Receipt
// each. Deterministic from the block alone (plus the state before it), so a
// node that re-executes a block reaches the proposer's state root.
//
// Around the VM, per transaction: the nonce rule, the sender's nonce bump (a
// failed transaction still consumes its nonce), with gas enabled the upfront
// balance check and the fee gasUsed × gasPrice (also when the VM failed, out
// of gas included), and plain transfers.
import { transactionKind, type AccountState, type Address, type EventLog, type ExecutionContext, type ProtocolParams, type Receipt, type SenderIdentity, type Transaction, type VmKind, type WorldState } from '@platform/common';
import { CERTIFICATE_CONTRACT, REGISTRY_ADDRESS, identityOf } from '@platform/identity';
import { gasTable } from '@platform/vm';
import { ZERO_ADDRESS } from '../block.js';
import { failedOutcome, type VmExecutors, type VmOutcome } from './vm.js';

type Identity = ExecutionContext['identity'];

export interface BlockEnv {
  chainId: string;
  number: number;
  /** seconds */
  timestamp: number;
  protocol: ProtocolParams;
  gasEnabled: boolean;
  /** '' for a child of the main chain; null or absent on the main chain */
  parentChain?: string | null;
  executors: VmExecutors;
  /** executed on this chain in an earlier block (the dedupe record) */
  isExecuted(hash: string): boolean;
  /**
   * A private chain's senders' identities, from the block's `identities`
   * (it has no registry of its own); absent on the main chain, which reads
   * its registry. A sender missing from the map has none.
   */
  senderIdentities?: ReadonlyMap<string, SenderIdentity>;
}

export interface BlockExecution {
  receipts: Receipt[];
  /** hashes executed by this block, in order (duplicates left out) */
  executed: string[];
}

const EMPTY_ACCOUNT: AccountState = { nonce: 0n, balance: 0n, codeHash: null };

function account(state: WorldState, address: Address): AccountState {
  return state.getAccount(address) ?? EMPTY_ACCOUNT;
}

function vmOfMetadata(tx: Transaction): VmKind {
  return tx.metadata.VM === 'SolidVM' ? 'SolidVM' : 'EVM';
}

/**
 * Senders' identities within one block: the block's time is fixed, and only
 * a transaction that writes the registry or one of its Certificate contracts
 * (a revocation writes only the latter) changes what it says, so an answer
 * holds until such a transaction.
 */
export class BlockIdentities {
  private readonly known = new Map<string, Identity>();

  of(state: WorldState, address: string, at: number): Identity {
    let identity = this.known.get(address);
    if (identity === undefined) this.known.set(address, (identity = identityOf(state, address, at)));
    return identity;
  }

  executed(receipt: Receipt): void {
    if (receipt.stateChanges.some((c) => c.address === REGISTRY_ADDRESS || c.contractName === CERTIFICATE_CONTRACT)) this.known.clear();
  }
}

function contextOf(state: WorldState, env: BlockEnv, tx: Transaction, n: { gasPrice: bigint; gasLimit: bigint; value: bigint }, identities: BlockIdentities): ExecutionContext {
  return {
    chainId: env.chainId,
    block: { number: env.number, timestamp: env.timestamp, coinbase: ZERO_ADDRESS },
    tx: { hash: tx.hash, origin: tx.from, gasPrice: n.gasPrice, gasLimit: n.gasLimit, value: n.value },
    // The sender's registered certificate, read from the state being executed
    // (never from what admission recorded), so every node agrees. Calls into
    // the registry run without one: the Certificate contracts they create
    // belong to the network, not to the caller's organization (cirrus names
    // tables after the creator's organization).
    identity: env.senderIdentities ? (env.senderIdentities.get(tx.from) ?? null) : tx.to === REGISTRY_ADDRESS ? null : identities.of(state, tx.from, env.timestamp),
    protocol: env.protocol,
    gasEnabled: env.gasEnabled,
    parentChain: env.parentChain ?? null,
  };
}

function receiptOf(tx: Transaction, kind: VmKind, out: VmOutcome, gasPrice: bigint, gasEnabled: boolean, started: number): Receipt {
  return {
    transactionHash: tx.hash,
    from: tx.from,
    status: out.ok ? 'Success' : 'Failure',
    message: out.message,
    kind,
    response: out.response,
    returnValues: out.returnValues,
    contractsCreated: out.contractsCreated,
    contractsDeleted: out.contractsDeleted,
    gasUsed: out.gasUsed.toString(),
    etherUsed: (gasEnabled ? out.gasUsed * gasPrice : 0n).toString(),
    stateChanges: out.stateChanges,
    events: out.events,
    time: performance.now() - started,
    trace: '',
  };
}

function parseAmounts(tx: Transaction): { gasPrice: bigint; gasLimit: bigint; value: bigint } | string {
  try {
    const n = { gasPrice: BigInt(tx.gasPrice), gasLimit: BigInt(tx.gasLimit), value: BigInt(tx.value) };
    if (n.gasPrice < 0n || n.gasLimit < 0n || n.value < 0n) return 'gasPrice, gasLimit and value must not be negative';
    return n;
  } catch {
    return 'gasPrice, gasLimit and value must be decimal integers';
  }
}

/** Runs the VM (or the transfer) for a transaction whose nonce and funds are in order. */
function run(state: WorldState, ctx: ExecutionContext, tx: Transaction, vm: VmKind, env: BlockEnv): VmOutcome | Promise<VmOutcome> {
  const kind = transactionKind(tx);
  if (kind === 'transfer') {
    const cost = BigInt(gasTable(env.protocol.gasTableVersion).tx);
    // the spec: with gas disabled, a transfer's value is ignored
    if (!env.gasEnabled) return { ...failedOutcome('Success!', cost), ok: true };
    if (ctx.tx.gasLimit < cost) return failedOutcome(`out of gas: a transfer costs ${cost} gas, the gas limit is ${ctx.tx.gasLimit}`, ctx.tx.gasLimit);
    const value = ctx.tx.value;
    if (value > 0n) {
      const from = account(state, tx.from);
      state.putAccount(tx.from, { ...from, balance: from.balance - value });
      const to = account(state, tx.to!);
      state.putAccount(tx.to!, { ...to, balance: to.balance + value });
    }
    return { ...failedOutcome('Success!', cost), ok: true };
  }
  const executor = env.executors[vm];
  if (!executor) return failedOutcome(`${vm} is not available on this node`);
  if (kind === 'create') return executor.create(state, ctx, tx);
  return executor.call(state, ctx, tx);
}

export async function executeTransaction(state: WorldState, tx: Transaction, env: BlockEnv, identities = new BlockIdentities()): Promise<Receipt> {
  const started = performance.now();
  const kind = transactionKind(tx);
  const target = kind === 'call' ? state.getAccount(tx.to!) : undefined;
  const vm: VmKind = target?.vm ?? vmOfMetadata(tx);
  const amounts = parseAmounts(tx);
  if (typeof amounts === 'string') return receiptOf(tx, vm, failedOutcome(amounts), 0n, env.gasEnabled, started);

  const sender = account(state, tx.from);
  const expected = sender.nonce;
  const nonce = BigInt(tx.nonce);
  if (nonce < expected) {
    // already consumed: nothing changes, not even the nonce
    const out = failedOutcome(`nonce ${nonce} of account ${tx.from} was already used: its next nonce is ${expected}`);
    return receiptOf(tx, vm, out, amounts.gasPrice, env.gasEnabled, started);
  }
  // Ethereum's order: the nonce is consumed before execution, whatever the outcome
  state.putAccount(tx.from, { ...sender, nonce: nonce + 1n });
  if (nonce > expected) {
    const gap = nonce - 1n === expected ? `${expected}` : `${expected} to ${nonce - 1n}`;
    const out = failedOutcome(`nonce ${nonce} of account ${tx.from} is out of order: the transactions with nonce ${gap} did not arrive in time`);
    return receiptOf(tx, vm, out, amounts.gasPrice, env.gasEnabled, started);
  }
  if (kind === 'call' && (!target || !target.codeHash)) {
    // contracts are addressed by (address, chain): say which pair does not exist (the spec's "informative error message")
    const where = env.chainId === '' ? 'on the main chain' : `on chain ${env.chainId}`;
    return receiptOf(tx, vm, failedOutcome(`no contract at address ${tx.to} ${where}`), amounts.gasPrice, env.gasEnabled, started);
  }
  if (env.gasEnabled) {
    const upfront = amounts.gasLimit * amounts.gasPrice + amounts.value;
    if (sender.balance < upfront) {
      const out = failedOutcome(`insufficient balance: account ${tx.from} has ${sender.balance}, the transaction needs up to ${upfront} (gasLimit × gasPrice + value)`);
      return receiptOf(tx, vm, out, amounts.gasPrice, env.gasEnabled, started);
    }
  }

  const ctx = contextOf(state, env, tx, amounts, identities);
  let out: VmOutcome;
  state.checkpoint();
  try {
    const pending = run(state, ctx, tx, vm, env);
    // SolidVM answers synchronously: no microtask per transaction for it
    out = pending instanceof Promise ? await pending : pending;
    state.commit();
  } catch (err) {
    // a VM must not throw for a failing transaction; if one does, the transaction fails alone
    state.revert();
    out = failedOutcome(`internal error in ${vm}: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (env.gasEnabled) {
    const gasUsed = out.gasUsed > amounts.gasLimit ? amounts.gasLimit : out.gasUsed;
    out = { ...out, gasUsed };
    const fee = gasUsed * amounts.gasPrice;
    if (fee > 0n) {
      // fees are burned: block.coinbase is the zero address on this platform
      const payer = account(state, tx.from);
      state.putAccount(tx.from, { ...payer, balance: payer.balance - fee });
    }
  }
  return receiptOf(tx, vm, out, amounts.gasPrice, env.gasEnabled, started);
}

/** Executes a block's transactions in order; a hash already executed on the chain is skipped without a receipt. */
export async function executeBlock(state: WorldState, txs: Transaction[], env: BlockEnv): Promise<BlockExecution> {
  const receipts: Receipt[] = [];
  const executed: string[] = [];
  const seen = new Set<string>();
  let eventIndex = 0;
  const identities = new BlockIdentities();
  // new EVM sources compile on a worker first: executing them then finds them compiled
  await Promise.all(txs.filter((tx) => tx.to === null).map((tx) => env.executors[vmOfMetadata(tx)]?.prepare?.(tx)));
  for (const tx of txs) {
    if (seen.has(tx.hash) || env.isExecuted(tx.hash)) continue;
    seen.add(tx.hash);
    executed.push(tx.hash);
    const receipt = await executeTransaction(state, tx, env, identities);
    identities.executed(receipt);
    // events are numbered across the block, for ordering downstream
    receipt.events = receipt.events.map((e: EventLog) => ({ ...e, index: eventIndex++ }));
    receipts.push(receipt);
  }
  return { receipts, executed };
}
