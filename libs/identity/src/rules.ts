// Rules about the registry that more than one service applies.
import { CERTIFICATE_CONTRACT, REGISTRY_ADDRESS, REGISTRY_CONTRACT } from './registry-source.js';

/** Names of the system contracts the genesis deploys: no upload may use them (CONVENTIONS.md). */
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
