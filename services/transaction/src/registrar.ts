// Enrolment's registration (issue "Identity"): a certificate this node's CA
// issued is registered by a transaction of the CA's own account, the
// certificate's issuer, which the registry accepts like the certificate's own
// account. The user's nonces stay untouched (a new account's first
// transaction is still nonce 0), and a new account needs no funds: the gas
// price is 0. The CA's key stays in the vault, which signs only such
// registrations (IDENTITY.caSign computes the hash itself, in the form that
// covers the metadata, so the signature binds the certificate); the account
// is exempt from ACCOUNT_NONCE_LIMIT, like the faucet's. Concurrent
// registrations queue on the CA account's nonce row.
import type { NatsConnection } from '@nats-io/nats-core';
import { IDENTITY, call, type RegisterRequest } from '@platform/bus';
import { parseCertificate } from '@platform/certs';
import type { TxResult } from '@platform/common';
import { registrationFields } from '@platform/identity';
import { inTransaction, type Db } from './db.js';
import type { Draft } from './drafts.js';
import { invalid, username as usernameField } from './fields.js';
import type { Outbox } from './outbox.js';
import { pending } from './results.js';
import { buildTransaction } from './signed.js';
import { insertAdmitted, reserveNonces } from './store.js';

export interface RegistrarDeps {
  pool: Db;
  nc: NatsConnection;
  outbox: Outbox;
}

/** The CA's address per connection (one per service instance), asked of the vault once: a node's CA never changes while it runs. */
const caAddresses = new WeakMap<NatsConnection, Promise<string>>();

function caAccount(nc: NatsConnection): Promise<string> {
  let address = caAddresses.get(nc);
  if (!address) {
    address = call(nc, IDENTITY.ca, {}).then((ca) => parseCertificate(ca.certificate).address);
    // a failure (the vault not there yet) is asked again next time
    address.catch(() => caAddresses.delete(nc));
    caAddresses.set(nc, address);
  }
  return address;
}

function registrationDraft(certificate: string): Draft {
  const { gasPrice, gasLimit, to, value, initOrData, metadata } = registrationFields(certificate, 0n);
  return { chainId: '', gasPrice, gasLimit, to, value, initOrData, metadata };
}

/** Admits the registration of `certificate` from the CA's account: its Pending result. */
export async function register(deps: RegistrarDeps, request: RegisterRequest): Promise<TxResult> {
  deps.outbox.requireOrdering();
  const username = usernameField(request?.username);
  if (typeof request.certificate !== 'string' || !request.certificate.includes('-----BEGIN CERTIFICATE-----')) throw invalid('certificate', 'must be a PEM certificate');
  const organization = typeof request.organization === 'string' ? request.organization : null;
  const from = await caAccount(deps.nc);
  const draft = registrationDraft(request.certificate);
  const { tx, body } = await inTransaction(deps.pool, async (client) => {
    const nonce = await reserveNonces(client, from, '', 1);
    const signature = await call(deps.nc, IDENTITY.caSign, { certificate: request.certificate, nonce });
    const tx = buildTransaction(draft, { from, nonce, signature, signingForm: 'metadata', origin: 'vault', submitter: { username, organization } });
    const body = JSON.stringify(tx);
    await insertAdmitted(client, [tx], [body]);
    return { tx, body };
  });
  await deps.outbox.publish([{ hash: tx.hash, chainId: tx.chainId, body }]);
  return pending(tx.hash);
}
