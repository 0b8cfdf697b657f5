// The chains service: private chains' creation and genesis, membership from
// governance events, the chain records, and which chains a user may see. See
// README.md.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_PROTOCOL, type Genesis, type Logger, type NodeConfig, type ProtocolParams } from '@platform/common';
import { STREAMS, SUBJECTS, busJetStream, streamTopology, connectBus, deleteDurableConsumer, serve, type BusCredentials } from '@platform/bus';
import { MEMBERSHIP_CONSUMER, startConsumers } from './consumers.js';
import { createPool, inTransaction, migrate } from './db.js';
import { resetMembership } from './store.js';
import { chainsHandlers } from './endpoints.js';
import { Who } from './who.js';

export { GENESIS_CONSUMER, MEMBERSHIP_CONSUMER, applyGovernance } from './consumers.js';
export { MAX_CHAINS_PER_REQUEST } from './create.js';
export { AUTO_APPROVE_SOURCE } from './auto-approve.js';

export interface ChainsServiceOptions {
  config: Pick<NodeConfig, 'dataDir' | 'nodeOrg' | 'nodeName' | 'networkReplicas'>;
  logger: Logger;
  natsUrl: string;
  /** the service's NATS user; absent only against a test server that admits unauthenticated connections */
  natsCredentials?: BusCredentials | null;
  databaseUrl: string;
  /** every chain's membership back to its genesis before consuming (the node's `--rebuild`: the governance events are applied again from the results published anew) */
  rebuild?: boolean;
}

export interface RunningChainsService {
  stop(): Promise<void>;
}

const VERSION = '0.1.0';

/** The main chain's protocol parameters, from the node's genesis; the defaults when the node has none (tests). */
function mainProtocol(dataDir: string): ProtocolParams {
  const path = join(dataDir, 'genesis.json');
  if (!existsSync(path)) return DEFAULT_PROTOCOL;
  return (JSON.parse(readFileSync(path, 'utf8')) as Genesis).protocol ?? DEFAULT_PROTOCOL;
}

export async function startChainsService(options: ChainsServiceOptions): Promise<RunningChainsService> {
  const { logger } = options;
  const undo: Array<() => Promise<unknown>> = [];
  const stopAll = async () => {
    for (const step of undo.splice(0)) await step().catch((err: unknown) => logger.warn({ err }, 'stop step failed'));
  };
  try {
    const pool = createPool(options.databaseUrl);
    // an idle connection the server drops must not end the process: the next query reconnects
    pool.on('error', (err) => logger.warn({ err }, 'an idle database connection failed'));
    undo.push(() => pool.end());
    await migrate(pool);
    if (options.rebuild) logger.warn({ chains: await inTransaction(pool, resetMembership) }, 'rebuild: membership is back to each chain\'s genesis; the governance events are applied again as the blocks are executed again');
    const nc = await connectBus({ url: options.natsUrl, name: 'chains', credentials: options.natsCredentials ?? null, logger });
    undo.unshift(() => nc.drain());
    const bus = await busJetStream(nc, streamTopology(options.config));
    // any service of the node may start first: each declares the streams it uses
    for (const spec of [STREAMS.exec, STREAMS.geneses]) await bus.ensure(spec);
    // membership back to the geneses, every governance event must come again: after the block
    // service's rebuild step the consumer is gone with its stream, but a restart that repeats
    // the flag (a Kubernetes container's args) finds it past the events
    if (options.rebuild) await deleteDurableConsumer(bus.node.jsm, STREAMS.exec.name, MEMBERSHIP_CONSUMER);
    const consumers = await startConsumers({ nc, bus, pool, logger, visibilityChanged: () => nc.publish(SUBJECTS.chains.visibilityChanged) });
    undo.unshift(() => consumers.stop());
    // whoever remembers who sees which chain asks again
    if (options.rebuild) nc.publish(SUBJECTS.chains.visibilityChanged);
    const deps = { nc, js: bus.network.js, pool, logger, who: new Who(nc, options.config.nodeOrg), protocol: mainProtocol(options.config.dataDir) };
    const service = await serve(nc, { name: 'chains', version: VERSION, description: 'private chains: creation, records, membership', logger }, chainsHandlers(deps));
    undo.unshift(() => service.stop());
    await nc.flush();
    logger.info('chains service started');
    let stopping: Promise<void> | undefined;
    return { stop: () => (stopping ??= stopAll()) };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
