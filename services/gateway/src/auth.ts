// Authentication of every platform endpoint: the bearer token is verified
// before the body is read, and the user it names is the request's principal.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { PlatformError } from '@platform/common';
import type { Principal, TokenVerifier } from '@platform/auth';
import { documentCommonStatuses } from './statuses.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
}

/** Adds the token check to every route registered in `app`'s scope; their documents list its 401 with the other statuses every route answers. */
export function requireToken(app: FastifyInstance, verifier: TokenVerifier, options: { allowNoExp: boolean }): void {
  documentCommonStatuses(app);
  app.addHook('onRequest', (request, _reply, done) => {
    verifier.verify(request.headers.authorization, { allowNoExp: options.allowNoExp }).then((principal) => {
      request.principal = principal;
      done();
    }, done);
  });
}

export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new PlatformError('TOKEN_MISSING', 'send an access token: Authorization: Bearer <token>');
  return request.principal;
}
