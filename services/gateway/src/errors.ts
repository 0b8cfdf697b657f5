// Every error leaves the gateway as the JSON error body of docs/conventions.md
// "Errors". Fastify's own errors (validation, body parsing, limits) are
// mapped to the stable codes; anything unforeseen is INTERNAL, logged with the
// request id that the client also receives, and never shows its cause.
import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PlatformError, clientErrorOf, rawErrorResponse, statusOf, type ErrorCode } from '@platform/common';
import { wwwAuthenticate } from '@platform/auth';

/** The longest path parameter (a cirrus table name can be `history@<org>-<app>-<Contract>@<n>`); a longer one is 414. */
export const MAX_PARAM_LENGTH = 1024;

const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'BODY_TOO_LARGE',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'BAD_REQUEST',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'INVALID_JSON',
  FST_ERR_CTP_INVALID_JSON_BODY: 'INVALID_JSON',
};

/**
 * Errors the router raises before any route or hook runs (Fastify's
 * `frameworkErrors`): without this they are Fastify's own JSON shape.
 */
const ROUTER_ERRORS: Record<string, [ErrorCode, string]> = {
  FST_ERR_BAD_URL: ['BAD_REQUEST', 'the path is not valid percent-encoded UTF-8'],
  FST_ERR_MAX_PARAM_LENGTH: ['URI_TOO_LONG', `a segment of the path is over ${MAX_PARAM_LENGTH} characters`],
  FST_ERR_ASYNC_CONSTRAINT: ['BAD_REQUEST', 'the request does not match any version of the route'],
};

const CODE_BY_STATUS: Record<number, ErrorCode> = { 400: 'BAD_REQUEST', 404: 'ROUTE_NOT_FOUND', 405: 'METHOD_NOT_ALLOWED', 413: 'BODY_TOO_LARGE', 415: 'UNSUPPORTED_MEDIA_TYPE' };

export function toHttpError(error: unknown): PlatformError {
  if (error instanceof PlatformError) return error;
  const e = error as Partial<FastifyError> & { validation?: Array<{ instancePath?: string; message?: string }>; validationContext?: string };
  if (e?.validation) {
    const where = e.validationContext ?? 'body';
    const problems = e.validation.map((v) => ({ path: `${where}${v.instancePath ?? ''}`, message: v.message ?? 'is not valid' }));
    const first = problems[0];
    return new PlatformError('VALIDATION_FAILED', first ? `${first.path} ${first.message}` : `the ${where} is not valid`, { errors: problems });
  }
  const mapped = (e?.code && FASTIFY_CODES[e.code]) || (e?.statusCode && e.statusCode >= 400 && e.statusCode < 500 ? CODE_BY_STATUS[e.statusCode] ?? 'BAD_REQUEST' : undefined);
  if (mapped) return new PlatformError(mapped, e.message ?? 'the request is not valid');
  return new PlatformError('INTERNAL', 'internal error; report the request id', undefined, { cause: error });
}

/** A refused request's unread body is read and dropped up to this much, so that its client, still sending, reads the answer instead of a broken pipe. */
const DRAIN_MAX_BYTES = 32 * 1024 * 1024;
const DRAIN_MAX_MS = 5_000;

/**
 * Reads and drops the rest of a request body the gateway refused. Answering
 * while the client still sends makes Node close the connection under it, and
 * most clients then report the write's EPIPE, not the answer. A body larger
 * than DRAIN_MAX_BYTES, or slower than DRAIN_MAX_MS, is cut off as before.
 */
function drainRefusedBody(request: FastifyRequest): Promise<void> {
  const raw = request.raw;
  if (raw.readableEnded || raw.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    let read = 0;
    const done = () => {
      clearTimeout(timer);
      raw.off('data', count);
      raw.off('end', done);
      raw.off('error', done);
      resolve();
    };
    const count = (chunk: Buffer) => {
      read += chunk.length;
      if (read > DRAIN_MAX_BYTES) done();
    };
    const timer = setTimeout(done, DRAIN_MAX_MS);
    raw.on('data', count);
    raw.once('end', done);
    raw.once('error', done);
    raw.resume();
  });
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler(async (error, request, reply) => {
    let platformError = toHttpError(error);
    if (platformError.code === 'BODY_TOO_LARGE' && !(error instanceof PlatformError)) {
      const limit = request.routeOptions.bodyLimit;
      platformError = new PlatformError('BODY_TOO_LARGE', `the body exceeds the limit of ${limit} bytes`, { limit });
    }
    // refused before its body was read (too large, no token, …): read the rest first
    await drainRefusedBody(request);
    if (platformError.code === 'INTERNAL') request.log.error({ err: error }, 'request failed');
    else if (platformError.status >= 500) request.log.warn({ code: platformError.code, reason: platformError.message }, 'dependency unavailable');
    if (platformError.status === 401) reply.header('www-authenticate', wwwAuthenticate(platformError));
    return reply.status(platformError.status).type('application/json; charset=utf-8').send(platformError.toBody(request.id));
  });
  app.setNotFoundHandler((request, reply) => {
    const error = new PlatformError('ROUTE_NOT_FOUND', `no endpoint ${request.method} ${request.url.split('?')[0]}; see /docs`);
    return reply.status(404).type('application/json; charset=utf-8').send(error.toBody(request.id));
  });
}

/** Fastify's `frameworkErrors` option: router errors answered with the platform's error body. */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const [code, message] = ROUTER_ERRORS[error.code] ?? ['BAD_REQUEST', 'the request is not valid'];
  void reply.status(statusOf(code)).header('x-request-id', request.id).type('application/json; charset=utf-8').send(new PlatformError(code, message).toBody(request.id));
}

/**
 * Fastify's `clientErrorHandler`: what Node's HTTP parser refuses before
 * there is a request gets the platform's error body on the raw socket, which
 * is then closed, as Node itself would.
 */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  if (!socket.writable) return void socket.destroy();
  // end, not destroy: the answer is flushed before the connection closes
  socket.end(rawErrorResponse(clientErrorOf(err.code), randomUUID()));
  setTimeout(() => socket.destroy(), 1_000).unref();
}
