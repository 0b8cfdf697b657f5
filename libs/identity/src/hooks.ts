// The X.509 built-ins of SolidVM (`parseCert`, `verifyCert`,
// `verifyCertSignedBy`, `verifySignature`) over @platform/certs. They are
// pure functions of their arguments (no clock: validity against the block's
// time is the registry's rule), so every node computes the same results.
import { CertError, derToPem, parseCertificate, toUncompressedPublicKey, verifyCertificateKey, verifyCertificateSignature, type ParsedCertificate } from '@platform/certs';
import { hexToBytes, verify } from '@platform/crypto';

/** Parsed certificates by their text: a registration parses the same PEM several times. */
const CACHE_SIZE = 1_000;
/** longer texts are parsed each time: a contract's argument may be megabytes, which the cache must not hold */
const CACHED_TEXT_MAX = 16_384;
const parsedByText = new Map<string, ParsedCertificate | CertError>();

function parsed(pem: string): ParsedCertificate | CertError {
  let hit = parsedByText.get(pem);
  if (hit === undefined) {
    try {
      hit = parseCertificate(pem);
    } catch (err) {
      hit = err instanceof CertError ? err : new CertError('BAD_CERTIFICATE', err instanceof Error ? err.message : String(err));
    }
    if (pem.length > CACHED_TEXT_MAX) return hit;
    if (parsedByText.size >= CACHE_SIZE) parsedByText.delete(parsedByText.keys().next().value!);
    parsedByText.set(pem, hit);
  }
  return hit;
}

/**
 * `parseCert(pem)`: the fields of a certificate as text. A certificate that
 * does not parse (or is not on secp256k1) answers only `error`, the reason.
 * Times are seconds since the epoch; `userAddress` is the address of the
 * certificate's key; `certificateString` is the canonical PEM.
 */
export function certificateFields(pem: string): Record<string, string> {
  const c = parsed(pem);
  if (c instanceof CertError) return { error: `${c.code}: ${c.message}` };
  return {
    error: '',
    commonName: c.commonName ?? '',
    organization: c.organization ?? '',
    organizationalUnit: c.organizationalUnit ?? '',
    country: c.country ?? '',
    publicKey: c.publicKey,
    userAddress: c.address,
    serialNumber: c.serialNumber,
    notBefore: String(Math.floor(c.notBefore.getTime() / 1000)),
    notAfter: String(Math.floor(c.notAfter.getTime() / 1000)),
    isCa: String(c.isCa),
    issuerCommonName: c.issuer.commonName ?? '',
    issuerOrganization: c.issuer.organization ?? '',
    issuerOrganizationalUnit: c.issuer.organizationalUnit ?? '',
    issuerCountry: c.issuer.country ?? '',
    certificateString: derToPem(c.der),
  };
}

/**
 * `verifyCertSignedBy(cert, signerCert)`: `cert` names `signerCert`'s subject
 * as issuer, its signature verifies under the signer's key, the signer is a
 * CA allowed to sign certificates, and `cert` has no critical extension this
 * node does not understand. False for anything that does not parse.
 */
export function certificateSignedBy(cert: string, signer: string): boolean {
  const c = parsed(cert);
  const s = parsed(signer);
  if (c instanceof CertError || s instanceof CertError) return false;
  if (c.unknownCriticalExtensions.length > 0) return false;
  if (!s.isCa || (s.keyUsage && !s.keyUsage.includes('keyCertSign'))) return false;
  return verifyCertificateSignature(c.der, s.der);
}

/** `verifyCert(cert, pubkey)`: `cert`'s signature verifies under `pubkey` (hex or PEM). */
export function certificateSignedByKey(cert: string, publicKey: string): boolean {
  const c = parsed(cert);
  if (c instanceof CertError) return false;
  return verifyCertificateKey(c.der, publicKey);
}

/**
 * `verifySignature(hash, signature, pubkey)`: a secp256k1 signature of a
 * 32-byte hash (hex). `signature`: `r‖s` (64 bytes) or `r‖s‖v` (65 bytes) in
 * hex; `pubkey`: hex (65/64/33 bytes) or PEM.
 */
export function signatureValid(hash: string, signature: string, publicKey: string): boolean {
  try {
    const h = hexToBytes(hash);
    const sig = hexToBytes(signature);
    if (h.length !== 32 || (sig.length !== 64 && sig.length !== 65)) return false;
    return verify(h, sig.subarray(0, 32), sig.subarray(32, 64), toUncompressedPublicKey(publicKey));
  } catch {
    return false;
  }
}
