// Done-when of the foundation: a node from the launcher, a user's key created
// through the REST interface with a real OpenID token, checked against ethers.
import { computeAddress } from 'ethers';
import { startTestIssuer, type TestIssuer } from '@platform/auth/testing';
import { api, devToken, startTestNode, type TestNode } from './harness.js';

const NODE_START_MS = 180_000;

describe('a node with the development identity provider', () => {
  let node: TestNode;
  let alice: string;

  beforeAll(async () => {
    node = await startTestNode();
    alice = await devToken(node, 'alice', 'Acme');
  }, NODE_START_MS);
  afterAll(async () => node?.destroy(), NODE_START_MS);

  test('is ready, documents itself and exports metrics', async () => {
    expect((await api(node, 'GET', '/ready')).body).toMatchObject({ status: 'ready', checks: { nats: true, vault: true, identityProvider: true } });
    const openapi = await api(node, 'GET', '/openapi.json');
    expect(openapi.body.openapi).toMatch(/^3\./);
    expect(Object.keys(openapi.body.paths)).toContain('/platform/v2.3/key');
    expect((await api(node, 'GET', '/docs/')).status).toBe(200);
    expect((await api(node, 'GET', '/metrics')).body).toContain('http_request_duration_seconds');
  });

  test('GET key before the user has one is 400 USER_NOT_FOUND', async () => {
    const res = await api(node, 'GET', '/platform/v2.3/key', alice);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('USER_NOT_FOUND');
  });

  test('POST key creates the key; its address is the one ethers computes from the public key', async () => {
    const res = await api(node, 'POST', '/platform/v2.3/key', alice);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'success', address: expect.stringMatching(/^[0-9a-f]{40}$/), pubkey: expect.stringMatching(/^04[0-9a-f]{128}$/) });
    expect(computeAddress(`0x${res.body.pubkey}`).toLowerCase()).toBe(`0x${res.body.address}`);

    const again = await api(node, 'POST', '/platform/v2.3/key', alice);
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'USER_EXISTS', message: 'User alice already exists' });
    expect(again.body.error.requestId).toBe(again.headers.get('x-request-id'));

    const got = await api(node, 'GET', '/platform/v2.3/key', alice);
    expect(got.body).toEqual(res.body);
  });

  test("the vault's own HTTP API answers with the same key, behind the same token check", async () => {
    const mine = await api(node, 'GET', '/platform/v2.3/key', alice);
    const vault = await fetch(`${node.vaultUrl}/platform/v2.3/key`, { headers: { authorization: `Bearer ${alice}` } });
    expect(await vault.json()).toMatchObject({ address: mine.body.address, pubkey: mine.body.pubkey });
    expect((await fetch(`${node.vaultUrl}/platform/v2.3/key`)).status).toBe(401);
  });

  test('no token, a malformed token and a foreign token are 401 with WWW-Authenticate', async () => {
    const none = await api(node, 'GET', '/platform/v2.3/key');
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer');
    expect(none.body.error.code).toBe('TOKEN_MISSING');
    const garbage = await api(node, 'GET', '/platform/v2.3/key', 'not.a.jwt');
    expect(garbage.status).toBe(401);
    expect(garbage.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
    const issuer = await startTestIssuer();
    const foreign = await api(node, 'GET', '/platform/v2.3/key', await issuer.token({ sub: 'alice' }));
    await issuer.stop();
    expect(foreign.status).toBe(401);
    expect(foreign.body.error.code).toBe('TOKEN_INVALID');
  });

  test('unknown paths are 404 ROUTE_NOT_FOUND with the error body', async () => {
    const res = await api(node, 'GET', '/platform/v2.3/nothing', alice);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('ROUTE_NOT_FOUND');
  });

  test('a restart on the same data dir comes back with the same keys', async () => {
    const before = (await api(node, 'GET', '/platform/v2.3/key', alice)).body;
    await node.stop();
    const restarted = await startTestNode({ PORT: String(node.config.port), VAULT_PORT: String(node.config.vaultPort), IDP_PORT: String(node.config.idpPort) }, node.dataDir);
    node = restarted;
    // a token of the provider from before the restart is still valid: its keys persist too
    expect((await api(node, 'GET', '/platform/v2.3/key', alice)).body).toEqual(before);
    const fresh = await devToken(node, 'alice');
    expect((await api(node, 'GET', '/platform/v2.3/key', fresh)).body).toEqual(before);
  }, NODE_START_MS);
});

describe('a node trusting an external OpenID issuer (OAUTH_DISCOVERY_URL)', () => {
  let issuer: TestIssuer;
  let node: TestNode;

  beforeAll(async () => {
    issuer = await startTestIssuer();
    node = await startTestNode({ OAUTH_DISCOVERY_URL: issuer.discoveryUrl });
  }, NODE_START_MS);
  afterAll(async () => {
    await node?.destroy();
    await issuer?.stop();
  }, NODE_START_MS);

  test('starts no development provider and accepts the issuer tokens', async () => {
    expect(node.idpUrl).toBeNull();
    const carol = await issuer.token({ sub: 'c-123', preferred_username: 'carol' });
    const created = await api(node, 'POST', '/platform/v2.3/key', carol);
    // the whole answer on failure: a 503 names the service that did not answer
    expect({ status: created.status, body: created.body }).toMatchObject({ status: 200 });
    expect(computeAddress(`0x${created.body.pubkey}`).toLowerCase()).toBe(`0x${created.body.address}`);
    expect((await api(node, 'POST', '/platform/v2.3/key', carol)).body.error.message).toBe('User carol already exists');
    expect((await api(node, 'GET', '/platform/v2.3/key', carol)).body.address).toBe(created.body.address);
  });

  test('rejects expired tokens', async () => {
    const expired = await issuer.token({ sub: 'dave' }, { expiresIn: Math.floor(Date.now() / 1000) - 60 });
    const res = await api(node, 'GET', '/platform/v2.3/key', expired);
    expect(res.status).toBe(401);
    expect(res.body.error.message).toMatch(/expired/);
  });
});
