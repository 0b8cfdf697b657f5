// The block service: orders admitted transactions into blocks, executes them
// (SolidVM; EVM behind the same seam), keeps world state with a state root per
// block, and publishes each applied block's execution results. See README.md.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { MAIN_CHAIN, type Logger, type NodeConfig } from '@platform/common';
import { STREAMS, busJetStream, streamTopology, chainToken, connectBus, serve, type BusCredentials, type BusJetStream } from '@platform/bus';
import { ChainWorker, type BlockHooks } from './chain/worker.js';
import { ChainKeys } from './chain/chain-keys.js';
import { PrivateChains } from './chain/private-chains.js';
import { NetworkValidators } from './chain/validators.js';
import { blockHandlers, type HeldChain } from './endpoints.js';
import type { VmExecutors } from './exec/vm.js';
import { createBlockVms } from './exec/vms.js';
import { loadGenesis } from './genesis.js';
import { loadNodeKey } from './node-key.js';
import { DEFAULT_BLOCK_SETTINGS, type BlockSettings } from './settings.js';
import { stateCacheBudget } from './state/cache-budget.js';
import { openChainStore, type Head } from './state/store.js';

export { loadBlockSettings, DEFAULT_BLOCK_SETTINGS, type BlockSettings } from './settings.js';
export { ChainHalted, type BlockHooks } from './chain/worker.js';
export { blockHash, blockIntegrityError, headerRlp, identitiesRoot, signBlock, transactionLeaf, transactionsRoot } from './block.js';
export { EVM_UNAVAILABLE, unavailableEvm } from './exec/evm.js';
export { createBlockVms, type BlockVms } from './exec/vms.js';
export type { VmExecutor, VmExecutors, VmOutcome } from './exec/vm.js';
export type { Head } from './state/store.js';
export { chainStoreDirs, rebuildFromNetwork, type RebuildOptions, type RebuildReport } from './rebuild.js';

export interface BlockServiceOptions {
  config: NodeConfig;
  logger: Logger;
  natsUrl: string;
  /** the service's NATS user; absent only against a test server that admits unauthenticated connections */
  natsCredentials?: BusCredentials | null;
  dataDir: string;
  /** BLOCK_* settings (parsed by loadBlockSettings at the edge); defaults otherwise */
  settings?: BlockSettings;
  /** durable name of the main chain's admitted-transaction consumer; default `block-main-<node>` (each node's own) */
  durable?: string;
  /** replaces the VMs (tests, and the EVM once wired) */
  executors?: VmExecutors;
  /** test-only fault points */
  hooks?: BlockHooks;
}

export interface RunningBlockService {
  /** the main chain's last applied block */
  head(): Head;
  /** why the main chain stopped (a block that does not verify), or null while it runs */
  halted(): Error | null;
  /** the node's block-signing address */
  proposer: string;
  stop(): Promise<void>;
}

const VERSION = '0.1.0';

export async function startBlockService(options: BlockServiceOptions): Promise<RunningBlockService> {
  const { config, logger, dataDir } = options;
  const undo: Array<() => Promise<unknown>> = [];
  const stopAll = async () => {
    for (const step of undo.splice(0)) await step().catch((err: unknown) => logger.warn({ err }, 'stop step failed'));
  };
  try {
    // one budget for the caches of every chain this process holds
    stateCacheBudget.setLimit(config.blockStateCacheMb * 1024 * 1024);
    const genesis = loadGenesis(join(dataDir, 'genesis.json'));
    const key = loadNodeKey(join(dataDir, 'block', 'node.key'));
    const nc = await connectBus({ url: options.natsUrl, name: 'block', credentials: options.natsCredentials ?? null, logger });
    undo.unshift(() => nc.drain());
    const bus = await busJetStream(nc, streamTopology(config));
    // one SolidVM and one EVM for this process: every chain's blocks and the compile endpoint
    const vms = createBlockVms({ indexEvm: config.indexEvm });
    // any service of the node may start first: each declares the streams it uses
    for (const spec of [STREAMS.tx, STREAMS.blocks, STREAMS.exec, STREAMS.geneses, STREAMS.leases, STREAMS.attestations]) await bus.ensure(spec);
    const chain = MAIN_CHAIN;
    const store = openChainStore(join(dataDir, 'block', chainToken(chain)), chain, logger);
    undo.push(() => store.close());
    // the network's validators order every chain, private ones included; governance changes them on the main chain
    const validators = new NetworkValidators(genesis, store);
    const shared = {
      bus,
      key,
      settings: options.settings ?? DEFAULT_BLOCK_SETTINGS,
      gasEnabled: config.gasEnabled,
      // INDEX_EVM: EVM state changes decoded for cirrus (nothing of it computed otherwise)
      executors: options.executors ?? vms.executors,
      logger,
      maxPayload: nc.info?.max_payload ?? 1024 * 1024,
      validators: () => validators.addresses(),
      instance: randomUUID(),
    };
    const worker = new ChainWorker({
      ...shared,
      genesis,
      store,
      ...(options.durable ? { durable: options.durable } : {}),
      ...(options.hooks ? { hooks: options.hooks } : {}),
    });
    // the worker stops before the connection drains and the store closes
    undo.unshift(() => worker.stop());
    await worker.start();
    const held = new Map<string, HeldChain>([[chain, { chainId: chain, store, health: () => worker.health(), status: () => worker.status() }]]);
    const chainKeys = new ChainKeys({ bus, key, node: config.nodeName, validators: () => validators.current(), logger });
    const privateChains = new PrivateChains({ dataDir, logger, held, workerOptions: shared, mainState: store, chainKeys });
    undo.unshift(() => privateChains.stop());
    await privateChains.start();
    // answered once block 0 is applied: the account lookup never sees a store without a head
    const service = await serve(nc, { name: 'block', version: VERSION, description: 'account lookup over the applied state, and compilation', logger }, blockHandlers(held, nc, {
        node: config.nodeName,
        organization: config.nodeOrg,
        key,
        genesis,
        validators: () => validators.current(),
        clusterView: () => clusterView(bus),
      }, chainKeys, vms));
    undo.unshift(() => service.stop());
    // the subscriptions reach the server asynchronously: a round trip makes "started" mean "answering"
    await nc.flush();
    logger.info({ proposer: key.address }, 'block service started');
    let stopping: Promise<void> | undefined;
    return {
      head: () => worker.applied,
      halted: () => worker.haltedBy,
      proposer: key.address,
      stop: () => (stopping ??= stopAll()),
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}

/**
 * The network's servers connected now, as the BLOCKS stream's Raft group sees
 * them: its leader, and the replicas that are current and not offline. A
 * server's name is its node's (the launcher's `server_name`).
 */
async function clusterView(bus: BusJetStream): Promise<{ connected: Set<string>; leader: string | null } | null> {
  const info = await bus.network.jsm.streams.info(STREAMS.blocks.name).catch(() => null);
  const cluster = info?.cluster;
  if (!cluster) return null;
  const connected = new Set<string>(cluster.leader ? [cluster.leader] : []);
  for (const replica of cluster.replicas ?? []) if (replica.current && !replica.offline) connected.add(replica.name);
  return { connected, leader: cluster.leader ?? null };
}
