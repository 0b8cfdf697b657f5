// Who a user is, for membership (docs/conventions.md "Private chains": a member
// entry matches a user by the certificate): the registered certificate of
// the user's vault key (organization, unit, common name), asked of the vault
// and the block service. A user without a key or without a registered
// certificate (a node run with IDENTITY_REQUIRED=false) is matched by the
// token's organization claim (NODE_ORG without one, as enrolment would
// certify it) and username instead: both come from the same identity
// provider the node's CA issues certificates from.
//
// Every private-data request asks this, so answers are remembered briefly
// (TTL_MS): a certificate revoked or issued is seen at most that late.
import type { NatsConnection } from '@nats-io/nats-core';
import { IDENTITY, VAULT, call, type ChainUser } from '@platform/bus';
import { PlatformError, type ChainMember } from '@platform/common';

export interface UserFacts {
  /** the vault key's address; null without one */
  address: string | null;
  organization: string | null;
  organizationalUnit: string;
  commonName: string;
}

const TTL_MS = 2_000;
const CACHE_SIZE = 10_000;

export class Who {
  private readonly known = new Map<string, { facts: UserFacts; until: number }>();

  constructor(
    private readonly nc: NatsConnection,
    /** NODE_ORG: the organization of users whose token has no organization claim */
    private readonly nodeOrg: string,
  ) {}

  async of(user: ChainUser, requestId?: string): Promise<UserFacts> {
    const username = user?.username;
    if (typeof username !== 'string' || username === '') throw new PlatformError('VALIDATION_FAILED', 'username is required', { field: 'username' });
    const organization = typeof user.organization === 'string' && user.organization !== '' ? user.organization : this.nodeOrg;
    const key = `${username}\0${organization ?? ''}`;
    const hit = this.known.get(key);
    if (hit && hit.until > Date.now()) return hit.facts;
    const facts = await this.ask(username, organization, requestId);
    if (this.known.size >= CACHE_SIZE) this.known.clear();
    this.known.set(key, { facts, until: Date.now() + TTL_MS });
    return facts;
  }

  private async ask(username: string, organization: string, requestId?: string): Promise<UserFacts> {
    const options = requestId ? { requestId } : {};
    let address: string;
    try {
      ({ address } = await call(this.nc, VAULT.keyGet, { username }, options));
    } catch (err) {
      if (err instanceof PlatformError && err.code === 'USER_NOT_FOUND') return { address: null, organization, organizationalUnit: '', commonName: username };
      throw err;
    }
    const { certificate } = await call(this.nc, IDENTITY.status, { address }, options);
    if (!certificate) return { address, organization, organizationalUnit: '', commonName: username };
    return { address, organization: certificate.organization, organizationalUnit: certificate.organizationalUnit, commonName: certificate.commonName };
  }
}

/** The member entry that admits exactly this user (the creator's): organization and common name. */
export function memberEntryOf(facts: UserFacts): ChainMember | null {
  return facts.organization ? { orgName: facts.organization, commonName: facts.commonName, access: true } : null;
}
