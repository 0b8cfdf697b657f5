// Admission checks of the identity issue (docs/conventions.md "Accounts and
// identity"): IDENTITY_REQUIRED and the reserved system contract names.
//
// Whether an address has a valid registered certificate is the block
// service's answer from its applied state (IDENTITY.status). It is on the
// path of every transaction, so a positive answer is remembered for a short
// time (POSITIVE_TTL_MS, never past the certificate's expiry): a revoked
// certificate can be admitted for at most that long after its revocation was
// applied. A negative answer is never remembered, so an account is admitted
// as soon as its registration is applied. Concurrent questions about one
// address share one request. If the block service does not answer, admission
// is UNAVAILABLE, never on trust.
import type { NatsConnection } from '@nats-io/nats-core';
import { IDENTITY, call } from '@platform/bus';
import { PlatformError, type NodeConfig } from '@platform/common';
import { REGISTER_FUNCTION, REGISTRY_ADDRESS, isRegistration, isReservedContractName } from '@platform/identity';
import type { Draft } from './drafts.js';

export const POSITIVE_TTL_MS = 2_000;
const CACHE_SIZE = 100_000;

export class IdentityGate {
  /** address → until when (ms) its certificate is taken as valid */
  private readonly valid = new Map<string, number>();
  private readonly asking = new Map<string, Promise<number | null>>();

  constructor(
    private readonly nc: NatsConnection,
    private readonly config: Pick<NodeConfig, 'identityRequired'>,
    private readonly ttlMs = POSITIVE_TTL_MS,
  ) {}

  /**
   * Refuses (403 IDENTITY_REQUIRED) a sender without a valid registered
   * certificate, unless every transaction is its own registration (else a
   * raw-key account could never enrol). The faucet's system account is not
   * checked (it is not admitted through here).
   */
  async check(address: string, drafts: ReadonlyArray<Pick<Draft, 'to' | 'chainId' | 'metadata'>>): Promise<void> {
    if (!this.config.identityRequired) return;
    const until = this.valid.get(address);
    if (until !== undefined && until > Date.now()) return;
    if (drafts.every((d) => isRegistration(d))) return;
    let pending = this.asking.get(address);
    if (!pending) {
      pending = this.ask(address).finally(() => this.asking.delete(address));
      this.asking.set(address, pending);
    }
    if ((await pending) === null) throw identityRequired(address);
  }

  /** Until when the address counts as identified, or null. */
  private async ask(address: string): Promise<number | null> {
    const status = await call(this.nc, IDENTITY.status, { address });
    if (!status.registry) {
      throw new PlatformError('IDENTITY_REQUIRED', `this node requires a registered certificate (IDENTITY_REQUIRED), but its main chain's genesis has no certificate registry at ${REGISTRY_ADDRESS}: start the network from a genesis that has one, or set IDENTITY_REQUIRED=false`, { address });
    }
    if (!status.certificate) {
      this.valid.delete(address);
      return null;
    }
    const until = Math.min(Date.now() + this.ttlMs, status.certificate.expirationDate * 1000);
    if (this.valid.size >= CACHE_SIZE) this.valid.delete(this.valid.keys().next().value!);
    this.valid.set(address, until);
    return until;
  }
}

function identityRequired(address: string): PlatformError {
  return new PlatformError(
    'IDENTITY_REQUIRED',
    `account ${address} has no valid certificate in the certificate registry, and this node requires one to transact (IDENTITY_REQUIRED). ` +
      'A user of this node\'s vault enrols with POST /platform/v2.3/key (again, if its enrolment failed). ' +
      `An account with its own key gets a certificate for its public key from an administrator (POST /bloc/v2.2/x509/createCert) and registers it with a transaction from that key calling ${REGISTER_FUNCTION}(newCertificateString) at ${REGISTRY_ADDRESS}`,
    { address, registry: REGISTRY_ADDRESS },
  );
}

/** Refuses (400, naming the field) the creation of a contract under a reserved system contract name. */
export function checkReservedNames(drafts: ReadonlyArray<Pick<Draft, 'to' | 'metadata'>>, fieldOf: (i: number) => string): void {
  drafts.forEach((d, i) => {
    if (d.to === null && isReservedContractName(d.metadata.name)) {
      const field = fieldOf(i);
      throw new PlatformError('VALIDATION_FAILED', `${field}: the contract name ${d.metadata.name} is reserved for the platform's system contracts; choose another name`, { field });
    }
  });
}
