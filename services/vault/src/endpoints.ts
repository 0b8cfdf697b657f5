// The vault's NATS endpoints (libs/bus contracts/vault.ts). The bus is trusted
// to carry usernames the gateway established from tokens; the requests are
// still validated, as a malformed one is a bug of the caller worth a clear 400.
import { IDENTITY, VAULT, handle, type Handler } from '@platform/bus';
import type { NodeCa } from '@platform/certs';
import { PlatformError } from '@platform/common';
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
    handle(IDENTITY.ca, () => {
      const current = ca();
      if (!current) throw new PlatformError('UNAVAILABLE', 'this node has no certificate authority');
      return { certificate: current.certificatePem };
    }),
  ];
}
