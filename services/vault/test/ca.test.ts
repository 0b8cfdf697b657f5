// Certificates issued by the node's CA, which the vault keeps: for a vault
// user's key (enrolment) and for a given key (createCert). Checked with
// node:crypto's X509Certificate and the openssl CLI.
import { refusal } from '@platform/common/testing';
import { execFileSync } from 'node:child_process';
import { X509Certificate, generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createNodeCa, parseCertificate, privateKeyToPem, publicKeyToPem } from '@platform/certs';
import { IDENTITY, VAULT, call, connectBus, type NatsConnection } from '@platform/bus';
import { generateKeyPair, hexToBytes, recoverAddress, signingHash } from '@platform/crypto';
import { registrationFields } from '@platform/identity';
import { vaultFixture, type VaultFixture } from './helpers.js';

describe('vault - the node CA', () => {
  let fixture: VaultFixture;
  let nc: NatsConnection;
  const ca = createNodeCa({ organization: 'Acme', commonName: 'Acme node CA' });
  const dir = mkdtempSync(join(tmpdir(), 'vault-ca-'));

  beforeAll(async () => {
    fixture = await vaultFixture();
    await fixture.start({ databaseUrl: await fixture.database('vault_ca'), env: { NODE_CA_CERT: ca.certificatePem, NODE_CA_KEY: privateKeyToPem(ca.privateKey) } });
    nc = await connectBus({ url: fixture.natsUrl, name: 'vault-ca-test' });
  });
  afterAll(async () => {
    await nc?.close();
    await fixture?.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  const opensslVerifies = (pem: string) => {
    writeFileSync(join(dir, 'ca.pem'), ca.certificatePem);
    writeFileSync(join(dir, 'leaf.pem'), pem);
    return execFileSync('openssl', ['verify', '-CAfile', join(dir, 'ca.pem'), join(dir, 'leaf.pem')], { encoding: 'utf8' }).trim();
  };

  test("a user's certificate is for its vault key, signed by the CA, and openssl verifies it", async () => {
    const key = await call(nc, VAULT.keyCreate, { username: 'alice' });
    const issued = await call(nc, IDENTITY.issue, { username: 'alice', subject: { commonName: 'alice', organization: 'Acme', organizationalUnit: 'Sales' } });
    expect(issued.address).toBe(key.address);
    const x509 = new X509Certificate(issued.certificate);
    expect(x509.subject.split('\n')).toEqual(expect.arrayContaining(['O=Acme', 'OU=Sales', 'CN=alice']));
    expect(x509.checkIssued(new X509Certificate(ca.certificatePem))).toBe(true);
    expect(x509.verify(new X509Certificate(ca.certificatePem).publicKey)).toBe(true);
    expect(parseCertificate(issued.certificate)).toMatchObject({ publicKey: key.pubkey, address: key.address, isCa: false });
    expect(opensslVerifies(issued.certificate)).toMatch(/: OK$/);
    expect((await call(nc, IDENTITY.ca, {})).certificate).toBe(ca.certificatePem);
  });

  test('a given PEM public key gets its certificate (createCert)', async () => {
    const pair = generateKeyPair();
    const issued = await call(nc, IDENTITY.issue, { publicKey: publicKeyToPem(pair.publicKey), subject: { commonName: 'raw', organization: 'Acme', country: 'DE' } });
    expect(issued.address).toBe(pair.address);
    expect(new X509Certificate(issued.certificate).subject).toContain('C=DE');
    expect(opensslVerifies(issued.certificate)).toMatch(/: OK$/);
  });

  test("the CA signs registrations of certificates, in the form that covers the certificate, and nothing else", async () => {
    const pem = (await call(nc, IDENTITY.issue, { publicKey: publicKeyToPem(generateKeyPair().publicKey), subject: { commonName: 'r', organization: 'Acme' } })).certificate;
    const sig = await call(nc, IDENTITY.caSign, { certificate: pem, nonce: 7 });
    const hash = signingHash(registrationFields(pem, 7n), 'metadata');
    expect(recoverAddress(hash, hexToBytes(sig.r), hexToBytes(sig.s), (sig.v - 27) as 0 | 1)).toBe(ca.certificate.address);
    for (const request of [{ certificate: 'x', nonce: 1 }, { certificate: pem, nonce: -1 }, { msgHash: 'ab'.repeat(32) }]) {
      expect((await refusal(call(nc, IDENTITY.caSign, request as never))).code).toBe('VALIDATION_FAILED');
    }
  });

  test('bad input: 400 naming the field; a user without a key is USER_NOT_FOUND', async () => {
    const p256 = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const cases: Array<[unknown, string, RegExp]> = [
      [{ publicKey: p256, subject: { commonName: 'x', organization: 'Acme' } }, 'subject.pubKey', /not a secp256k1 key/],
      [{ publicKey: 'garbage', subject: { commonName: 'x', organization: 'Acme' } }, 'subject.pubKey', /not a secp256k1 public key/],
      [{ subject: { commonName: 'x', organization: 'Acme' } }, 'subject.pubKey', /is required/],
      [{ publicKey: publicKeyToPem(generateKeyPair().publicKey), subject: { organization: 'Acme' } }, 'subject.commonName', /is required/],
      [{ publicKey: publicKeyToPem(generateKeyPair().publicKey), subject: { commonName: 'x', organization: 'Acme', country: 'Germany' } }, 'subject.country', /two capital letters/],
      [{ publicKey: publicKeyToPem(generateKeyPair().publicKey), subject: { commonName: 'x'.repeat(65), organization: 'Acme' } }, 'subject.commonName', /at most 64/],
    ];
    for (const [request, field, message] of cases) {
      const err = await refusal(call(nc, IDENTITY.issue, request as never));
      expect({ code: err.code, field: err.details?.field }).toEqual({ code: 'VALIDATION_FAILED', field });
      expect(err.message).toMatch(message);
    }
    expect((await refusal(call(nc, IDENTITY.issue, { username: 'nobody', subject: { commonName: 'x', organization: 'Acme' } }))).code).toBe('USER_NOT_FOUND');
  });

  test('without a CA, issuing is UNAVAILABLE and says how to get one', async () => {
    const { issue } = await import('../src/ca.js');
    const err = await refusal(issue(null, undefined as never, { username: 'x', subject: {} }));
    expect(err.code).toBe('UNAVAILABLE');
    expect(err.message).toMatch(/NODE_CA_CERT/);
  });
});
