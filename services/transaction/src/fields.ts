// Field parsers shared by every endpoint. Each names the field it refuses by
// its path in the HTTP body (docs/conventions.md "Errors (platform endpoints)":
// bad input is "a 4xx naming the field"), in the message and in
// `details.field`, so a client can point at it.
import { PlatformError } from '@platform/common';

const MAX_UINT256 = (1n << 256n) - 1n;
const HEX = /^[0-9a-fA-F]*$/;

export function invalid(field: string, message: string, details: Record<string, unknown> = {}): PlatformError {
  return new PlatformError('VALIDATION_FAILED', `${field} ${message}`, { field, ...details });
}

export function badHex(field: string, message: string): PlatformError {
  return new PlatformError('BAD_HEX', `${field} ${message}`, { field });
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function requireObject(value: unknown, field: string): Record<string, unknown> {
  if (!isObject(value)) throw invalid(field, 'must be an object');
  return value;
}

export function requireString(value: unknown, field: string, options: { nonEmpty?: boolean } = {}): string {
  if (typeof value !== 'string') throw invalid(field, value === undefined ? 'is required' : 'must be a string');
  if (options.nonEmpty && value.trim() === '') throw invalid(field, 'must not be empty');
  return value;
}

/**
 * A non-negative integer given as a JSON number or a decimal string (the
 * gateway's lossless parser turns numbers beyond 2^53 into strings).
 */
export function integer(value: unknown, field: string, max: bigint = MAX_UINT256): bigint {
  let n: bigint;
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw invalid(field, `must be an integer, got ${value}`);
    n = BigInt(value);
  } else if (typeof value === 'string' && /^\s*\d+\s*$/.test(value)) {
    n = BigInt(value.trim());
  } else if (value === undefined || value === null) {
    throw invalid(field, 'is required');
  } else {
    throw invalid(field, `must be a non-negative integer (a number or a decimal string), got ${JSON.stringify(value)}`);
  }
  if (n < 0n) throw invalid(field, 'must not be negative');
  if (n > max) throw invalid(field, `must be at most ${max}`);
  return n;
}

export function strip0x(hex: string): string {
  return hex.startsWith('0x') || hex.startsWith('0X') ? hex.slice(2) : hex;
}

/** Hex text (0x optional) → lowercase hex without 0x. */
export function hexText(value: unknown, field: string, options: { bytes?: number; maxBytes?: number } = {}): string {
  if (typeof value !== 'string') throw invalid(field, value === undefined ? 'is required' : 'must be a hex string');
  const body = strip0x(value);
  if (!HEX.test(body)) throw badHex(field, `is not hexadecimal: ${JSON.stringify(value.length > 20 ? `${value.slice(0, 17)}...` : value)}`);
  if (body.length % 2 !== 0) throw badHex(field, `has an odd number of hex digits (${body.length})`);
  const bytes = body.length / 2;
  if (options.bytes !== undefined && bytes !== options.bytes) throw invalid(field, `must be ${options.bytes} bytes (${options.bytes * 2} hex digits), got ${bytes}`);
  if (options.maxBytes !== undefined && bytes > options.maxBytes) throw invalid(field, `must be at most ${options.maxBytes} bytes, got ${bytes}`);
  return body.toLowerCase();
}

export function address(value: unknown, field: string): string {
  return hexText(value, field, { bytes: 20 });
}

export function hash(value: unknown, field: string): string {
  return hexText(value, field, { bytes: 32 });
}

/** A chain ID: '' (also null/undefined/"main") for the main chain, else 32 bytes of hex. */
export function chainId(value: unknown, field: string): string {
  if (value === undefined || value === null || value === '') return '';
  return hexText(value, field, { bytes: 32 });
}

/**
 * The chain of an item: its own `chainid` and the request's must agree when
 * both are given (docs/conventions.md "Transactions").
 */
export function agreeingChain(requestChain: string | null | undefined, own: unknown, field: string): string {
  const fromRequest = requestChain === undefined || requestChain === null ? null : chainId(requestChain, 'chainid');
  if (own === undefined || own === null) return fromRequest ?? '';
  const mine = chainId(own, field);
  if (fromRequest !== null && fromRequest !== mine) {
    throw invalid(field, `(${mine || 'main'}) disagrees with the chainid query parameter (${fromRequest || 'main'})`);
  }
  return mine;
}

/** Transaction metadata: a map of strings (numbers and booleans are taken as their text). */
export function metadata(value: unknown, field: string): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (!isObject(value)) throw invalid(field, 'must be an object of strings');
  const out: Record<string, string> = {};
  for (const [key, v] of Object.entries(value)) {
    if (typeof v === 'string') out[key] = v;
    else if (typeof v === 'number' || typeof v === 'boolean') out[key] = String(v);
    else throw invalid(`${field}.${key}`, 'must be a string');
  }
  return out;
}

export function username(value: unknown): string {
  return requireString(value, 'username', { nonEmpty: true });
}
