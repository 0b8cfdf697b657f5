// The statuses a platform route can answer whatever it does, added to each
// route's documented responses so that /openapi.json lists every status a
// route really returns (the test run checks it against what the tests
// observe: test-e2e/src/statuses.ts). Each route's schema lists only what
// is its own (404 for an unknown hash, 409 for a reused Idempotency-Key, …).
import type { FastifyInstance } from 'fastify';

const ERROR_BODY = { $ref: 'ErrorBody#' } as const;

/** Behind the token check (401), any route can fail (500) or find a service it calls unavailable (503). */
const EVERY_ROUTE = [401, 500, 503];
/** A route that takes a body can also be sent one that is not JSON (400), too large (413) or of another type (415). */
const WITH_BODY = [400, 413, 415];

const takesBody = (method: string | string[]) => [method].flat().some((m) => m === 'POST' || m === 'PUT' || m === 'PATCH');

/** Documents the common statuses on every route registered after this in `app`'s scope that documents its responses. */
export function documentCommonStatuses(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const schema = route.schema as { hide?: boolean; response?: Record<string, unknown> } | undefined;
    if (!schema?.response || schema.hide) return;
    const common = [...EVERY_ROUTE, ...(takesBody(route.method) ? WITH_BODY : [])];
    // a new object: routes may share one schema (the raw route's two paths); the route's own entry wins
    route.schema = { ...schema, response: { ...Object.fromEntries(common.map((status) => [status, ERROR_BODY])), ...schema.response } };
  });
}
