// Typed errors with stable codes: the one catalogue of every code a client
// can receive (docs/errors.md lists it, and a test keeps the two equal). A
// code names the failure, so that a caller can tell one from another without
// reading the message; the code fixes the HTTP status, so a code means the
// same thing on every endpoint and across the NATS wire. Codes are never
// reused: a code no longer thrown moves to RETIRED_ERRORS and stays there.

interface CatalogueEntry {
  status: number;
  /** what went wrong, one line */
  summary: string;
  /** what the caller can do about it, where there is something */
  hint?: string;
}

/** Every code in use, by the domain it belongs to. */
export const ERROR_DOMAINS = {
  request: {
    BAD_REQUEST: { status: 400, summary: 'the request is malformed (not HTTP/1.1, a path that is not UTF-8, a malformed bus request)' },
    INVALID_JSON: { status: 400, summary: 'the body is not valid JSON, or is nested over 512 levels' },
    VALIDATION_FAILED: { status: 400, summary: 'a field is missing, has the wrong type or an unknown value', hint: 'details.field names the field by its path in the body' },
    BAD_HEX: { status: 400, summary: 'a value is not valid hexadecimal', hint: 'details.field names the field' },
    ROUTE_NOT_FOUND: { status: 404, summary: 'no such endpoint', hint: 'the node lists its endpoints at /docs' },
    METHOD_NOT_ALLOWED: { status: 405, summary: 'the endpoint does not take this method' },
    REQUEST_TIMEOUT: { status: 408, summary: 'the request did not arrive in time' },
    BODY_TOO_LARGE: { status: 413, summary: 'the body exceeds the size limit', hint: 'details.limit is the limit in bytes' },
    URI_TOO_LONG: { status: 414, summary: 'a segment of the path is too long' },
    UNSUPPORTED_MEDIA_TYPE: { status: 415, summary: 'the body has an unsupported content type', hint: 'send application/json' },
    HEADERS_TOO_LARGE: { status: 431, summary: 'the request line and headers exceed 16 KB' },
  },
  auth: {
    TOKEN_MISSING: { status: 401, summary: 'no bearer token was sent', hint: 'send Authorization: Bearer <token> from the identity provider' },
    TOKEN_INVALID: { status: 401, summary: 'the bearer token is not valid (malformed, expired, another issuer or audience)', hint: 'get a new token' },
    FORBIDDEN: { status: 403, summary: 'the user may not do this' },
  },
  accounts: {
    USER_NOT_FOUND: { status: 400, summary: 'the user has no key yet', hint: 'POST /platform/v2.3/key creates it' },
    USER_EXISTS: { status: 409, summary: 'the user already has a key' },
    IDENTITY_REQUIRED: { status: 403, summary: 'the account has no registered certificate' },
    ENROLMENT_FAILED: { status: 422, summary: "the key exists, but registering the user's certificate failed", hint: 'POST /platform/v2.3/key again to retry the enrolment' },
    PARENT_CERTIFICATE_FOREIGN: { status: 422, summary: "a certificate was asked for under a CA other than the node's", hint: "omit parentCertificate, or send the node CA's certificate" },
  },
  transactions: {
    NONCE_MISMATCH: { status: 422, summary: "a raw transaction's nonce is not the account's next", hint: 'sign it again with details.expected as the nonce' },
    SIGNER_MISMATCH: { status: 422, summary: "a raw transaction's signature was not made by its address over this transaction" },
    METADATA_UNSIGNED: { status: 422, summary: "the node requires a raw transaction's signature to cover its metadata", hint: 'sign the list with the sorted [key, value] pairs of metadata appended' },
    ARGS_UNPARSABLE: { status: 422, summary: "a raw transaction's metadata.args does not parse", hint: 'give the arguments as (a,b) or as JSON' },
    GAS_PRICE_TOO_LOW: { status: 422, summary: "the gas price is below the chain's minimum", hint: 'send it with details.minGasPrice or more' },
    INSUFFICIENT_BALANCE: { status: 422, summary: 'the account cannot pay gasLimit × gasPrice + value upfront', hint: 'fund the account (the faucet, or a transfer on a private chain), then send again' },
    NONCE_LIMIT: { status: 422, summary: 'the account reached its nonce limit' },
    IDEMPOTENCY_KEY_REUSED: { status: 409, summary: 'the Idempotency-Key was used for a different request', hint: 'use a new key for a new request' },
    TRANSACTION_FAILED: { status: 422, summary: 'a transaction the request needed executed and failed', hint: 'details.hash is the transaction; its result says why' },
    TRANSACTION_NOT_FOUND: { status: 404, summary: 'no transaction with this hash on the node, or none the user may see', hint: 'details.unknown lists the hashes' },
  },
  contracts: {
    COMPILE_FAILED: { status: 422, summary: 'the source does not compile, or lacks the named contract', hint: "details.errors has the compiler's messages" },
  },
  chains: {
    CHAIN_NOT_FOUND: { status: 404, summary: 'no chain with this ID on the node, or one the user is not a member of', hint: 'details.chainId is the chain; POST /bloc/v2.2/chain creates one' },
    GENESIS_INVALID: { status: 422, summary: "a private chain's genesis is not valid (its ID not the hash of its text, not exactly one governance contract)" },
    GOVERNANCE_VM_UNSUPPORTED: { status: 422, summary: 'a governance contract must run on SolidVM', hint: 'send metadata.VM "SolidVM"' },
    GOVERNANCE_NO_CONSTRUCTOR: { status: 422, summary: 'the governance contract has no explicit constructor', hint: 'declare one (constructor() {} will do)' },
    GOVERNANCE_CONSTRUCTOR_FAILED: { status: 422, summary: "the governance contract's constructor failed" },
  },
  data: {
    TABLE_NOT_FOUND: { status: 404, summary: 'no contract table (or history, event or side table) of that name that the user may see' },
    TABLE_AMBIGUOUS: { status: 409, summary: 'a bare contract name that several tables have', hint: 'use one of the full names in details.tables' },
    BAD_QUERY: { status: 400, summary: 'the query string does not parse, or names an unknown column' },
    RANGE_NOT_SATISFIABLE: { status: 416, summary: 'the requested offset is past the last row', hint: 'Content-Range: */<total> says how many rows there are' },
  },
  files: {
    FILE_NOT_FOUND: { status: 404, summary: 'no file with this key, or one the user is not a member of' },
    FILE_VERSION_NOT_FOUND: { status: 404, summary: 'the file has no version of that number', hint: 'details.versions is how many it has' },
    FILE_KEY_TAKEN: { status: 409, summary: 'another upload took the file key in the same millisecond', hint: 'upload again' },
    FILE_STORAGE_OFF: { status: 404, summary: 'the file storage endpoints are turned off on this node', hint: 'the operator sets EXT_STORAGE_OBJ_* to turn them on' },
    STORAGE_CONTRACT_NOT_FOUND: { status: 404, summary: 'no file storage contract at that address' },
    DOWNLOAD_EXPIRED: { status: 404, summary: 'the download URL was used already or has expired', hint: 'ask for another one' },
  },
  node: {
    ANSWER_EXPIRED: { status: 404, summary: "a part of a service's answer too large for one bus message is no longer kept", hint: 'call again' },
    INTERNAL: { status: 500, summary: 'an unexpected error', hint: 'report the requestId: it correlates with the node logs' },
    UNAVAILABLE: { status: 503, summary: 'a dependency of the node (NATS, a service, the database, the identity provider) is not available', hint: 'retry' },
    TIMEOUT: { status: 504, summary: 'the operation did not complete in time', hint: 'details.hashes lists the transactions, which stay trackable' },
  },
} as const satisfies Record<string, Record<string, CatalogueEntry>>;

/**
 * Codes no longer thrown, listed so that they are never given a new meaning.
 * A peer of an older version may still send one over the bus: it is kept.
 */
export const RETIRED_ERRORS = {
  UNPROCESSABLE: {
    status: 422,
    summary: 'the request is well formed but cannot be carried out',
    retired: 'split into the codes naming each failure: NONCE_MISMATCH, SIGNER_MISMATCH, METADATA_UNSIGNED, ARGS_UNPARSABLE, GAS_PRICE_TOO_LOW, INSUFFICIENT_BALANCE, TRANSACTION_FAILED, COMPILE_FAILED, ENROLMENT_FAILED, PARENT_CERTIFICATE_FOREIGN, GENESIS_INVALID, GOVERNANCE_*',
  },
  NOT_FOUND: {
    status: 404,
    summary: 'no such resource, or one the user may not see',
    retired: 'split into the codes naming what was not found: TRANSACTION_NOT_FOUND, CHAIN_NOT_FOUND, TABLE_NOT_FOUND, FILE_NOT_FOUND, FILE_VERSION_NOT_FOUND, FILE_STORAGE_OFF, STORAGE_CONTRACT_NOT_FOUND, DOWNLOAD_EXPIRED, ANSWER_EXPIRED (an unknown endpoint is ROUTE_NOT_FOUND)',
  },
  CONFLICT: {
    status: 409,
    summary: 'the request conflicts with the current state',
    retired: 'split into TABLE_AMBIGUOUS and FILE_KEY_TAKEN',
  },
} as const satisfies Record<string, CatalogueEntry & { retired: string }>;

type Domains = typeof ERROR_DOMAINS;
/** A code in use: what a PlatformError is made with. */
export type ErrorCode = { [D in keyof Domains]: keyof Domains[D] }[keyof Domains];
export type RetiredErrorCode = keyof typeof RETIRED_ERRORS;
export type ErrorDomain = keyof Domains;

/** Every code, in use or retired, with its status, meaning, hint and domain. */
export const ERROR_CATALOGUE: Readonly<Record<ErrorCode | RetiredErrorCode, CatalogueEntry & { domain: ErrorDomain | 'retired'; retired?: string }>> = Object.freeze(
  Object.assign(
    Object.create(null),
    ...Object.entries(ERROR_DOMAINS).flatMap(([domain, codes]) => Object.entries(codes).map(([code, entry]) => ({ [code]: { ...entry, domain } }))),
    ...Object.entries(RETIRED_ERRORS).map(([code, entry]) => ({ [code]: { ...entry, domain: 'retired' } })),
  ),
);

/** Whether this is a catalogue code, in use or retired (what may arrive from the bus). */
export function isErrorCode(code: unknown): code is ErrorCode | RetiredErrorCode {
  return typeof code === 'string' && Object.hasOwn(ERROR_CATALOGUE, code);
}

export function statusOf(code: ErrorCode | RetiredErrorCode): number {
  return ERROR_CATALOGUE[code].status;
}

/** The JSON error body of every platform endpoint. */
export interface ErrorBody {
  error: { code: ErrorCode | RetiredErrorCode; message: string; details?: Record<string, unknown>; requestId?: string };
}

export class PlatformError extends Error {
  override readonly name: string = 'PlatformError';
  /** retired only when it came from a peer of an older version */
  readonly code: ErrorCode | RetiredErrorCode;
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
