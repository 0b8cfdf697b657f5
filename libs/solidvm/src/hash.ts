// Hashes and address derivation used by the interpreter. Keccak-256 and the
// contract address formulas come from @platform/crypto, so SolidVM and the EVM
// derive addresses the same way; SHA-256 and RIPEMD-160 come from node:crypto.
import { createHash } from 'node:crypto';
import {
  contractAddress as cryptoContractAddress,
  keccak256 as cryptoKeccak256,
  recoverAddress,
  saltedContractAddress as cryptoSaltedContractAddress,
} from '@platform/crypto';

/** Keccak-256 (Ethereum's, with the original 0x01 padding). */
export function keccak256(data: Uint8Array): Uint8Array {
  return cryptoKeccak256(data);
}

/**
 * `ecrecover` as the EVM's precompile computes it: v is 27 or 28, and a
 * signature that recovers no key gives no address (the contract sees the zero
 * address). High-s signatures recover, as in the EVM.
 */
export function ecrecoverAddress(hash: Uint8Array, v: number, r: Uint8Array, s: Uint8Array): string | undefined {
  if (v !== 27 && v !== 28) return undefined;
  try {
    return recoverAddress(hash, r, s, (v - 27) as 0 | 1);
  } catch {
    return undefined;
  }
}

export function sha256(data: Uint8Array): Uint8Array {
  return new Uint8Array(createHash('sha256').update(data).digest());
}

export function ripemd160(data: Uint8Array): Uint8Array {
  return new Uint8Array(createHash('ripemd160').update(data).digest());
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

export function bytesToHex(b: Uint8Array): string {
  let s = '';
  for (let i = 0; i < b.length; i++) s += HEX[b[i]];
  return s;
}

export function hexToBytes(hex: string): Uint8Array {
  const h = hex.startsWith('0x') || hex.startsWith('0X') ? hex.slice(2) : hex;
  if (h.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(h)) throw new Error(`not hex: ${hex}`);
  const out = new Uint8Array(h.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(h.slice(i * 2, i * 2 + 2), 16);
  return out;
}

const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder();
export function utf8(s: string): Uint8Array {
  return utf8Encoder.encode(s);
}
export function fromUtf8(b: Uint8Array): string {
  return utf8Decoder.decode(b);
}

/** docs/conventions.md "Transactions": last 20 bytes of keccak(rlp([creator, nonce])). */
export function contractAddress(creator: string, nonce: bigint): string {
  return cryptoContractAddress(creator, nonce);
}

/** Salted creation: last 20 bytes of keccak(rlp([0xff, creator, salt, name, codeHash])). */
export function saltedContractAddress(creator: string, salt: Uint8Array, name: string, codeHash: string): string {
  return cryptoSaltedContractAddress(creator, salt, name, hexToBytes(codeHash));
}
