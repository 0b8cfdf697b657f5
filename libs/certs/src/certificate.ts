import { createHash, randomBytes } from 'node:crypto';
import { AsnConvert, OctetString } from '@peculiar/asn1-schema';
import {
  AlgorithmIdentifier,
  AttributeTypeAndValue,
  AttributeValue,
  AuthorityKeyIdentifier,
  BasicConstraints,
  Certificate,
  Extension,
  Extensions,
  KeyIdentifier,
  KeyUsage,
  KeyUsageFlags,
  Name,
  RelativeDistinguishedName,
  SubjectKeyIdentifier,
  SubjectPublicKeyInfo,
  TBSCertificate,
  Time,
  Validity,
  Version,
  id_ce_authorityKeyIdentifier,
  id_ce_basicConstraints,
  id_ce_keyUsage,
  id_ce_subjectKeyIdentifier,
} from '@peculiar/asn1-x509';
import { ECDSASigValue, ECParameters, id_ecPublicKey, id_ecdsaWithSHA256 } from '@peculiar/asn1-ecc';
import { addressFromPublicKey, bytesToHex, keyPairFromPrivateKey, sign, verify, CryptoError } from '@platform/crypto';
import { CertError } from './errors.js';
import { derToPem, pemToDer } from './pem.js';
import { toUncompressedPublicKey } from './keys.js';

/** OID of the named curve secp256k1 (SEC 2). */
export const ID_SECP256K1 = '1.3.132.0.10';
export const ID_ECDSA_WITH_SHA256 = id_ecdsaWithSHA256;

const OID = { CN: '2.5.4.3', O: '2.5.4.10', OU: '2.5.4.11', C: '2.5.4.6' } as const;
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const DAY = 86_400_000;

/** The subject (or issuer) fields the platform uses. */
export interface DistinguishedName {
  commonName: string;
  organization?: string;
  organizationalUnit?: string;
  /** two-letter ISO 3166 code */
  country?: string;
}

/** What the platform exposes of a certificate (the registry's and cirrus' `Certificate` fields and more). */
export interface ParsedCertificate {
  commonName: string | null;
  organization: string | null;
  organizationalUnit: string | null;
  country: string | null;
  /** 65-byte uncompressed secp256k1 key, hex `04…` */
  publicKey: string;
  /** 40 hex digits, the platform address of `publicKey` */
  address: string;
  /** serial number, lowercase hex without leading zeros (at least one digit) */
  serialNumber: string;
  notBefore: Date;
  notAfter: Date;
  issuer: { commonName: string | null; organization: string | null; organizationalUnit: string | null; country: string | null };
  /** basicConstraints cA */
  isCa: boolean;
  /** keyUsage bits by name (`digitalSignature`, `keyCertSign`, …), or null when the extension is absent */
  keyUsage: string[] | null;
  /** OIDs of critical extensions this library does not understand (RFC 5280: such a certificate is refused in a chain) */
  unknownCriticalExtensions: string[];
  selfIssued: boolean;
  subjectKeyIdentifier: string | null;
  authorityKeyIdentifier: string | null;
  pem: string;
  der: Uint8Array;
}

export interface CertificateOptions {
  /** default: now */
  notBefore?: Date;
  /** default: notBefore + 10 years for a CA, + 1 year for a user */
  notAfter?: Date;
  /** positive; default: 16 random bytes with the top bit clear */
  serialNumber?: bigint;
}

export interface NodeCa {
  /** 32 bytes */
  privateKey: Uint8Array;
  certificatePem: string;
  certificate: ParsedCertificate;
}

// ---------------------------------------------------------------- building

function checkDn(dn: DistinguishedName, what: string): void {
  if (!dn || typeof dn.commonName !== 'string' || dn.commonName.length === 0) {
    throw new CertError('BAD_INPUT', `${what}: commonName is required`);
  }
  for (const k of ['commonName', 'organization', 'organizationalUnit'] as const) {
    const v = dn[k];
    if (v !== undefined && (typeof v !== 'string' || v.length === 0 || v.length > 64)) {
      throw new CertError('BAD_INPUT', `${what}: ${k} must be 1 to 64 characters`);
    }
  }
  if (dn.country !== undefined && !/^[A-Z]{2}$/.test(dn.country)) {
    throw new CertError('BAD_INPUT', `${what}: country must be two capital letters`);
  }
}

function buildName(dn: DistinguishedName): Name {
  const rdns: RelativeDistinguishedName[] = [];
  const add = (type: string, value: AttributeValue): void => {
    rdns.push(new RelativeDistinguishedName([new AttributeTypeAndValue({ type, value })]));
  };
  if (dn.country) add(OID.C, new AttributeValue({ printableString: dn.country }));
  if (dn.organization) add(OID.O, new AttributeValue({ utf8String: dn.organization }));
  if (dn.organizationalUnit) add(OID.OU, new AttributeValue({ utf8String: dn.organizationalUnit }));
  add(OID.CN, new AttributeValue({ utf8String: dn.commonName }));
  return new Name(rdns);
}

function time(d: Date): Time {
  if (!(d instanceof Date) || Number.isNaN(d.getTime())) throw new CertError('BAD_INPUT', 'invalid date');
  d = new Date(Math.floor(d.getTime() / 1000) * 1000);
  const y = d.getUTCFullYear();
  // RFC 5280 4.1.2.5: UTCTime through 2049, GeneralizedTime from 2050.
  return y >= 1950 && y < 2050 ? new Time({ utcTime: d }) : new Time({ generalTime: d });
}

function serialBytes(serial?: bigint): ArrayBuffer {
  let hex: string;
  if (serial === undefined) {
    const b = randomBytes(16);
    b[0] &= 0x7f;
    if (b[0] === 0) b[0] = 1;
    return new Uint8Array(b).buffer;
  }
  if (typeof serial !== 'bigint' || serial <= 0n) throw new CertError('BAD_INPUT', 'serialNumber must be a positive bigint');
  hex = serial.toString(16);
  if (hex.length % 2) hex = '0' + hex;
  if (parseInt(hex.slice(0, 2), 16) >= 0x80) hex = '00' + hex; // keep the INTEGER positive
  if (hex.length > 40) throw new CertError('BAD_INPUT', 'serialNumber is longer than 20 bytes');
  return new Uint8Array(Buffer.from(hex, 'hex')).buffer;
}

function spki(publicKey65: Uint8Array): SubjectPublicKeyInfo {
  return new SubjectPublicKeyInfo({
    algorithm: new AlgorithmIdentifier({
      algorithm: id_ecPublicKey,
      parameters: AsnConvert.serialize(new ECParameters({ namedCurve: ID_SECP256K1 })),
    }),
    subjectPublicKey: new Uint8Array(publicKey65).buffer,
  });
}

/** RFC 5280 4.2.1.2 method (1): SHA-1 of the subjectPublicKey bits. */
function keyId(publicKey65: Uint8Array): Uint8Array {
  return new Uint8Array(createHash('sha1').update(publicKey65).digest());
}

function ext(extnID: string, critical: boolean, value: object): Extension {
  return new Extension({ extnID, critical, extnValue: new OctetString(AsnConvert.serialize(value)) });
}

const sigAlg = (): AlgorithmIdentifier => new AlgorithmIdentifier({ algorithm: id_ecdsaWithSHA256 });

function toBuf(u: Uint8Array): ArrayBuffer {
  return u.buffer.slice(u.byteOffset, u.byteOffset + u.byteLength) as ArrayBuffer;
}

/** ECDSA over SHA-256 of `data`, DER `ECDSA-Sig-Value` (low-s). */
function ecdsaSha256Der(data: Uint8Array, privateKey: Uint8Array): Uint8Array {
  const h = new Uint8Array(createHash('sha256').update(data).digest());
  const sig = sign(h, privateKey);
  // INTEGERs are positive and minimal; the schema adds a 0x00 where the top bit is set.
  const strip = (b: Uint8Array): ArrayBuffer => {
    let i = 0;
    while (i < b.length - 1 && b[i] === 0) i++;
    const out = b[i] & 0x80 ? Uint8Array.of(0, ...b.subarray(i)) : b.slice(i);
    return toBuf(out);
  };
  return new Uint8Array(AsnConvert.serialize(new ECDSASigValue({ r: strip(sig.r), s: strip(sig.s) })));
}

function buildAndSign(params: {
  subject: Name;
  issuer: Name;
  publicKey: Uint8Array;
  issuerPrivateKey: Uint8Array;
  issuerKeyId: Uint8Array;
  ca: boolean;
  opts: CertificateOptions;
  defaultYears: number;
}): string {
  const notBefore = params.opts.notBefore ?? new Date(Math.floor(Date.now() / 1000) * 1000);
  const notAfter = params.opts.notAfter ?? new Date(notBefore.getTime() + params.defaultYears * 365 * DAY);
  if (!(notAfter.getTime() > notBefore.getTime())) throw new CertError('BAD_INPUT', 'notAfter must be after notBefore');
  const extensions = new Extensions([
    ext(id_ce_basicConstraints, true, new BasicConstraints({ cA: params.ca })),
    ext(
      id_ce_keyUsage,
      true,
      new KeyUsage(params.ca ? KeyUsageFlags.keyCertSign | KeyUsageFlags.cRLSign | KeyUsageFlags.digitalSignature : KeyUsageFlags.digitalSignature),
    ),
    ext(id_ce_subjectKeyIdentifier, false, new SubjectKeyIdentifier(toBuf(keyId(params.publicKey)))),
    ext(id_ce_authorityKeyIdentifier, false, new AuthorityKeyIdentifier({ keyIdentifier: new KeyIdentifier(toBuf(params.issuerKeyId)) })),
  ]);
  const tbs = new TBSCertificate({
    version: Version.v3,
    serialNumber: serialBytes(params.opts.serialNumber),
    signature: sigAlg(),
    issuer: params.issuer,
    validity: Object.assign(new Validity(), { notBefore: time(notBefore), notAfter: time(notAfter) }),
    subject: params.subject,
    subjectPublicKeyInfo: spki(params.publicKey),
    extensions,
  });
  const tbsDer = new Uint8Array(AsnConvert.serialize(tbs));
  const signature = ecdsaSha256Der(tbsDer, params.issuerPrivateKey);
  const cert = new Certificate({ tbsCertificate: tbs, signatureAlgorithm: sigAlg(), signatureValue: toBuf(signature) });
  return derToPem(new Uint8Array(AsnConvert.serialize(cert)));
}

function keyPair(privateKey: Uint8Array) {
  try {
    return keyPairFromPrivateKey(privateKey);
  } catch (e) {
    if (e instanceof CryptoError) throw new CertError('BAD_KEY', e.message, { cause: e });
    throw e;
  }
}

/**
 * A node certificate authority: a self-signed X.509 v3 root, subject
 * O = `organization`, CN = `commonName`, basicConstraints cA (critical),
 * keyUsage keyCertSign/cRLSign/digitalSignature. A new key is generated unless
 * `privateKey` (32 bytes) is given.
 */
export function createNodeCa(
  subject: { organization: string; commonName: string; organizationalUnit?: string; country?: string },
  opts: CertificateOptions & { privateKey?: Uint8Array } = {},
): NodeCa {
  checkDn(subject, 'CA subject');
  if (!subject.organization) throw new CertError('BAD_INPUT', 'CA subject: organization is required');
  const kp = opts.privateKey ? keyPair(opts.privateKey) : keyPair(new Uint8Array(randomPrivateKey()));
  const name = buildName(subject);
  const certificatePem = buildAndSign({
    subject: name,
    issuer: name,
    publicKey: kp.publicKey,
    issuerPrivateKey: kp.privateKey,
    issuerKeyId: keyId(kp.publicKey),
    ca: true,
    opts,
    defaultYears: 10,
  });
  return { privateKey: kp.privateKey, certificatePem, certificate: parseCertificate(certificatePem) };
}

function randomPrivateKey(): Uint8Array {
  for (;;) {
    const k = new Uint8Array(randomBytes(32));
    const n = BigInt('0x' + bytesToHex(k));
    if (n > 0n && n < N) return k;
  }
}

/**
 * A user certificate signed by `issuer` (a CA certificate in PEM and its
 * 32-byte private key): subject CN / O / OU / C, the user's secp256k1 public
 * key (bytes, hex or PEM `PUBLIC KEY`), basicConstraints cA false, keyUsage
 * digitalSignature. The issuer's private key must match its certificate.
 */
export function issueCertificate(
  subject: DistinguishedName & { publicKey: Uint8Array | string },
  issuer: { certificatePem: string; privateKey: Uint8Array },
  opts: CertificateOptions = {},
): string {
  checkDn(subject, 'subject');
  const pub = toUncompressedPublicKey(subject.publicKey);
  const ca = parseCertificate(issuer.certificatePem);
  const kp = keyPair(issuer.privateKey);
  if (bytesToHex(kp.publicKey) !== ca.publicKey) throw new CertError('BAD_KEY', 'issuer private key does not match the issuer certificate');
  if (!ca.isCa || (ca.keyUsage && !ca.keyUsage.includes('keyCertSign'))) throw new CertError('BAD_INPUT', 'issuer certificate is not a CA (basicConstraints cA is not set)');
  const issuerName = AsnConvert.parse(pemToDer(issuer.certificatePem), Certificate).tbsCertificate.subject;
  return buildAndSign({
    subject: buildName(subject),
    issuer: issuerName,
    publicKey: pub,
    issuerPrivateKey: kp.privateKey,
    issuerKeyId: ca.subjectKeyIdentifier ? new Uint8Array(Buffer.from(ca.subjectKeyIdentifier, 'hex')) : keyId(kp.publicKey),
    ca: false,
    opts,
    defaultYears: 1,
  });
}

// ---------------------------------------------------------------- parsing

// subjectAltName and extKeyUsage are understood in the sense that they constrain nothing checked here.
const KNOWN_EXTENSIONS = new Set([id_ce_basicConstraints, id_ce_keyUsage, id_ce_subjectKeyIdentifier, id_ce_authorityKeyIdentifier, '2.5.29.17', '2.5.29.37']);

interface Decoded {
  cert: Certificate;
  der: Uint8Array;
  tbsDer: Uint8Array;
  issuerDer: Uint8Array;
  subjectDer: Uint8Array;
  parsed: ParsedCertificate;
}

function nameFields(name: Name): ParsedCertificate['issuer'] {
  const out: ParsedCertificate['issuer'] = { commonName: null, organization: null, organizationalUnit: null, country: null };
  for (const rdn of name) {
    for (const atv of rdn) {
      const v = atv.value.toString();
      // the first occurrence of each attribute wins
      if (atv.type === OID.CN) out.commonName ??= v;
      else if (atv.type === OID.O) out.organization ??= v;
      else if (atv.type === OID.OU) out.organizationalUnit ??= v;
      else if (atv.type === OID.C) out.country ??= v;
    }
  }
  return out;
}

function serialHex(buf: ArrayBuffer): string {
  const h = Buffer.from(buf).toString('hex').replace(/^0+/, '');
  return h === '' ? '0' : h;
}

function decode(input: string | Uint8Array): Decoded {
  const der = typeof input === 'string' ? pemToDer(input) : input;
  if (!(der instanceof Uint8Array)) throw new TypeError('certificate must be PEM text or DER bytes');
  let cert: Certificate;
  try {
    cert = AsnConvert.parse(der, Certificate);
  } catch (e) {
    throw new CertError('BAD_CERTIFICATE', 'not a DER X.509 certificate', { cause: e });
  }
  const reDer = new Uint8Array(AsnConvert.serialize(cert));
  if (!Buffer.from(reDer).equals(Buffer.from(der))) {
    throw new CertError('BAD_CERTIFICATE', 'certificate is not in canonical DER (or has trailing bytes)');
  }
  const tbs = cert.tbsCertificate;
  const algo = tbs.subjectPublicKeyInfo.algorithm;
  if (algo.algorithm !== id_ecPublicKey) throw new CertError('WRONG_CURVE', `public key algorithm ${algo.algorithm} is not EC`);
  let curve: string | undefined;
  try {
    curve = algo.parameters ? AsnConvert.parse(algo.parameters, ECParameters).namedCurve : undefined;
  } catch (e) {
    throw new CertError('BAD_CERTIFICATE', 'unreadable EC parameters', { cause: e });
  }
  if (curve !== ID_SECP256K1) throw new CertError('WRONG_CURVE', `curve ${curve ?? 'unnamed'} is not secp256k1`);
  const publicKey = toUncompressedPublicKey(new Uint8Array(tbs.subjectPublicKeyInfo.subjectPublicKey));

  let isCa = false;
  let ski: string | null = null;
  let aki: string | null = null;
  let keyUsage: string[] | null = null;
  const unknownCritical: string[] = [];
  for (const e of tbs.extensions ?? []) {
    const v = e.extnValue.buffer;
    try {
      if (e.extnID === id_ce_basicConstraints) isCa = AsnConvert.parse(v, BasicConstraints).cA === true;
      else if (e.extnID === id_ce_subjectKeyIdentifier) ski = Buffer.from(AsnConvert.parse(v, SubjectKeyIdentifier).buffer).toString('hex');
      else if (e.extnID === id_ce_authorityKeyIdentifier) {
        const k = AsnConvert.parse(v, AuthorityKeyIdentifier).keyIdentifier;
        aki = k ? Buffer.from(k.buffer).toString('hex') : null;
      } else if (e.extnID === id_ce_keyUsage) keyUsage = AsnConvert.parse(v, KeyUsage).toJSON();
      else if (e.critical && !KNOWN_EXTENSIONS.has(e.extnID)) unknownCritical.push(e.extnID);
    } catch (err) {
      throw new CertError('BAD_CERTIFICATE', `unreadable extension ${e.extnID}`, { cause: err });
    }
  }
  const subjectDer = new Uint8Array(AsnConvert.serialize(tbs.subject));
  const issuerDer = new Uint8Array(AsnConvert.serialize(tbs.issuer));
  const subj = nameFields(tbs.subject);
  const parsed: ParsedCertificate = {
    ...subj,
    publicKey: bytesToHex(publicKey),
    address: addressFromPublicKey(publicKey),
    serialNumber: serialHex(tbs.serialNumber),
    notBefore: tbs.validity.notBefore.getTime(),
    notAfter: tbs.validity.notAfter.getTime(),
    issuer: nameFields(tbs.issuer),
    isCa,
    keyUsage,
    unknownCriticalExtensions: unknownCritical,
    selfIssued: Buffer.from(subjectDer).equals(Buffer.from(issuerDer)),
    subjectKeyIdentifier: ski,
    authorityKeyIdentifier: aki,
    pem: derToPem(der),
    der,
  };
  return { cert, der, tbsDer: new Uint8Array(AsnConvert.serialize(tbs)), issuerDer, subjectDer, parsed };
}

/**
 * The platform's fields of a certificate (PEM or DER). `BAD_PEM`,
 * `BAD_CERTIFICATE` for anything that is not one DER X.509 certificate,
 * `WRONG_CURVE` unless its key is an EC key on secp256k1.
 */
export function parseCertificate(input: string | Uint8Array): ParsedCertificate {
  return decode(input).parsed;
}

// ---------------------------------------------------------------- verifying

function verifyDecoded(c: Decoded, issuerPublicKey: Uint8Array): boolean {
  const tbs = c.cert.tbsCertificate;
  if (c.cert.signatureAlgorithm.algorithm !== id_ecdsaWithSHA256 || tbs.signature.algorithm !== id_ecdsaWithSHA256) return false;
  if (c.cert.signatureAlgorithm.parameters || tbs.signature.parameters) return false; // RFC 5758: parameters absent
  let sv: ECDSASigValue;
  try {
    sv = AsnConvert.parse(c.cert.signatureValue, ECDSASigValue);
  } catch {
    return false;
  }
  const r = BigInt('0x' + (Buffer.from(sv.r).toString('hex') || '0'));
  let s = BigInt('0x' + (Buffer.from(sv.s).toString('hex') || '0'));
  if (r <= 0n || r >= N || s <= 0n || s >= N) return false;
  // X.509 has no low-s rule and OpenSSL signs with either s; both verify the
  // same, so check against the low-s form.
  if (s > N / 2n) s = N - s;
  const b32 = (x: bigint): Uint8Array => new Uint8Array(Buffer.from(x.toString(16).padStart(64, '0'), 'hex'));
  const h = new Uint8Array(createHash('sha256').update(c.tbsDer).digest());
  return verify(h, b32(r), b32(s), issuerPublicKey);
}

/**
 * Whether `certificate` was signed by `issuer`'s key: ecdsa-with-SHA256 over
 * its TBS, and its issuer name equals the issuer's subject name. Never throws
 * for a bad signature; throws (`BAD_PEM`, `BAD_CERTIFICATE`, `WRONG_CURVE`)
 * for inputs that are not secp256k1 certificates.
 */
export function verifyCertificateSignature(certificate: string | Uint8Array, issuer: string | Uint8Array): boolean {
  const c = decode(certificate);
  const i = decode(issuer);
  if (!Buffer.from(c.issuerDer).equals(Buffer.from(i.subjectDer))) return false;
  return verifyDecoded(c, new Uint8Array(Buffer.from(i.parsed.publicKey, 'hex')));
}

/**
 * Whether `certificate` was signed by the secp256k1 `publicKey` (65/64/33
 * bytes, hex, or a PEM `PUBLIC KEY`), whatever its issuer name says. False for
 * a bad signature or a key that is not a secp256k1 point; throws like
 * `parseCertificate` for a certificate that does not parse.
 */
export function verifyCertificateKey(certificate: string | Uint8Array, publicKey: Uint8Array | string): boolean {
  const c = decode(certificate);
  let key: Uint8Array;
  try {
    key = toUncompressedPublicKey(publicKey);
  } catch {
    return false;
  }
  return verifyDecoded(c, key);
}

export type ChainFailure =
  | 'EXPIRED'
  | 'NOT_YET_VALID'
  | 'UNTRUSTED'
  | 'BAD_SIGNATURE'
  | 'ISSUER_NOT_CA'
  | 'UNKNOWN_CRITICAL_EXTENSION'
  | 'TOO_LONG';

export type ChainResult =
  | { ok: true; /** leaf first, trusted root last */ chain: ParsedCertificate[] }
  | { ok: false; code: ChainFailure; reason: string };

/**
 * Check that `certificate` chains, through `intermediates` if any, to one of
 * `trustedRoots` (PEM or DER), every certificate on the path valid at `at`
 * (default now), every issuer a CA, every signature good. A trusted root is
 * trusted as given (its own signature is not required). Throws only for input
 * that does not parse; any failure of trust is `{ok: false, code, reason}`.
 */
export function verifyChain(
  certificate: string | Uint8Array,
  options: { trustedRoots: (string | Uint8Array)[]; intermediates?: (string | Uint8Array)[]; at?: Date; maxDepth?: number },
): ChainResult {
  const at = options.at ?? new Date();
  const maxDepth = options.maxDepth ?? 8;
  const roots = options.trustedRoots.map(decode);
  const inters = (options.intermediates ?? []).map(decode);
  const eq = (a: Uint8Array, b: Uint8Array): boolean => Buffer.from(a).equals(Buffer.from(b));
  const timeCheck = (c: Decoded): ChainResult | null => {
    const p = c.parsed;
    const who = `certificate CN=${p.commonName ?? ''} serial ${p.serialNumber}`;
    if (at.getTime() > p.notAfter.getTime()) return { ok: false, code: 'EXPIRED', reason: `${who} expired at ${p.notAfter.toISOString()}` };
    if (at.getTime() < p.notBefore.getTime()) {
      return { ok: false, code: 'NOT_YET_VALID', reason: `${who} is not valid before ${p.notBefore.toISOString()}` };
    }
    return null;
  };

  let cur = decode(certificate);
  const chain: ParsedCertificate[] = [];
  for (let depth = 0; ; depth++) {
    const bad = timeCheck(cur);
    if (bad) return bad;
    if (cur.parsed.unknownCriticalExtensions.length > 0) {
      return {
        ok: false,
        code: 'UNKNOWN_CRITICAL_EXTENSION',
        reason: `certificate CN=${cur.parsed.commonName ?? ''} has unsupported critical extensions ${cur.parsed.unknownCriticalExtensions.join(', ')}`,
      };
    }
    chain.push(cur.parsed);
    if (roots.some((r) => eq(r.der, cur.der))) return { ok: true, chain };
    if (depth >= maxDepth) return { ok: false, code: 'TOO_LONG', reason: `no trusted root within ${maxDepth} certificates` };
    const candidates = [...roots, ...inters].filter((c) => eq(c.subjectDer, cur.issuerDer) && !eq(c.der, cur.der));
    if (candidates.length === 0) {
      const i = cur.parsed.issuer;
      return { ok: false, code: 'UNTRUSTED', reason: `issuer CN=${i.commonName ?? ''}, O=${i.organization ?? ''} is not a trusted root` };
    }
    const signer = candidates.find((c) => verifyDecoded(cur, new Uint8Array(Buffer.from(c.parsed.publicKey, 'hex'))));
    if (!signer) return { ok: false, code: 'BAD_SIGNATURE', reason: `signature of CN=${cur.parsed.commonName ?? ''} does not verify against its issuer` };
    if (!signer.parsed.isCa || (signer.parsed.keyUsage && !signer.parsed.keyUsage.includes('keyCertSign'))) {
      return { ok: false, code: 'ISSUER_NOT_CA', reason: `issuer CN=${signer.parsed.commonName ?? ''} is not a CA (basicConstraints cA / keyUsage keyCertSign)` };
    }
    cur = signer;
  }
}
