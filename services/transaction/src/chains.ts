// The chain dimension of admission and results (issue "Private chains"):
// - a transaction to a chain this node does not have is refused with 404
//   (the spec: "informative error message"): it would otherwise wait forever,
//   since no block service consumes a chain that does not exist. Any user may
//   send to a private chain, so existence is all that is checked; chains are
//   never deleted, so a chain seen once is remembered.
// - a private chain's results are its members' to read, and the sender's of
//   each transaction: to anyone else the hash is as unknown as one that does
//   not exist. The chains service answers which chains a user may see.
import type { NatsConnection } from '@nats-io/nats-core';
import { CHAINS, call } from '@platform/bus';
import { PlatformError } from '@platform/common';

const KNOWN_LIMIT = 100_000;

export interface Asker {
  username: string;
  organization: string | null;
}

export class ChainGate {
  private readonly known = new Set<string>(['']);

  constructor(private readonly nc: NatsConnection) {}

  /** NOT_FOUND naming the field of the first transaction whose chain does not exist. */
  async requireKnown(chainIds: readonly string[], fieldOf: (i: number) => string): Promise<void> {
    for (const [i, chainId] of chainIds.entries()) {
      if (this.known.has(chainId)) continue;
      const { exists } = await call(this.nc, CHAINS.exists, { chainId });
      if (!exists) {
        throw new PlatformError('NOT_FOUND', `no chain ${chainId} on this node: check ${fieldOf(i)}, or create the chain with POST /bloc/v2.2/chain`, { field: fieldOf(i), chainId });
      }
      if (this.known.size >= KNOWN_LIMIT) this.known.clear();
      this.known.add(chainId);
    }
  }

  /** The hashes among `stored` that `asker` may not see: private-chain transactions it neither sent nor is a member of the chain of. */
  async hidden(stored: ReadonlyArray<{ hash: string; chainId: string; username: string | null }>, asker: Asker): Promise<Set<string>> {
    const others = stored.filter((r) => r.chainId !== '' && r.username !== asker.username);
    if (others.length === 0) return new Set();
    const { chainIds } = await call(this.nc, CHAINS.visibleTo, asker);
    const visible = new Set(chainIds);
    return new Set(others.filter((r) => !visible.has(r.chainId)).map((r) => r.hash));
  }
}
