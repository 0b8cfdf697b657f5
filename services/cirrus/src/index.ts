// Cirrus: the indexed read model of the node. A durable consumer of this
// node's execution results (`exec.>`) keeps, in the PostgreSQL schema
// `cirrus`, one table per contract, history, event and side tables; the
// `cirrus.search` endpoint answers PostgREST queries on them through
// @platform/query. See README.md.
import { STREAMS, VisibleChains, busJetStream, streamTopology, connectBus, deleteDurableConsumer, ensureDurableConsumer, handle, serve, type BusCredentials } from '@platform/bus';
import { runStopSteps, type Logger, type NodeConfig } from '@platform/common';
import { CIRRUS } from '@platform/bus';
import { CIRRUS_CONSUMER, EXEC_ACK_WAIT_MS, EXEC_HEARTBEAT_MS, EXEC_MAX_IN_FLIGHT, appliedSequence, startIndexer } from './consumer.js';
import { createPool, dropReadModel, migrate } from './db.js';
import { TableResolver, search } from '@platform/cirrus-read';

export { CIRRUS_CONSUMER, appliedSequence } from './consumer.js';
export { formatTimestamp } from './indexer.js';

export interface CirrusOptions {
  config: NodeConfig;
  logger: Logger;
  natsUrl: string;
  /** the service's NATS user; absent only against a test server that admits unauthenticated connections */
  natsCredentials?: BusCredentials | null;
  databaseUrl: string;
  /**
   * the read-only role other processes read the schema as (CIRRUS_READ_ROLE:
   * the gateway's read path): granted USAGE and SELECT on the schema and on
   * every table in it, present and future, at every start; null: none
   */
  readRole?: string | null;
  /** how long an exec message may stay unacknowledged before redelivery; default EXEC_ACK_WAIT_MS (5 s) */
  execAckWaitMs?: number;
  /** drop the read model and rebuild it from the first message of `exec.*` (run with no other instance) */
  reindex?: boolean;
  /** tests: called after each exec message is applied (or found applied) and acknowledged */
  onApplied?: (seq: number) => void;
}

export interface RunningCirrus {
  /** endpoint, indexer, NATS, database pool; idempotent */
  stop(): Promise<void>;
}

const VERSION = '0.1.0';

export async function startCirrus(options: CirrusOptions): Promise<RunningCirrus> {
  const { logger } = options;
  const undo: Array<() => Promise<unknown>> = [];
  const pool = createPool(options.databaseUrl);
  pool.on('error', (err) => logger.warn({ err }, 'an idle database connection failed'));
  undo.unshift(() => pool.end());
  try {
    const nc = await connectBus({ url: options.natsUrl, name: 'cirrus', credentials: options.natsCredentials ?? null, logger });
    undo.unshift(() => nc.drain());
    const bus = await busJetStream(nc, streamTopology(options.config));
    await bus.ensure(STREAMS.exec);
    // the read model is this node's own: its results' stream is in the node's account
    const { jsm, js } = bus.node;
    if (options.reindex) {
      await dropReadModel(pool);
      logger.info('reindex: the read model was dropped; it is rebuilt from the first execution result');
    }
    const { rebuild } = await migrate(pool, { readRole: options.readRole ?? null });
    if (rebuild) logger.info('the read model changed shape; it is rebuilt from the first execution result');
    const ackWaitMs = options.execAckWaitMs ?? EXEC_ACK_WAIT_MS;
    // an empty model — a first start, a reindex, a rebuild, or a crash in the
    // middle of one — is filled from the stream's first message: a new
    // consumer delivers everything again (an old one would resume past it)
    if ((await appliedSequence(pool)) === 0) await deleteDurableConsumer(jsm, STREAMS.exec.name, CIRRUS_CONSUMER);
    await ensureDurableConsumer(jsm, { stream: STREAMS.exec.name, durable: CIRRUS_CONSUMER, filterSubject: 'exec.>', ackWaitMs, maxAckPending: EXEC_MAX_IN_FLIGHT });
    const streamFirstSeq = (await jsm.streams.info(STREAMS.exec.name)).state.first_seq;
    const indexer = await startIndexer({ js, pool, logger, streamFirstSeq, index: { indexEvm: options.config.indexEvm }, heartbeatMs: Math.min(EXEC_HEARTBEAT_MS, ackWaitMs / 3), ...(options.onApplied ? { onApplied: options.onApplied } : {}) });
    undo.unshift(() => indexer.stop());
    const resolver = new TableResolver(pool, options.databaseUrl, logger);
    await resolver.start();
    undo.unshift(() => resolver.stop());
    const visible = new VisibleChains(nc, logger);
    undo.unshift(async () => visible.stop());
    const service = await serve(nc, { name: 'cirrus', version: VERSION, description: 'the indexed read model and its query endpoint', logger }, [
      handle(CIRRUS.search, async (request, meta) => search(pool, resolver, request, await visible.of(request, meta.requestId))),
    ]);
    undo.unshift(() => service.stop());
    await nc.flush();
    logger.info('cirrus started');
    let stopping: Promise<void> | undefined;
    return { stop: () => (stopping ??= runStopSteps(undo, logger)) };
  } catch (err) {
    await runStopSteps(undo, logger);
    throw err;
  }
}
