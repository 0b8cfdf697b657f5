// Identity on a whole node (issue "Identity"): a user of the development
// identity provider creates a key and transacts with no other step (its
// certificate is issued and registered by POST key); an account with its own
// key (an ethers wallet) is refused with 403 IDENTITY_REQUIRED until it
// registers a certificate that an administrator obtained from createCert, and
// then succeeds; the registry's rows are in cirrus; openssl verifies the
// issued certificates against the node CA named in the genesis; bad input is
// refused with a clear 4xx or a failed registration, registering nothing.
import { execFileSync } from 'node:child_process';
import { X509Certificate, generateKeyPairSync } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Wallet, encodeRlp, hexlify, keccak256, toBeArray, toUtf8Bytes, type BaseWallet } from 'ethers';
import { createNodeCa, issueCertificate, privateKeyFromPem, publicKeyToPem } from '@platform/certs';
import { startTestIssuer, type TestIssuer } from '@platform/auth/testing';
import { REGISTRY_ADDRESS } from '@platform/identity';
import { api, devToken, startTestNode, type TestNode } from './harness.js';

const NODE_START_MS = 180_000;
const WHO = `contract Who {
  string public name; string public org; string public unit;
  constructor() { name = tx.username; org = tx.organization; unit = tx.organizationalUnit; }
}`;

/** A raw transaction in the platform's signed form (docs/conventions.md "Raw transactions: the signed bytes"), with ethers only. */
function raw(wallet: BaseWallet, fields: { nonce: number; to: string | null; data?: Uint8Array; metadata: Record<string, string> }) {
  const int = (n: number) => (n === 0 ? '0x' : hexlify(toBeArray(n)));
  const data = fields.data ?? new Uint8Array(0);
  const hash = keccak256(encodeRlp([int(fields.nonce), int(1), int(100_000_000), fields.to ? `0x${fields.to}` : '0x', int(0), hexlify(data)]));
  const sig = wallet.signingKey.sign(hash);
  return { nonce: fields.nonce, gasPrice: 1, gasLimit: 100_000_000, value: 0, to: fields.to, initOrData: hexlify(data).slice(2), metadata: fields.metadata, r: sig.r.slice(2), s: sig.s.slice(2), v: sig.v };
}

const upload = (wallet: BaseWallet, nonce: number) => raw(wallet, { nonce, to: null, data: toUtf8Bytes(WHO), metadata: { VM: 'SolidVM', name: 'Who' } });
const registration = (wallet: BaseWallet, nonce: number, pem: string) =>
  raw(wallet, { nonce, to: REGISTRY_ADDRESS, metadata: { VM: 'SolidVM', funcName: 'registerCertificate', args: JSON.stringify({ newCertificateString: pem }) } });
const addressOf = (wallet: BaseWallet) => wallet.address.slice(2).toLowerCase();
/** the wallet's public key as createCert takes it: a PEM `PUBLIC KEY` */
const pubKeyPem = (wallet: BaseWallet) => publicKeyToPem(Buffer.from(wallet.signingKey.publicKey.slice(2), 'hex'));

/** The rows of a cirrus table matching `query`, once cirrus has indexed at least one. */
async function rowsOf(node: TestNode, token: string, table: string, query: string): Promise<any[]> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const res = await api(node, 'GET', `/cirrus/search/${table}?${query}`, token);
    if (res.status === 200 && res.body.length > 0) return res.body;
    if (Date.now() > deadline) throw new Error(`no ${table} row for ${query}: ${res.status} ${JSON.stringify(res.body)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('identity on a node', () => {
  let node: TestNode;
  let adminToken: string;
  let userToken: string;
  let caPem: string;

  beforeAll(async () => {
    node = await startTestNode({ ADMIN_USERS: 'root' });
    adminToken = await devToken(node, 'root', 'Acme');
    userToken = await devToken(node, 'carol', 'Acme');
    caPem = JSON.parse(readFileSync(join(node.dataDir, 'genesis.json'), 'utf8')).trustedRoots[0];
  }, NODE_START_MS);
  afterAll(async () => {
    await node?.destroy();
  });

  const opensslVerify = (pem: string): string => {
    writeFileSync(join(node.dataDir, 'ca-check.pem'), caPem);
    writeFileSync(join(node.dataDir, 'leaf-check.pem'), pem);
    return execFileSync('openssl', ['verify', '-CAfile', join(node.dataDir, 'ca-check.pem'), join(node.dataDir, 'leaf-check.pem')], { encoding: 'utf8' }).trim();
  };
  const certificates = (query: string) => rowsOf(node, adminToken, 'Certificate', query);
  const rawTx = (body: unknown) => api(node, 'POST', '/bloc/v2.2/transaction/raw?resolve=true', userToken, body);

  test('the genesis trusts the node CA (O = NODE_ORG); it is a registry row', async () => {
    const ca = new X509Certificate(caPem);
    expect(ca.ca).toBe(true);
    expect(ca.subject).toContain('O=Platform');
    const [root] = await certificates('isRoot=eq.true');
    expect(root).toMatchObject({ isValid: true, isCa: true, organization: 'Platform', address: expect.any(String) });
  });

  test('a development identity provider user creates a key and transacts with no other step', async () => {
    const token = await devToken(node, 'alice', 'Acme');
    const key = await api(node, 'POST', '/platform/v2.3/key', token);
    expect(key.status).toBe(200);
    const up = await api(node, 'POST', '/platform/v2.3/transaction?resolve=true', token, { txs: [{ type: 'CONTRACT', payload: { contract: 'Who', src: WHO, metadata: { VM: 'SolidVM' } } }] });
    expect(up.status).toBe(200);
    expect(up.body[0].status).toBe('Success');
    // tx.username and tx.organization come from the registered certificate
    const [who] = await rowsOf(node, token, 'Who', `address=eq.${up.body[0].data.contents.address}`);
    expect(who).toMatchObject({ name: 'alice', org: 'Acme' });

    const [row] = await certificates('commonName=eq.alice');
    expect(row).toMatchObject({ userAddress: key.body.address, commonName: 'alice', organization: 'Acme', isValid: true, isRoot: false, publicKey: key.body.pubkey });
    const [same] = await certificates(`userAddress=eq.${key.body.address}`);
    expect(same.certificateString).toBe(row.certificateString);
    const x509 = new X509Certificate(row.certificateString);
    expect(x509.subject.split('\n')).toEqual(expect.arrayContaining(['O=Acme', 'CN=alice']));
    expect(x509.checkIssued(new X509Certificate(caPem))).toBe(true);
    expect(opensslVerify(row.certificateString)).toMatch(/: OK$/);

    const again = await api(node, 'POST', '/platform/v2.3/key', token);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('USER_EXISTS');
  });

  test('a failed enrolment is retried by the next POST key instead of 409', async () => {
    // an organization claim too long for X.509 (64 characters) makes the enrolment fail after the key was created
    const bad = await api(node, 'POST', '/platform/v2.3/key', await devToken(node, 'dora', 'O'.repeat(80)));
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/organization/);
    const refused = await api(node, 'POST', '/platform/v2.3/transaction', await devToken(node, 'dora', 'Acme'), { txs: [{ type: 'CONTRACT', payload: { contract: 'Who', src: WHO, metadata: { VM: 'SolidVM' } } }] });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('IDENTITY_REQUIRED');
    expect(refused.body.error.message).toContain('POST /platform/v2.3/key');
    const retried = await api(node, 'POST', '/platform/v2.3/key', await devToken(node, 'dora', 'Acme'));
    expect(retried.status).toBe(200);
    const [row] = await certificates('commonName=eq.dora');
    expect(row).toMatchObject({ organization: 'Acme', userAddress: retried.body.address });
  });

  test('a raw-key user is refused until it registers a certificate from createCert, then succeeds', async () => {
    const wallet = Wallet.createRandom();
    const refused = await rawTx(upload(wallet, 0));
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 'IDENTITY_REQUIRED', details: { address: addressOf(wallet) } });
    expect(refused.body.error.message).toContain('createCert');

    const body = { subject: { commonName: 'walter', organization: 'Acme', organizationUnit: 'Ops', country: 'DE', pubKey: pubKeyPem(wallet) } };
    const forbidden = await api(node, 'POST', '/bloc/v2.2/x509/createCert', userToken, body);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error.code).toBe('FORBIDDEN');
    const issued = await api(node, 'POST', '/bloc/v2.2/x509/createCert', adminToken, body);
    expect(issued.status).toBe(200);
    expect(issued.headers.get('content-type')).toMatch(/application\/x-pem-file/);
    const pem = issued.body as string;
    expect(new X509Certificate(pem).subject.split('\n')).toEqual(expect.arrayContaining(['C=DE', 'O=Acme', 'OU=Ops', 'CN=walter']));
    expect(opensslVerify(pem)).toMatch(/: OK$/);

    const registered = await rawTx(registration(wallet, 0, pem));
    expect(registered.status).toBe(200);
    expect(registered.body.status).toBe('Success');
    const admitted = await rawTx(upload(wallet, 1));
    expect(admitted.status).toBe(200);
    expect(admitted.body.status).toBe('Success');
    const [row] = await certificates(`userAddress=eq.${addressOf(wallet)}`);
    expect(row).toMatchObject({ commonName: 'walter', organization: 'Acme', organizationalUnit: 'Ops', country: 'DE', isValid: true });

    // revoked by its owner: refused again (after the admission cache's few seconds), and the same certificate cannot come back
    const revoked = await rawTx(raw(wallet, { nonce: 2, to: REGISTRY_ADDRESS, metadata: { VM: 'SolidVM', funcName: 'revokeCertificate', args: JSON.stringify({ userAddress: addressOf(wallet) }) } }));
    expect(revoked.body.status).toBe('Success');
    await new Promise((r) => setTimeout(r, 2_500));
    const afterRevoke = await rawTx(upload(wallet, 3));
    expect(afterRevoke.status).toBe(403);
    const again = await rawTx(registration(wallet, 3, pem));
    expect(again.body.status).toBe('Failure');
    expect(again.body.txResult.message).toMatch(/registered before/);
    expect((await certificates(`userAddress=eq.${addressOf(wallet)}`))[0].isValid).toBe(false);
  });

  test('bad certificates are refused: createCert 4xx, registrations fail with the reason and register nothing', async () => {
    const wallet = Wallet.createRandom();
    const createCert = (subject: Record<string, unknown>, extra: Record<string, unknown> = {}) => api(node, 'POST', '/bloc/v2.2/x509/createCert', adminToken, { subject, ...extra });
    const subject = { commonName: 'eve', organization: 'Acme', pubKey: pubKeyPem(wallet) };
    const p256 = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ type: 'spki', format: 'pem' }).toString();
    for (const [res, field] of [
      [await createCert({ ...subject, pubKey: '-----BEGIN PUBLIC KEY-----\nnot base64\n-----END PUBLIC KEY-----' }), 'subject.pubKey'],
      [await createCert({ ...subject, pubKey: p256 }), 'subject.pubKey'],
      [await createCert({ ...subject, country: 'Germany' }), 'subject.country'],
    ] as const) {
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'VALIDATION_FAILED', details: { field } });
    }
    const missing = await createCert({ organization: 'Acme', pubKey: subject.pubKey });
    expect(missing.status).toBe(400);
    const otherParent = await createCert(subject, { parentCertificate: createNodeCa({ organization: 'X', commonName: 'X' }).certificatePem });
    expect(otherParent.status).toBe(422);
    expect(otherParent.body.error.details.field).toBe('parentCertificate');

    const caKey = privateKeyFromPem(readFileSync(join(node.dataDir, 'ca', 'node-ca.key'), 'utf8'));
    const other = Wallet.createRandom();
    const forOther = (await createCert({ ...subject, pubKey: pubKeyPem(other) })).body as string;
    const selfSigned = createNodeCa({ organization: 'Acme', commonName: 'eve' }, { privateKey: Buffer.from(wallet.privateKey.slice(2), 'hex') }).certificatePem;
    const hour = 3_600_000;
    const expired = issueCertificate({ commonName: 'eve', organization: 'Acme', publicKey: pubKeyPem(wallet) }, { certificatePem: caPem, privateKey: caKey }, { notBefore: new Date(Date.now() - 2 * hour), notAfter: new Date(Date.now() - hour) });
    const cases: Array<[string, RegExp]> = [
      ['-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----', /not a valid certificate/],
      [forOther, /not the sender's/],
      [selfSigned, /not issued by a trusted root/],
      [expired, /expired/],
    ];
    let nonce = 0;
    for (const [pem, reason] of cases) {
      const res = await rawTx(registration(wallet, nonce++, pem));
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('Failure');
      expect(res.body.txResult.message).toMatch(reason);
    }
    expect((await rawTx(upload(wallet, nonce))).status).toBe(403);
    const none = await api(node, 'GET', `/cirrus/search/Certificate?userAddress=in.(${addressOf(wallet)},${addressOf(other)})`, adminToken);
    expect(none.body).toEqual([]);
  });

  test('the system contract names are reserved', async () => {
    const token = await devToken(node, 'mallory', 'Acme');
    expect((await api(node, 'POST', '/platform/v2.3/key', token)).status).toBe(200);
    const res = await api(node, 'POST', '/platform/v2.3/transaction', token, { txs: [{ type: 'CONTRACT', payload: { contract: 'Certificate', src: 'contract Certificate { string public commonName; }', metadata: { VM: 'SolidVM' } } }] });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/reserved/);
  });
});

describe('identity with an external OpenID issuer: claims name the subject and the administrators', () => {
  let issuer: TestIssuer;
  let node: TestNode;

  beforeAll(async () => {
    issuer = await startTestIssuer();
    node = await startTestNode({ OAUTH_DISCOVERY_URL: issuer.discoveryUrl, NODE_ORG: 'Globex' });
  }, NODE_START_MS);
  afterAll(async () => {
    await node?.destroy();
    await issuer?.stop();
  }, NODE_START_MS);

  const certificateOf = async (address: string, token: string) => (await rowsOf(node, token, 'Certificate', `userAddress=eq.${address}`))[0];

  test('O is the organization claim, else NODE_ORG; OU the organizationalUnit claim', async () => {
    const unit = await issuer.token({ sub: 'u-1', preferred_username: 'uma', organization: 'Initech', organizationalUnit: 'QA' });
    const plain = await issuer.token({ sub: 'u-2', preferred_username: 'pete' });
    const a = await api(node, 'POST', '/platform/v2.3/key', unit);
    const b = await api(node, 'POST', '/platform/v2.3/key', plain);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(await certificateOf(a.body.address, unit)).toMatchObject({ commonName: 'uma', organization: 'Initech', organizationalUnit: 'QA' });
    expect(await certificateOf(b.body.address, plain)).toMatchObject({ commonName: 'pete', organization: 'Globex', organizationalUnit: '' });
    const ca = JSON.parse(readFileSync(join(node.dataDir, 'genesis.json'), 'utf8')).trustedRoots[0];
    expect(new X509Certificate(ca).subject).toContain('O=Globex');
  });

  test('a token with the admin role (roles, or Keycloak realm_access.roles) may use createCert', async () => {
    const subject = { commonName: 'w', organization: 'Globex', pubKey: pubKeyPem(Wallet.createRandom()) };
    for (const claims of [{ roles: ['admin'] }, { realm_access: { roles: ['user', 'admin'] } }]) {
      const token = await issuer.token({ sub: 'adm', preferred_username: 'adm', ...claims });
      expect((await api(node, 'POST', '/bloc/v2.2/x509/createCert', token, { subject })).status).toBe(200);
    }
    const nobody = await issuer.token({ sub: 'x', preferred_username: 'x', roles: ['user'] });
    expect((await api(node, 'POST', '/bloc/v2.2/x509/createCert', nobody, { subject })).status).toBe(403);
  });
});
