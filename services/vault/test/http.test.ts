// The `{vault_url}` HTTP API with tokens of a real (test) OpenID issuer.
import { computeAddress, SigningKey } from 'ethers';
import { startTestIssuer as startIssuer, type TestIssuer as Issuer } from '@platform/auth/testing';
import { vaultFixture, type VaultFixture } from './helpers.js';

describe('vault - HTTP API', () => {
  let fixture: VaultFixture;
  let issuer: Issuer;
  let url: string;

  beforeAll(async () => {
    issuer = await startIssuer();
    fixture = await vaultFixture();
    const vault = await fixture.start({ databaseUrl: await fixture.database('vault_http'), env: { OAUTH_DISCOVERY_URL: issuer.discoveryUrl, ADMIN_USERS: 'root' } });
    url = vault.httpUrl;
  });
  afterAll(async () => {
    await fixture?.stop();
    await issuer?.stop();
  });

  async function request(method: string, path: string, options: { user?: string; token?: string; body?: string; contentType?: string } = {}) {
    const headers: Record<string, string> = {};
    const token = options.token ?? (options.user ? await issuer.token({ preferred_username: options.user }) : undefined);
    if (token !== undefined) headers.authorization = `Bearer ${token}`;
    if (options.body !== undefined) headers['content-type'] = options.contentType ?? 'application/json';
    const response = await fetch(`${url}${path}`, { method, headers, body: options.body });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text === '' ? null : JSON.parse(text) };
  }

  test('the URL has the port actually bound', () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(url).not.toMatch(/:0$/);
  });

  test('POST then GET key for the token’s user', async () => {
    const missing = await request('GET', '/platform/v2.3/key', { user: 'alice' });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ code: 'USER_NOT_FOUND' });

    const created = await request('POST', '/platform/v2.3/key', { user: 'alice' });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({ status: 'success', address: expect.stringMatching(/^[0-9a-f]{40}$/), pubkey: expect.stringMatching(/^04[0-9a-f]{128}$/) });
    expect(created.body.address).toBe(computeAddress(`0x${created.body.pubkey}`).toLowerCase().slice(2));

    expect((await request('GET', '/platform/v2.3/key', { user: 'alice' })).body).toEqual(created.body);
    const again = await request('POST', '/platform/v2.3/key', { user: 'alice' });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'USER_EXISTS', message: 'User alice already exists', requestId: expect.any(String) });
  });

  test('POST key ignores any body of any content type', async () => {
    const form = await request('POST', '/platform/v2.3/key', { user: 'form-user', body: '', contentType: 'application/x-www-form-urlencoded' });
    expect(form.status).toBe(200);
    const junk = await request('POST', '/platform/v2.3/key', { user: 'json-user', body: '{not json', contentType: 'application/json' });
    expect(junk.status).toBe(200);
  });

  test('POST signature signs with the token user’s key', async () => {
    const { body: key } = await request('POST', '/platform/v2.3/key', { user: 'bob' });
    const msgHash = '5a'.repeat(32);
    const signed = await request('POST', '/platform/v2.3/signature', { user: 'bob', body: JSON.stringify({ msgHash: `0x${msgHash}` }) });
    expect(signed.status).toBe(200);
    expect(Object.keys(signed.body).sort()).toEqual(['r', 's', 'v']);
    const { r, s, v } = signed.body;
    expect(SigningKey.recoverPublicKey(`0x${msgHash}`, { r: `0x${r}`, s: `0x${s}`, v })).toBe(`0x${key.pubkey}`);
  });

  test('bad bodies and values are 400 with the error body, never 500', async () => {
    await request('POST', '/platform/v2.3/key', { user: 'carol' });
    const cases: Array<[string, string, string | undefined, string]> = [
      ['POST', '/platform/v2.3/signature', '{"msgHash": ', 'INVALID_JSON'],
      ['POST', '/platform/v2.3/signature', undefined, 'VALIDATION_FAILED'],
      ['POST', '/platform/v2.3/signature', '[1,2]', 'VALIDATION_FAILED'],
      ['POST', '/platform/v2.3/signature', 'null', 'VALIDATION_FAILED'],
      ['POST', '/platform/v2.3/signature', '{"msgHash": 5}', 'VALIDATION_FAILED'],
      ['POST', '/platform/v2.3/signature', '{"msgHash": 123456789012345678901234567890}', 'VALIDATION_FAILED'],
      ['POST', '/platform/v2.3/signature', '{"msgHash": "0xabc"}', 'BAD_HEX'],
      ['POST', '/platform/v2.3/signature', `{"msgHash": "${'g'.repeat(64)}"}`, 'BAD_HEX'],
      ['GET', '/platform/v2.3/users?limit=abc', undefined, 'VALIDATION_FAILED'],
      ['GET', '/platform/v2.3/users?limit=0', undefined, 'VALIDATION_FAILED'],
      ['GET', '/platform/v2.3/users?limit=1001', undefined, 'VALIDATION_FAILED'],
      ['GET', '/platform/v2.3/users?limit=-1', undefined, 'VALIDATION_FAILED'],
      ['GET', '/platform/v2.3/users?offset=1.5', undefined, 'VALIDATION_FAILED'],
      ['GET', '/platform/v2.3/users?offset=1&offset=2', undefined, 'VALIDATION_FAILED'],
      ['GET', '/platform/v2.3/users?address=xyz', undefined, 'BAD_HEX'],
    ];
    for (const [method, path, body, code] of cases) {
      const response = await request(method, path, { user: path.includes('/users') ? 'root' : 'carol', body });
      expect({ path, body, status: response.status, code: response.body?.error?.code }).toEqual({ path, body, status: 400, code });
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    }
    const large = await request('POST', '/platform/v2.3/signature', { user: 'carol', body: JSON.stringify({ msgHash: 'x'.repeat(100_000) }) });
    expect(large.status).toBe(413);
    expect(large.body.error.code).toBe('BODY_TOO_LARGE');
  });

  test('users: the array of {username, address}, filtered by address and paged, for an administrator', async () => {
    const names = ['page-a', 'page-b', 'page-c'];
    const keys: Array<{ address: string }> = [];
    for (const user of names) keys.push((await request('POST', '/platform/v2.3/key', { user })).body);
    const all = await request('GET', '/platform/v2.3/users', { user: 'root' });
    expect(all.status).toBe(200);
    expect(all.body.filter((u: { username: string }) => names.includes(u.username))).toEqual(names.map((username, i) => ({ username, address: keys[i].address })));

    const byAddress = await request('GET', `/platform/v2.3/users?address=0x${keys[1].address}`, { user: 'root' });
    expect(byAddress.body).toEqual([{ username: 'page-b', address: keys[1].address }]);
    expect((await request('GET', '/platform/v2.3/users?address=', { user: 'root' })).body).toHaveLength(all.body.length);

    const start = all.body.findIndex((u: { username: string }) => u.username === 'page-a');
    const page = await request('GET', `/platform/v2.3/users?limit=2&offset=${start + 1}`, { user: 'root' });
    expect(page.body.map((u: { username: string }) => u.username)).toEqual(['page-b', 'page-c']);
  });

  test('users: 403 for anyone else, with or without a key; the admin role suffices', async () => {
    for (const user of ['page-a', 'nobody-yet']) {
      const refused = await request('GET', '/platform/v2.3/users', { user });
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe('FORBIDDEN');
      expect(JSON.stringify(refused.body)).not.toMatch(/page-b|[0-9a-f]{40}/);
    }
    const byRole = await request('GET', '/platform/v2.3/users?limit=1', { token: await issuer.token({ preferred_username: 'ops', roles: ['admin'] }) });
    expect(byRole.status).toBe(200);
    expect(byRole.body).toHaveLength(1);
  });

  test('a token without exp is refused (OAUTH_ALLOW_NO_EXP unset)', async () => {
    const response = await request('GET', '/platform/v2.3/key', { token: await issuer.token({ preferred_username: 'alice' }, { expiresIn: null }) });
    expect(response.status).toBe(401);
    expect(response.body.error.code).toBe('TOKEN_INVALID');
    expect(response.body.error.message).toMatch(/exp/);
  });

  test('no token, a malformed one, an expired one, a foreign one: 401 with WWW-Authenticate', async () => {
    const none = await request('GET', '/platform/v2.3/key');
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer');
    expect(none.body.error.code).toBe('TOKEN_MISSING');

    const foreignIssuer = await startIssuer();
    const foreign = await foreignIssuer.token({ preferred_username: 'alice' });
    await foreignIssuer.stop();
    const expired = await issuer.token({ preferred_username: 'alice' }, { expiresIn: Math.floor(Date.now() / 1000) - 3600 });
    for (const token of ['not-a-jwt', expired, foreign]) {
      for (const [method, path] of [['GET', '/platform/v2.3/key'], ['POST', '/platform/v2.3/key'], ['POST', '/platform/v2.3/signature'], ['GET', '/platform/v2.3/users']]) {
        const response = await request(method, path, { token });
        expect(response.status).toBe(401);
        expect(response.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
        expect(response.body.error.code).toBe('TOKEN_INVALID');
      }
    }
  });

  test("what the router and Node's HTTP parser refuse is the error body too: a path that is not UTF-8, headers over 16 KB, a body nested 30 000 deep", async () => {
    const badUrl = await request('GET', '/platform/v2.3/%C0%80', { user: 'alice' });
    expect(badUrl.status).toBe(400);
    expect(badUrl.body.error).toMatchObject({ code: 'BAD_REQUEST', requestId: expect.any(String) });
    const bigHeader = await fetch(`${url}/platform/v2.3/key`, { headers: { 'x-padding': 'a'.repeat(20_000) } });
    expect(bigHeader.status).toBe(431);
    expect(((await bigHeader.json()) as { error: { code: string } }).error.code).toBe('HEADERS_TOO_LARGE');
    const deep = await request('POST', '/platform/v2.3/signature', { user: 'carol', body: '['.repeat(30_000) + ']'.repeat(30_000) });
    expect(deep.status).toBe(400);
    expect(deep.body.error.code).toBe('VALIDATION_FAILED');
  });

  test('health answers without a token; unknown routes are a JSON 404', async () => {
    const health = await request('GET', '/health');
    expect(health).toMatchObject({ status: 200, body: { status: 'ok' } });
    const unknown = await request('GET', '/platform/v2.3/nothing', { user: 'alice' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('ROUTE_NOT_FOUND');
  });
});
