// Lossless JSON for request bodies (docs/conventions.md "Requests"): a number that
// a JavaScript number cannot hold exactly (integers beyond 2^53, decimals with
// many digits) is kept as its decimal text instead of being rounded.
import { parse, isSafeNumber } from 'lossless-json';
import { PlatformError } from './errors.js';

export function parseJsonLossless(text: string): unknown {
  try {
    return parse(text, null, (value: string) => (isSafeNumber(value) ? Number(value) : value));
  } catch (err) {
    const position = err instanceof Error ? err.message : 'invalid JSON';
    throw new PlatformError('INVALID_JSON', `the body is not valid JSON: ${position}`, undefined, { cause: err });
  }
}
