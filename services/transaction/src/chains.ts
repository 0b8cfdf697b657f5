// The chain dimension of admission and results (issue "Private chains";
// docs/private-chains.md):
// - a transaction to a chain this node does not have is refused with 404
//   (the spec: "informative error message"): it would otherwise wait forever,
//   since no block service consumes a chain that does not exist. Any user may
//   send to a default private chain, so existence is all that is checked for
//   it; chains are never deleted, so such a chain seen once is remembered.
// - a members-only chain (`membersOnly` in its genesis) admits its members'
//   transactions only: to anyone else the chains service answers that it does
//   not exist, and the refusal is that of a chain that does not exist, the
//   same status, code, message and details, so the chain's existence does not
//   leak either. Membership changes, so that answer is remembered briefly, per
//   user, and forgotten when the chains service says visibility changed.
// - a private chain's results are its members' to read, and the sender's of
//   each transaction: to anyone else the hash is as unknown as one that does
//   not exist. The chains service answers which chains a user may see.
import type { NatsConnection, Subscription } from '@nats-io/nats-core';
import { CHAINS, SUBJECTS, call } from '@platform/bus';
import { PlatformError, type ProtocolParams } from '@platform/common';

const KNOWN_LIMIT = 100_000;
/** how long a member's admission to a members-only chain is remembered (the chains service's own view of a user is as old as 2 s) */
const MEMBER_TTL_MS = 2_000;
const MEMBER_ANSWERS = 10_000;

export interface Asker {
  username: string;
  organization: string | null;
}

export class ChainGate {
  /** chains anyone may send to → their genesis's protocol parameters */
  private readonly open = new Map<string, ProtocolParams>();
  /** members-only chains' admissions, per (user, chain) */
  private readonly members = new Map<string, { until: number; protocol: ProtocolParams }>();
  /** moves on every visibility notice: an answer asked for before one is not remembered after it */
  private generation = 0;
  private readonly notices: Subscription;

  constructor(
    private readonly nc: NatsConnection,
    /** the main chain's protocol parameters (the node's genesis) */
    mainProtocol: ProtocolParams,
  ) {
    this.open.set('', mainProtocol);
    this.notices = nc.subscribe(SUBJECTS.chains.visibilityChanged, {
      callback: () => {
        this.generation++;
        this.members.clear();
      },
    });
  }

  stop(): void {
    this.notices.unsubscribe();
  }

  /**
   * NOT_FOUND naming the field of the first transaction whose chain does not
   * exist for `asker` (a members-only chain it is not a member of included);
   * else each chain's protocol parameters.
   */
  async requireKnown(chainIds: readonly string[], asker: Asker, fieldOf: (i: number) => string): Promise<Map<string, ProtocolParams>> {
    const rules = new Map<string, ProtocolParams>();
    for (const [i, chainId] of chainIds.entries()) {
      if (rules.has(chainId)) continue;
      const open = this.open.get(chainId);
      if (open) {
        rules.set(chainId, open);
        continue;
      }
      const memberKey = JSON.stringify([asker.username, asker.organization, chainId]);
      const member = this.members.get(memberKey);
      if (member && member.until > Date.now()) {
        rules.set(chainId, member.protocol);
        continue;
      }
      const generation = this.generation;
      const answer = await call(this.nc, CHAINS.exists, { chainId, username: asker.username, organization: asker.organization });
      if (!answer.exists || !answer.protocol) throw unknownChain(chainId, fieldOf(i));
      rules.set(chainId, answer.protocol);
      if (!answer.membersOnly) {
        if (this.open.size >= KNOWN_LIMIT) this.open.clear();
        this.open.set(chainId, answer.protocol);
      } else if (generation === this.generation) {
        if (this.members.size >= MEMBER_ANSWERS) this.members.clear();
        this.members.set(memberKey, { until: Date.now() + MEMBER_TTL_MS, protocol: answer.protocol });
      }
    }
    return rules;
  }

  /** The hashes among `stored` that `asker` may not see: private-chain transactions it neither sent nor is a member of the chain of. */
  async hidden(stored: ReadonlyArray<{ hash: string; chainId: string; username: string | null }>, asker: Asker): Promise<Set<string>> {
    const others = stored.filter((r) => r.chainId !== '' && r.username !== asker.username);
    if (others.length === 0) return new Set();
    const { chainIds } = await call(this.nc, CHAINS.visibleTo, asker);
    const visible = new Set(chainIds);
    return new Set(others.filter((r) => !visible.has(r.chainId)).map((r) => r.hash));
  }

  /** Whether `asker` may see a chain's data: the main chain, or a private chain it is a member of. */
  async visible(chainId: string, asker: Asker): Promise<boolean> {
    if (chainId === '') return true;
    const { chainIds } = await call(this.nc, CHAINS.visibleTo, asker);
    return chainIds.includes(chainId);
  }
}

/** The one refusal of a chain that does not exist for the sender: a chain the node lacks, and a members-only chain of others. */
export function unknownChain(chainId: string, field: string): PlatformError {
  return new PlatformError('CHAIN_NOT_FOUND', `no chain ${chainId} on this node: check ${field}, or create the chain with POST /bloc/v2.2/chain`, { field, chainId });
}
