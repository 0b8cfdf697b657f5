// One chain on this node: the proposer and the applier, as one serial loop
// over one store, so a block is never applied twice or half.
//
// - Admitted transactions arrive from a durable pull consumer on
//   `tx.admitted.<chain>` into the mempool, one or a list per message; a
//   message is acknowledged only once blocks holding all its transactions
//   are appended and applied here.
// - Blocks arrive from an ordered consumer on `block.<chain>`, starting after
//   the last applied one. Blocks this node proposed are already applied when
//   they come back and are skipped; others are re-executed and their state
//   root checked.
// - The proposer executes a block on an overlay and appends it with the
//   stream's expected last subject sequence. If the append wins, the overlay
//   is committed as this node's application (no second execution); if it
//   loses, the overlay is dropped and the winner is applied from the stream.
// - In a network, a block whose state root this node computes otherwise is
//   refused and set aside, with every block built on it, until a block
//   replaces it with the signed refusals of a majority of the validators
//   (replacement.ts), or until a majority's attestations for the block's own
//   root outvote this node, which then halts.
// - After applying, the block's ExecResult (written to the store's outbox in
//   the same lmdb transaction) is published to `exec.<chain>` with msgID
//   `<chain>:<height>`; its mark as published rides on the next block's
//   commit. On start, whatever the outbox holds past the stream's last result
//   is published.
import type { JetStreamClient, JsMsg } from '@nats-io/jetstream';
import { headers, type MsgHdrs } from '@nats-io/nats-core';
import { MAIN_CHAIN, type Block, type BlockHeader, type ChainId, type ExecResult, type Genesis, type Logger, type Receipt, type SenderIdentity, type Transaction } from '@platform/common';
import { identityOfCertificate } from '@platform/identity';
import { NETWORK_PULL_EXPIRES_MS, STREAM_ANSWER_TIMEOUT_MS, SUBJECTS, quickNetworkClient, renewPullOnNewLeader, STREAMS, chainToken, decodeJson, encodeJson, ensureDurableConsumer, isWrongLastSequence, nodeDurable, publishExecResult, type BusJetStream, type ChainHealthRecord, type ChainStatusRecord } from '@platform/bus';
import { bytesToHex, epochOf, hexToBytes, openInEpoch, sealInEpoch, type KeyPair } from '@platform/crypto';
import { blockHash, blockIntegrityError, identitiesRoot, signBlock, transactionsRoot } from '../block.js';
import { executeBlock, type BlockEnv } from '../exec/execute.js';
import type { VmExecutors } from '../exec/vm.js';
import { applyGenesisState, genesisHash, genesisHeader, parentOf } from '../genesis.js';
import type { BlockSettings } from '../settings.js';
import { Overlay } from '../state/overlay.js';
import { EMPTY_ROOT, computeStateRoot, type RootResult } from '../state/root.js';
import type { ChainStore, Head } from '../state/store.js';
import { Attestations, majorityOf, type Attestation } from './attestations.js';
import type { ChainKeyring } from './chain-keys.js';
import { LEASE_TICK_MS, ProposerLease } from './lease.js';
import { Mempool } from './mempool.js';
import { replacementError } from './replacement.js';
import { transactionShapeError } from './tx-shape.js';

/** Points where tests stop the service on purpose; an error thrown by a hook halts the chain like a crash there. */
export interface BlockHooks {
  beforeAppend?(block: Block): Promise<void>;
  afterAppend?(block: Block): Promise<void>;
  afterApply?(block: Block): Promise<void>;
}

/**
 * Whether a chain makes progress, for readiness and metrics: `stuck` while
 * its loop keeps failing (publishing a result, appending a block, reading the
 * stream), with the first failure's reason and how many times it has been
 * retried; `halted` when it stopped for good.
 */
export type ChainHealth = ChainHealthRecord;

/** failed rounds in a row before a chain counts as stuck: one failure is a hiccup, three at RETRY_MS apart are not */
const STUCK_AFTER = 3;

/** A message sealed in a key epoch this node has not read yet: retried once it has. */
class KeyNotYetKnown extends Error {
  override readonly name = 'KeyNotYetKnown';
  constructor(epoch: number) {
    super(`a message sealed with the chain's key of epoch ${epoch}, which this node has not read yet`);
  }
}

/** The chain cannot go on safely (a block that does not verify, a test's crash): the loop stops. */
export class ChainHalted extends Error {
  override readonly name = 'ChainHalted';
}

export interface ChainWorkerOptions {
  genesis: Genesis;
  store: ChainStore;
  /** the network's streams (transactions, blocks) and the node's own (results) */
  bus: BusJetStream;
  key: KeyPair;
  settings: BlockSettings;
  gasEnabled: boolean;
  executors: VmExecutors;
  logger: Logger;
  /** the admitted-transaction consumer's durable name; default `block-<chain>-<node>` (each node's own) */
  durable?: string;
  /** the server's largest message, which bounds a block's size */
  maxPayload: number;
  /**
   * Private chains: a sender's valid certificate (PEM) in the main chain's
   * registry at a time (seconds), or null. The proposer puts its senders'
   * certificates in the block (`Block.identities`), so that execution — here
   * and on every re-execution — sees the same identities.
   */
  mainChainCertificate?: (address: string, at: number) => string | null;
  /**
   * the addresses that may propose now (the main chain's validator set,
   * validators.ts); empty: a node of its own, whose blocks only its own key signs
   */
  validators: () => readonly string[];
  /** this process's identity in a lease (lease.ts): a restart takes its own lease over */
  instance: string;
  /**
   * A private chain's keys (chain-keys.ts): its admitted transactions,
   * blocks and attestations cross the network's streams sealed with the
   * current one, each in its key epoch. Absent on the main chain, which
   * every node holds.
   */
  keys?: ChainKeyring;
  /** after each block is applied here (a private chain's governance events give member nodes the chain's key) */
  onApplied?: (exec: ExecResult) => Promise<void>;
  hooks?: BlockHooks;
}

const APPEND_ATTEMPTS = 5;
/**
 * How often the block consumer is checked against the stream's end (one read
 * of the stream's last block a round): after one silent round the node
 * follows the stream by direct gets, and a consumer its server took down
 * with it is replaced from the second. With rounds of 2 s and replacement
 * only, calls on a node whose consumer went with a stopped server waited
 * about 4 s.
 */
const BLOCK_WATCH_MS = 1_000;
/**
 * How long a transaction this node holds may wait for its block, with
 * nothing delivered meanwhile, before the node looks whether the stream holds
 * blocks its consumer did not deliver (suspectSilence): a lone call waits for
 * its block some milliseconds. Also how often that is looked at.
 */
const SUSPECT_MS = 250;
/** how often a node whose block consumer is silent fetches the blocks it misses directly */
const DIRECT_POLL_MS = 200;
/** blocks fetched directly at a time at most */
const FETCH_PER_ROUND = 64;
const RETRY_MS = 500;
/** ack wait of admitted transactions: how soon those of a crashed block service are delivered again */
const ADMITTED_ACK_WAIT_MS = 6_000;

/** A block from the stream, delivered by the consumer or fetched directly. */
interface IncomingBlock {
  subject: string;
  data: Uint8Array;
  seq: number;
}

interface Stoppable {
  stop(): unknown;
}

export class ChainWorker {
  readonly chainId: ChainId;
  private readonly token: string;
  private readonly log: Logger;
  private readonly mempool = new Mempool<Delivery>();
  private keepAlive: NodeJS.Timeout | null = null;
  /** null on a node that is not a validator: it applies the blocks others propose */
  private lease: ProposerLease | null = null;
  private leaseTimer: NodeJS.Timeout | null = null;
  private leaseTick: Promise<unknown> = Promise.resolve();
  private blockMessages: Stoppable | null = null;
  private blockWatchdog: NodeJS.Timeout | null = null;
  /** the last stream sequence the block consumer delivered */
  private lastDelivered = 0;
  /** watchdog rounds in a row in which the stream held blocks the consumer did not deliver */
  private silentRounds = 0;
  /** a watchdog round is running */
  private watching = false;
  /** the node follows the stream by direct gets while its block consumer is silent (followDirectly) */
  private following = false;
  /** a replacement of the block consumer is being opened */
  private replacing = false;
  /** the client that opens replacements (quickNetworkClient) */
  private replacements: JetStreamClient | null = null;
  private deliveredAtLastRound = 0;
  /** when the block consumer last delivered (or was opened), ms */
  private lastDeliveryAt = 0;
  /** the stream sequence the block consumer started from */
  private consumerStart = 0;
  /** the last stream sequence fetched directly while the consumer was silent */
  private lastFetched = 0;
  /** delivered (or fetched) blocks, read only when applied: the blocks proposed here come back too, and are skipped unread */
  private readonly incoming: IncomingBlock[] = [];
  private head!: Head;
  /** the highest block sequence known on `block.<chain>` */
  private streamHead = 0;
  /** the height of the last block known on `block.<chain>` (its messages' BLOCK_HEIGHT_HEADER) */
  private networkHeight = 0;
  private publishedHeight = -1;
  private lastCut = 0;
  private lastBlockSize = 0;
  /** wall time of the last block from its cut to its results' publication: the chain's cost of a block under the present load */
  private lastBlockMs = 0;
  private stopped = false;
  private halted: ChainHalted | null = null;
  /** why the chain must halt, found outside the loop (a majority of the validators computed otherwise): the loop's next step halts */
  private haltWanted: ChainHalted | null = null;
  /**
   * In a network: the block this node refused for its state root, where it
   * holds until a replacement comes (or it is outvoted), with its stream
   * sequence and what this node computed for it.
   */
  private refused: { block: Block; seq: number; stateRoot: string } | null = null;
  /** refused blocks and the blocks built on them: set aside when the stream delivers them, never applied */
  private readonly setAside = new Set<string>();
  /** in a network: what the validators computed, against this node (null on a node of its own) */
  private attestations: Attestations | null = null;
  /** the run of failures of the loop now going on (null while it makes progress) */
  private trouble: { since: number; reason: string; rounds: number } | null = null;
  private retries = 0;
  private pendingWake = false;
  private wakeUp: (() => void) | null = null;
  private readonly subscriptions: Stoppable[] = [];
  private loop: Promise<void> | null = null;

  constructor(private readonly o: ChainWorkerOptions) {
    this.chainId = o.genesis.chainId;
    this.token = chainToken(this.chainId);
    this.log = o.logger.child({ chain: this.token });
  }

  /** The last applied block. */
  get applied(): Head {
    return this.head;
  }

  get haltedBy(): Error | null {
    return this.halted;
  }

  health(): ChainHealth {
    const t = this.trouble;
    return {
      chainId: this.chainId,
      stuck: t !== null && t.rounds >= STUCK_AFTER,
      since: t?.since ?? null,
      reason: t?.reason ?? null,
      retries: this.retries,
      halted: this.halted?.message ?? null,
      ...this.heights(),
    };
  }

  /** Where the chain stands here against the network (the node's metadata). */
  status(): ChainStatusRecord {
    return {
      chainId: this.chainId,
      hash: this.head?.hash ?? '',
      stateRoot: this.head?.header.stateRoot ?? '',
      proposer: this.lease?.held() ?? false,
      halted: this.halted?.message ?? null,
      ...this.heights(),
    };
  }

  /** The chain's heights here, as far as the network is, and as far as a majority of the validators agrees with this node (health and status both say them). */
  private heights(): { height: number; networkHeight: number; agreedHeight: number | null } {
    const height = this.head?.header.number ?? -1;
    return { height, networkHeight: Math.max(height, this.networkHeight), agreedHeight: this.attestations ? this.attestations.agreedHeight : null };
  }

  async start(): Promise<void> {
    const { store, genesis } = this.o;
    // results too big for one message go in parts (publishExecResult); any service may start first
    await this.o.bus.ensure(STREAMS.execParts);
    const gHash = genesisHash(genesis);
    if (!store.head()) await this.applyGenesis(gHash);
    else if (store.genesisHash() !== gHash) {
      throw new Error(`the block store of chain ${this.token} was built from another genesis than the one given: remove it or start with its genesis`);
    }
    this.head = store.head()!;
    this.publishedHeight = store.publishedHeight();
    await this.skipAlreadyPublished();
    this.streamHead = await this.lastBlockSeq();
    if (this.streamHead < this.head.seq) {
      throw new Error(
        `block ${this.head.header.number} of chain ${this.token} was applied from stream sequence ${this.head.seq}, but the BLOCKS stream ends at ${this.streamHead}: this store belongs to another stream`,
      );
    }
    await this.consumeBlocks();
    if (this.o.validators().length > 0) {
      this.attestations = new Attestations({
        bus: this.o.bus,
        chainId: this.chainId,
        key: this.o.key,
        validators: this.o.validators,
        sealed: (subject, data) => this.sealed(subject, data),
        opened: (subject, data) => this.opened(subject, data),
        logger: this.log,
        outvoted: (reason) => {
          this.haltWanted ??= new ChainHalted(`this node disagrees with the network: ${reason}`);
          this.wake();
        },
      });
      await this.attestations.start();
    }
    await this.consumeAdmitted();
    await this.startLease();
    this.log.info({ height: this.head.header.number, hash: this.head.hash, streamHead: this.streamHead, proposer: this.lease?.held() ?? false }, 'chain started');
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.keepAlive) clearInterval(this.keepAlive);
    if (this.leaseTimer) clearInterval(this.leaseTimer);
    if (this.blockWatchdog) clearInterval(this.blockWatchdog);
    this.attestations?.stop();
    for (const s of this.subscriptions.splice(0)) await Promise.resolve(s.stop()).catch(() => {});
    this.wake();
    await this.loop;
    await this.leaseTick;
    await this.lease?.release();
    // the last publications' mark, which no next block carries
    if (this.publishedHeight > this.o.store.publishedHeight()) {
      await this.o.store.markPublished(this.publishedHeight).catch((err: unknown) => this.log.warn({ err, height: this.publishedHeight }, 'could not record a publication'));
    }
  }

  // --- the loop ---------------------------------------------------------------

  private wake(): void {
    this.pendingWake = true;
    const w = this.wakeUp;
    this.wakeUp = null;
    w?.();
  }

  /** Waits for a new transaction or block, or `ms`. */
  private async idle(ms?: number): Promise<void> {
    if (this.pendingWake || this.stopped) {
      this.pendingWake = false;
      return;
    }
    await new Promise<void>((resolve) => {
      const timer = ms === undefined ? null : setTimeout(resolve, Math.max(0, ms));
      this.wakeUp = () => {
        if (timer) clearTimeout(timer);
        resolve();
      };
    });
    this.wakeUp = null;
    this.pendingWake = false;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      try {
        await this.step();
        if (this.trouble) {
          this.log.info({ rounds: this.trouble.rounds, ms: Date.now() - this.trouble.since }, 'the chain makes progress again');
          this.trouble = null;
        }
      } catch (err) {
        if (err instanceof ChainHalted) {
          this.halted = err;
          this.log.fatal({ err }, 'chain halted');
          // a halted node proposes nothing more: another validator takes the chain over
          if (this.leaseTimer) clearInterval(this.leaseTimer);
          await this.leaseTick;
          await this.lease?.release().catch(() => {});
          return;
        }
        if (this.stopped) return;
        this.retries++;
        // said once per run of failures, with why; the retries are counted (health(), the gateway's metrics), not logged
        if (!this.trouble) {
          this.trouble = { since: Date.now(), reason: err instanceof Error ? err.message : String(err), rounds: 0 };
          this.log.error({ err }, 'block loop failed; retrying until it succeeds (the chain makes no progress meanwhile)');
        }
        this.trouble.rounds++;
        await new Promise((r) => setTimeout(r, RETRY_MS));
        // an append whose outcome is unknown may have landed: look again where the stream ends
        this.streamHead = Math.max(this.streamHead, await this.lastBlockSeq().catch(() => this.streamHead));
      }
    }
  }

  private async step(): Promise<void> {
    if (this.haltWanted) throw this.haltWanted;
    if (this.publishedHeight < this.head.header.number) await this.publishOutbox();
    if (await this.applyIncoming()) return;
    if (this.refused) return this.replaceRefused(this.refused);
    // behind the stream: the blocks are on their way; proposing now would lose anyway
    if (this.head.seq < this.streamHead) return this.idle(1_000);
    if (this.mempool.size === 0) return this.idle();
    // another validator proposes: its blocks take these transactions out of the mempool
    if (!this.lease?.held()) return this.idle(LEASE_TICK_MS);
    const { maxTxs, maxWaitMs } = this.o.settings;
    const now = Date.now();
    // an idle chain cuts at once; a busy one — its last block, or what waits
    // now, more than one transaction — gathers after its last cut, so that
    // blocks grow with the load (a block's fixed costs are most of a small
    // one's), while a lone client's calls, one after the other, never wait
    const busy = this.lastBlockSize > 1 || this.mempool.size > 1;
    const windowLeft = gatheringWindowMs(this.lastBlockMs, maxWaitMs) - (now - this.lastCut);
    if (busy && windowLeft > 0 && this.mempool.size < maxTxs) return this.idle(windowLeft);
    const selection = this.select(now);
    if (selection.chosen.length === 0) return this.idle(selection.nextDeadline === null ? undefined : selection.nextDeadline - now);
    this.lastCut = now;
    this.lastBlockSize = selection.chosen.length;
    await this.propose(selection.chosen.map((w) => w.tx));
    this.lastBlockMs = Date.now() - now;
  }

  /** the next block's transactions from the mempool, in nonce order */
  private select(now: number) {
    const { maxTxs, nonceGapMs } = this.o.settings;
    return this.mempool.select((a) => this.o.store.getAccount(a)?.nonce ?? 0n, {
      maxTxs,
      maxBytes: Math.max(64 * 1024, Math.floor(this.o.maxPayload * 0.9) - 64 * 1024),
      gapMs: nonceGapMs,
      now,
    });
  }

  /**
   * Holding at a refused block: once more than half of the validators have
   * refused it, the proposer appends its replacement — the same height on
   * the same parent, with the mempool's transactions (the refused block's
   * among them: they were never taken out) — after every block on the
   * stream. Until then, or while another validator proposes, the chain is
   * stuck here, and says so through its health.
   */
  private async replaceRefused(refused: { block: Block; seq: number; stateRoot: string }): Promise<void> {
    const { header, hash } = refused.block;
    const refusals = this.attestations!.refusalsOf(header.number, hash, header.stateRoot);
    const needed = majorityOf(this.o.validators().length);
    const waiting = `block ${header.number} (${hash}) is refused here: its header says state root ${header.stateRoot}, this node computes ${refused.stateRoot}`;
    if (refusals.length < needed) throw new Error(`${waiting}; ${refusals.length} of the ${needed} validators needed have refused it so far: waiting for its replacement, or for the validators to outvote this node`);
    if (!this.lease?.held()) throw new Error(`${waiting}, as a majority of the validators did: waiting for the proposer's replacement`);
    const chosen = this.select(Date.now()).chosen.map((w) => w.tx);
    this.log.warn({ height: header.number, refused: hash, refusals: refusals.map((a) => a.node), txs: chosen.length }, 'a majority of the validators refused a block: proposing its replacement');
    await this.propose(chosen, { replaces: hash, refusals, after: this.streamHead });
  }

  // --- the proposer lease ------------------------------------------------------------

  private async startLease(): Promise<void> {
    const { key, bus } = this.o;
    // a node of its own, or one of the validators now: governance may add or remove this node later
    const mayPropose = () => {
      const validators = this.o.validators();
      return validators.length === 0 || validators.includes(key.address);
    };
    if (!mayPropose()) this.log.info('this node is not a validator: it applies the blocks the validators propose');
    this.lease = new ProposerLease({ bus, chainId: this.chainId, record: { node: bus.topology.node, proposer: key.address, instance: this.o.instance }, logger: this.log });
    const tick = async () => {
      if (this.stopped) return;
      if (!mayPropose()) {
        if (this.lease!.held()) this.log.info('this node is no longer a validator: it leaves the chain to the others');
        await this.lease!.release();
        return;
      }
      const wasHeld = this.lease!.held();
      if ((await this.lease!.tick()) && !wasHeld) this.wake();
    };
    await tick();
    // one tick at a time: a slow server must not stack renewals
    this.leaseTimer = setInterval(() => (this.leaseTick = this.leaseTick.then(tick)), LEASE_TICK_MS);
  }

  // --- proposing ------------------------------------------------------------------

  private env(header: Pick<BlockHeader, 'number' | 'timestamp'>, identities?: Record<string, string>): BlockEnv {
    return {
      // a private chain has no registry: its senders' identities are the block's (none in a block without them)
      ...(this.chainId === MAIN_CHAIN ? {} : { senderIdentities: parseIdentities(identities ?? {}) }),
      chainId: this.chainId,
      number: header.number,
      timestamp: header.timestamp,
      protocol: this.o.genesis.protocol,
      gasEnabled: this.o.gasEnabled,
      parentChain: parentOf(this.o.genesis),
      executors: this.o.executors,
      isExecuted: (h) => this.o.store.isExecuted(h),
    };
  }

  /** `replacing`: the block replaces a refused one, appended after the stream's last block (`after`) */
  private async propose(txs: Transaction[], replacing?: { replaces: string; refusals: Attestation[]; after: number }): Promise<void> {
    const parent = this.head;
    const number = parent.header.number + 1;
    const timestamp = Math.max(parent.header.timestamp, Math.floor(Date.now() / 1000));
    const identities = this.senderCertificates(txs, timestamp);
    const overlay = new Overlay(this.o.store, this.chainId);
    const { receipts, executed } = await executeBlock(overlay, txs, this.env({ number, timestamp }, identities));
    const root = this.stateRoot(overlay, parent);
    const header: BlockHeader = {
      chainId: this.chainId,
      number,
      parentHash: parent.hash,
      timestamp,
      transactionsRoot: transactionsRoot(txs),
      stateRoot: bytesToHex(root.root),
      proposer: this.o.key.address,
      ...(identities ? { identitiesRoot: identitiesRoot(identities) } : {}),
      ...(replacing ? { replaces: replacing.replaces } : {}),
    };
    const block = signBlock(header, txs, this.o.key, identities, replacing?.refusals);
    await this.hook('beforeAppend', block);
    const seq = await this.append(block, replacing?.after ?? parent.seq);
    if (seq === null) {
      // lost the race: the overlay is dropped, the winner comes from the stream
      this.log.info({ height: number }, 'another proposer appended this height first; applying its block');
      this.streamHead = Math.max(this.streamHead, parent.seq + 1, await this.lastBlockSeq());
      return;
    }
    await this.hook('afterAppend', block);
    await this.commit(block, seq, overlay, root, receipts, executed);
  }

  /** A private chain's senders' certificates for a block proposed at `at`; undefined on the main chain. */
  private senderCertificates(txs: Transaction[], at: number): Record<string, string> | undefined {
    const lookup = this.o.mainChainCertificate;
    if (this.chainId === MAIN_CHAIN || !lookup) return undefined;
    const out: Record<string, string> = {};
    for (const tx of txs) {
      if (tx.from in out) continue;
      const pem = lookup(tx.from, at);
      if (pem !== null) out[tx.from] = pem;
    }
    return out;
  }

  /** Appends the block after `expectedSeq`; its sequence, or null when another block got there first. */
  private async append(block: Block, expectedSeq: number): Promise<number | null> {
    const subject = SUBJECTS.block.ordered(this.chainId);
    const data = this.sealed(subject, encodeJson(block));
    for (let attempt = 1; ; attempt++) {
      try {
        // one msgID per height: a second block at this height within the
        // duplicate window is answered as a duplicate of the first, however
        // the expected sequence was checked (nats-server 2.9 before 2.9.21
        // could accept two concurrent appends expecting the same sequence)
        const ack = await this.o.bus.network.js.publish(subject, data, {
          headers: heightHeader(block.header.number),
          // a replacement is the height's second block: its msgID is its own, shared only by other replacements of the same block
          msgID: `${this.token}:${block.header.number}${block.header.replaces ? `:${block.header.replaces}` : ''}`,
          expect: { lastSubjectSequence: expectedSeq },
          // unanswered (a leader stepping down drops it): sent again by the next attempt, whose msgID makes it a duplicate
          timeout: STREAM_ANSWER_TIMEOUT_MS,
        });
        if (!ack.duplicate) return ack.seq;
        // this very block, appended by an attempt whose answer was lost; or another proposer's
        const stored = await this.o.bus.network.jsm.streams.getMessage(STREAMS.blocks.name, { seq: ack.seq });
        return stored && this.opened<Block>(subject, stored.data).hash === block.hash ? ack.seq : null;
      } catch (err) {
        if (isWrongLastSequence(err)) return null;
        if (attempt >= APPEND_ATTEMPTS || this.stopped) throw err;
        this.log.warn({ err, attempt, height: block.header.number }, 'block append failed; retrying');
        await new Promise((r) => setTimeout(r, RETRY_MS));
      }
    }
  }

  /** What this chain publishes to the network's streams: a private chain's sealed with its current key. */
  private sealed(subject: string, data: Uint8Array): Uint8Array {
    if (!this.o.keys) return data;
    const now = this.o.keys.sealing();
    if (!now) throw new Error('this node holds the chain\'s current key no more: its organization left the chain');
    return sealInEpoch(now.epoch, now.key, data, subject);
  }

  /**
   * A message of this chain from the network's streams; throws when it is not
   * JSON or does not open with the key of its epoch, and KeyNotYetKnown when
   * that epoch is newer than this node has read (it reads it meanwhile).
   */
  private opened<T>(subject: string, data: Uint8Array): T {
    const keys = this.o.keys;
    if (!keys) return decodeJson<T>(data);
    const epoch = epochOf(data);
    const key = keys.opening(epoch);
    if (!key) {
      void keys.refresh().catch((err: unknown) => this.log.warn({ err }, 'the chain\'s keys could not be read again'));
      throw new KeyNotYetKnown(epoch);
    }
    return decodeJson<T>(openInEpoch(key, data, subject));
  }

  private async hook(name: keyof BlockHooks, block: Block): Promise<void> {
    const hook = this.o.hooks?.[name];
    if (!hook) return;
    try {
      await hook(block);
    } catch (err) {
      throw new ChainHalted(`${name} hook: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
  }

  private stateRoot(overlay: Overlay, parent: Head): RootResult {
    return computeStateRoot(this.o.store, hexToBytes(parent.header.stateRoot), overlay.changes(), (a) => overlay.getAccount(a));
  }

  // --- applying -----------------------------------------------------------------

  /** Records the block as applied, acknowledges its transactions, publishes its results. */
  private async commit(block: Block, seq: number, overlay: Overlay, root: RootResult, receipts: Receipt[], executed: string[]): Promise<void> {
    const exec: ExecResult = {
      chainId: this.chainId,
      block: { number: block.header.number, hash: block.hash, timestamp: block.header.timestamp, parentHash: block.header.parentHash, stateRoot: block.header.stateRoot },
      receipts,
    };
    const head: Head = { header: block.header, hash: block.hash, seq };
    await this.o.store.applyBlock({
      head,
      changes: overlay.changes(),
      trieNodes: root.trieNodes,
      trieVacated: root.trieVacated,
      storageRoots: root.storageRoots,
      executedHashes: executed,
      exec,
      published: this.publishedHeight,
    });
    this.head = head;
    if (block.header.replaces) {
      this.log.warn({ height: head.header.number, hash: block.hash, replaced: block.header.replaces }, 'applied the replacement of a refused block');
      this.refused = null;
    }
    this.attestations?.attest(head.header.number, { hash: block.hash, stateRoot: block.header.stateRoot });
    await this.hook('afterApply', block);
    await this.publishOutbox();
    if (this.o.onApplied) await this.o.onApplied(exec).catch((err: unknown) => this.log.warn({ err, height: head.header.number }, 'the work after applying a block failed'));
    for (const tx of block.transactions) {
      const taken = this.mempool.take(tx.hash);
      if (taken) release(taken.msg);
    }
  }

  /** Applies the blocks the stream delivered; true if one was applied. */
  private async applyIncoming(): Promise<boolean> {
    let applied = false;
    while (this.incoming.length > 0 && !this.stopped) {
      const next = this.incoming.shift()!;
      const { seq } = next;
      if (seq <= this.head.seq) continue; // proposed here, or delivered again
      let block: Block;
      try {
        block = this.opened<Block>(next.subject, next.data);
      } catch (err) {
        if (err instanceof KeyNotYetKnown) {
          // sealed with a key this node reads now: the loop comes back to it
          this.incoming.unshift(next);
          throw err;
        }
        // applying it will refuse it, and halt the chain: the ordering cannot skip a block
        block = {} as Block;
      }
      if (this.setAside.has(block.header?.parentHash)) {
        this.setAside.add(block.hash);
        this.log.warn({ seq, height: block.header.number, hash: block.hash }, 'a block built on a refused block: set aside with it');
        continue;
      }
      if (typeof block.header?.number === 'number' && block.header.number <= this.head.header.number) {
        if (block.header.replaces !== undefined && !this.setAside.has(block.header.replaces)) {
          throw new ChainHalted(
            `the network replaced block ${block.header.number} (${block.header.replaces}), refused by a majority of the validators, and this node applied a block at that height: its chain is not the network's; rebuild this node's data from the network (npm start -- --rebuild, docs/network.md "Rebuilding a node from the network")`,
          );
        }
        this.log.warn({ seq, height: block.header.number }, 'the stream holds a second block at an applied height; ignored');
        continue;
      }
      if (block.header?.replaces !== undefined) {
        const why = this.refused ? replacementError(block, this.refused.block, this.o.validators()) : `it replaces block ${block.header.replaces}, which this node did not refuse`;
        if (why) throw new ChainHalted(`block ${block.header.number} at stream sequence ${seq} cannot replace a refused block: ${why}`);
      }
      if (await this.applyForeign(block, seq)) applied = true;
    }
    return applied;
  }

  /**
   * A block this node did not propose (or proposed and crashed before
   * applying): re-execute and verify. False when it is refused for its state
   * root in a network, and set aside.
   */
  private async applyForeign(block: Block, seq: number): Promise<boolean> {
    const parent = this.head;
    const h = block.header;
    const refuse = (why: string) => new ChainHalted(`block ${h?.number} at stream sequence ${seq} cannot be applied: ${why}`);
    if (!h || typeof h !== 'object') throw refuse('it is not a block');
    if (h.chainId !== this.chainId) throw refuse('it belongs to another chain');
    if (h.number !== parent.header.number + 1) throw refuse(`the last applied block is ${parent.header.number}`);
    if (h.parentHash !== parent.hash) throw refuse(`its parent hash is ${h.parentHash}, the applied block ${parent.header.number} is ${parent.hash}`);
    if (h.timestamp < parent.header.timestamp) throw refuse('its timestamp is before its parent');
    const integrity = blockIntegrityError(block);
    if (integrity) throw refuse(integrity);
    const validators = this.o.validators();
    if (validators.length > 0 && !validators.includes(h.proposer)) throw refuse(`its proposer ${h.proposer} is not a validator of the network`);
    for (const tx of block.transactions) {
      const why = transactionShapeError(tx, this.chainId);
      if (why) throw refuse(`transaction ${tx?.hash}: ${why}`);
    }
    const txRoot = transactionsRoot(block.transactions);
    if (txRoot !== h.transactionsRoot) throw refuse(`its transactions root is ${txRoot}, its header says ${h.transactionsRoot}`);
    const overlay = new Overlay(this.o.store, this.chainId);
    const { receipts, executed } = await executeBlock(overlay, block.transactions, this.env(h, block.identities));
    const root = this.stateRoot(overlay, parent);
    const stateRoot = bytesToHex(root.root);
    if (stateRoot !== h.stateRoot) {
      const why = `executing it here gives state root ${stateRoot}, its header says ${h.stateRoot}`;
      // a node of its own has nobody to replace the block, or to tell it that it is wrong
      if (!this.attestations) throw refuse(why);
      // said at once: if this node is right and the proposer wrong, the refusals of a majority replace the block, and outvote the proposer
      this.attestations.attest(h.number, { hash: block.hash, stateRoot }, true);
      this.refused = { block, seq, stateRoot };
      this.setAside.add(block.hash);
      this.log.error({ height: h.number, seq, hash: block.hash }, `refused block ${h.number}: ${why}; holding until a majority of the validators replaces it or outvotes this node`);
      return false;
    }
    await this.commit(block, seq, overlay, root, receipts, executed);
    this.log.debug({ height: h.number, txs: block.transactions.length }, 'applied a block from the stream');
    return true;
  }

  private async applyGenesis(gHash: string): Promise<void> {
    const { genesis, store } = this.o;
    const overlay = new Overlay(store, this.chainId);
    const receipts = applyGenesisState(overlay, genesis);
    const root = computeStateRoot(store, EMPTY_ROOT, overlay.changes(), (a) => overlay.getAccount(a));
    const header = genesisHeader(genesis, bytesToHex(root.root));
    const hash = blockHash(header);
    const exec: ExecResult = { chainId: this.chainId, block: { number: 0, hash, timestamp: header.timestamp, parentHash: header.parentHash, stateRoot: header.stateRoot }, receipts };
    await store.applyBlock(
      { head: { header, hash, seq: 0 }, changes: overlay.changes(), trieNodes: root.trieNodes, trieVacated: root.trieVacated, storageRoots: root.storageRoots, executedHashes: [], exec },
      gHash,
    );
    this.log.info({ hash, stateRoot: header.stateRoot }, 'block 0 applied from the genesis');
  }

  // --- publishing ------------------------------------------------------------------

  /**
   * Publishes the outbox's results. Their marks are not written here but with
   * the next block's commit (and at stop): the outbox keeps a published
   * result until then, which is skipped. A crash before the mark is what
   * `skipAlreadyPublished` finds at the next start.
   */
  private async publishOutbox(): Promise<void> {
    for (const { height, json } of this.o.store.unpublished()) {
      if (height <= this.publishedHeight) continue;
      const parts = await publishExecResult(this.o.bus.node.js, { chainId: this.chainId, height, json }, this.o.maxPayload);
      if (parts > 0) this.log.info({ height, bytes: json.length, parts }, 'the results of a block are larger than a bus message: published in parts');
      this.publishedHeight = height;
    }
  }

  /** After a crash between publishing and recording it, the stream already has the result: do not publish it again. */
  private async skipAlreadyPublished(): Promise<void> {
    const last = await this.o.bus.node.jsm.streams.getMessage(STREAMS.exec.name, { last_by_subj: SUBJECTS.exec.results(this.chainId) }).catch(() => null);
    if (!last) return;
    const height = (decodeJson<ExecResult>(last.data)).block.number;
    if (height > this.publishedHeight && height <= this.head.header.number) {
      await this.o.store.markPublished(height);
      this.publishedHeight = height;
    }
  }

  // --- the two consumers -------------------------------------------------------------

  private async lastBlockSeq(): Promise<number> {
    const last = await this.o.bus.network.jsm.streams.getMessage(STREAMS.blocks.name, { last_by_subj: SUBJECTS.block.ordered(this.chainId) });
    this.noteNetworkHeight(last?.header);
    return last?.seq ?? 0;
  }

  /** A block message's height, from its header: how far the network is, known without parsing the block. */
  private noteNetworkHeight(hdrs: MsgHdrs | undefined): void {
    const height = Number(hdrs?.get(BLOCK_HEIGHT_HEADER));
    if (Number.isSafeInteger(height)) this.networkHeight = Math.max(this.networkHeight, height);
  }

  private async consumeBlocks(): Promise<void> {
    await this.openBlockConsumer(this.head.seq + 1);
    let ticks = 0;
    this.blockWatchdog = setInterval(() => {
      // one check at a time
      if (this.watching) return;
      this.watching = true;
      const round = ++ticks % (BLOCK_WATCH_MS / SUSPECT_MS) === 0;
      void (round ? this.watchBlockConsumer() : this.suspectSilence())
        .catch(() => {})
        .finally(() => (this.watching = false));
    }, SUSPECT_MS);
  }

  private async openBlockConsumer(fromSeq: number, js: JetStreamClient = this.o.bus.network.js): Promise<void> {
    const consumer = await js.consumers.get(STREAMS.blocks.name, {
      filter_subjects: SUBJECTS.block.ordered(this.chainId),
      opt_start_seq: fromSeq,
    });
    const messages = await consumer.consume({ expires: NETWORK_PULL_EXPIRES_MS });
    this.blockMessages = messages;
    this.consumerStart = fromSeq;
    this.lastDeliveryAt = Date.now();
    this.subscriptions.push(messages);
    void (async () => {
      for await (const m of messages) {
        this.lastDelivered = Math.max(this.lastDelivered, m.seq);
        this.lastDeliveryAt = Date.now();
        this.incoming.push({ subject: m.subject, data: m.data, seq: m.seq });
        this.streamHead = Math.max(this.streamHead, m.seq);
        this.noteNetworkHeight(m.headers);
        this.wake();
      }
    })().catch((err: unknown) => this.log.error({ err }, 'the block consumer stopped'));
  }

  /**
   * An ordered consumer is one server's: when that server dies, nats.js may
   * not notice for long (measured here: a node deaf for over a minute after
   * another node's server stopped). The stream says where it ends. A
   * consumer that delivered nothing for a round while the stream holds
   * blocks past it is silent: from then on, until a round finds it
   * delivering again (or nothing to deliver), the node follows the stream
   * directly (followDirectly); from the second silent round the consumer is
   * also replaced, each round, by a new one from the first block not yet
   * had. A block had twice is applied once (applyIncoming skips what is
   * applied), and each source gives a chain's blocks in order from the first
   * one not yet had, so none is skipped.
   */
  private async watchBlockConsumer(): Promise<void> {
    if (this.stopped) return;
    const last = await this.lastBlockSeq();
    this.streamHead = Math.max(this.streamHead, last);
    const delivered = this.lastDelivered !== this.deliveredAtLastRound;
    this.deliveredAtLastRound = this.lastDelivered;
    // under load the stream is always a little ahead: only rounds without a delivery count
    const behind = last > Math.max(this.lastDelivered, this.consumerStart - 1);
    this.silentRounds = behind && !delivered ? this.silentRounds + 1 : 0;
    if (this.silentRounds === 0) return;
    this.followDirectly();
    // in the background: a replacement placed on the stopped server takes 1.5 s to give up, and following goes on meanwhile
    if (this.silentRounds >= 2 && !this.replacing) void this.replaceBlockConsumer(last);
  }

  /** the last stream sequence of this chain the node has: applied, delivered by the consumer, or fetched directly */
  private get lastHad(): number {
    return Math.max(this.head.seq, this.lastDelivered, this.lastFetched);
  }

  /**
   * Between rounds: a transaction this node holds has waited SUSPECT_MS for
   * its block while the consumer delivered nothing for as long. If the
   * stream holds blocks the node has not had, it follows the stream directly
   * now rather than after a silent round; the rounds go on judging the
   * consumer (a live one makes the next round end the following).
   */
  private async suspectSilence(): Promise<void> {
    if (this.following || this.stopped) return;
    const now = Date.now();
    const oldest = this.mempool.oldest();
    if (!oldest || now - oldest.since < SUSPECT_MS || now - this.lastDeliveryAt < SUSPECT_MS) return;
    const last = await this.lastBlockSeq();
    this.streamHead = Math.max(this.streamHead, last);
    if (last <= this.lastHad) return;
    this.silentRounds = Math.max(this.silentRounds, 1);
    this.followDirectly();
  }

  /**
   * While the block consumer is silent, the blocks it misses are fetched
   * every DIRECT_POLL_MS by direct gets: any server holding the stream
   * answers, so a node whose consumer went down with a stopped server keeps
   * up, however many replacements fail. It stops when a watchdog round finds
   * the consumer delivering again, or nothing left to deliver.
   */
  private followDirectly(): void {
    if (this.following) return;
    this.following = true;
    this.log.warn({ had: this.lastHad }, 'the block consumer is silent: following the stream by direct gets until it delivers again');
    void (async () => {
      while (this.silentRounds > 0 && !this.stopped) {
        await this.fetchMissedBlocks();
        await new Promise((r) => setTimeout(r, DIRECT_POLL_MS));
      }
    })()
      .catch((err: unknown) => this.log.warn({ err }, 'fetching blocks directly failed; the watchdog tries again'))
      .finally(() => (this.following = false));
  }

  /** The chain's blocks after the last one had, by direct gets: at most FETCH_PER_ROUND at a time (a long catch-up is the consumer's). */
  private async fetchMissedBlocks(): Promise<void> {
    const subject = SUBJECTS.block.ordered(this.chainId);
    let next = this.lastHad + 1;
    let fetched = 0;
    for (; fetched < FETCH_PER_ROUND && !this.stopped; fetched++) {
      const m = await this.o.bus.network.jsm.direct.getMessage(STREAMS.blocks.name, { seq: next, next_by_subj: subject });
      if (!m) break;
      this.incoming.push({ subject: m.subject, data: m.data, seq: m.seq });
      this.noteNetworkHeight(m.header);
      this.lastFetched = m.seq;
      next = m.seq + 1;
    }
    if (fetched === 0) return;
    this.log.info({ fetched, through: this.lastFetched }, 'the block consumer is silent: blocks fetched directly');
    this.wake();
  }

  private async replaceBlockConsumer(streamEnd: number): Promise<void> {
    this.replacing = true;
    try {
      const from = this.lastHad + 1;
      this.log.warn({ from, streamEnd }, 'the block consumer delivers nothing while the stream grows: replacing it');
      const old = this.blockMessages;
      this.replacements ??= quickNetworkClient(this.o.bus);
      try {
        await this.openBlockConsumer(from, this.replacements);
      } catch (err) {
        // the old one stays until a replacement opens: tried again at the next silent round
        this.log.warn({ err, from }, 'the block consumer could not be replaced');
        return;
      }
      if (old) {
        // stopped, and forgotten: a chain whose consumer is replaced often must not keep every old one
        this.subscriptions.splice(this.subscriptions.indexOf(old), 1);
        await Promise.resolve(old.stop()).catch(() => {});
      }
    } finally {
      this.replacing = false;
    }
  }

  private async consumeAdmitted(): Promise<void> {
    const { settings } = this.o;
    const { js, jsm } = this.o.bus.network;
    const durable = this.o.durable ?? nodeDurable(`block-${this.token}`, this.o.bus.topology.node);
    await ensureDurableConsumer(jsm, {
      stream: STREAMS.tx.name,
      durable,
      filterSubject: SUBJECTS.tx.admitted(this.chainId),
      // short, so that after a crash the transactions the dead process held
      // come back well within the nonce gap (else later nonces, delivered
      // fresh, would time out waiting for them); transactions that wait
      // longer in the mempool are kept from redelivery by keepWaitingAlive
      ackWaitMs: ADMITTED_ACK_WAIT_MS,
      // the server's default of 1000 unacknowledged messages would cap the
      // mempool at two blocks: the pipeline would stall on acknowledgement round trips
      maxAckPending: Math.max(1_000, 8 * settings.maxTxs),
    });
    this.keepAlive = setInterval(() => this.keepWaitingAlive(), ADMITTED_ACK_WAIT_MS / 3);
    const consumer = await js.consumers.get(STREAMS.tx.name, durable);
    const messages = await consumer.consume({ max_messages: Math.max(1_000, 2 * settings.maxTxs), expires: NETWORK_PULL_EXPIRES_MS });
    this.subscriptions.push(messages);
    // when a node stops, the consumers it led move, and their waiting pulls are lost with them
    const renewal = renewPullOnNewLeader(this.o.bus.nc, STREAMS.tx.name, durable, messages, () => this.log.info({ durable }, 'the admitted-transaction consumer has a new leader: pulling again'));
    this.subscriptions.push({ stop: () => renewal.unsubscribe() });
    void (async () => {
      for await (const m of messages) this.admit(m);
    })().catch((err: unknown) => this.log.error({ err }, 'the admitted-transaction consumer stopped'));
  }

  /** "still working on it" for every message with a transaction waiting longer than a fraction of the ack wait (a nonce gap, a full mempool) */
  private keepWaitingAlive(): void {
    const before = Date.now() - ADMITTED_ACK_WAIT_MS / 3;
    const told = new Set<Delivery>();
    for (const waiting of this.mempool.entries()) {
      if (waiting.since > before) break; // in order of arrival: the rest are younger
      if (told.has(waiting.msg)) continue;
      told.add(waiting.msg);
      waiting.msg.msg.working();
    }
  }

  private admit(m: JsMsg): void {
    let parsed: Transaction | Transaction[];
    try {
      parsed = this.opened<Transaction | Transaction[]>(m.subject, m.data);
    } catch (err) {
      if (err instanceof KeyNotYetKnown) {
        m.nak(RETRY_MS * 2);
        return;
      }
      this.log.error({ seq: m.seq, err }, 'an admitted message is not JSON, or not sealed with the chain\'s key; dropped');
      m.term();
      return;
    }
    const list = Array.isArray(parsed);
    const txs: Transaction[] = list ? (parsed as Transaction[]) : [parsed as Transaction];
    const delivery: Delivery = { msg: m, waiting: 0 };
    const since = Date.now();
    const bytes = Math.ceil(m.data.length / Math.max(1, txs.length));
    let refused = 0;
    for (const tx of txs) {
      const why = transactionShapeError(tx, this.chainId);
      if (why) {
        refused++;
        this.log.error({ seq: m.seq, hash: (tx as { hash?: unknown })?.hash, why }, 'an admitted message holds something that is not a transaction of this chain; dropped');
        continue;
      }
      // executed already (a redelivery, or the outbox republished past JetStream's duplicate window)
      if (this.o.store.isExecuted(tx.hash)) continue;
      delivery.waiting++;
      // waiting already: it is this delivery's now. A redelivery of the same
      // message supersedes the old delivery, which must never acknowledge it;
      // another message (an outbox republish) leaves the old one the rest of its own
      const previous = this.mempool.add({ tx, msg: delivery, since, bytes });
      if (previous && previous.msg.seq === m.seq) previous.waiting--;
      else if (previous) release(previous);
    }
    if (delivery.waiting === 0) {
      // nothing of it left to do; a lone malformed transaction is terminated, so that the stream shows it was refused
      if (!list && refused > 0) m.term();
      else m.ack();
      return;
    }
    this.wake();
  }
}

/** a block message's height, readable without parsing the block: how far the network is */
const BLOCK_HEIGHT_HEADER = 'Block-Height';

function heightHeader(height: number): MsgHdrs {
  const h = headers();
  h.set(BLOCK_HEIGHT_HEADER, String(height));
  return h;
}

/** times its last block's wall time a busy chain gathers the next */
const GATHERING_FACTOR = 3;

/**
 * How long a busy chain gathers after its last cut: a multiple of what its
 * last block took, at most `maxWaitMs`. A block's fixed costs (its append,
 * its lmdb commit, its results' messages and database commits downstream)
 * are most of a small block's; when blocks take long, the node is short of
 * CPU, and bigger blocks give it back. When they are quick, the node has CPU
 * to spare, and a short window keeps a busy chain's latency low.
 */
export function gatheringWindowMs(lastBlockMs: number, maxWaitMs: number): number {
  return Math.min(maxWaitMs, GATHERING_FACTOR * lastBlockMs);
}

/** An admitted message and how many of its transactions wait in the mempool for it. */
interface Delivery {
  msg: JsMsg;
  waiting: number;
}

/** One of the message's transactions is done with (applied, or waiting for a later message): the last one acknowledges it. */
function release(delivery: Delivery): void {
  if (--delivery.waiting === 0) delivery.msg.ack();
}

/** The identities a private chain's block carries, for execution: only certificates that bind their sender's address count. */
function parseIdentities(identities: Record<string, string>): Map<string, SenderIdentity> {
  const out = new Map<string, SenderIdentity>();
  for (const [address, pem] of Object.entries(identities)) {
    const identity = identityOfCertificate(pem, address);
    if (identity) out.set(address, identity);
  }
  return out;
}
