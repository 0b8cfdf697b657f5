// Every error leaves the gateway as the JSON error body of CONVENTIONS.md
// "Errors". Fastify's own errors (validation, body parsing, limits) are
// mapped to the stable codes; anything unforeseen is INTERNAL, logged with the
// request id that the client also receives, and never shows its cause.
import type { FastifyError, FastifyInstance } from 'fastify';
import { PlatformError, type ErrorCode } from '@platform/common';
import { wwwAuthenticate } from '@platform/auth';

const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'BODY_TOO_LARGE',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'BAD_REQUEST',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'INVALID_JSON',
  FST_ERR_CTP_INVALID_JSON_BODY: 'INVALID_JSON',
};

const CODE_BY_STATUS: Record<number, ErrorCode> = { 400: 'BAD_REQUEST', 404: 'NOT_FOUND', 405: 'METHOD_NOT_ALLOWED', 413: 'BODY_TOO_LARGE', 415: 'UNSUPPORTED_MEDIA_TYPE' };

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

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => {
    const platformError = toHttpError(error);
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
