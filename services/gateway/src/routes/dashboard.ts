// The dashboard (`/dashboard`): a static page and its script (../../dashboard/)
// that sign in with the node's identity provider (authorization code + PKCE,
// in the browser) and show the node through the REST interface and the live
// events. The page holds nothing of anyone's, so it is served without a
// token; its Content-Security-Policy lets it run only its own script and talk
// only to the gateway and the identity provider.
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';

export interface DashboardDeps {
  /** the discovery document of the identity provider whose tokens the gateway takes (OAUTH_DISCOVERY_URL) */
  discoveryUrl: string;
  /** the dashboard's client at that provider (DASHBOARD_CLIENT_ID) */
  clientId: string;
}

export function dashboardRoutes(app: FastifyInstance, deps: DashboardDeps): void {
  const html = readFileSync(new URL('../../dashboard/index.html', import.meta.url), 'utf8');
  const script = readFileSync(new URL('../../dashboard/app.js', import.meta.url), 'utf8');
  const provider = new URL(deps.discoveryUrl).origin;
  const csp = `default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; connect-src 'self' ${provider}; frame-ancestors 'none'; base-uri 'none'; form-action 'none'`;
  const headers = { 'content-security-policy': csp, 'x-content-type-options': 'nosniff', 'cache-control': 'no-cache' };
  const hidden = { schema: { hide: true } };
  app.get('/dashboard', hidden, async (_request, reply) => reply.headers(headers).type('text/html; charset=utf-8').send(html));
  app.get('/dashboard/app.js', hidden, async (_request, reply) => reply.headers(headers).type('text/javascript; charset=utf-8').send(script));
  app.get('/dashboard/config.json', hidden, async (_request, reply) => reply.headers(headers).send({ discoveryUrl: deps.discoveryUrl, clientId: deps.clientId }));
}
