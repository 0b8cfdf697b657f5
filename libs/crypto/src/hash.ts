import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex } from './hex.js';

const utf8 = new TextEncoder();

/** Keccak-256 (Ethereum's, not NIST SHA3-256). */
export function keccak256(data: Uint8Array): Uint8Array {
  return keccak_256(data);
}

/** Keccak-256 as 64 lowercase hex digits; a string is hashed as its UTF-8 bytes. */
export function keccak256Hex(data: Uint8Array | string): string {
  return bytesToHex(keccak_256(typeof data === 'string' ? utf8.encode(data) : data));
}

/** The address of a hash: its last 20 bytes as 40 hex digits. */
export function addressOfHash(hash: Uint8Array): string {
  return bytesToHex(hash.subarray(12, 32));
}
