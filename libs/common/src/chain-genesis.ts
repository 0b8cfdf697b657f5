// A private chain's genesis and its ID (docs/architecture.md "Chains"): the ID is
// Keccak-256 of the genesis's canonical text, written by the chains service
// and checked again by every block service that starts the chain, so the two
// must agree on the text byte for byte. Hashing stays with the callers
// (`@platform/crypto`): this library has no dependency on it.
import type { Address, Genesis } from './types.js';

/** Where a private chain's genesis creates its governance contract (the platform's fixed address). */
export const GOVERNANCE_ADDRESS: Address = '0000000000000000000000000000000000000100';

/**
 * The governance contract's events that admit members, and those that remove
 * them (the spec's "Events" 3 and 5); their arguments are read by position:
 * organization, unit, common name. Only events the governance contract
 * itself emits count.
 */
export const MEMBER_ADDED_EVENTS: readonly string[] = ['OrgAdded', 'OrgUnitAdded', 'CommonNameAdded', 'OrganizationAdded'];
export const MEMBER_REMOVED_EVENTS: readonly string[] = ['OrgRemoved', 'OrgUnitRemoved', 'CommonNameRemoved', 'OrganizationRemoved'];

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) out[key] = canonical((value as Record<string, unknown>)[key]);
    return out;
  }
  return value;
}

/**
 * The text whose Keccak-256 is a private chain's ID: the genesis with
 * `chainId` empty (the ID cannot hash itself), keys sorted at every level so
 * that a genesis that crossed the bus hashes the same.
 */
export function chainGenesisText(genesis: Genesis): string {
  return JSON.stringify(canonical({ ...genesis, chainId: '' }));
}
