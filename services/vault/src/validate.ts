// Input checks shared by the NATS endpoints and the HTTP routes, so a bad value
// gets the same code and message whichever way it came in.
import { PlatformError } from '@platform/common';
import { strip0x } from '@platform/crypto';

export const MAX_USERNAME_LENGTH = 255;
export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1000;

/** The request body of a NATS endpoint: a JSON object. */
export function requestObject(value: unknown, endpoint: string): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new PlatformError('VALIDATION_FAILED', `the ${endpoint} request must be a JSON object`);
  }
  return value as Record<string, unknown>;
}

export function username(value: unknown): string {
  if (typeof value !== 'string') throw new PlatformError('VALIDATION_FAILED', 'username must be a string');
  if (value.trim() === '') throw new PlatformError('VALIDATION_FAILED', 'username must not be empty');
  if (value.length > MAX_USERNAME_LENGTH) throw new PlatformError('VALIDATION_FAILED', `username must be at most ${MAX_USERNAME_LENGTH} characters`);
  // PostgreSQL text cannot hold NUL, and no identity provider issues control characters in a username
  if (/\p{Cc}/u.test(value)) throw new PlatformError('VALIDATION_FAILED', 'username must not contain control characters');
  return value;
}

/** A 32-byte hash, hex with or without 0x; returned as 64 lowercase hex. */
export function msgHash(value: unknown): string {
  if (typeof value !== 'string') throw new PlatformError('VALIDATION_FAILED', 'msgHash must be a string of 64 hex digits');
  return hexOfLength(value, 32, 'msgHash');
}

/** An address, 40 hex with or without 0x; returned lowercase without 0x. */
export function address(value: unknown): string {
  if (typeof value !== 'string') throw new PlatformError('VALIDATION_FAILED', 'address must be a string of 40 hex digits');
  return hexOfLength(value, 20, 'address');
}

function hexOfLength(value: string, bytes: number, field: string): string {
  const body = strip0x(value);
  if (!/^[0-9a-fA-F]*$/.test(body)) throw new PlatformError('BAD_HEX', `${field} is not hexadecimal`);
  if (body.length !== bytes * 2) throw new PlatformError('BAD_HEX', `${field} must be ${bytes} bytes (${bytes * 2} hex digits), got ${body.length} digits`);
  return body.toLowerCase();
}

/**
 * A paging number: absent gives the default; a JSON integer or a decimal
 * string (the HTTP query form) within [min, max] is accepted, anything else is
 * VALIDATION_FAILED naming the field.
 */
export function pagingNumber(value: unknown, field: string, fallback: number, min: number, max: number): number {
  if (value === undefined || value === null) return fallback;
  let n: number;
  if (typeof value === 'number') n = value;
  else if (typeof value === 'string' && /^\d{1,16}$/.test(value)) n = Number(value);
  else throw new PlatformError('VALIDATION_FAILED', `${field} must be an integer from ${min} to ${max}`);
  if (!Number.isSafeInteger(n) || n < min || n > max) throw new PlatformError('VALIDATION_FAILED', `${field} must be an integer from ${min} to ${max}`);
  return n;
}

export interface UsersQuery {
  address: string | null;
  limit: number;
  offset: number;
}

export function usersQuery(request: Record<string, unknown>): UsersQuery {
  return {
    // an empty `?address=` means "no filter", as a form with an empty field would send
    address: request.address === undefined || request.address === null || request.address === '' ? null : address(request.address),
    limit: pagingNumber(request.limit, 'limit', DEFAULT_LIMIT, 1, MAX_LIMIT),
    offset: pagingNumber(request.offset, 'offset', 0, 0, Number.MAX_SAFE_INTEGER),
  };
}
