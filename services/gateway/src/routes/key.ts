// Accounts: the token's user's key in the vault (spec "Accounts").
import type { FastifyInstance } from 'fastify';
import { VAULT, call, type NatsConnection } from '@platform/bus';
import { principalOf } from '../auth.js';

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

export function keyRoutes(app: FastifyInstance, nc: NatsConnection): void {
  app.post(
    '/platform/v2.3/key',
    {
      schema: {
        tags: ['accounts'],
        summary: "Creates the token's user's key pair in the vault",
        description: 'A second call answers 409 `User <username> already exists`. The request takes no body; any body is ignored.',
        response: { 200: keyResponse, 401: errorResponse, 409: errorResponse },
      },
    },
    async (request) => {
      const { username } = principalOf(request);
      const key = await call(nc, VAULT.keyCreate, { username }, { requestId: request.id });
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
