// Sealing a private chain's data for its members' nodes (docs/network.md
// "Private chains across nodes"). Every message of a private chain that
// leaves a node for the network's streams is sealed with the chain's key
// (AES-256-GCM); the chain's key travels wrapped to each member node's
// secp256k1 public key (ECIES: an ephemeral key's ECDH secret through
// HKDF-SHA-256). All of it is Node.js's native crypto.
//
// Both kinds of ciphertext are bound to a context string (the subject a
// message is published on, the chain and node a key is wrapped for), so a
// ciphertext moved elsewhere does not open.
import { createCipheriv, createDecipheriv, createECDH, hkdfSync, randomBytes } from 'node:crypto';
import { CryptoError } from './errors.js';
import { bytesToHex, hexToBytes } from './hex.js';

/** a chain key's length: AES-256 */
export const CHAIN_KEY_BYTES = 32;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const PUBLIC_KEY_BYTES = 65;
/** the first byte of a sealed message: its format, so a later one can be told apart */
const SEAL_FORMAT = 1;

/** A new random chain key. */
export function generateChainKey(): Uint8Array {
  return new Uint8Array(randomBytes(CHAIN_KEY_BYTES));
}

function gcmSeal(key: Uint8Array, plaintext: Uint8Array, context: string): { nonce: Buffer; body: Buffer; tag: Buffer } {
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return { nonce, body, tag: cipher.getAuthTag() };
}

function gcmOpen(key: Uint8Array, nonce: Uint8Array, body: Uint8Array, tag: Uint8Array, context: string, what: string): Uint8Array {
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, nonce);
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(tag);
    return new Uint8Array(Buffer.concat([decipher.update(body), decipher.final()]));
  } catch (err) {
    throw new CryptoError('BAD_SEAL', `${what} does not open with this key for ${context}: tampered, or sealed for something else`, { cause: err });
  }
}

function requireChainKey(key: Uint8Array): void {
  if (!(key instanceof Uint8Array) || key.length !== CHAIN_KEY_BYTES) throw new CryptoError('BAD_KEY', `a chain key must be ${CHAIN_KEY_BYTES} bytes`);
}

/** `format ‖ nonce ‖ ciphertext ‖ tag`: `plaintext` sealed with a chain key for `context`. */
export function seal(key: Uint8Array, plaintext: Uint8Array, context: string): Uint8Array {
  requireChainKey(key);
  const { nonce, body, tag } = gcmSeal(key, plaintext, context);
  return new Uint8Array(Buffer.concat([Buffer.of(SEAL_FORMAT), nonce, body, tag]));
}

/** The plaintext of `seal(key, plaintext, context)`; BAD_SEAL if it was tampered with, or sealed with another key or context. */
export function open(key: Uint8Array, sealed: Uint8Array, context: string): Uint8Array {
  requireChainKey(key);
  if (!(sealed instanceof Uint8Array) || sealed.length < 1 + NONCE_BYTES + TAG_BYTES || sealed[0] !== SEAL_FORMAT) {
    throw new CryptoError('BAD_SEAL', `not a sealed message (${context})`);
  }
  const nonce = sealed.subarray(1, 1 + NONCE_BYTES);
  const body = sealed.subarray(1 + NONCE_BYTES, sealed.length - TAG_BYTES);
  const tag = sealed.subarray(sealed.length - TAG_BYTES);
  return gcmOpen(key, nonce, body, tag, context, 'a sealed message');
}

/** The AES key of an ECDH secret: HKDF-SHA-256 salted with the ephemeral public key, bound to the context. */
function wrappingKey(secret: Uint8Array, ephemeralPublicKey: Uint8Array, context: string): Uint8Array {
  return new Uint8Array(hkdfSync('sha256', secret, ephemeralPublicKey, `platform chain key|${context}`, CHAIN_KEY_BYTES));
}

/**
 * A chain key wrapped for the holder of a secp256k1 public key (65 bytes,
 * uncompressed): hex of `ephemeral public key ‖ nonce ‖ ciphertext ‖ tag`.
 * Only the matching private key unwraps it.
 */
export function wrapKey(recipientPublicKey: Uint8Array, key: Uint8Array, context: string): string {
  requireChainKey(key);
  if (!(recipientPublicKey instanceof Uint8Array) || recipientPublicKey.length !== PUBLIC_KEY_BYTES || recipientPublicKey[0] !== 4) {
    throw new CryptoError('BAD_KEY', 'a recipient public key must be 65 bytes, uncompressed (04 ‖ x ‖ y)');
  }
  const ephemeral = createECDH('secp256k1');
  const ephemeralPublicKey = ephemeral.generateKeys();
  let secret: Buffer;
  try {
    secret = ephemeral.computeSecret(recipientPublicKey);
  } catch (err) {
    throw new CryptoError('BAD_KEY', 'the recipient public key is not a point of secp256k1', { cause: err });
  }
  const { nonce, body, tag } = gcmSeal(wrappingKey(secret, ephemeralPublicKey, context), key, context);
  return bytesToHex(Buffer.concat([ephemeralPublicKey, nonce, body, tag]));
}

/** The chain key of `wrapKey(publicKeyOf(privateKey), key, context)`; BAD_SEAL when it was wrapped for another key or context. */
export function unwrapKey(privateKey: Uint8Array, wrapped: string, context: string): Uint8Array {
  let bytes: Uint8Array;
  try {
    bytes = hexToBytes(wrapped);
  } catch (err) {
    throw new CryptoError('BAD_SEAL', 'a wrapped key must be hex', { cause: err });
  }
  if (bytes.length !== PUBLIC_KEY_BYTES + NONCE_BYTES + CHAIN_KEY_BYTES + TAG_BYTES) throw new CryptoError('BAD_SEAL', 'not a wrapped chain key');
  const ephemeralPublicKey = bytes.subarray(0, PUBLIC_KEY_BYTES);
  const nonce = bytes.subarray(PUBLIC_KEY_BYTES, PUBLIC_KEY_BYTES + NONCE_BYTES);
  const body = bytes.subarray(PUBLIC_KEY_BYTES + NONCE_BYTES, PUBLIC_KEY_BYTES + NONCE_BYTES + CHAIN_KEY_BYTES);
  const tag = bytes.subarray(PUBLIC_KEY_BYTES + NONCE_BYTES + CHAIN_KEY_BYTES);
  const ecdh = createECDH('secp256k1');
  ecdh.setPrivateKey(privateKey);
  let secret: Buffer;
  try {
    secret = ecdh.computeSecret(ephemeralPublicKey);
  } catch (err) {
    throw new CryptoError('BAD_SEAL', 'the wrapped key\'s ephemeral key is not a point of secp256k1', { cause: err });
  }
  return gcmOpen(wrappingKey(secret, ephemeralPublicKey, context), nonce, body, tag, context, 'a wrapped chain key');
}

/** The x coordinate of the ECDH point of a private and a public key (what the wrapping derives from), exported for its test against another implementation. */
export function ecdhSecret(privateKey: Uint8Array, publicKey: Uint8Array): Uint8Array {
  const ecdh = createECDH('secp256k1');
  ecdh.setPrivateKey(privateKey);
  return new Uint8Array(ecdh.computeSecret(publicKey));
}

const EPOCH_BYTES = 8;

/**
 * A chain's message sealed with the key of one of the chain's key epochs
 * (a chain gets a new key when an organization leaves it):
 * `epoch (8 bytes, big-endian) ‖ seal(key, plaintext, context#epoch)`. The
 * epoch is bound into the seal: a message cannot be relabelled.
 */
export function sealInEpoch(epoch: number, key: Uint8Array, plaintext: Uint8Array, context: string): Uint8Array {
  if (!Number.isSafeInteger(epoch) || epoch < 0) throw new CryptoError('BAD_KEY', `a key epoch is a non-negative integer, got ${epoch}`);
  const prefix = Buffer.alloc(EPOCH_BYTES);
  prefix.writeBigUInt64BE(BigInt(epoch));
  return new Uint8Array(Buffer.concat([prefix, seal(key, plaintext, `${context}#${epoch}`)]));
}

/** The key epoch a message was sealed in (sealInEpoch); BAD_SEAL when it is not such a message. */
export function epochOf(sealed: Uint8Array): number {
  if (!(sealed instanceof Uint8Array) || sealed.length < EPOCH_BYTES + 1) throw new CryptoError('BAD_SEAL', 'not a message sealed in a key epoch');
  const epoch = Buffer.from(sealed.buffer, sealed.byteOffset, EPOCH_BYTES).readBigUInt64BE();
  if (epoch > BigInt(Number.MAX_SAFE_INTEGER)) throw new CryptoError('BAD_SEAL', 'not a message sealed in a key epoch');
  return Number(epoch);
}

/** The plaintext of sealInEpoch(epochOf(sealed), key, …, context); BAD_SEAL as open. */
export function openInEpoch(key: Uint8Array, sealed: Uint8Array, context: string): Uint8Array {
  return open(key, sealed.subarray(EPOCH_BYTES), `${context}#${epochOf(sealed)}`);
}
