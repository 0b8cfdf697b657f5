// Identity endpoints (issue "Identity"): the registry's view of an address,
// answered by the block service from its applied state, and certificates
// issued by the node's CA, whose key the vault keeps.
//
// Subjects are in libs/bus/src/subjects.ts; the block service's stay outside
// `block.>` (the BLOCKS stream captures it), like its other endpoints.
import type { TxResult } from '@platform/common';
import { defineEndpoint } from '../rpc.js';
import { SERVICE_NAMES, SUBJECTS } from '../subjects.js';
import type { SignatureRecord } from './vault.js';

/** where the identity endpoints listen (libs/bus/src/subjects.ts holds them with every other subject) */
export const IDENTITY_SUBJECTS = {
  status: SUBJECTS.blockService.identity,
  issue: SUBJECTS.vault.certIssue,
  ca: SUBJECTS.vault.certCa,
  caSign: SUBJECTS.vault.certSign,
  register: SUBJECTS.tx.register,
} as const;

export interface IdentityRequest {
  /** 40 hex, 0x optional */
  address: string;
}

/** A valid registered certificate, as the registry holds it. */
export interface RegisteredCertificateRecord {
  /** the Certificate contract's address */
  certificate: string;
  userAddress: string;
  commonName: string;
  organization: string;
  organizationalUnit: string;
  country: string;
  certificateString: string;
  /** the issuer's address */
  parent: string;
  /** seconds since the epoch */
  expirationDate: number;
}

export interface IdentityRecord {
  address: string;
  /** the address's certificate, when it is registered, not revoked and valid now; else null */
  certificate: RegisteredCertificateRecord | null;
  /** false when the chain's genesis has no certificate registry */
  registry: boolean;
  /** the block the answer was read at */
  blockNumber: number;
}

export interface CertificateSubject {
  commonName: string;
  organization: string;
  organizationalUnit?: string;
  /** two capital letters */
  country?: string;
}

export interface IssueRequest {
  subject: CertificateSubject;
  /** the user whose vault key the certificate is for; or else `publicKey` */
  username?: string;
  /** PEM `PUBLIC KEY` or hex secp256k1 point: a key the vault does not hold (createCert) */
  publicKey?: string;
}

export interface IssuedCertificate {
  /** PEM */
  certificate: string;
  /** the address of the certificate's key */
  address: string;
}

export interface RegisterRequest {
  /** the user being enrolled (recorded as the transaction's submitter) */
  username: string;
  organization: string | null;
  /** PEM, issued by this node's CA */
  certificate: string;
}

export const IDENTITY = {
  /** the registry's view of an address at the last applied block; BAD_HEX/VALIDATION_FAILED (`address`) */
  status: defineEndpoint<IdentityRequest, IdentityRecord>(SERVICE_NAMES.block, 'identity', IDENTITY_SUBJECTS.status),
  /**
   * A certificate signed by the node's CA. VALIDATION_FAILED naming the
   * field (`subject.commonName`, `subject.pubKey` — also a key that is not
   * secp256k1, …); USER_NOT_FOUND for a user without a key.
   */
  issue: defineEndpoint<IssueRequest, IssuedCertificate>(SERVICE_NAMES.vault, 'cert-issue', IDENTITY_SUBJECTS.issue),
  /** the node CA's certificate, PEM */
  ca: defineEndpoint<Record<string, never> | null, { certificate: string }>(SERVICE_NAMES.vault, 'cert-ca', IDENTITY_SUBJECTS.ca),
  /**
   * The node CA's signature of the transaction registering `certificate`
   * with `nonce` (libs/identity `registrationFields`, metadata-covering
   * form): the CA key signs registrations, never an arbitrary hash.
   */
  caSign: defineEndpoint<{ certificate: string; nonce: number }, SignatureRecord>(SERVICE_NAMES.vault, 'cert-sign', IDENTITY_SUBJECTS.caSign),
  /**
   * Registers a certificate issued by this node's CA with a transaction of
   * the CA's account (its issuer), so enrolment uses none of the user's
   * nonces: the Pending result. VALIDATION_FAILED for a missing field.
   */
  register: defineEndpoint<RegisterRequest, TxResult>(SERVICE_NAMES.tx, 'register', IDENTITY_SUBJECTS.register),
} as const;
