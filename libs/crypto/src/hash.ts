import { createKeccak } from 'hash-wasm';
import { bytesToHex } from './hex.js';

const utf8 = new TextEncoder();

// Keccak is on every hot path of a block (transaction hashes, signing hashes,
// every node of the state tries): hash-wasm's WebAssembly Keccak is 4–8 times
// faster than a JavaScript one on 40–200-byte inputs (libs/crypto/bench). One
// instance serves every call: JavaScript never interleaves init/update/digest.
const hasher = await createKeccak(256);

/** Keccak-256 (Ethereum's, not NIST SHA3-256). */
export function keccak256(data: Uint8Array): Uint8Array {
  hasher.init();
  hasher.update(data);
  return hasher.digest('binary');
}

/** Keccak-256 as 64 lowercase hex digits; a string is hashed as its UTF-8 bytes. */
export function keccak256Hex(data: Uint8Array | string): string {
  return bytesToHex(keccak256(typeof data === 'string' ? utf8.encode(data) : data));
}

/** The address of a hash: its last 20 bytes as 40 hex digits. */
export function addressOfHash(hash: Uint8Array): string {
  return bytesToHex(hash.subarray(12, 32));
}
