// Request bodies (CONVENTIONS.md "Requests"): JSON is parsed losslessly, so
// integers beyond 2^53 keep every digit. An endpoint that takes no body (its
// schema declares none) accepts and ignores any body of any content type — the
// platform's client sends an empty form to some — so such bodies are not even
// parsed, and a malformed one cannot fail the request.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { parseJsonLossless } from '@platform/common';

const takesBody = (request: FastifyRequest) => request.routeOptions.schema?.body !== undefined;

export function installBodyParsers(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(/^application\/([\w.+-]+\+)?json/i, { parseAs: 'string' }, (request, text, done) => {
    const body = text as string;
    if (!takesBody(request) || body.trim() === '') return done(null, undefined);
    try {
      done(null, parseJsonLossless(body));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (request, raw, done) => done(null, takesBody(request) ? raw : undefined));
}
