// Rules about the registry that more than one service applies.
import type { UnsignedTxFields } from '@platform/crypto';
import { CERTIFICATE_CONTRACT, REGISTRY_ADDRESS, REGISTRY_CONTRACT } from './registry-source.js';

/** Names of the system contracts the genesis deploys: no upload may use them (docs/conventions.md). */
export const RESERVED_CONTRACT_NAMES: ReadonlySet<string> = new Set([CERTIFICATE_CONTRACT, REGISTRY_CONTRACT]);

export function isReservedContractName(name: string | undefined | null): boolean {
  return typeof name === 'string' && RESERVED_CONTRACT_NAMES.has(name);
}

export const REGISTER_FUNCTION = 'registerCertificate';

/**
 * A call of `registerCertificate` on the main chain's registry: the one
 * transaction a sender without a certificate may send (else a raw-key user
 * could never enrol).
 */
export function isRegistration(tx: { to: string | null; chainId: string; metadata: Record<string, string> }): boolean {
  return tx.chainId === '' && tx.to === REGISTRY_ADDRESS && tx.metadata.funcName === REGISTER_FUNCTION;
}

/** Enough for a registration (parsing and checking happen in the node's built-ins). */
export const REGISTRATION_GAS_LIMIT = 100_000_000n;

/**
 * The transaction a node's CA sends to register a certificate it issued:
 * gas price 0 (no account pays for enrolment), signed in the form that
 * covers the metadata (docs/conventions.md "Raw transactions: the signed bytes"), so the CA's
 * signature binds the certificate and can serve for nothing else.
 */
export function registrationFields(certificate: string, nonce: bigint): UnsignedTxFields & { metadata: Record<string, string> } {
  return {
    nonce,
    gasPrice: 0n,
    gasLimit: REGISTRATION_GAS_LIMIT,
    to: REGISTRY_ADDRESS,
    value: 0n,
    initOrData: new Uint8Array(0),
    chainId: null,
    metadata: { VM: 'SolidVM', funcName: REGISTER_FUNCTION, args: JSON.stringify({ newCertificateString: certificate }) },
  };
}
