// Errors of the query language: always a PlatformError with a 4xx code, a
// message naming the offending part of the request as the client wrote it, and
// never SQL (internal identifiers never appear: messages use API names only).
import { PlatformError } from '@platform/common';

const ECHO_LIMIT = 120;

/** A piece of the request quoted in a message, shortened so a huge parameter does not make a huge error. */
export function echo(text: string): string {
  const shown = text.length > ECHO_LIMIT ? `${text.slice(0, ECHO_LIMIT)}…` : text;
  return `'${shown}'`;
}

export function badQuery(message: string, details?: Record<string, unknown>): PlatformError {
  return new PlatformError('BAD_QUERY', message, details);
}

export function notFound(message: string, details?: Record<string, unknown>): PlatformError {
  return new PlatformError('TABLE_NOT_FOUND', message, details);
}
