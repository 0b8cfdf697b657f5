// Who is asking, on a whole node trusting an external OpenID issuer: forged
// tokens of every kind (a wrong signature, alg none, HS256 keyed with the
// issuer's public key, expired, another issuer named, a key the issuer's
// JWKS does not hold, a tampered payload, no exp) are 401 on the gateway and
// the vault alike; one user can neither read nor sign with another's key
// through either; and only administrators list the vault's users.
import { createHmac } from 'node:crypto';
import { computeAddress, recoverAddress } from 'ethers';
import { startTestIssuer, type TestIssuer } from '@platform/auth/testing';
import { api, request, startTestNode, type TestNode } from '../../test-e2e/test/harness.js';

const NODE_START_MS = 180_000;

let issuer: TestIssuer;
let node: TestNode;
const tokens: Record<string, string> = {};
const keys: Record<string, { address: string; pubkey: string }> = {};

beforeAll(async () => {
  issuer = await startTestIssuer();
  node = await startTestNode({ OAUTH_DISCOVERY_URL: issuer.discoveryUrl, ADMIN_USERS: 'root' });
  for (const user of ['alice', 'bob']) {
    tokens[user] = await issuer.token({ sub: `id-${user}`, preferred_username: user, organization: 'Acme' });
    const created = await api(node, 'POST', '/platform/v2.3/key', tokens[user]);
    expect({ status: created.status, body: created.body }).toMatchObject({ status: 200 });
    keys[user] = created.body;
  }
}, NODE_START_MS);
afterAll(async () => {
  await node?.destroy();
  await issuer?.stop();
}, NODE_START_MS);

/** A request to the gateway or the vault, with a raw Authorization value. */
function call(base: 'gateway' | 'vault', method: string, path: string, authorization?: string, body?: unknown) {
  return request(base === 'gateway' ? node.gatewayUrl : node.vaultUrl, method, path, authorization, body);
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const MSG_HASH = 'ab'.repeat(32);

/** One route of each kind on both HTTP APIs; each needs a token before anything else. */
const ROUTES: Array<['gateway' | 'vault', string, string, unknown?]> = [
  ['gateway', 'GET', '/platform/v2.3/key'],
  ['gateway', 'POST', '/platform/v2.3/key'],
  ['gateway', 'POST', '/platform/v2.3/transaction', { txs: [] }],
  ['gateway', 'GET', '/cirrus/search/Certificate'],
  ['gateway', 'GET', '/bloc/v2.2/chain'],
  ['gateway', 'GET', `/platform-api/eth/v1.2/account?address=${'00'.repeat(20)}`],
  ['gateway', 'POST', '/bloc/v2.2/x509/createCert', { subject: { commonName: 'x', organization: 'y', pubKey: 'z' } }],
  ['vault', 'GET', '/platform/v2.3/key'],
  ['vault', 'POST', '/platform/v2.3/key'],
  ['vault', 'POST', '/platform/v2.3/signature', { msgHash: MSG_HASH }],
  ['vault', 'GET', '/platform/v2.3/users'],
];

describe('forged tokens', () => {
  test('every kind of forgery is 401 TOKEN_INVALID with WWW-Authenticate on every route of the gateway and the vault', async () => {
    const genuine = await issuer.token({ sub: 'id-alice', preferred_username: 'alice', organization: 'Acme' });
    const [header, payload, signature] = genuine.split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
    const asRoot = { ...claims, preferred_username: 'root', roles: ['admin'] };
    const jwks = (await (await fetch(`${issuer.issuer}/jwks`)).json()) as { keys: unknown[] };
    const hsHead = `${b64({ alg: 'HS256', typ: 'JWT', kid: 'test-key' })}.${b64(asRoot)}`;
    const other = await startTestIssuer();
    const i = Math.floor(signature.length / 2);
    const forgeries: Record<string, string> = {
      'wrong signature': `${header}.${payload}.${signature.slice(0, i)}${signature[i] === 'A' ? 'B' : 'A'}${signature.slice(i + 1)}`,
      'tampered payload': `${header}.${b64(asRoot)}.${signature}`,
      'alg none': `${b64({ alg: 'none', typ: 'JWT' })}.${b64(asRoot)}.`,
      'alg none, signature kept': `${b64({ alg: 'none', typ: 'JWT', kid: 'test-key' })}.${b64(asRoot)}.${signature}`,
      'HS256 keyed with the public JWK': `${hsHead}.${createHmac('sha256', JSON.stringify(jwks.keys[0])).update(hsHead).digest('base64url')}`,
      expired: await issuer.token({ preferred_username: 'alice' }, { expiresIn: Math.floor(Date.now() / 1000) - 3600 }),
      'not yet valid': await issuer.token({ preferred_username: 'alice', nbf: Math.floor(Date.now() / 1000) + 3600 }),
      'another issuer named': await issuer.token({ preferred_username: 'alice' }, { issuer: 'https://login.example.com' }),
      "a key the issuer's JWKS lacks, under its kid": await issuer.token({ preferred_username: 'alice' }, { stranger: true }),
      "another issuer's token and JWKS": await other.token({ preferred_username: 'alice' }),
      'no exp (OAUTH_ALLOW_NO_EXP unset)': await issuer.token({ preferred_username: 'alice' }, { expiresIn: null }),
      'two tokens': `${genuine}.${genuine}`,
    };
    await other.stop();
    for (const [kind, token] of Object.entries(forgeries)) {
      for (const [base, method, path, body] of ROUTES) {
        const r = await call(base, method, path, `Bearer ${token}`, body);
        expect({ kind, base, path, status: r.status, code: r.body?.error?.code }).toEqual({ kind, base, path, status: 401, code: 'TOKEN_INVALID' });
        expect(r.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
      }
    }
    // the controls: the genuine token passes on both
    expect((await call('gateway', 'GET', '/platform/v2.3/key', `Bearer ${genuine}`)).body.address).toBe(keys.alice.address);
    expect((await call('vault', 'GET', '/platform/v2.3/key', `Bearer ${genuine}`)).body.address).toBe(keys.alice.address);
  }, 60_000);

  test('a missing header or another scheme is 401 TOKEN_MISSING or TOKEN_INVALID, never an answer', async () => {
    for (const [base, method, path, body] of ROUTES) {
      expect((await call(base, method, path, undefined, body)).status).toBe(401);
      for (const authorization of [`Basic ${Buffer.from('alice:x').toString('base64')}`, tokens.alice, `Bearer`, `Bearer ${tokens.alice} extra`]) {
        const r = await call(base, method, path, authorization, body);
        expect({ path, authorization: authorization.slice(0, 12), status: r.status }).toEqual({ path, authorization: authorization.slice(0, 12), status: 401 });
      }
    }
  });
});

describe('one user, one key', () => {
  test("bob reads his own key through the gateway and the vault, never alice's; a look-alike username is another user", async () => {
    for (const base of ['gateway', 'vault'] as const) {
      expect((await call(base, 'GET', '/platform/v2.3/key', `Bearer ${tokens.bob}`)).body).toMatchObject({ address: keys.bob.address });
    }
    expect(keys.bob.address).not.toBe(keys.alice.address);
    for (const lookalike of ['Alice', 'alice ', ' alice', 'alice\u200b', 'ALICE']) {
      const token = await issuer.token({ sub: `id-${lookalike}`, preferred_username: lookalike });
      for (const base of ['gateway', 'vault'] as const) {
        const r = await call(base, 'GET', '/platform/v2.3/key', `Bearer ${token}`);
        expect({ lookalike, base, status: r.status, code: r.body?.error?.code }).toEqual({ lookalike, base, status: 400, code: 'USER_NOT_FOUND' });
      }
    }
    // the username is preferred_username: a sub naming alice does not make mallory alice
    const mallory = await issuer.token({ sub: 'alice', preferred_username: 'mallory' });
    expect((await call('vault', 'GET', '/platform/v2.3/key', `Bearer ${mallory}`)).body.error.code).toBe('USER_NOT_FOUND');
  });

  test("the vault signs with the token user's key only: bob's signature recovers to bob's address", async () => {
    const signed = await call('vault', 'POST', '/platform/v2.3/signature', `Bearer ${tokens.bob}`, { msgHash: MSG_HASH });
    expect(signed.status).toBe(200);
    const { r, s, v } = signed.body as { r: string; s: string; v: number };
    const recovered = recoverAddress(`0x${MSG_HASH}`, { r: `0x${r}`, s: `0x${s}`, v });
    expect(recovered.toLowerCase()).toBe(`0x${keys.bob.address}`);
    expect(computeAddress(`0x${keys.alice.pubkey}`).toLowerCase()).not.toBe(recovered.toLowerCase());
    // a body naming another user, or another user's address, changes nothing
    const spoof = await call('vault', 'POST', '/platform/v2.3/signature', `Bearer ${tokens.bob}`, { msgHash: MSG_HASH, username: 'alice', address: keys.alice.address });
    if (spoof.status === 200) expect(recoverAddress(`0x${MSG_HASH}`, { r: `0x${spoof.body.r}`, s: `0x${spoof.body.s}`, v: spoof.body.v }).toLowerCase()).toBe(`0x${keys.bob.address}`);
    else expect(spoof.status).toBe(400);
    // a user without a key gets no signature at all
    const carol = await issuer.token({ preferred_username: 'carol' });
    expect((await call('vault', 'POST', '/platform/v2.3/signature', `Bearer ${carol}`, { msgHash: MSG_HASH })).body.error.code).toBe('USER_NOT_FOUND');
  });

  test("a user without a key cannot transact through the gateway with anyone's key: 400 USER_NOT_FOUND, whatever the body says", async () => {
    const carol = await issuer.token({ preferred_username: 'carol' });
    const r = await call('gateway', 'POST', '/platform/v2.3/transaction?resolve=true', `Bearer ${carol}`, {
      txs: [{ type: 'TRANSFER', payload: { toAddress: keys.bob.address, value: '1', from: keys.alice.address, username: 'alice' } }],
    });
    expect([r.status, r.body?.error?.code]).toEqual([400, expect.stringMatching(/USER_NOT_FOUND|VALIDATION_FAILED/)]);
  });
});

describe("the vault's users listing", () => {
  test('is 403 for a user, 200 for ADMIN_USERS and for the admin role', async () => {
    const refused = await call('vault', 'GET', '/platform/v2.3/users', `Bearer ${tokens.bob}`);
    expect([refused.status, refused.body.error.code]).toEqual([403, 'FORBIDDEN']);
    expect(JSON.stringify(refused.body)).not.toContain(keys.alice.address);
    const root = await call('vault', 'GET', '/platform/v2.3/users', `Bearer ${await issuer.token({ preferred_username: 'root' })}`);
    expect(root.status).toBe(200);
    expect(root.body).toEqual(expect.arrayContaining([{ username: 'alice', address: keys.alice.address }, { username: 'bob', address: keys.bob.address }]));
    const role = await call('vault', 'GET', `/platform/v2.3/users?address=${keys.alice.address}`, `Bearer ${await issuer.token({ preferred_username: 'ops', realm_access: { roles: ['admin'] } })}`);
    expect([role.status, role.body]).toEqual([200, [{ username: 'alice', address: keys.alice.address }]]);
  });
});
