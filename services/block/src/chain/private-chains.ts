// The private chains this node holds: every genesis on the GENESIS stream
// (written by the chains service, replicated like the blocks) that is sealed
// for this node — or whose key a member node granted it later — starts a
// ChainWorker of its own, at start for the chains already there and later as
// new ones are published. The others are other organizations' chains: this
// node never reads them (chain-keys.ts). A genesis that is not a valid
// private chain's is logged and skipped: the stream is the chains service's,
// and a bad entry must not stop the node's other chains.
import { join } from 'node:path';
import { DeliverPolicy } from '@nats-io/jetstream';
import { GOVERNANCE_ADDRESS, MEMBER_ADDED_EVENTS, type ChainId, type ExecResult, type Logger } from '@platform/common';
import { NETWORK_PULL_EXPIRES_MS, STREAMS, chainToken, type GenesisStreamMessage } from '@platform/bus';
import { validCertificateOf } from '@platform/identity';
import type { HeldChain } from '../endpoints.js';
import { openChainStore, type ChainStore } from '../state/store.js';
import { currentKey, type ChainKeys } from './chain-keys.js';
import { privateGenesisError } from './private-genesis.js';
import { ChainWorker, type ChainWorkerOptions } from './worker.js';

export interface PrivateChainsOptions {
  dataDir: string;
  logger: Logger;
  /** the chains this node answers for (the main chain's included): new ones are added here */
  held: Map<ChainId, HeldChain>;
  /** what every worker shares (keys, settings, VMs, …) */
  workerOptions: Omit<ChainWorkerOptions, 'genesis' | 'store' | 'durable' | 'hooks' | 'mainChainCertificate' | 'keys' | 'onApplied'>;
  /** this node's keys of private chains: which chains are this node's, and how to read them */
  chainKeys: ChainKeys;
  /** the main chain's applied state, whose certificate registry gives a private chain's senders their identities */
  mainState: Pick<ChainStore, 'getStorage'>;
}

/** The governance events that take a whole organization out of a chain: its node gets no key from then on. */
const ORGANIZATION_REMOVED_EVENTS: readonly string[] = ['OrgRemoved', 'OrganizationRemoved'];

interface Stoppable {
  stop(): unknown;
}

export class PrivateChains {
  private readonly workers = new Map<ChainId, { worker: ChainWorker; store: ChainStore }>();
  private messages: Stoppable | null = null;
  /** starts are serial: two stores of one chain must never open at once */
  private queue: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(private readonly o: PrivateChainsOptions) {}

  /** Starts the chains published so far; the ones published later start as they arrive. */
  async start(): Promise<void> {
    const { js, jsm } = this.o.workerOptions.bus.network;
    const last = (await jsm.streams.info(STREAMS.geneses.name)).state.last_seq;
    const consumer = await js.consumers.get(STREAMS.geneses.name, { deliver_policy: DeliverPolicy.All });
    const messages = await consumer.consume({ expires: NETWORK_PULL_EXPIRES_MS });
    this.messages = messages;
    let caughtUp!: () => void;
    const ready = new Promise<void>((resolve) => (caughtUp = resolve));
    if (last === 0) caughtUp();
    void (async () => {
      for await (const m of messages) {
        let message: GenesisStreamMessage | null = null;
        try {
          message = m.json<GenesisStreamMessage>();
        } catch {
          this.o.logger.error({ seq: m.seq }, 'a message of the GENESIS stream is not JSON; skipped');
        }
        if (message && typeof message.chainId === 'string') {
          const chainId = message.chainId;
          // sealed for this node: the chain is this node's (again); a new key epoch of a chain it runs: it may have been left out
          if (this.o.chainKeys.isOurs(message)) this.queue = this.queue.then(() => this.startChain(chainId)).catch((err: unknown) => this.o.logger.error({ err, chain: chainId }, 'a private chain could not start'));
          else if (this.workers.has(chainId)) this.queue = this.queue.then(() => this.checkStillMember(chainId)).catch((err: unknown) => this.o.logger.error({ err, chain: chainId }, 'a private chain\'s keys could not be read'));
          // else another organizations' chain: nothing of it is this node's to read
        }
        if (m.seq >= last) {
          await this.queue;
          caughtUp();
        }
      }
    })().catch((err: unknown) => this.o.logger.error({ err }, 'the genesis consumer stopped'));
    await ready;
  }

  private async startChain(chainId: ChainId): Promise<void> {
    if (this.stopped) return;
    if (this.workers.has(chainId)) return this.checkStillMember(chainId);
    if (!currentKey(await this.o.chainKeys.ring(chainId))) return;
    const genesis = await this.o.chainKeys.genesisOf(chainId);
    const why = privateGenesisError(genesis);
    if (why) {
      this.o.logger.error({ chain: genesis.chainId, why }, 'a genesis of the GENESIS stream is not a private chain\'s; skipped');
      return;
    }
    const token = chainToken(genesis.chainId);
    const store = openChainStore(join(this.o.dataDir, 'block', token), genesis.chainId, this.o.logger);
    const mainChainCertificate = (address: string, at: number) => validCertificateOf(this.o.mainState, address, at)?.certificateString ?? null;
    const onApplied = (exec: ExecResult) => this.followMembership(exec);
    const keys = this.o.chainKeys.keyring(chainId);
    const worker = new ChainWorker({ ...this.o.workerOptions, genesis, store, mainChainCertificate, keys, onApplied });
    try {
      await worker.start();
    } catch (err) {
      await worker.stop().catch(() => {});
      await store.close();
      throw err;
    }
    this.workers.set(genesis.chainId, { worker, store });
    this.o.held.set(genesis.chainId, { chainId: genesis.chainId, store, health: () => worker.health(), status: () => worker.status() });
  }

  /**
   * A block's governance events move the chain's keys: an organization
   * admitted gets them for its nodes; one that left leaves a new key behind,
   * for the nodes that stay, from this block on. If this node is the one
   * left out, its worker stops (after this block, which it applied as a member).
   */
  private async followMembership(exec: ExecResult): Promise<void> {
    for (const receipt of exec.receipts) {
      if (receipt.status !== 'Success') continue;
      for (const event of receipt.events) {
        if (event.address !== GOVERNANCE_ADDRESS) continue;
        const organization = event.args[0]?.[1];
        if (typeof organization !== 'string' || organization === '') continue;
        if (MEMBER_ADDED_EVENTS.includes(event.name)) await this.o.chainKeys.grantTo(exec.chainId, organization);
        if (ORGANIZATION_REMOVED_EVENTS.includes(event.name)) await this.o.chainKeys.rekeyWithout(exec.chainId, exec.block.number, organization);
      }
    }
    // not from inside the worker's own loop, which is running this
    setImmediate(() => {
      this.queue = this.queue.then(() => this.checkStillMember(exec.chainId)).catch((err: unknown) => this.o.logger.error({ err, chain: exec.chainId }, 'a private chain\'s keys could not be read'));
    });
  }

  /** Stops a chain whose current key this node no longer holds: its organization left it. Its store keeps what it had. */
  private async checkStillMember(chainId: ChainId): Promise<void> {
    const running = this.workers.get(chainId);
    if (!running) return;
    if (currentKey(await this.o.chainKeys.reload(chainId))) return;
    this.o.logger.info({ chain: chainId }, 'this node\'s organization left the chain: it no longer runs it');
    this.workers.delete(chainId);
    this.o.held.delete(chainId);
    await running.worker.stop();
    await running.store.close();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.resolve(this.messages?.stop()).catch(() => {});
    await this.queue;
    for (const [chainId, { worker, store }] of this.workers) {
      this.o.held.delete(chainId);
      await worker.stop();
      await store.close();
    }
    this.workers.clear();
  }
}
