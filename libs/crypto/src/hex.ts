import { Buffer } from 'node:buffer';
import { CryptoError } from './errors.js';

/** Hexadecimal text. Everything this package returns is lowercase, without `0x`. */
export type Hex = string;

const HEX_BODY = /^[0-9a-fA-F]*$/;

/** Removes one leading `0x` (or `0X`), if present. */
export function strip0x(hex: string): string {
  return hex.length >= 2 && hex.charCodeAt(0) === 48 && (hex.charCodeAt(1) === 120 || hex.charCodeAt(1) === 88)
    ? hex.slice(2)
    : hex;
}

/**
 * Decodes hexadecimal (either case, optional `0x`) into fresh bytes. Throws
 * CryptoError `BAD_HEX` on an odd number of digits or a non-hex character.
 */
export function hexToBytes(hex: string): Uint8Array {
  if (typeof hex !== 'string') throw new CryptoError('BAD_HEX', `expected a hex string, got ${typeof hex}`);
  const body = strip0x(hex);
  if (!HEX_BODY.test(body)) {
    const at = body.search(/[^0-9a-fA-F]/);
    throw new CryptoError('BAD_HEX', `not hexadecimal: ${JSON.stringify(body[at])} at position ${at + hex.length - body.length}`);
  }
  if (body.length % 2 !== 0) throw new CryptoError('BAD_HEX', `odd number of hex digits (${body.length})`);
  const out = new Uint8Array(body.length >>> 1);
  Buffer.from(out.buffer, out.byteOffset, out.byteLength).write(body, 'hex');
  return out;
}

/** Lowercase hexadecimal without `0x`. */
export function bytesToHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

/** Decodes an address (40 hex digits, optional `0x`) into its 20 bytes. */
export function addressToBytes(address: string, what: string): Uint8Array {
  const bytes = hexToBytes(address);
  if (bytes.length !== 20) throw new CryptoError('BAD_HEX', `${what} must be 20 bytes (40 hex digits), got ${bytes.length} bytes`);
  return bytes;
}

/** The bytes of every part, one after another. */
export function concatBytes(parts: Uint8Array[]): Uint8Array {
  let length = 0;
  for (const part of parts) length += part.length;
  const out = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
