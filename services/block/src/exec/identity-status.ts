// The registry's view of an address over the applied state (IDENTITY.status),
// for admission's IDENTITY_REQUIRED check and enrolment. Validity is judged
// at the wall-clock time of the question: the next block's time is not known
// yet, and a certificate about to expire is refused a moment early rather
// than admitted to fail.
import type { IdentityRecord } from '@platform/bus';
import type { WorldState } from '@platform/common';
import { REGISTRY_ADDRESS, validCertificateOf } from '@platform/identity';

export function identityStatus(state: Pick<WorldState, 'getStorage' | 'getAccount'>, address: string, blockNumber: number, now = Date.now()): IdentityRecord {
  const registry = state.getAccount(REGISTRY_ADDRESS)?.codeHash != null;
  const c = registry ? validCertificateOf(state, address, Math.floor(now / 1000)) : null;
  return {
    address,
    registry,
    blockNumber,
    certificate: c && {
      certificate: c.certificate,
      userAddress: c.userAddress,
      commonName: c.commonName,
      organization: c.organization,
      organizationalUnit: c.organizationalUnit,
      country: c.country,
      certificateString: c.certificateString,
      parent: c.parent,
      expirationDate: c.expirationDate,
    },
  };
}
