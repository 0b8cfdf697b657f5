// Which chains' data a caller may see (cirrus's rows, the gateway's live
// events): the chains service's answer (`chains.visibleTo`: the main chain and
// the private chains the user is a member of). Without that answer the caller
// sees the main chain only, never more: the main chain's data does not depend
// on the chains service, and a private chain's must never be shown on trust.
//
// An answer is remembered per (username, organization) — a search, or an
// event of a private chain for each of many subscribers, is otherwise two
// more hops (NATS, and the chains service's own lookups) — until the chains service says visibility changed (a chain
// stored, governance events applied: `chains-notice.visibility`), and at most
// a second (what the notice does not cover: a user's certificate registered
// on the main chain changes which organization it is).
import type { NatsConnection, Subscription } from '@nats-io/nats-core';
import { PlatformError, type Logger } from '@platform/common';
import { CHAINS } from './contracts/chains.js';
import { call } from './rpc.js';
import { SUBJECTS } from './subjects.js';

/** Who asks: the token's username and organization claim. */
export interface VisibilityUser {
  username: string;
  organization?: string | null;
}

const REMEMBER_MS = 1_000;
const REMEMBERED_USERS = 10_000;

export class VisibleChains {
  private readonly known = new Map<string, { until: number; chainIds: string[] }>();
  /** moves on every notice: an answer asked for before one is not remembered after it */
  private generation = 0;
  private readonly notices: Subscription;

  constructor(
    private readonly nc: NatsConnection,
    private readonly logger: Logger,
    private readonly rememberMs = REMEMBER_MS,
  ) {
    this.notices = nc.subscribe(SUBJECTS.chains.visibilityChanged, {
      callback: () => {
        this.generation++;
        this.known.clear();
      },
    });
  }

  stop(): void {
    this.notices.unsubscribe();
  }

  async of(request: VisibilityUser, requestId?: string): Promise<string[]> {
    // the rows shown depend on who asks: no answer without the user
    if (typeof request?.username !== 'string' || request.username === '') throw new PlatformError('VALIDATION_FAILED', 'username is required: a private chain\'s data is its members\' to see', { field: 'username' });
    const organization = request.organization ?? null;
    const key = JSON.stringify([request.username, organization]);
    const hit = this.known.get(key);
    if (hit && hit.until > Date.now()) return hit.chainIds;
    const generation = this.generation;
    let chainIds: string[];
    try {
      ({ chainIds } = await call(this.nc, CHAINS.visibleTo, { username: request.username, organization }, requestId ? { requestId } : {}));
    } catch (err) {
      if (!(err instanceof PlatformError) || err.code !== 'UNAVAILABLE') throw err;
      this.logger.warn({ requestId }, 'the chains service did not answer: the main chain only is shown');
      return [''];
    }
    if (generation !== this.generation) return chainIds;
    this.known.delete(key);
    if (this.known.size >= REMEMBERED_USERS) this.known.delete(this.known.keys().next().value!);
    this.known.set(key, { until: Date.now() + this.rememberMs, chainIds });
    return chainIds;
  }
}
