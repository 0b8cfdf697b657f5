// Rebuilding this node's execution from the network (docs/network.md
// "Rebuilding a node from the network"). A node that applied a block the
// network later replaced holds, in its block stores, its results stream and
// everything derived from that, a history that is not the network's; it halts
// and cannot go on. The network's streams (blocks, geneses) are the truth and
// everything this service wrote from them can be made again: this step
// empties the chain stores and the node's results streams, and the next start
// re-executes every chain from its first block, checking each against its
// header as any follower does.
//
// It runs alone, before the node's services start (the launcher's
// `--rebuild`), so that no consumer reads an old result meanwhile; the
// transaction service and cirrus drop what they derived at their own next
// start (`--rebuild`, `--reindex`). The results streams are deleted and
// declared anew rather than purged: nats-server 2.9.10 keeps a purged
// stream's duplicate window, which would drop the results published again
// under their old message IDs (`<chain>:<height>`) for two minutes. Their
// consumers go with them, and each service declares its own again at start.
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger, NodeConfig } from '@platform/common';
import { STREAMS, busJetStream, connectBus, streamTopology, type BusCredentials, type BusJetStream, type ScopedStreamSpec } from '@platform/bus';

export interface RebuildOptions {
  config: NodeConfig;
  logger: Logger;
  natsUrl: string;
  natsCredentials?: BusCredentials | null;
  dataDir: string;
}

/** What the rebuild removed: the chain stores' directories, and how many messages each results stream held. */
export interface RebuildReport {
  stores: string[];
  purged: Record<string, number>;
}

/** The chain stores under `<dataDir>/block`: every directory there; the node's key (a file) stays. */
export function chainStoreDirs(dataDir: string): string[] {
  const root = join(dataDir, 'block');
  let entries;
  try {
    entries = readdirSync(root, { withFileTypes: true });
  } catch {
    return []; // a node that never started: nothing to rebuild
  }
  return entries.filter((e) => e.isDirectory()).map((e) => join(root, e.name));
}

/** Deletes the stream and declares it again, empty; answers how many messages it held. */
async function recreate(bus: BusJetStream, spec: ScopedStreamSpec): Promise<number> {
  const { jsm } = bus.node;
  let held = 0;
  try {
    held = (await jsm.streams.info(spec.name)).state.messages;
    await jsm.streams.delete(spec.name);
  } catch (err) {
    // 10059: there was none (a node that never started its services)
    if ((err as { api_error?: { err_code?: number } })?.api_error?.err_code !== 10059) throw err;
  }
  await bus.ensure(spec);
  return held;
}

/** Empties the chain stores and the node's results streams; the next start re-executes every chain from the network's blocks. */
export async function rebuildFromNetwork(options: RebuildOptions): Promise<RebuildReport> {
  const { logger } = options;
  const nc = await connectBus({ url: options.natsUrl, name: 'block-rebuild', credentials: options.natsCredentials ?? null, logger });
  try {
    const bus = await busJetStream(nc, streamTopology(options.config));
    // the stores first: stopped between the two steps, a store that is gone
    // is executed again in full, while a store left beside purged results
    // would publish only what its outbox holds (and the step can be run again)
    const stores = chainStoreDirs(options.dataDir);
    for (const dir of stores) rmSync(dir, { recursive: true, force: true });
    const purged: Record<string, number> = {};
    // the references first: none is left naming parts that are gone
    for (const spec of [STREAMS.exec, STREAMS.execParts]) purged[spec.name] = await recreate(bus, spec);
    logger.warn({ purged, stores: stores.length }, 'rebuild: the chain stores and this node\'s results are gone; every chain is executed again from the network\'s blocks at the next start');
    return { stores, purged };
  } finally {
    await nc.drain().catch(() => {});
  }
}
