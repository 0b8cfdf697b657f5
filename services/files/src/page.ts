// The file application's page (`/files`): a static page and its script
// (../page/), which call the REST interface with the token the user gives
// it. The page itself holds nothing of anyone's, so it is served without a
// token; a strict Content-Security-Policy lets it run only its own script.
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';

export const PAGE_PATHS = ['/files', '/files/app.js'];

const CSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' blob:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

export function pageRoutes(app: FastifyInstance): void {
  const html = readFileSync(new URL('../page/index.html', import.meta.url), 'utf8');
  const script = readFileSync(new URL('../page/app.js', import.meta.url), 'utf8');
  const headers = { 'content-security-policy': CSP, 'x-content-type-options': 'nosniff', 'cache-control': 'no-cache' };
  app.get('/files', async (_request, reply) => reply.headers(headers).type('text/html; charset=utf-8').send(html));
  app.get('/files/app.js', async (_request, reply) => reply.headers(headers).type('text/javascript; charset=utf-8').send(script));
}
