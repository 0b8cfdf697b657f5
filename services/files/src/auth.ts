// The user a request is made for: the bearer token's, which the app checks
// in its onRequest hook (app.ts) before any route runs.
import type { FastifyRequest } from 'fastify';
import type { Principal } from '@platform/auth';
import { PlatformError } from '@platform/common';
import type { User } from './ledger.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
}

export function userOf(request: FastifyRequest): User {
  if (!request.principal) throw new PlatformError('TOKEN_MISSING', 'send an access token: Authorization: Bearer <token>');
  return { username: request.principal.username, organization: request.principal.org };
}
