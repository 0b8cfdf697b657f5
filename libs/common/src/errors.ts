// Typed errors with stable codes (docs/conventions.md "Errors (platform endpoints)"). Every error that can
// reach a client is a PlatformError whose code is in this catalogue; the code
// fixes the HTTP status, so a code means the same thing on every endpoint and
// across the NATS wire. Codes are never reused: retire one by commenting it out.

export const ERROR_CATALOGUE = {
  // 400: the request itself is malformed
  BAD_REQUEST: { status: 400, summary: 'the request is malformed' },
  INVALID_JSON: { status: 400, summary: 'the body is not valid JSON' },
  VALIDATION_FAILED: { status: 400, summary: 'a field is missing or has the wrong type' },
  BAD_HEX: { status: 400, summary: 'a value is not valid hexadecimal' },
  BAD_QUERY: { status: 400, summary: 'the query string does not parse' },
  USER_NOT_FOUND: { status: 400, summary: 'the user has no key yet' },
  // 401 / 403: who is asking
  TOKEN_MISSING: { status: 401, summary: 'no bearer token was sent' },
  TOKEN_INVALID: { status: 401, summary: 'the bearer token is not valid' },
  FORBIDDEN: { status: 403, summary: 'the user may not do this' },
  IDENTITY_REQUIRED: { status: 403, summary: 'the account has no registered certificate' },
  // 404 / 409
  NOT_FOUND: { status: 404, summary: 'no such resource' },
  ROUTE_NOT_FOUND: { status: 404, summary: 'no such endpoint' },
  USER_EXISTS: { status: 409, summary: 'the user already has a key' },
  CONFLICT: { status: 409, summary: 'the request conflicts with the current state' },
  // 405 / 408 / 413 / 414 / 415 / 416 / 422 / 431
  METHOD_NOT_ALLOWED: { status: 405, summary: 'the endpoint does not take this method' },
  REQUEST_TIMEOUT: { status: 408, summary: 'the request did not arrive in time' },
  BODY_TOO_LARGE: { status: 413, summary: 'the body exceeds the size limit' },
  URI_TOO_LONG: { status: 414, summary: 'a segment of the path is too long' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, summary: 'the body has an unsupported content type' },
  RANGE_NOT_SATISFIABLE: { status: 416, summary: 'the requested offset is past the last row' },
  UNPROCESSABLE: { status: 422, summary: 'the request is well formed but cannot be carried out' },
  NONCE_LIMIT: { status: 422, summary: 'the account reached its nonce limit' },
  HEADERS_TOO_LARGE: { status: 431, summary: 'the request line and headers exceed 16 KB' },
  // 5xx
  INTERNAL: { status: 500, summary: 'an unexpected error; report the correlation id' },
  UNAVAILABLE: { status: 503, summary: 'a dependency of the node is not available' },
  TIMEOUT: { status: 504, summary: 'the operation did not complete in time' },
} as const satisfies Record<string, { status: number; summary: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.hasOwn(ERROR_CATALOGUE, code);
}

export function statusOf(code: ErrorCode): number {
  return ERROR_CATALOGUE[code].status;
}

/** The JSON error body of every platform endpoint. */
export interface ErrorBody {
  error: { code: ErrorCode; message: string; details?: Record<string, unknown>; requestId?: string };
}

export class PlatformError extends Error {
  override readonly name: string = 'PlatformError';
  readonly code: ErrorCode;
  readonly details?: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
    if (details !== undefined) this.details = details;
  }

  get status(): number {
    return statusOf(this.code);
  }

  toBody(requestId?: string): ErrorBody {
    const error: ErrorBody['error'] = { code: this.code, message: this.message };
    if (this.details !== undefined) error.details = this.details;
    if (requestId !== undefined) error.requestId = requestId;
    return { error };
  }
}

/**
 * Turns anything thrown into a PlatformError that is safe to show: a
 * PlatformError passes through; anything else becomes INTERNAL with a generic
 * message, so no stack, SQL text or secret reaches a client.
 */
export function toPlatformError(err: unknown): PlatformError {
  if (err instanceof PlatformError) return err;
  return new PlatformError('INTERNAL', 'internal error', undefined, { cause: err });
}

/**
 * What Node's HTTP parser refuses before there is a request (an HTTP server's
 * `clientError`, by the parser's error code), as a PlatformError: headers or
 * request line over the parser's 16 KB, a request that did not arrive within
 * the server's request timeout, bytes that are not HTTP.
 */
export function clientErrorOf(code: string | undefined): PlatformError {
  if (code === 'HPE_HEADER_OVERFLOW') return new PlatformError('HEADERS_TOO_LARGE', 'the request line and headers exceed 16 KB');
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return new PlatformError('REQUEST_TIMEOUT', 'the request did not arrive in time');
  return new PlatformError('BAD_REQUEST', 'the request is not valid HTTP/1.1');
}

const REASONS: Record<number, string> = { 400: 'Bad Request', 408: 'Request Timeout', 414: 'URI Too Long', 431: 'Request Header Fields Too Large' };

/** A whole HTTP/1.1 response carrying the error body, for a socket that has no request to answer through. */
export function rawErrorResponse(error: PlatformError, requestId: string): string {
  const body = JSON.stringify(error.toBody(requestId));
  return (
    `HTTP/1.1 ${error.status} ${REASONS[error.status] ?? 'Error'}\r\n` +
    `content-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nx-request-id: ${requestId}\r\nconnection: close\r\n\r\n${body}`
  );
}
