// The X.509 built-ins as SolidVM sees them, checked against certificates
// made by the openssl CLI (a source written elsewhere) and by @platform/certs.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createNodeCa, issueCertificate, privateKeyFromPem, publicKeyToPem } from '@platform/certs';
import { bytesToHex, generateKeyPair, keyPairFromPrivateKey, sign } from '@platform/crypto';
import { certificateFields, certificateSignedBy, certificateSignedByKey, isRegistration, isReservedContractName, signatureValid, REGISTRY_ADDRESS } from '../src/index.js';

describe('identity built-ins', () => {
  const dir = mkdtempSync(join(tmpdir(), 'identity-hooks-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

  test('parseCert reads an openssl certificate: subject, key address, validity, issuer', () => {
    openssl('ecparam', '-name', 'secp256k1', '-genkey', '-noout', '-out', 'ca.key');
    openssl('req', '-x509', '-new', '-key', 'ca.key', '-sha256', '-days', '30', '-subj', '/C=DE/O=Acme/OU=Ops/CN=Acme CA', '-out', 'ca.pem');
    const pem = readFileSync(join(dir, 'ca.pem'), 'utf8');
    const key = keyPairFromPrivateKey(privateKeyFromPem(readFileSync(join(dir, 'ca.key'), 'utf8')));
    const f = certificateFields(pem);
    expect(f).toMatchObject({ error: '', commonName: 'Acme CA', organization: 'Acme', organizationalUnit: 'Ops', country: 'DE', userAddress: key.address, publicKey: bytesToHex(key.publicKey), isCa: 'true', issuerCommonName: 'Acme CA' });
    expect(Number(f.notAfter) - Number(f.notBefore)).toBe(30 * 86_400);
    expect(f.certificateString.replace(/\s+/g, '')).toBe(pem.replace(/\s+/g, ''));
  });

  test('parseCert answers only the reason for what is not a secp256k1 certificate', () => {
    expect(certificateFields('nonsense')).toEqual({ error: expect.stringMatching(/^BAD_PEM: /) });
    openssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'p256.key', '-subj', '/CN=p256', '-out', 'p256.pem');
    expect(certificateFields(readFileSync(join(dir, 'p256.pem'), 'utf8')).error).toMatch(/^WRONG_CURVE: /);
  });

  test('verifyCertSignedBy and verifyCert: the issuer CA and its key, nothing else', () => {
    const ca = createNodeCa({ organization: 'Acme', commonName: 'Acme CA' });
    const user = generateKeyPair();
    const leaf = issueCertificate({ commonName: 'u', publicKey: user.publicKey }, ca);
    const twin = createNodeCa({ organization: 'Acme', commonName: 'Acme CA' });
    expect(certificateSignedBy(leaf, ca.certificatePem)).toBe(true);
    expect(certificateSignedBy(leaf, twin.certificatePem)).toBe(false);
    // names do not matter in reverse: a leaf is never an issuer
    expect(certificateSignedBy(ca.certificatePem, leaf)).toBe(false);
    expect(certificateSignedBy('x', ca.certificatePem)).toBe(false);
    expect(certificateSignedByKey(leaf, bytesToHex(keyPairFromPrivateKey(ca.privateKey).publicKey))).toBe(true);
    expect(certificateSignedByKey(leaf, publicKeyToPem(keyPairFromPrivateKey(ca.privateKey).publicKey))).toBe(true);
    expect(certificateSignedByKey(leaf, bytesToHex(user.publicKey))).toBe(false);
    expect(certificateSignedByKey(leaf, 'zz')).toBe(false);
  });

  test('verifySignature: r‖s or r‖s‖v over a 32-byte hash, under hex or PEM keys', () => {
    const key = generateKeyPair();
    const hash = bytesToHex(new Uint8Array(32).fill(7));
    const sig = sign(new Uint8Array(32).fill(7), key.privateKey);
    const rs = bytesToHex(sig.r) + bytesToHex(sig.s);
    expect(signatureValid(hash, rs, bytesToHex(key.publicKey))).toBe(true);
    expect(signatureValid(hash, rs + sig.v.toString(16), publicKeyToPem(key.publicKey))).toBe(true);
    expect(signatureValid(hash, rs, bytesToHex(generateKeyPair().publicKey))).toBe(false);
    expect(signatureValid('00', rs, bytesToHex(key.publicKey))).toBe(false);
    expect(signatureValid(hash, 'not hex', bytesToHex(key.publicKey))).toBe(false);
  });

  test('rules: reserved names; only a main-chain registerCertificate call on the registry is a registration', () => {
    expect(['Certificate', 'CertificateRegistry', 'Cert'].map(isReservedContractName)).toEqual([true, true, false]);
    const call = { to: REGISTRY_ADDRESS, chainId: '', metadata: { funcName: 'registerCertificate' } };
    expect(isRegistration(call)).toBe(true);
    expect(isRegistration({ ...call, metadata: { funcName: 'revokeCertificate' } })).toBe(false);
    expect(isRegistration({ ...call, to: 'ab'.repeat(20) })).toBe(false);
    expect(isRegistration({ ...call, chainId: 'cd'.repeat(32) })).toBe(false);
  });
});
