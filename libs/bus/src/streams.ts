// The JetStream streams, declared once here so that every service of every
// node that publishes to or consumes from one declares it identically (any of
// them may start first). Retention: limits (kept), since blocks and execution
// results are the source of truth from which every read model is rebuilt.
//
// Two scopes (docs/network.md): the network's streams live in the NETWORK
// account, shared by every node and replicated across their servers; a node's
// own streams live in its account, on its own server.
import { StorageType, type Placement, type StreamConfig } from '@nats-io/jetstream';
import type { NodeConfig } from '@platform/common';

/** A stream's configuration as declared here: its name and subjects, the rest the server's defaults unless given. */
export type StreamSpec = Pick<StreamConfig, 'name' | 'subjects'> & Partial<StreamConfig>;

export type StreamScope = 'network' | 'node';

/** how long a proposer's lease lasts after its last renewal: a dead proposer's chain waits at most this long (plus the stream's own failover) */
export const PROPOSER_LEASE_MS = 3_000;
export type ScopedStreamSpec = StreamSpec & { scope: StreamScope };

export const STREAMS = {
  /** admitted transactions, `tx.admitted.<chain>`: one (msgID = its hash) or a list published together (msgID `list:<sha256 of the hashes>`) */
  tx: { name: 'TX', subjects: ['tx.admitted.>'], scope: 'network' },
  /**
   * ordered blocks, `block.<chain>`, msgID `<chain>:<height>`: what was
   * decided. Direct gets: any server holding the stream answers a read by
   * sequence, so a node whose block consumer went down with a stopped server
   * fetches the blocks it misses from the others (services/block, worker.ts)
   */
  blocks: { name: 'BLOCKS', subjects: ['block.>'], scope: 'network', allow_direct: true },
  /**
   * this node's execution results, `exec.<chain>`, msgID = `<chain>:<height>`.
   * Nothing else may go in: cirrus applies them in order, none skipped, by
   * stream sequence (services/cirrus, consumer.ts), which relies on every
   * message of the stream being an execution result it receives.
   */
  exec: { name: 'EXEC', subjects: ['exec.>'], scope: 'node' },
  /**
   * the parts of execution results too large for one message,
   * `exec-part.<chain>.<height>.<i>`, msgID `<chain>:<height>:<i>`; the
   * result's message on EXEC refers to them (exec-results.ts). Kept like EXEC.
   */
  execParts: { name: 'EXEC_PARTS', subjects: ['exec-part.>'], scope: 'node' },
  /** private chains' geneses, `genesis.<chain>`, msgID = chain ID: every block service starts each chain from it */
  geneses: { name: 'GENESIS', subjects: ['genesis.>'], scope: 'network' },
  /**
   * who proposes each chain's blocks, `lease.<chain>`: the holder's last
   * renewal, the only message kept per chain, gone PROPOSER_LEASE_MS after
   * it was written (services/block, chain/lease.ts)
   */
  leases: { name: 'LEASES', subjects: ['lease.>'], scope: 'network', max_msgs_per_subject: 1, max_age: PROPOSER_LEASE_MS * 1_000_000, duplicate_window: PROPOSER_LEASE_MS * 1_000_000 },
  /**
   * what each node computed, `attest.<chain>.<node>`, msgID
   * `<chain>:<height>:<node>` (services/block, chain/attestations.ts): the
   * latest ones matter, so each node's last few hundred per chain are kept,
   * for an hour at most, in memory (replicated, not written to disk: an
   * attestation lost with every copy is one voice less at one height)
   */
  attestations: { name: 'ATTEST', subjects: ['attest.>'], scope: 'network', storage: StorageType.Memory, max_msgs_per_subject: 256, max_age: 3_600 * 1_000_000_000 },
} as const satisfies Record<string, ScopedStreamSpec>;

/** Where this node sits in its network: what a stream's declaration depends on. */
export interface StreamTopology {
  /** the node's name (its NATS server's name and placement tag) */
  node: string;
  /** copies of each network stream: min(nodes, 3), the same on every node */
  replicas: number;
}

/** A node's topology as its configuration says (NODE_NAME, NETWORK_REPLICAS). */
export function streamTopology(config: Pick<NodeConfig, 'nodeName' | 'networkReplicas'>): StreamTopology {
  return { node: config.nodeName, replicas: config.networkReplicas };
}

/** The server tag that places a node's own streams on its own server. */
export function nodePlacementTag(node: string): string {
  return `node:${node}`;
}

/** A stream's configuration on this node: the network's replicated, a node's own placed on its server. */
export function declaredStream(spec: ScopedStreamSpec, topology: StreamTopology): StreamSpec {
  const { scope, ...config } = spec;
  if (scope === 'network') return { ...config, num_replicas: topology.replicas };
  return { ...config, num_replicas: 1, placement: { tags: [nodePlacementTag(topology.node)] } as Placement };
}
