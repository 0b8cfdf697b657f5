import { X509Certificate, createPublicKey } from 'node:crypto';
import { AsnConvert } from '@peculiar/asn1-schema';
import { Certificate } from '@peculiar/asn1-x509';
import { ECDSASigValue } from '@peculiar/asn1-ecc';
import { generateKeyPair, addressFromPublicKey, bytesToHex, keyPairFromPrivateKey } from '@platform/crypto';
import {
  CertError,
  createNodeCa,
  derToPem,
  issueCertificate,
  parseCertificate,
  pemToDer,
  privateKeyFromPem,
  privateKeyToPem,
  publicKeyFromPem,
  publicKeyToPem,
  verifyCertificateSignature,
  verifyChain,
} from '../src/index.js';
import { OpenSsl } from './helpers.js';

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const DAY = 86_400_000;
const ossl = new OpenSsl();
afterAll(() => ossl.cleanup());

const ca = createNodeCa({ organization: 'Acme', commonName: 'node1 CA' });
const alice = generateKeyPair();
const alicePem = issueCertificate({ commonName: 'alice', organization: 'Acme', organizationalUnit: 'eng', country: 'DE', publicKey: alice.publicKey }, ca);

function codeOf(f: () => unknown): string | undefined {
  try {
    f();
  } catch (e) {
    if (e instanceof CertError) return e.code;
    throw e;
  }
  return undefined;
}

/** Re-encode a certificate with its signature's s replaced by n − s (the high-s twin, equally valid ECDSA). */
function withFlippedS(pem: string): string {
  const cert = AsnConvert.parse(pemToDer(pem), Certificate);
  const sv = AsnConvert.parse(cert.signatureValue, ECDSASigValue);
  const s = BigInt('0x' + Buffer.from(sv.s).toString('hex'));
  let hex = (N - s).toString(16);
  if (hex.length % 2) hex = '0' + hex;
  if (parseInt(hex.slice(0, 2), 16) >= 0x80) hex = '00' + hex;
  sv.s = new Uint8Array(Buffer.from(hex, 'hex')).buffer;
  cert.signatureValue = AsnConvert.serialize(sv);
  return derToPem(new Uint8Array(AsnConvert.serialize(cert)));
}

describe('certificates this library makes, read by openssl and node:crypto', () => {
  test('openssl x509 -text shows the subject, issuer, curve, algorithm and CA flag', () => {
    const caText = ossl.run('x509', '-noout', '-text', '-in', ossl.write('ca.pem', ca.certificatePem));
    expect(caText).toContain('Version: 3 (0x2)');
    expect(caText).toContain('Issuer: O = Acme, CN = node1 CA');
    expect(caText).toContain('Subject: O = Acme, CN = node1 CA');
    expect(caText).toContain('ASN1 OID: secp256k1');
    expect(caText).toContain('Signature Algorithm: ecdsa-with-SHA256');
    expect(caText).toMatch(/Basic Constraints: critical\s+CA:TRUE/);

    const text = ossl.run('x509', '-noout', '-text', '-in', ossl.write('alice.pem', alicePem));
    expect(text).toContain('Subject: C = DE, O = Acme, OU = eng, CN = alice');
    expect(text).toContain('Issuer: O = Acme, CN = node1 CA');
    expect(text).toMatch(/Basic Constraints: critical\s+CA:FALSE/);
    // the public key openssl prints is the user's key
    const pubHex = text.split('pub:')[1].split('ASN1 OID')[0].replace(/[\s:]/g, '');
    expect(pubHex).toBe(bytesToHex(alice.publicKey));
  });

  test('openssl verify -CAfile accepts the CA and the user certificate', () => {
    expect(ossl.verify(ca.certificatePem, alicePem)).toEqual({ status: 0, out: expect.stringContaining(': OK') });
    expect(ossl.verify(ca.certificatePem, ca.certificatePem).status).toBe(0);
  });

  test('node:crypto X509Certificate parses them and checks the signature', () => {
    const x = new X509Certificate(alicePem);
    const root = new X509Certificate(ca.certificatePem);
    expect(x.subject.split('\n')).toEqual(['C=DE', 'O=Acme', 'OU=eng', 'CN=alice']);
    expect(x.checkIssued(root)).toBe(true);
    expect(x.verify(root.publicKey)).toBe(true);
    expect(root.ca).toBe(true);
    expect(x.ca).toBe(false);
  });

  test('signatures are DER ECDSA-Sig-Value with low s', () => {
    for (let i = 0; i < 20; i++) {
      const pem = issueCertificate({ commonName: `u${i}`, organization: 'Acme', publicKey: generateKeyPair().publicKey }, ca);
      const sig = new Uint8Array(AsnConvert.parse(pemToDer(pem), Certificate).signatureValue);
      expect(sig[0]).toBe(0x30);
      const sv = AsnConvert.parse(sig, ECDSASigValue);
      expect(BigInt('0x' + Buffer.from(sv.s).toString('hex')) <= N / 2n).toBe(true);
      expect(ossl.verify(ca.certificatePem, pem).status).toBe(0);
    }
  });

  test('PEM keys round trip and openssl reads the private key', () => {
    const keyPem = privateKeyToPem(ca.privateKey);
    expect(Buffer.from(privateKeyFromPem(keyPem)).equals(Buffer.from(ca.privateKey))).toBe(true);
    const text = ossl.run('ec', '-noout', '-text', '-in', ossl.write('ca.key', keyPem));
    expect(text).toContain('ASN1 OID: secp256k1');
    const pubPem = publicKeyToPem(alice.publicKey);
    expect(bytesToHex(publicKeyFromPem(pubPem))).toBe(bytesToHex(alice.publicKey));
    // a PEM public key is accepted for issuing, as createCert's pubKey is
    const pem = issueCertificate({ commonName: 'alice2', publicKey: pubPem }, ca);
    expect(parseCertificate(pem).address).toBe(alice.address);
  });

  test('a CA from a given private key keeps that key', () => {
    const again = createNodeCa({ organization: 'Acme', commonName: 'node1 CA' }, { privateKey: ca.privateKey });
    expect(again.certificate.publicKey).toBe(ca.certificate.publicKey);
  });
});

describe('parseCertificate', () => {
  test('exposes the platform fields; the address is that of the certificate key', () => {
    const p = parseCertificate(alicePem);
    expect(p).toMatchObject({
      commonName: 'alice',
      organization: 'Acme',
      organizationalUnit: 'eng',
      country: 'DE',
      publicKey: bytesToHex(alice.publicKey),
      address: alice.address,
      issuer: { commonName: 'node1 CA', organization: 'Acme', organizationalUnit: null, country: null },
      isCa: false,
      keyUsage: ['digitalSignature'],
      selfIssued: false,
      authorityKeyIdentifier: ca.certificate.subjectKeyIdentifier,
    });
    expect(p.serialNumber).toMatch(/^[0-9a-f]+$/);
    expect(p.serialNumber).toBe(new X509Certificate(alicePem).serialNumber.toLowerCase().replace(/^0+/, ''));
    expect(p.notAfter.getTime() - p.notBefore.getTime()).toBe(365 * DAY);
    expect(p.pem).toBe(alicePem);
    expect(parseCertificate(pemToDer(alicePem)).address).toBe(alice.address);
  });

  test('OU and C are optional; given serial and dates are kept', () => {
    const notBefore = new Date('2030-01-02T03:04:05Z');
    const notAfter = new Date('2060-01-01T00:00:00Z'); // GeneralizedTime from 2050
    const pem = issueCertificate({ commonName: 'bob', organization: 'Beta', publicKey: bytesToHex(alice.publicKey) }, ca, {
      serialNumber: 0x80n,
      notBefore,
      notAfter,
    });
    const p = parseCertificate(pem);
    expect(p.organizationalUnit).toBeNull();
    expect(p.country).toBeNull();
    expect(p.serialNumber).toBe('80');
    expect(p.notBefore).toEqual(notBefore);
    expect(p.notAfter).toEqual(notAfter);
    const text = ossl.run('x509', '-noout', '-text', '-in', ossl.write('bob.pem', pem));
    expect(text).toContain('Serial Number: 128 (0x80)');
    expect(text).toContain('Not After : Jan  1 00:00:00 2060 GMT');
  });

  test('bad input is refused with a code', () => {
    expect(codeOf(() => parseCertificate('hello'))).toBe('BAD_PEM');
    expect(codeOf(() => parseCertificate('-----BEGIN CERTIFICATE-----\n!!!!\n-----END CERTIFICATE-----\n'))).toBe('BAD_PEM');
    expect(codeOf(() => parseCertificate(derToPem(Uint8Array.of(1, 2, 3, 4))))).toBe('BAD_CERTIFICATE');
    expect(codeOf(() => parseCertificate(alicePem + alicePem))).toBe('BAD_PEM');
    const der = pemToDer(alicePem);
    expect(codeOf(() => parseCertificate(Uint8Array.of(...der, 0)))).toBe('BAD_CERTIFICATE');
    expect(codeOf(() => parseCertificate(der.subarray(0, der.length - 5)))).toBe('BAD_CERTIFICATE');
  });

  test('issuing refuses bad subjects and keys', () => {
    const pk = alice.publicKey;
    expect(codeOf(() => issueCertificate({ commonName: '', publicKey: pk }, ca))).toBe('BAD_INPUT');
    expect(codeOf(() => issueCertificate({ commonName: 'x', country: 'Germany', publicKey: pk }, ca))).toBe('BAD_INPUT');
    expect(codeOf(() => issueCertificate({ commonName: 'x', publicKey: pk.subarray(0, 40) }, ca))).toBe('BAD_KEY');
    expect(codeOf(() => issueCertificate({ commonName: 'x', publicKey: Uint8Array.of(4, ...new Uint8Array(64)) }, ca))).toBe('BAD_KEY');
    expect(codeOf(() => issueCertificate({ commonName: 'x', publicKey: 'zz' }, ca))).toBe('BAD_KEY');
    // an issuer key that is not the issuer certificate's
    expect(codeOf(() => issueCertificate({ commonName: 'x', publicKey: pk }, { certificatePem: ca.certificatePem, privateKey: alice.privateKey }))).toBe(
      'BAD_KEY',
    );
    // a user certificate cannot issue
    expect(codeOf(() => issueCertificate({ commonName: 'x', publicKey: pk }, { certificatePem: alicePem, privateKey: alice.privateKey }))).toBe(
      'BAD_INPUT',
    );
    expect(codeOf(() => issueCertificate({ commonName: 'x', publicKey: pk }, ca, { notBefore: new Date(1000), notAfter: new Date(1000) }))).toBe(
      'BAD_INPUT',
    );
  });
});

describe('certificates openssl makes, read by this library', () => {
  ossl.run('ecparam', '-name', 'secp256k1', '-genkey', '-out', ossl.path('oroot.key'));
  ossl.run('req', '-x509', '-new', '-key', ossl.path('oroot.key'), '-sha256', '-days', '30', '-subj', '/C=US/O=Org One/CN=openssl root', '-out', ossl.path('oroot.pem'));
  ossl.run('ecparam', '-name', 'secp256k1', '-genkey', '-out', ossl.path('ouser.key'));
  ossl.run('req', '-new', '-key', ossl.path('ouser.key'), '-subj', '/C=US/O=Org One/OU=ops/CN=carol', '-out', ossl.path('ouser.csr'));
  ossl.write('leaf.ext', 'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\n');
  ossl.run(
    'x509', '-req', '-in', ossl.path('ouser.csr'), '-CA', ossl.path('oroot.pem'), '-CAkey', ossl.path('oroot.key'),
    '-CAcreateserial', '-sha256', '-days', '10', '-extfile', ossl.path('leaf.ext'), '-out', ossl.path('ouser.pem'),
  );
  const oroot = ossl.read('oroot.pem');
  const ouser = ossl.read('ouser.pem');

  test('parse: fields, and the address of the key in the certificate', () => {
    const p = parseCertificate(ouser);
    expect(p).toMatchObject({ commonName: 'carol', organization: 'Org One', organizationalUnit: 'ops', country: 'US', isCa: false });
    expect(p.issuer).toEqual({ commonName: 'openssl root', organization: 'Org One', organizationalUnit: null, country: 'US' });
    // the same address from openssl's key file, by two roads
    expect(p.address).toBe(keyPairFromPrivateKey(privateKeyFromPem(ossl.read('ouser.key'))).address);
    expect(p.address).toBe(addressFromPublicKey(publicKeyFromPem(publicKeyToPemOf('ouser.key'))));
    const r = parseCertificate(oroot);
    expect(r.isCa).toBe(true);
    expect(r.selfIssued).toBe(true);
  });

  test('signature and chain verify', () => {
    expect(verifyCertificateSignature(ouser, oroot)).toBe(true);
    expect(verifyCertificateSignature(oroot, oroot)).toBe(true);
    const res = verifyChain(ouser, { trustedRoots: [oroot] });
    expect(res.ok).toBe(true);
    if (res.ok) expect(res.chain.map((c) => c.commonName)).toEqual(['carol', 'openssl root']);
  });

  test('this library issues under an openssl-made root with its openssl key, and openssl verifies', () => {
    const issuer = { certificatePem: oroot, privateKey: privateKeyFromPem(ossl.read('oroot.key')) };
    const pem = issueCertificate({ commonName: 'dave', organization: 'Org One', publicKey: alice.publicKey }, issuer);
    expect(ossl.verify(oroot, pem).status).toBe(0);
    expect(verifyChain(pem, { trustedRoots: [oroot] }).ok).toBe(true);
  });

  test('a certificate signed by a non-CA is refused (ISSUER_NOT_CA), as openssl refuses it', () => {
    ossl.run('ecparam', '-name', 'secp256k1', '-genkey', '-out', ossl.path('sub.key'));
    ossl.run('req', '-new', '-key', ossl.path('sub.key'), '-subj', '/O=Org One/CN=sneaky', '-out', ossl.path('sub.csr'));
    ossl.run(
      'x509', '-req', '-in', ossl.path('sub.csr'), '-CA', ossl.path('ouser.pem'), '-CAkey', ossl.path('ouser.key'),
      '-CAcreateserial', '-sha256', '-days', '5', '-extfile', ossl.path('leaf.ext'), '-out', ossl.path('sub.pem'),
    );
    const sub = ossl.read('sub.pem');
    expect(verifyCertificateSignature(sub, ouser)).toBe(true);
    const res = verifyChain(sub, { trustedRoots: [oroot], intermediates: [ouser] });
    expect(res).toMatchObject({ ok: false, code: 'ISSUER_NOT_CA' });
    expect(ossl.try('verify', '-CAfile', ossl.path('oroot.pem'), '-untrusted', ossl.path('ouser.pem'), ossl.path('sub.pem')).status).not.toBe(0);
  });

  test('a chain through an openssl-made intermediate CA', () => {
    ossl.run('ecparam', '-name', 'secp256k1', '-genkey', '-out', ossl.path('int.key'));
    ossl.run('req', '-new', '-key', ossl.path('int.key'), '-subj', '/O=Org One/CN=intermediate', '-out', ossl.path('int.csr'));
    ossl.write('int.ext', 'basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\n');
    ossl.run(
      'x509', '-req', '-in', ossl.path('int.csr'), '-CA', ossl.path('oroot.pem'), '-CAkey', ossl.path('oroot.key'),
      '-CAcreateserial', '-sha256', '-days', '20', '-extfile', ossl.path('int.ext'), '-out', ossl.path('int.pem'),
    );
    const int = ossl.read('int.pem');
    const leaf = issueCertificate({ commonName: 'erin', organization: 'Org One', publicKey: alice.publicKey }, {
      certificatePem: int,
      privateKey: privateKeyFromPem(ossl.read('int.key')),
    });
    const res = verifyChain(leaf, { trustedRoots: [oroot], intermediates: [int] });
    expect(res.ok && res.chain.map((c) => c.commonName)).toEqual(['erin', 'intermediate', 'openssl root']);
    expect(verifyChain(leaf, { trustedRoots: [oroot] })).toMatchObject({ ok: false, code: 'UNTRUSTED' });
    ossl.write('erin.pem', leaf);
    expect(ossl.try('verify', '-CAfile', ossl.path('oroot.pem'), '-untrusted', ossl.path('int.pem'), ossl.path('erin.pem')).status).toBe(0);
  });

  test('a certificate on another curve is WRONG_CURVE', () => {
    ossl.run('ecparam', '-name', 'prime256v1', '-genkey', '-out', ossl.path('p256.key'));
    ossl.run('req', '-x509', '-new', '-key', ossl.path('p256.key'), '-sha256', '-days', '3', '-subj', '/CN=p256', '-out', ossl.path('p256.pem'));
    expect(codeOf(() => parseCertificate(ossl.read('p256.pem')))).toBe('WRONG_CURVE');
    expect(codeOf(() => privateKeyFromPem(ossl.read('p256.key')))).toBe('WRONG_CURVE');
    expect(codeOf(() => issueCertificate({ commonName: 'x', publicKey: publicKeyToPemOf('p256.key') }, ca))).toBe('WRONG_CURVE');
  });

  function publicKeyToPemOf(keyFile: string): string {
    return createPublicKey(ossl.read(keyFile)).export({ type: 'spki', format: 'pem' }) as string;
  }
});

describe('refusals', () => {
  test('a tampered certificate fails our check and openssl verify', () => {
    const der = pemToDer(alicePem);
    const i = Buffer.from(der).indexOf('alice');
    const bad = Uint8Array.from(der);
    bad[i + 4] = 'f'.charCodeAt(0); // alice -> alicf
    const badPem = derToPem(bad);
    expect(parseCertificate(badPem).commonName).toBe('alicf');
    expect(verifyCertificateSignature(badPem, ca.certificatePem)).toBe(false);
    expect(verifyChain(badPem, { trustedRoots: [ca.certificatePem] })).toMatchObject({ ok: false, code: 'BAD_SIGNATURE' });
    expect(ossl.verify(ca.certificatePem, badPem).status).not.toBe(0);

    // a flipped bit in the signature's r
    const cert = AsnConvert.parse(der, Certificate);
    const sv = AsnConvert.parse(cert.signatureValue, ECDSASigValue);
    const r = new Uint8Array(sv.r);
    r[r.length - 1] ^= 1;
    sv.r = r.buffer;
    cert.signatureValue = AsnConvert.serialize(sv);
    const badSig = derToPem(new Uint8Array(AsnConvert.serialize(cert)));
    expect(verifyCertificateSignature(badSig, ca.certificatePem)).toBe(false);
    expect(ossl.verify(ca.certificatePem, badSig).status).not.toBe(0);
  });

  test('the high-s twin of a signature verifies (X.509 has no low-s rule; openssl agrees)', () => {
    const twin = withFlippedS(alicePem);
    expect(twin).not.toBe(alicePem);
    expect(verifyCertificateSignature(twin, ca.certificatePem)).toBe(true);
    expect(ossl.verify(ca.certificatePem, twin).status).toBe(0);
  });

  test('an expired certificate fails the chain check (and openssl), but passed at a date inside its validity', () => {
    const notBefore = new Date(Date.now() - 10 * DAY);
    const notAfter = new Date(Date.now() - DAY);
    const old = issueCertificate({ commonName: 'old', organization: 'Acme', publicKey: alice.publicKey }, ca, { notBefore, notAfter });
    expect(verifyCertificateSignature(old, ca.certificatePem)).toBe(true);
    expect(verifyChain(old, { trustedRoots: [ca.certificatePem] })).toMatchObject({ ok: false, code: 'EXPIRED' });
    expect(ossl.verify(ca.certificatePem, old)).toMatchObject({ status: 2, out: expect.stringContaining('certificate has expired') });
    // the CA itself was not yet valid then, so check at a date inside both
    const oldCa = createNodeCa({ organization: 'Acme', commonName: 'old CA' }, { notBefore: new Date(Date.now() - 100 * DAY) });
    const old2 = issueCertificate({ commonName: 'old', publicKey: alice.publicKey }, oldCa, { notBefore, notAfter });
    const at = new Date(Date.now() - 5 * DAY);
    expect(verifyChain(old2, { trustedRoots: [oldCa.certificatePem], at }).ok).toBe(true);
    expect(verifyChain(old2, { trustedRoots: [ca.certificatePem] })).toMatchObject({ ok: false, code: 'EXPIRED' });
  });

  test('not yet valid, and an expired root', () => {
    const future = issueCertificate({ commonName: 'f', publicKey: alice.publicKey }, ca, { notBefore: new Date(Date.now() + DAY) });
    expect(verifyChain(future, { trustedRoots: [ca.certificatePem] })).toMatchObject({ ok: false, code: 'NOT_YET_VALID' });
    const shortCa = createNodeCa({ organization: 'Acme', commonName: 'short' }, { notBefore: new Date(Date.now() - 10 * DAY), notAfter: new Date(Date.now() - DAY) });
    const leaf = issueCertificate({ commonName: 'l', publicKey: alice.publicKey }, shortCa, { notBefore: new Date(Date.now() - 5 * DAY) });
    expect(verifyChain(leaf, { trustedRoots: [shortCa.certificatePem] })).toMatchObject({ ok: false, code: 'EXPIRED' });
  });

  test('wrong issuer: another CA with the same name, or another name, or no roots', () => {
    const impostor = createNodeCa({ organization: 'Acme', commonName: 'node1 CA' });
    expect(verifyCertificateSignature(alicePem, impostor.certificatePem)).toBe(false);
    expect(verifyChain(alicePem, { trustedRoots: [impostor.certificatePem] })).toMatchObject({ ok: false, code: 'BAD_SIGNATURE' });
    expect(ossl.verify(impostor.certificatePem, alicePem).status).not.toBe(0);

    const other = createNodeCa({ organization: 'Other', commonName: 'other CA' });
    expect(verifyCertificateSignature(alicePem, other.certificatePem)).toBe(false);
    expect(verifyChain(alicePem, { trustedRoots: [other.certificatePem] })).toMatchObject({ ok: false, code: 'UNTRUSTED' });
    expect(verifyChain(alicePem, { trustedRoots: [] })).toMatchObject({ ok: false, code: 'UNTRUSTED' });
    // a self-signed certificate not under a trusted root
    expect(verifyChain(other.certificatePem, { trustedRoots: [ca.certificatePem] })).toMatchObject({ ok: false, code: 'UNTRUSTED' });
    // one good root among several is enough
    expect(verifyChain(alicePem, { trustedRoots: [other.certificatePem, impostor.certificatePem, ca.certificatePem] }).ok).toBe(true);
  });

  test('a root is trusted as given; a CA given only as an intermediate is not a root', () => {
    expect(verifyChain(alicePem, { trustedRoots: [alicePem] }).ok).toBe(true); // trusted as given
    expect(verifyChain(alicePem, { trustedRoots: [], intermediates: [ca.certificatePem] })).toMatchObject({ ok: false, code: 'UNTRUSTED' });
  });
});
