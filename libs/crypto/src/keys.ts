import { randomBytes } from 'node:crypto';
import secp256k1 from 'secp256k1';
import { CryptoError } from './errors.js';
import { addressOfHash, keccak256 } from './hash.js';
import { bytesToBigint } from './rlp.js';

export interface KeyPair {
  privateKey: Uint8Array;
  /** 65 bytes, uncompressed (`04 ‖ x ‖ y`). */
  publicKey: Uint8Array;
  /** 40 lowercase hex digits, no `0x`. */
  address: string;
}

export interface Signature {
  r: Uint8Array;
  s: Uint8Array;
  recovery: 0 | 1;
  v: 27 | 28;
}

const HALF_N = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;

function assertHash(hash32: Uint8Array): void {
  if (!(hash32 instanceof Uint8Array) || hash32.length !== 32) {
    throw new CryptoError('BAD_SIGNATURE', `the signed hash must be 32 bytes, got ${hash32 instanceof Uint8Array ? hash32.length : typeof hash32}`);
  }
}

function assertPrivateKey(privateKey: Uint8Array): void {
  if (!(privateKey instanceof Uint8Array) || privateKey.length !== 32) {
    throw new CryptoError('BAD_KEY', `a private key must be 32 bytes, got ${privateKey instanceof Uint8Array ? privateKey.length : typeof privateKey}`);
  }
  if (!secp256k1.privateKeyVerify(privateKey)) throw new CryptoError('BAD_KEY', 'the private key is not in [1, n-1]');
}

/** `r ‖ s`, each left-padded to 32 bytes. */
function compactSignature(r: Uint8Array, s: Uint8Array): Uint8Array {
  if (!(r instanceof Uint8Array) || !(s instanceof Uint8Array) || r.length > 32 || s.length > 32) {
    throw new CryptoError('BAD_SIGNATURE', 'r and s must be byte arrays of at most 32 bytes');
  }
  const sig = new Uint8Array(64);
  sig.set(r, 32 - r.length);
  sig.set(s, 64 - s.length);
  return sig;
}

/** Address of a 65-byte uncompressed key known to be valid. */
function addressOfUncompressed(publicKey: Uint8Array): string {
  return addressOfHash(keccak256(publicKey.subarray(1)));
}

/** True if `s` is above n/2: such a signature is malleable and is rejected. */
export function isHighS(s: Uint8Array): boolean {
  return bytesToBigint(s) > HALF_N;
}

/** A new random key pair. */
export function generateKeyPair(): KeyPair {
  for (;;) {
    const candidate = randomBytes(32);
    const privateKey = new Uint8Array(candidate);
    candidate.fill(0);
    if (secp256k1.privateKeyVerify(privateKey)) return keyPairFromPrivateKey(privateKey);
  }
}

/** Public key and address of a private key. Throws CryptoError `BAD_KEY`. */
export function keyPairFromPrivateKey(privateKey: Uint8Array): KeyPair {
  const publicKey = publicKeyFromPrivateKey(privateKey);
  return { privateKey, publicKey, address: addressOfUncompressed(publicKey) };
}

/** The 65-byte uncompressed public key. Throws CryptoError `BAD_KEY`. */
export function publicKeyFromPrivateKey(privateKey: Uint8Array): Uint8Array {
  assertPrivateKey(privateKey);
  return secp256k1.publicKeyCreate(privateKey, false);
}

/**
 * The address of a public key: the last 20 bytes of Keccak-256 of the 64-byte
 * `x ‖ y`. Takes 65 bytes (`04 ‖ x ‖ y`), 64 bytes (`x ‖ y`) or 33 bytes
 * (compressed). Throws CryptoError `BAD_KEY` if the key is not a curve point.
 */
export function addressFromPublicKey(publicKey: Uint8Array): string {
  if (!(publicKey instanceof Uint8Array)) throw new CryptoError('BAD_KEY', `expected public key bytes, got ${typeof publicKey}`);
  let uncompressed: Uint8Array;
  if (publicKey.length === 65 && publicKey[0] === 4) {
    uncompressed = publicKey;
  } else if (publicKey.length === 64) {
    uncompressed = new Uint8Array(65);
    uncompressed[0] = 4;
    uncompressed.set(publicKey, 1);
  } else if (publicKey.length === 33 && (publicKey[0] === 2 || publicKey[0] === 3)) {
    try {
      uncompressed = secp256k1.publicKeyConvert(publicKey, false);
    } catch (err) {
      throw new CryptoError('BAD_KEY', 'the compressed public key is not a curve point', { cause: err });
    }
  } else {
    throw new CryptoError('BAD_KEY', `a public key is 65 bytes starting 04, 64 bytes, or 33 bytes starting 02/03; got ${publicKey.length} bytes`);
  }
  if (!secp256k1.publicKeyVerify(uncompressed)) throw new CryptoError('BAD_KEY', 'the public key is not a curve point');
  return addressOfUncompressed(uncompressed);
}

/**
 * Deterministic (RFC 6979) ECDSA signature of a 32-byte hash, always low-s.
 * Throws CryptoError `BAD_KEY` for a bad key, `BAD_SIGNATURE` for a hash that
 * is not 32 bytes.
 */
export function sign(hash32: Uint8Array, privateKey: Uint8Array): Signature {
  assertHash(hash32);
  if (!(privateKey instanceof Uint8Array) || privateKey.length !== 32) assertPrivateKey(privateKey);
  let result: { signature: Uint8Array; recid: number };
  try {
    result = secp256k1.ecdsaSign(hash32, privateKey);
  } catch (err) {
    throw new CryptoError('BAD_KEY', 'the private key is not in [1, n-1]', { cause: err });
  }
  const { signature } = result;
  let recid = result.recid;
  if (isHighS(signature.subarray(32))) {
    secp256k1.signatureNormalize(signature);
    recid ^= 1;
  }
  if (recid > 1) throw new CryptoError('BAD_SIGNATURE', 'the signature has a recovery id above 1; sign again with another hash');
  const recovery = recid as 0 | 1;
  return { r: signature.slice(0, 32), s: signature.slice(32, 64), recovery, v: (27 + recovery) as 27 | 28 };
}

/**
 * The 65-byte public key that produced a signature of `hash32`. `r` and `s` may
 * be shorter than 32 bytes (minimal integers). High-s signatures recover too:
 * reject them with `isHighS` where that matters. Throws CryptoError
 * `BAD_SIGNATURE` if no key recovers.
 */
export function recoverPublicKey(hash32: Uint8Array, r: Uint8Array, s: Uint8Array, recovery: 0 | 1): Uint8Array {
  assertHash(hash32);
  if (recovery !== 0 && recovery !== 1) throw new CryptoError('BAD_SIGNATURE', `the recovery id must be 0 or 1, got ${String(recovery)}`);
  const sig = compactSignature(r, s);
  try {
    return secp256k1.ecdsaRecover(sig, recovery, hash32, false);
  } catch (err) {
    throw new CryptoError('BAD_SIGNATURE', 'the signature does not recover to a public key', { cause: err });
  }
}

/** The address that produced a signature of `hash32`; see recoverPublicKey. */
export function recoverAddress(hash32: Uint8Array, r: Uint8Array, s: Uint8Array, recovery: 0 | 1): string {
  return addressOfUncompressed(recoverPublicKey(hash32, r, s, recovery));
}

/**
 * Whether `(r, s)` is a valid signature of `hash32` by `publicKey` (65, 64 or
 * 33 bytes). False, never an exception, for malformed signatures and keys and
 * for high-s signatures; throws CryptoError `BAD_SIGNATURE` only when the hash
 * is not 32 bytes.
 */
export function verify(hash32: Uint8Array, r: Uint8Array, s: Uint8Array, publicKey: Uint8Array): boolean {
  assertHash(hash32);
  if (!(publicKey instanceof Uint8Array)) return false;
  let key = publicKey;
  if (key.length === 64) {
    key = new Uint8Array(65);
    key[0] = 4;
    key.set(publicKey, 1);
  } else if (!((key.length === 65 && key[0] === 4) || (key.length === 33 && (key[0] === 2 || key[0] === 3)))) {
    return false;
  }
  try {
    return secp256k1.ecdsaVerify(compactSignature(r, s), hash32, key);
  } catch {
    return false;
  }
}
