// What the chains service learns from streams:
// - GENESIS: every private chain's genesis this node is one of (those
//   created through another node, a chain's key granted to this node when
//   its organization joined the chain later, and this node's own should it
//   have crashed between publishing and storing): opened by the block
//   service, which holds the node's key, and stored like a creation here.
//   Other organizations' chains are sealed for their nodes only, and skipped.
// - EXEC: the governance events of each private chain's blocks, applied in
//   block order (the spec's "Events" 3 and 5). Only events the governance
//   contract itself emitted count: any user may send transactions to a
//   private chain, and a contract of their own emitting `OrgAdded` must not
//   let them in.
import type { NatsConnection } from '@nats-io/nats-core';
import { BLOCK, NETWORK_PULL_EXPIRES_MS, genesisMessageIsFor, STREAMS, SUBJECTS, call, consumeExecResults, ensureDurableConsumer, nodeDurable, renewPullOnNewLeader, type BusJetStream, type GenesisStreamMessage } from '@platform/bus';
import { GOVERNANCE_ADDRESS, MAIN_CHAIN, MEMBER_ADDED_EVENTS, MEMBER_REMOVED_EVENTS, PlatformError, chainGenesisText, type EventLog, type ExecResult, type Genesis, type Logger } from '@platform/common';
import { keccak256Hex } from '@platform/crypto';
import { inTransaction, type Client, type Db } from './db.js';
import { addMember, insertChain, removeMembers } from './store.js';

/** the base of this node's consumer of the network's GENESIS stream (`chains-geneses-<node>`) */
export const GENESIS_CONSUMER = 'chains-geneses';
export const MEMBERSHIP_CONSUMER = 'chains-membership';
const EXEC_ACK_WAIT_MS = 5_000;
const EXEC_HEARTBEAT_MS = 1_500;

type Apply = (client: Client, chainId: string, args: string[]) => Promise<void>;

const add: Apply = (client, chainId, [orgName, orgUnit, commonName]) =>
  orgName ? addMember(client, chainId, { orgName, ...(orgUnit ? { orgUnit } : {}), ...(commonName ? { commonName } : {}), access: true }) : Promise.resolve();
const remove: Apply = (client, chainId, [orgName, orgUnit, commonName]) => (orgName ? removeMembers(client, chainId, orgName, orgUnit, commonName) : Promise.resolve());

/** The governance events, by name. */
const GOVERNANCE_EVENTS: Record<string, Apply> = Object.fromEntries([...MEMBER_ADDED_EVENTS.map((name) => [name, add]), ...MEMBER_REMOVED_EVENTS.map((name) => [name, remove])]);

/** Why this is not a private chain's genesis, or null. */
export function genesisError(g: Genesis): string | null {
  if (!g || typeof g !== 'object' || typeof g.chainId !== 'string' || !Array.isArray(g.contracts) || !Array.isArray(g.members) || !Array.isArray(g.accounts)) return 'not a genesis';
  if (g.chainId !== keccak256Hex(chainGenesisText(g))) return 'its chainId is not the hash of its genesis';
  return null;
}

/** Applies one block's governance events, once: a block at or below the chain's applied height changes nothing. */
export async function applyGovernance(pool: Db, exec: ExecResult): Promise<boolean> {
  if (exec.chainId === MAIN_CHAIN) return false;
  return inTransaction(pool, async (client) => {
    const { rows } = await client.query<{ applied_height: string }>('SELECT applied_height FROM chains.chains WHERE chain_id = $1 FOR UPDATE', [exec.chainId]);
    // the genesis consumer has not stored it yet: retried until it has
    if (!rows[0]) throw new Error(`chain ${exec.chainId} is not stored yet`);
    if (Number(rows[0].applied_height) >= exec.block.number) return false;
    for (const receipt of exec.receipts) {
      if (receipt.status !== 'Success') continue;
      if (exec.block.number === 0) {
        const governance = receipt.contractsCreated.find((c) => c.address === GOVERNANCE_ADDRESS);
        if (governance) await client.query('UPDATE chains.chains SET code_hash = $2 WHERE chain_id = $1', [exec.chainId, governance.codeHash]);
      }
      for (const event of receipt.events) await applyEvent(client, exec.chainId, event);
    }
    await client.query('UPDATE chains.chains SET applied_height = $2 WHERE chain_id = $1', [exec.chainId, exec.block.number]);
    return true;
  });
}

async function applyEvent(client: Client, chainId: string, event: EventLog): Promise<void> {
  if (event.address !== GOVERNANCE_ADDRESS || event.chainId !== chainId) return;
  const apply = GOVERNANCE_EVENTS[event.name];
  if (apply) await apply(client, chainId, event.args.map(([, value]) => value));
}

export async function startConsumers(options: { nc: NatsConnection; bus: BusJetStream; pool: Db; logger: Logger; visibilityChanged: () => void }): Promise<{ stop(): Promise<void> }> {
  const { nc, bus, pool, logger, visibilityChanged } = options;
  const node = bus.topology.node;
  const genesisConsumer = nodeDurable(GENESIS_CONSUMER, bus.topology.node);
  await ensureDurableConsumer(bus.node.jsm, { stream: STREAMS.exec.name, durable: MEMBERSHIP_CONSUMER, ackWaitMs: EXEC_ACK_WAIT_MS, maxAckPending: 1 });
  await ensureDurableConsumer(bus.network.jsm, { stream: STREAMS.geneses.name, durable: genesisConsumer });
  let stopping = false;
  const geneses = await (await bus.network.js.consumers.get(STREAMS.geneses.name, genesisConsumer)).consume({ expires: NETWORK_PULL_EXPIRES_MS });
  // when a node stops, the consumers it led move, and their waiting pulls are lost with them
  const renewal = renewPullOnNewLeader(nc, STREAMS.geneses.name, genesisConsumer, geneses, () => logger.info({ durable: genesisConsumer }, 'the genesis consumer has a new leader: pulling again'));
  const genesisLoop = (async () => {
    for await (const m of geneses) {
      let message: GenesisStreamMessage | null = null;
      try {
        message = m.json<GenesisStreamMessage>();
      } catch {
        // nothing to store
      }
      if (!message || typeof message.chainId !== 'string') {
        logger.error({ seq: m.seq }, 'a message of the GENESIS stream is not a sealed genesis or a chain\'s keys; skipped');
        m.term();
        continue;
      }
      // another organizations' chain: this node cannot read it, and does not hold it
      if (!genesisMessageIsFor(message, node)) {
        m.ack();
        continue;
      }
      const chainId = message.chainId;
      for (let attempt = 0; !stopping; attempt++) {
        try {
          const genesis = await call(nc, BLOCK.chainGenesis, { chainId });
          const why = genesisError(genesis);
          if (why) {
            logger.error({ seq: m.seq, chain: chainId, why }, 'a genesis of the GENESIS stream is not a private chain\'s; skipped');
            m.term();
            break;
          }
          await inTransaction(pool, (client) => insertChain(client, genesis, ''));
          visibilityChanged();
          m.ack();
          break;
        } catch (err) {
          // for good: the block service holds no key for it, or what it sealed is not the chain's genesis
          if (err instanceof PlatformError && (err.code === 'CHAIN_NOT_FOUND' || err.code === 'GENESIS_INVALID')) {
            logger.error({ chain: chainId, why: err.message }, 'a genesis sealed for this node cannot be stored; skipped');
            m.term();
            break;
          }
          logger.warn({ err, chain: chainId, attempt }, 'storing a genesis failed; retrying');
          m.working();
          await new Promise((r) => setTimeout(r, Math.min(5_000, 100 * 2 ** attempt)));
        }
      }
    }
  })().catch((err: unknown) => logger.error({ err }, 'the genesis consumer stopped'));
  const membership = await consumeExecResults({
    js: bus.node.js,
    durable: MEMBERSHIP_CONSUMER,
    logger,
    heartbeatMs: EXEC_HEARTBEAT_MS,
    work: 'applying governance events',
    // the main chain has no governance: its results (nearly every block) are not even parsed
    wanted: (subject) => subject !== SUBJECTS.exec.results(MAIN_CHAIN),
    apply: async (_seq, exec) => {
      // committed first, then told: whoever remembers who sees which chain asks again
      if (await applyGovernance(pool, exec)) visibilityChanged();
    },
  });
  return {
    async stop() {
      stopping = true;
      await membership.stop();
      renewal.unsubscribe();
      await geneses.close();
      await genesisLoop;
    },
  };
}
