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
import { NETWORK_PULL_EXPIRES_MS, STREAMS, chainToken, type ChainKeyGrant, type SealedGenesis } from '@platform/bus';
import { validCertificateOf } from '@platform/identity';
import type { HeldChain } from '../endpoints.js';
import { ChainStore } from '../state/store.js';
import type { ChainKeys } from './chain-keys.js';
import { privateGenesisError } from './private-genesis.js';
import { ChainWorker, type ChainWorkerOptions } from './worker.js';

export interface PrivateChainsOptions {
  dataDir: string;
  logger: Logger;
  /** the chains this node answers for (the main chain's included): new ones are added here */
  held: Map<ChainId, HeldChain>;
  /** what every worker shares (keys, settings, VMs, …) */
  workerOptions: Omit<ChainWorkerOptions, 'genesis' | 'store' | 'durable' | 'hooks' | 'mainChainCertificate' | 'chainKey' | 'onApplied'>;
  /** this node's keys of private chains: which chains are this node's, and how to read them */
  chainKeys: ChainKeys;
  /** the main chain's applied state, whose certificate registry gives a private chain's senders their identities */
  mainState: Pick<ChainStore, 'getStorage'>;
}

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
        let message: SealedGenesis | ChainKeyGrant | null = null;
        try {
          message = m.json<SealedGenesis | ChainKeyGrant>();
        } catch {
          this.o.logger.error({ seq: m.seq }, 'a message of the GENESIS stream is not JSON; skipped');
        }
        // another organizations' chain: nothing of it is this node's to read
        if (message && typeof message.chainId === 'string' && this.o.chainKeys.isOurs(message)) {
          const chainId = message.chainId;
          this.queue = this.queue.then(() => this.startChain(chainId)).catch((err: unknown) => this.o.logger.error({ err, chain: chainId }, 'a private chain could not start'));
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
    if (this.stopped || this.workers.has(chainId)) return;
    const chainKey = await this.o.chainKeys.keyOf(chainId);
    if (!chainKey) return;
    const genesis = await this.o.chainKeys.genesisOf(chainId);
    const why = privateGenesisError(genesis);
    if (why) {
      this.o.logger.error({ chain: genesis.chainId, why }, 'a genesis of the GENESIS stream is not a private chain\'s; skipped');
      return;
    }
    const token = chainToken(genesis.chainId);
    const store = new ChainStore(join(this.o.dataDir, 'block', token));
    const mainChainCertificate = (address: string, at: number) => validCertificateOf(this.o.mainState, address, at)?.certificateString ?? null;
    const onApplied = (exec: ExecResult) => this.grantKeys(exec);
    const worker = new ChainWorker({ ...this.o.workerOptions, genesis, store, mainChainCertificate, chainKey, onApplied });
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

  /** The organizations a block's governance events admitted get the chain's key for their nodes. */
  private async grantKeys(exec: ExecResult): Promise<void> {
    for (const receipt of exec.receipts) {
      if (receipt.status !== 'Success') continue;
      for (const event of receipt.events) {
        if (event.address !== GOVERNANCE_ADDRESS || !MEMBER_ADDED_EVENTS.includes(event.name)) continue;
        const organization = event.args[0]?.[1];
        if (typeof organization === 'string' && organization !== '') await this.o.chainKeys.grantTo(exec.chainId, organization);
      }
    }
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
