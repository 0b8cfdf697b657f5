// Accounts: the token's user's key in the vault (spec "Accounts"), and with
// IDENTITY_AUTO_ENROLL its enrolment (docs/conventions.md "Accounts and
// identity"): a certificate for the new key issued by the node's CA
// (CN = username, O = the token's organization claim or NODE_ORG, OU from the
// `organizationalUnit` claim), registered in the registry by a transaction of
// the CA's account (its issuer; the user's nonces stay untouched), answered
// once that transaction succeeded.
import type { FastifyInstance } from 'fastify';
import { IDENTITY, VAULT, call, type KeyRecord, type NatsConnection } from '@platform/bus';
import { PlatformError, type NodeConfig } from '@platform/common';
import type { Principal } from '@platform/auth';
import { principalOf } from '../auth.js';
import type { ResolveHub } from '../resolve.js';

const keyResponse = {
  type: 'object',
  required: ['status', 'address', 'pubkey'],
  properties: {
    status: { type: 'string', enum: ['success'] },
    address: { type: 'string', description: '40 hex characters', pattern: '^[0-9a-f]{40}$' },
    pubkey: { type: 'string', description: 'uncompressed secp256k1 public key, 130 hex characters starting with 04' },
  },
} as const;

const errorResponse = { $ref: 'ErrorBody#' } as const;

export interface KeyRouteDeps {
  nc: NatsConnection;
  hub: ResolveHub;
  config: Pick<NodeConfig, 'identityAutoEnroll' | 'nodeOrg' | 'resolveTimeoutMs'>;
}

/** The claim naming the user's organizational unit, when the identity provider sends one. */
export const ORG_UNIT_CLAIM = 'organizationalUnit';

export function keyRoutes(app: FastifyInstance, deps: KeyRouteDeps): void {
  const { nc } = deps;
  app.post(
    '/platform/v2.3/key',
    {
      schema: {
        tags: ['accounts'],
        summary: "Creates the token's user's key pair in the vault (and enrols it)",
        description:
          'With IDENTITY_AUTO_ENROLL (the default) the answer comes once the user\'s certificate is registered. A second call answers 409 `User <username> already exists`, unless the earlier enrolment failed: then it enrols again. The request takes no body; any body is ignored.',
        response: { 200: keyResponse, 400: errorResponse, 401: errorResponse, 409: errorResponse, 422: errorResponse, 504: errorResponse },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const { username } = principal;
      let key: KeyRecord;
      try {
        key = await call(nc, VAULT.keyCreate, { username }, { requestId: request.id });
      } catch (err) {
        // a user whose key exists but whose enrolment failed is enrolled now instead of refused
        if (!deps.config.identityAutoEnroll || !(err instanceof PlatformError) || err.code !== 'USER_EXISTS') throw err;
        key = await call(nc, VAULT.keyGet, { username }, { requestId: request.id });
        if (await isEnrolled(nc, key.address, request.id)) throw err;
      }
      if (deps.config.identityAutoEnroll) await enrol(deps, principal, key, request.id);
      return { status: 'success', address: key.address, pubkey: key.pubkey };
    },
  );

  app.get(
    '/platform/v2.3/key',
    {
      schema: {
        tags: ['accounts'],
        summary: "The token's user's address and public key",
        description: 'Answers 400 `USER_NOT_FOUND` before the user has a key (the platform client creates the key after that 400).',
        response: { 200: keyResponse, 400: errorResponse, 401: errorResponse },
      },
    },
    async (request) => {
      const { username } = principalOf(request);
      const key = await call(nc, VAULT.keyGet, { username }, { requestId: request.id });
      return { status: 'success', address: key.address, pubkey: key.pubkey };
    },
  );
}

async function isEnrolled(nc: NatsConnection, address: string, requestId: string): Promise<boolean> {
  return (await call(nc, IDENTITY.status, { address }, { requestId })).certificate !== null;
}

function claimText(principal: Principal, claim: string): string | undefined {
  const value = principal.claims[claim];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Issues the user's certificate and has the node's CA register it; throws unless it is registered. */
async function enrol(deps: KeyRouteDeps, principal: Principal, key: KeyRecord, requestId: string): Promise<void> {
  const { nc } = deps;
  const organizationalUnit = claimText(principal, ORG_UNIT_CLAIM);
  const subject = { commonName: principal.username, organization: principal.org ?? deps.config.nodeOrg, ...(organizationalUnit ? { organizationalUnit } : {}) };
  const { certificate } = await call(nc, IDENTITY.issue, { username: principal.username, subject }, { requestId });
  const [result] = await deps.hub.settle(async () => [await call(nc, IDENTITY.register, { username: principal.username, organization: principal.org, certificate }, { requestId })], deps.config.resolveTimeoutMs, requestId);
  if (result.status === 'Success') return;
  // a concurrent POST key of the same user may have enrolled it first
  if (await isEnrolled(nc, key.address, requestId)) return;
  throw new PlatformError(
    'ENROLMENT_FAILED',
    `the key of ${principal.username} exists, but registering its certificate failed: ${result.txResult?.message ?? result.status}. POST /platform/v2.3/key again to retry the enrolment`,
    { address: key.address, hash: result.hash },
  );
}
