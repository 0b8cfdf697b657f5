import { createPrivateKey, createPublicKey, ECDH, type KeyObject } from 'node:crypto';
import { keyPairFromPrivateKey, hexToBytes, CryptoError } from '@platform/crypto';
import { CertError } from './errors.js';
import { pemBlocks } from './pem.js';

const b64u = (b: Uint8Array): string => Buffer.from(b).toString('base64url');

/**
 * The 65-byte uncompressed secp256k1 public key (`04…`) from bytes (65, 64 or
 * 33 compressed), hex (either case, optional `0x`) or a PEM `PUBLIC KEY`
 * (SubjectPublicKeyInfo). `BAD_KEY` if it is not a point of the curve,
 * `WRONG_CURVE` for a PEM key on another curve or of another type.
 */
export function toUncompressedPublicKey(key: Uint8Array | string): Uint8Array {
  let bytes: Uint8Array;
  if (typeof key === 'string') {
    if (key.includes('-----BEGIN')) return publicKeyFromPem(key);
    try {
      bytes = hexToBytes(key);
    } catch (e) {
      throw new CertError('BAD_KEY', 'public key is neither PEM nor hex', { cause: e });
    }
  } else if (key instanceof Uint8Array) {
    bytes = key;
  } else {
    throw new TypeError('public key must be a Uint8Array or a string');
  }
  if (bytes.length === 64) bytes = Uint8Array.of(4, ...bytes);
  if (!(bytes.length === 65 && bytes[0] === 4) && !(bytes.length === 33 && (bytes[0] === 2 || bytes[0] === 3))) {
    throw new CertError('BAD_KEY', `public key must be 65, 64 or 33 bytes, got ${bytes.length}`);
  }
  try {
    // convertKey validates that the point lies on the curve.
    return new Uint8Array(ECDH.convertKey(Buffer.from(bytes), 'secp256k1', undefined, undefined, 'uncompressed') as Buffer);
  } catch (e) {
    throw new CertError('BAD_KEY', 'public key is not a point of secp256k1', { cause: e });
  }
}

function jwkPoint(k: KeyObject): { x: string; y: string; d?: string } {
  const det = k.asymmetricKeyDetails;
  if (k.asymmetricKeyType !== 'ec') throw new CertError('WRONG_CURVE', `key type ${k.asymmetricKeyType} is not EC`);
  if (det?.namedCurve !== 'secp256k1') throw new CertError('WRONG_CURVE', `curve ${det?.namedCurve ?? 'unknown'} is not secp256k1`);
  const jwk = k.export({ format: 'jwk' }) as { x: string; y: string; d?: string };
  return jwk;
}

/** The 65-byte public key of a PEM `PUBLIC KEY` (SPKI). */
export function publicKeyFromPem(pem: string): Uint8Array {
  let k: KeyObject;
  try {
    k = createPublicKey(pem);
  } catch (e) {
    throw new CertError('BAD_PEM', 'not a PEM public key', { cause: e });
  }
  const { x, y } = jwkPoint(k);
  return Uint8Array.of(4, ...Buffer.from(x, 'base64url'), ...Buffer.from(y, 'base64url'));
}

/** PEM `PUBLIC KEY` (SPKI, uncompressed point) for a secp256k1 public key. */
export function publicKeyToPem(publicKey: Uint8Array | string): string {
  const p = toUncompressedPublicKey(publicKey);
  const k = createPublicKey({ key: { kty: 'EC', crv: 'secp256k1', x: b64u(p.subarray(1, 33)), y: b64u(p.subarray(33)) }, format: 'jwk' });
  return k.export({ type: 'spki', format: 'pem' }) as string;
}

/**
 * The 32-byte private key of a PEM `EC PRIVATE KEY` (SEC1, as
 * `openssl ecparam -genkey` writes it, an `EC PARAMETERS` block before it is
 * fine) or `PRIVATE KEY` (PKCS #8). Encrypted keys are not supported.
 */
export function privateKeyFromPem(pem: string): Uint8Array {
  const block = pemBlocks(pem).find((b) => b.label === 'EC PRIVATE KEY' || b.label === 'PRIVATE KEY');
  if (!block) throw new CertError('BAD_PEM', 'no EC PRIVATE KEY or PRIVATE KEY block');
  let k: KeyObject;
  try {
    k = createPrivateKey({ key: Buffer.from(block.der), format: 'der', type: block.label === 'PRIVATE KEY' ? 'pkcs8' : 'sec1' });
  } catch (e) {
    throw new CertError('BAD_KEY', 'unreadable private key', { cause: e });
  }
  const { d } = jwkPoint(k);
  return new Uint8Array(Buffer.from(d!, 'base64url'));
}

/** PEM `EC PRIVATE KEY` (SEC1, with the curve and public key) for a 32-byte secp256k1 private key. */
export function privateKeyToPem(privateKey: Uint8Array): string {
  let pub: Uint8Array;
  try {
    pub = keyPairFromPrivateKey(privateKey).publicKey;
  } catch (e) {
    if (e instanceof CryptoError) throw new CertError('BAD_KEY', e.message, { cause: e });
    throw e;
  }
  const k = createPrivateKey({
    key: { kty: 'EC', crv: 'secp256k1', x: b64u(pub.subarray(1, 33)), y: b64u(pub.subarray(33)), d: b64u(privateKey) },
    format: 'jwk',
  });
  return k.export({ type: 'sec1', format: 'pem' }) as string;
}
