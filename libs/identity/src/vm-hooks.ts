// The identity hooks SolidVM calls (libs/solidvm `SolidVMHooks`), bound to
// the world state being executed and the block's time, so that every node
// executing the block computes the same thing.
import type { SenderIdentity, WorldState } from '@platform/common';
import { certificateFields, certificateSignedBy, certificateSignedByKey, signatureValid } from './hooks.js';
import { userCertFields, validCertificateFields } from './state.js';

export interface IdentityHooks {
  getUserCert(address: string): Record<string, string> | undefined;
  parseCert(pem: string): Record<string, string> | undefined;
  verifyCert(cert: string, pubkey: string): boolean;
  verifyCertSignedBy(cert: string, signerCert: string): boolean;
  verifySignature(hash: string, signature: string, pubkey: string): boolean;
}

/** `at`: the block's timestamp, seconds. */
export function identityHooks(state: Pick<WorldState, 'getStorage'>, at: number): IdentityHooks {
  return {
    getUserCert: (address) => userCertFields(state, address, at),
    parseCert: certificateFields,
    verifyCert: certificateSignedByKey,
    verifyCertSignedBy: certificateSignedBy,
    verifySignature: signatureValid,
  };
}

const IDENTITY_FIELDS = ['commonName', 'organization', 'organizationalUnit', 'certificateString'] as const;

/** The sender's identity of a transaction (`tx.username` and friends): its valid registered certificate, or null. */
export function identityOf(
  state: Pick<WorldState, 'getStorage'>,
  address: string,
  at: number,
): SenderIdentity | null {
  const c = validCertificateFields(state, address, at, IDENTITY_FIELDS);
  return c ? { username: c.commonName, organization: c.organization, organizationalUnit: c.organizationalUnit, certificate: c.certificateString } : null;
}



/**
 * A sender's identity from a certificate carried by a private chain's block
 * (`Block.identities`): its fields, provided the certificate parses and binds
 * the sender's address; null otherwise. Whether it was registered and valid
 * when the block was proposed is the proposer's word (the main chain's
 * registry at that time), as the block's signature says.
 */
export function identityOfCertificate(pem: string, address: string): SenderIdentity | null {
  const c = certificateFields(pem);
  if (c.error !== '' || c.userAddress !== address) return null;
  return { username: c.commonName, organization: c.organization, organizationalUnit: c.organizationalUnit, certificate: c.certificateString };
}
