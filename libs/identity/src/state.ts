// Reads of the registry's state straight from a WorldState, for the node's
// own use (the sender's identity of every transaction, `getUserCert`, the
// transaction service's admission check): a few storage reads instead of a
// contract call. The storage paths are SolidVM's (state by path, values as
// text; see libs/solidvm README "Storage model"); test/registry.test.ts pins
// them against the contract as SolidVM runs it.
import type { WorldState } from '@platform/common';
import { REGISTRY_ADDRESS } from './registry-source.js';

type Storage = Pick<WorldState, 'getStorage'>;

/** What the registry holds for an address whose certificate is valid. */
export interface RegisteredCertificate {
  /** the Certificate contract */
  certificate: string;
  userAddress: string;
  commonName: string;
  organization: string;
  organizationalUnit: string;
  country: string;
  publicKey: string;
  certificateString: string;
  parent: string;
  serialNumber: string;
  /** seconds since the epoch */
  notBefore: number;
  expirationDate: number;
}

const TEXT_FIELDS = ['commonName', 'organization', 'organizationalUnit', 'country', 'publicKey', 'certificateString', 'parent', 'serialNumber'] as const;

/** The Certificate contract registered for `address` (valid or not), or null. */
export function certificateContractOf(state: Storage, address: string): string | null {
  return state.getStorage(REGISTRY_ADDRESS, `.certificates<${address}>`) ?? null;
}

/**
 * The certificate of `address` if it is registered, not revoked, and valid at
 * `at` (seconds since the epoch); else null.
 */
export function validCertificateOf(state: Storage, address: string, at: number): RegisteredCertificate | null {
  return validCertificateFields(state, address, at, TEXT_FIELDS) as RegisteredCertificate | null;
}

type TextField = (typeof TEXT_FIELDS)[number];
/** a valid certificate with some of its text fields */
type CertificateWith<F extends TextField> = Pick<RegisteredCertificate, F | 'certificate' | 'userAddress' | 'notBefore' | 'expirationDate'>;

/**
 * validCertificateOf with only the text fields asked for read: every
 * transaction's sender identity needs four of the eight, and the reads are
 * on the block's hot path.
 */
export function validCertificateFields<F extends TextField>(
  state: Storage,
  address: string,
  at: number,
  fields: readonly F[],
): CertificateWith<F> | null {
  const certificate = certificateContractOf(state, address);
  const validity = certificate ? validityAt(state, certificate, at) : null;
  if (!certificate || !validity || !issuedUnderValidRoot(state, certificate, at)) return null;
  const out = { certificate, userAddress: address, ...validity } as CertificateWith<F>;
  for (const f of fields) (out as Record<string, unknown>)[f] = state.getStorage(certificate, `.${f}`) ?? '';
  return out;
}

/** The Certificate contract's own `validAt(at)` (not revoked, `at` within its validity): its validity then, else null. */
function validityAt(state: Storage, certificate: string, at: number): { notBefore: number; expirationDate: number } | null {
  if (state.getStorage(certificate, '.isValid') !== 'true') return null;
  const notBefore = Number(state.getStorage(certificate, '.notBefore') ?? '0');
  const expirationDate = Number(state.getStorage(certificate, '.expirationDate') ?? '0');
  return notBefore <= at && at <= expirationDate ? { notBefore, expirationDate } : null;
}

/** registered CAs under a root: deeper chains are not followed (and cannot be registered in practice) */
const MAX_CHAIN = 8;

/**
 * Every issuer above `certificate` up to its root still valid at `at`: a
 * root the validators voted out (or a CA revoked, or expired) takes every
 * certificate it issued with it, as X.509 path validation would.
 */
function issuedUnderValidRoot(state: Storage, certificate: string, at: number): boolean {
  let current = certificate;
  for (let depth = 0; depth < MAX_CHAIN; depth++) {
    if (state.getStorage(current, '.isRoot') === 'true') return true;
    const issuer = certificateContractOf(state, state.getStorage(current, '.parent') ?? '');
    if (!issuer || !validityAt(state, issuer, at)) return false;
    current = issuer;
  }
  return false;
}

/** `getUserCert(address)`'s mapping: the fields of a valid certificate as text, or an empty mapping. */
export function userCertFields(state: Storage, address: string, at: number): Record<string, string> | undefined {
  const c = validCertificateOf(state, address, at);
  if (!c) return undefined;
  return {
    userAddress: c.userAddress,
    commonName: c.commonName,
    organization: c.organization,
    organizationalUnit: c.organizationalUnit,
    country: c.country,
    publicKey: c.publicKey,
    certificateString: c.certificateString,
    parent: c.parent,
    serialNumber: c.serialNumber,
    expirationDate: String(c.expirationDate),
    certificate: c.certificate,
  };
}
