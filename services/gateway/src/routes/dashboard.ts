// The dashboard (`/dashboard`): the page and the bundled script of the
// dashboard package (../../dashboard/, @platform/dashboard; rebuilt here when
// a source is newer than its bundle) that sign in with the node's identity provider (authorization code + PKCE,
// in the browser) and show the node through the REST interface and the live
// events. The page holds nothing of anyone's, so it is served without a
// token; its Content-Security-Policy lets it run only its own script and talk
// only to the gateway and the identity provider.
import type { FastifyInstance } from 'fastify';
import { dashboardFiles } from '@platform/dashboard';

export interface DashboardDeps {
  /** the discovery document of the identity provider whose tokens the gateway takes (OAUTH_DISCOVERY_URL) */
  discoveryUrl: string;
  /** the dashboard's client at that provider (DASHBOARD_CLIENT_ID) */
  clientId: string;
}

export async function dashboardRoutes(app: FastifyInstance, deps: DashboardDeps): Promise<void> {
  const { html, script, warning } = await dashboardFiles();
  if (warning) app.log.warn(warning);
  const provider = new URL(deps.discoveryUrl).origin;
  const csp = `default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; connect-src 'self' ${provider}; frame-ancestors 'none'; base-uri 'none'; form-action 'none'`;
  const headers = { 'content-security-policy': csp, 'x-content-type-options': 'nosniff', 'cache-control': 'no-cache' };
  const hidden = { schema: { hide: true } };
  app.get('/dashboard', hidden, async (_request, reply) => reply.headers(headers).type('text/html; charset=utf-8').send(html));
  app.get('/dashboard/app.js', hidden, async (_request, reply) => reply.headers(headers).type('text/javascript; charset=utf-8').send(script));
  app.get('/dashboard/config.json', hidden, async (_request, reply) => reply.headers(headers).send({ discoveryUrl: deps.discoveryUrl, clientId: deps.clientId }));
}
