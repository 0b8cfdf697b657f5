// Request bodies (docs/conventions.md "Requests"): JSON is parsed losslessly, so
// integers beyond 2^53 keep every digit. An endpoint that takes no body (its
// schema declares none) accepts and ignores any body of any content type — the
// platform's client sends an empty form to some — so such bodies are not even
// parsed, and a malformed one cannot fail the request.
//
// A body nested deeper than MAX_JSON_DEPTH is refused before it is parsed:
// the parser, the validator and the bus's encoder all recurse, and a few
// thousand levels exhaust the stack ("Maximum call stack size exceeded"
// says nothing to a client). No request of the interface nests beyond a few
// levels, so the limit leaves contract arguments ample room.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { PlatformError, parseJsonLossless } from '@platform/common';

export const MAX_JSON_DEPTH = 512;

/** The deepest nesting of arrays and objects in a JSON text (strings skipped), stopping as soon as it passes `limit`. */
export function jsonDepthExceeds(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++; // backslash: the next character is escaped
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 || c === 123) {
      if (++depth > limit) return true;
    } else if (c === 93 || c === 125) depth--;
  }
  return false;
}

const takesBody = (request: FastifyRequest) => request.routeOptions.schema?.body !== undefined;

export function installBodyParsers(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(/^application\/([\w.+-]+\+)?json/i, { parseAs: 'string' }, (request, text, done) => {
    const body = text as string;
    if (!takesBody(request) || body.trim() === '') return done(null, undefined);
    if (jsonDepthExceeds(body, MAX_JSON_DEPTH)) {
      return done(new PlatformError('INVALID_JSON', `the body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep, the most the node accepts`, { maxDepth: MAX_JSON_DEPTH }), undefined);
    }
    try {
      done(null, parseJsonLossless(body));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (request, raw, done) => done(null, takesBody(request) ? raw : undefined));
}
