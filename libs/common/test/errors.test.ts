// The error catalogue (docs/conventions.md "Errors (platform endpoints)"):
// a code fixes its HTTP status everywhere, and every error body has one shape.
import { ERROR_CATALOGUE, ERROR_DOMAINS, RETIRED_ERRORS, PlatformError, clientErrorOf, isErrorCode, rawErrorResponse, statusOf, toPlatformError, type ErrorCode, type RetiredErrorCode } from '../src/errors.js';

// every code with the status clients see; a code's status never changes
const STATUS: Record<ErrorCode | RetiredErrorCode, number> = {
  BAD_REQUEST: 400,
  INVALID_JSON: 400,
  VALIDATION_FAILED: 400,
  BAD_HEX: 400,
  BAD_QUERY: 400,
  USER_NOT_FOUND: 400,
  TOKEN_MISSING: 401,
  TOKEN_INVALID: 401,
  FORBIDDEN: 403,
  IDENTITY_REQUIRED: 403,
  NOT_FOUND: 404,
  ROUTE_NOT_FOUND: 404,
  TRANSACTION_NOT_FOUND: 404,
  CHAIN_NOT_FOUND: 404,
  TABLE_NOT_FOUND: 404,
  FILE_NOT_FOUND: 404,
  FILE_VERSION_NOT_FOUND: 404,
  FILE_STORAGE_OFF: 404,
  STORAGE_CONTRACT_NOT_FOUND: 404,
  DOWNLOAD_EXPIRED: 404,
  ANSWER_EXPIRED: 404,
  USER_EXISTS: 409,
  CONFLICT: 409,
  TABLE_AMBIGUOUS: 409,
  FILE_KEY_TAKEN: 409,
  IDEMPOTENCY_KEY_REUSED: 409,
  METHOD_NOT_ALLOWED: 405,
  REQUEST_TIMEOUT: 408,
  BODY_TOO_LARGE: 413,
  URI_TOO_LONG: 414,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RANGE_NOT_SATISFIABLE: 416,
  UNPROCESSABLE: 422,
  NONCE_LIMIT: 422,
  NONCE_MISMATCH: 422,
  SIGNER_MISMATCH: 422,
  METADATA_UNSIGNED: 422,
  ARGS_UNPARSABLE: 422,
  GAS_PRICE_TOO_LOW: 422,
  INSUFFICIENT_BALANCE: 422,
  TRANSACTION_FAILED: 422,
  COMPILE_FAILED: 422,
  ENROLMENT_FAILED: 422,
  PARENT_CERTIFICATE_FOREIGN: 422,
  GENESIS_INVALID: 422,
  GOVERNANCE_VM_UNSUPPORTED: 422,
  GOVERNANCE_NO_CONSTRUCTOR: 422,
  GOVERNANCE_CONSTRUCTOR_FAILED: 422,
  HEADERS_TOO_LARGE: 431,
  INTERNAL: 500,
  UNAVAILABLE: 503,
  TIMEOUT: 504,
};

describe('the error catalogue', () => {
  test('every code has the status it is documented with, and no code is missing from this list', () => {
    expect(Object.keys(ERROR_CATALOGUE).sort()).toEqual(Object.keys(STATUS).sort());
    for (const [code, status] of Object.entries(STATUS)) expect([code, statusOf(code as ErrorCode)]).toEqual([code, status]);
    for (const code of Object.keys(STATUS).filter((c) => !Object.hasOwn(RETIRED_ERRORS, c))) expect([code, new PlatformError(code as ErrorCode, 'm').status]).toEqual([code, STATUS[code as ErrorCode]]);
  });

  test('every code is upper snake case with a one-line summary, and a one-line hint when it has one', () => {
    for (const [code, entry] of Object.entries(ERROR_CATALOGUE)) {
      expect(code).toMatch(/^[A-Z][A-Z0-9_]*$/);
      expect(entry.summary).toMatch(/^[^\n]+$/);
      if (entry.hint !== undefined) expect(entry.hint).toMatch(/^[^\n]+$/);
    }
  });

  test('a code is in one domain only, and a retired code is in none: it is never given a new meaning', () => {
    const inDomains = Object.values(ERROR_DOMAINS).flatMap((codes) => Object.keys(codes));
    expect(new Set(inDomains).size).toBe(inDomains.length);
    for (const [code, entry] of Object.entries(RETIRED_ERRORS)) {
      expect(inDomains).not.toContain(code);
      expect([code, ERROR_CATALOGUE[code as RetiredErrorCode].domain]).toEqual([code, 'retired']);
      expect(entry.retired).toMatch(/^[^\n]+$/);
    }
  });

  test('isErrorCode knows the catalogue, retired codes included (a peer of an older version may send one), and nothing else', () => {
    expect(isErrorCode('NOT_FOUND')).toBe(true);
    expect(isErrorCode('UNPROCESSABLE')).toBe(true);
    for (const other of ['not_found', 'NOPE', '', 'toString', 'constructor', '__proto__', 404, null, undefined]) expect(isErrorCode(other)).toBe(false);
  });
});

describe('PlatformError', () => {
  test('toBody is { error: { code, message } }, with details and requestId only when given', () => {
    expect(new PlatformError('TABLE_NOT_FOUND', 'no such contract').toBody()).toEqual({ error: { code: 'TABLE_NOT_FOUND', message: 'no such contract' } });
    const err = new PlatformError('VALIDATION_FAILED', 'address is required', { field: 'address' });
    expect(err.toBody('req-1')).toEqual({ error: { code: 'VALIDATION_FAILED', message: 'address is required', details: { field: 'address' }, requestId: 'req-1' } });
    expect(Object.keys(err.toBody('req-1').error)).toEqual(['code', 'message', 'details', 'requestId']);
    expect('details' in new PlatformError('TABLE_AMBIGUOUS', 'c').toBody().error).toBe(false);
    expect(JSON.parse(JSON.stringify(err.toBody()))).toEqual({ error: { code: 'VALIDATION_FAILED', message: 'address is required', details: { field: 'address' } } });
  });

  test('is an Error with its name, code and cause', () => {
    const cause = new Error('socket closed');
    const err = new PlatformError('UNAVAILABLE', 'the database is down', undefined, { cause });
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe('PlatformError');
    expect(err.code).toBe('UNAVAILABLE');
    expect(err.cause).toBe(cause);
    expect(err.details).toBeUndefined();
  });
});

describe('toPlatformError', () => {
  test('a PlatformError passes through unchanged', () => {
    const err = new PlatformError('FORBIDDEN', 'not yours');
    expect(toPlatformError(err)).toBe(err);
  });

  test('anything else becomes INTERNAL with a generic message, keeping the original as the cause only', () => {
    const secret = new Error('password authentication failed for user "postgres" at SELECT * FROM vault.keys');
    const err = toPlatformError(secret);
    expect(err.code).toBe('INTERNAL');
    expect(err.status).toBe(500);
    expect(err.toBody('r')).toEqual({ error: { code: 'INTERNAL', message: 'internal error', requestId: 'r' } });
    expect(err.cause).toBe(secret);
    expect(toPlatformError('a string').code).toBe('INTERNAL');
    expect(toPlatformError(undefined).code).toBe('INTERNAL');
  });
});

describe("the HTTP parser's refusals", () => {
  test('clientErrorOf maps the parser codes to the catalogue', () => {
    expect(clientErrorOf('HPE_HEADER_OVERFLOW').code).toBe('HEADERS_TOO_LARGE');
    expect(clientErrorOf('ERR_HTTP_REQUEST_TIMEOUT').code).toBe('REQUEST_TIMEOUT');
    expect(clientErrorOf('HPE_INVALID_METHOD').code).toBe('BAD_REQUEST');
    expect(clientErrorOf(undefined).code).toBe('BAD_REQUEST');
  });

  test('rawErrorResponse is a whole HTTP/1.1 response carrying the error body', () => {
    const response = rawErrorResponse(clientErrorOf('HPE_HEADER_OVERFLOW'), 'req-9');
    const [head, body] = response.split('\r\n\r\n');
    const lines = head.split('\r\n');
    expect(lines[0]).toBe('HTTP/1.1 431 Request Header Fields Too Large');
    expect(lines).toContain('content-type: application/json; charset=utf-8');
    expect(lines).toContain('x-request-id: req-9');
    expect(lines).toContain('connection: close');
    expect(lines).toContain(`content-length: ${Buffer.byteLength(body)}`);
    expect(JSON.parse(body)).toEqual({ error: { code: 'HEADERS_TOO_LARGE', message: 'the request line and headers exceed 16 KB', requestId: 'req-9' } });
    expect(rawErrorResponse(new PlatformError('CHAIN_NOT_FOUND', 'x'), 'r').startsWith('HTTP/1.1 404 Error\r\n')).toBe(true);
  });
});
