// The file endpoints (`/api/v1/files…`, `/apex-api/…`) belong to the files
// service, an HTTP server of its own (FILES_URL): uploads and downloads of
// any size cannot cross the bus, whose messages are bounded. After the token
// check the gateway passes each request through as a stream — body in, answer
// out, neither parsed nor held — with the request id, so that their logs
// match.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PlatformError } from '@platform/common';

/** What belongs to one hop only (RFC 9110 §7.6.1), never passed on. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'host']);

const headersOf = (headers: IncomingMessage['headers']) => Object.fromEntries(Object.entries(headers).filter(([name, value]) => value !== undefined && !HOP_BY_HOP.has(name)));

function pass(filesUrl: URL, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  return new Promise((resolve, reject) => {
    const upstream = httpRequest(
      {
        host: filesUrl.hostname,
        port: filesUrl.port,
        method: request.method,
        path: request.url,
        // where the client reached the node: the legacy storage's one-time URLs name it
        headers: { ...headersOf(request.headers), 'x-request-id': request.id, 'x-forwarded-host': request.headers.host ?? '', 'x-forwarded-proto': request.protocol },
      },
      (answer) => {
        reply.status(answer.statusCode ?? 502).headers(headersOf(answer.headers));
        resolve(reply.send(answer));
      },
    );
    upstream.on('error', () => {
      request.raw.unpipe(upstream);
      reject(new PlatformError('UNAVAILABLE', 'the files service is not available; retry'));
    });
    // a client gone mid-upload: the files service stops storing it
    request.raw.on('aborted', () => upstream.destroy());
    request.raw.pipe(upstream);
  });
}

/** Paths passed through behind the token check. */
export const FILE_PATHS = ['/api/v1/files', '/api/v1/files/*', '/apex-api/*'];
/**
 * Without a bearer token: the legacy storage's one-time download URLs (their
 * token is the credential), and the file application's page, which holds
 * nothing of anyone's and asks the user for their token.
 */
export const PUBLIC_PATHS = ['/apex-api/bloc/file/content', '/files', '/files/app.js'];

export function fileRoutes(app: FastifyInstance, filesUrl: string, paths: string[]): void {
  const target = new URL(filesUrl);
  void app.register(async (files) => {
    // the body is the files service's to read: no parser here, and so no body limit (the files service has its own)
    files.removeAllContentTypeParsers();
    files.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
    // a file may take as long as it keeps moving (deadline.ts)
    const route = { schema: { hide: true }, config: { streamed: true } };
    const handler = (request: FastifyRequest, reply: FastifyReply) => pass(target, request, reply);
    for (const path of paths) files.all(path, route, handler);
  });
}
