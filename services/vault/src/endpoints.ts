// The vault's NATS endpoints (libs/bus contracts/vault.ts). The bus is trusted
// to carry usernames the gateway established from tokens; the requests are
// still validated, as a malformed one is a bug of the caller worth a clear 400.
import { IDENTITY, VAULT, handle, type Handler } from '@platform/bus';
import type { NodeCa } from '@platform/certs';
import { PlatformError } from '@platform/common';
import { bytesToHex, sign, signingHash } from '@platform/crypto';
import { registrationFields } from '@platform/identity';
import { issue } from './ca.js';
import type { KeyStore } from './keystore.js';
import { requestObject } from './validate.js';

export function vaultHandlers(store: KeyStore, ca: () => NodeCa | null = () => null): Handler[] {
  return [
    handle(VAULT.keyCreate, (request) => store.create(requestObject(request, 'key-create').username)),
    handle(VAULT.keyGet, (request) => store.get(requestObject(request, 'key-get').username)),
    handle(VAULT.sign, (request) => {
      const body = requestObject(request, 'sign');
      return store.sign(body.username, body.msgHash);
    }),
    // the users request has only optional fields: an empty or null body lists everyone
    handle(VAULT.users, (request) => store.users(request === null ? {} : requestObject(request, 'users'))),
    handle(IDENTITY.issue, (request) => issue(ca(), store, request)),
    handle(IDENTITY.ca, () => ({ certificate: caOrUnavailable(ca).certificatePem })),
    handle(IDENTITY.caSign, (request) => {
      const { certificate, nonce } = requestObject(request, 'cert-sign');
      if (typeof certificate !== 'string' || !certificate.includes('-----BEGIN CERTIFICATE-----')) throw new PlatformError('VALIDATION_FAILED', 'certificate must be a PEM certificate', { field: 'certificate' });
      if (!Number.isSafeInteger(nonce) || (nonce as number) < 0) throw new PlatformError('VALIDATION_FAILED', 'nonce must be a non-negative integer', { field: 'nonce' });
      const hash = signingHash(registrationFields(certificate, BigInt(nonce as number)), 'metadata');
      const signature = sign(hash, caOrUnavailable(ca).privateKey);
      return { r: bytesToHex(signature.r), s: bytesToHex(signature.s), v: signature.v };
    }),
  ];
}

function caOrUnavailable(ca: () => NodeCa | null): NodeCa {
  const current = ca();
  if (!current) throw new PlatformError('UNAVAILABLE', 'this node has no certificate authority');
  return current;
}
