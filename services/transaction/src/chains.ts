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
import { query, type Db } from './db.js';

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

  /** The hashes among `hashes` that `asker` may not see: private-chain transactions it neither sent nor is a member of the chain of. */
  async hidden(pool: Db, hashes: string[], asker: Asker): Promise<Set<string>> {
    const { rows } = await query<{ hash: string; chain_id: string; username: string | null }>(
      pool,
      `SELECT h.hash, coalesce(t.chain_id, r.chain_id, '') AS chain_id, t.username
         FROM unnest($1::text[]) AS h(hash)
         LEFT JOIN tx.transactions t ON t.hash = h.hash
         LEFT JOIN tx.results r ON r.hash = h.hash`,
      [hashes],
    );
    const others = rows.filter((r) => r.chain_id !== '' && r.username !== asker.username);
    if (others.length === 0) return new Set();
    const { chainIds } = await call(this.nc, CHAINS.visibleTo, asker);
    const visible = new Set(chainIds);
    return new Set(others.filter((r) => !visible.has(r.chain_id)).map((r) => r.hash));
  }
}
