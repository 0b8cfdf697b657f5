// The transaction service: admission of vault-signed and raw transactions
// (nonces, signatures, limits), the outbox to `tx.admitted.<chain>`, the
// results store fed by this node's execution (`exec.<chain>`), and the faucet.
import { STREAMS, VAULT, batchingCaller, busJetStream, streamTopology, connectBus, deleteDurableConsumer, serve, type BusCredentials } from '@platform/bus';
import { runStopSteps, type Logger, type NodeConfig } from '@platform/common';
import { EXEC_ACK_WAIT_MS, EXEC_CONSUMER, declareExecConsumer, startExecConsumer } from './consumer.js';
import { ChainGate } from './chains.js';
import { mainProtocol } from './gas-price.js';
import { IdentityGate } from './checks.js';
import { RawAdmissions } from './raw-batch.js';
import { createPool, migrate } from './db.js';
import { txHandlers } from './endpoints.js';
import { loadFaucet, type Faucet } from './faucet.js';
import { Outbox, type Faults } from './outbox.js';
import { ChainSealer } from './chain-seal.js';
import { AdmittedCache } from './admitted-cache.js';
import { RecentResults } from './recent-results.js';
import { NonceBook } from './nonce-book.js';
import { expireIdempotencyKeys, forgetFinalResults } from './store.js';

export { IdentityGate, POSITIVE_TTL_MS } from './checks.js';
export { FAUCET_AMOUNT } from './faucet.js';
export type { Faults } from './outbox.js';

export interface TransactionServiceOptions {
  config: NodeConfig;
  logger: Logger;
  natsUrl: string;
  /** the service's NATS user; absent only against a test server that admits unauthenticated connections */
  natsCredentials?: BusCredentials | null;
  databaseUrl: string;
  /** the faucet account's key; default: generated at the first start and kept in the `tx` schema */
  faucetPrivateKey?: Uint8Array;
  /** how often unpublished outbox rows are retried; default 5 s */
  outboxSweepMs?: number;
  /** how long an exec message may stay unacknowledged before redelivery; default EXEC_ACK_WAIT_MS */
  execAckWaitMs?: number;
  /** tests only: simulate crashes between the writes of an invariant */
  faults?: Faults;
  /** forget every final result before consuming (the node's `--rebuild`: they are published again) */
  rebuild?: boolean;
}

export interface RunningTransactionService {
  faucetAddress: string;
  /** endpoints, consumer, sweeper, NATS, database pool; idempotent */
  stop(): Promise<void>;
}

const VERSION = '0.1.0';

export async function startTransactionService(options: TransactionServiceOptions): Promise<RunningTransactionService> {
  const { config, logger } = options;
  // the steps that undo the start, newest first
  const undo: Array<() => Promise<unknown>> = [];
  const pool = createPool(options.databaseUrl);
  const markPool = createPool(options.databaseUrl, { max: 1, asyncCommit: true });
  // final results, recorded without waiting for the WAL flush (consumer.ts says why that loses nothing)
  const resultsPool = createPool(options.databaseUrl, { max: 2, asyncCommit: true });
  for (const p of [pool, markPool, resultsPool]) p.on('error', (err) => logger.warn({ err }, 'an idle database connection failed'));
  undo.unshift(() => Promise.all([pool.end(), markPool.end(), resultsPool.end()]));
  try {
    let faucet: Faucet | undefined;
    await migrate(pool, async (client) => {
      faucet = await loadFaucet(client, options.faucetPrivateKey);
      if (options.rebuild) logger.warn({ forgotten: await forgetFinalResults(client) }, 'rebuild: the final results are forgotten; they are recorded again as the blocks are executed again');
    });

    const nc = await connectBus({ url: options.natsUrl, name: 'transaction', credentials: options.natsCredentials ?? null, logger });
    undo.unshift(() => nc.drain());
    const bus = await busJetStream(nc, streamTopology(config));
    // any of the services sharing a stream may start first: each declares it identically
    await bus.ensure(STREAMS.tx);
    await bus.ensure(STREAMS.exec);
    // the results forgotten, the consumer must deliver every result again: after the block
    // service's rebuild step it is gone with its stream, but a restart that repeats the flag
    // (a Kubernetes container's args) finds it past what was forgotten
    if (options.rebuild) await deleteDurableConsumer(bus.node.jsm, STREAMS.exec.name, EXEC_CONSUMER);
    await declareExecConsumer(bus.node.jsm, options.execAckWaitMs ?? EXEC_ACK_WAIT_MS);

    // admitted transactions go to the network's stream; this node's results come from its own
    const outbox = new Outbox(bus.network.js, pool, markPool, logger, new ChainSealer(nc), options.faults, nc.info?.max_payload);
    undo.unshift(() => outbox.marksWritten());
    // what a crash left between commit and publish goes out before anything new
    const republished = await outbox.sweep();
    if (republished > 0) logger.info({ republished }, 'published the transactions a previous run had stored but not published');
    const sweepMs = options.outboxSweepMs ?? 5_000;
    const stopSweeper = outbox.startSweeper(sweepMs, () => expireIdempotencyKeys(pool));
    undo.unshift(async () => stopSweeper());

    const admitted = new AdmittedCache();
    const recent = new RecentResults();
    const consumer = await startExecConsumer({ nc, js: bus.node.js, jsm: bus.node.jsm, pool: resultsPool, logger, admitted, recent, faults: options.faults });
    undo.unshift(() => consumer.stop());

    // the main chain's rules (its minimum gas price) are the node's genesis's; a private chain's come with the chains service's answer
    const chains = new ChainGate(nc, mainProtocol(config.dataDir));
    undo.unshift(async () => chains.stop());
    const deps = { pool, nc, vaultSign: batchingCaller(nc, VAULT.sign), outbox, raw: new RawAdmissions(pool), admitted, recent, nonces: new NonceBook(pool), faucet: faucet!, identity: new IdentityGate(nc, config), chains, config };
    const service = await serve(nc, { name: 'tx', version: VERSION, description: 'transaction admission, results and the faucet', logger }, txHandlers(deps));
    undo.unshift(() => service.stop());
    // the subscriptions reach the server asynchronously: a round trip makes "started" mean "answering"
    await nc.flush();
    logger.info({ faucet: faucet!.address }, 'transaction service started');

    let stopping: Promise<void> | undefined;
    return { faucetAddress: faucet!.address, stop: () => (stopping ??= runStopSteps(undo, logger)) };
  } catch (err) {
    await runStopSteps(undo, logger);
    throw err;
  }
}

