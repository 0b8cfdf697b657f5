import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { createLogger } from '@platform/common';
import { freePort } from '@platform/launcher';
import { CLI_CLIENT_ID, DASHBOARD_CLIENT_ID, PLATFORM_RESOURCE, SERVICE_CLIENT_ID, SERVICE_CLIENT_SECRET, keysFile, startIdp, type RunningIdp } from '../src/index.js';

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

async function requestToken(idp: RunningIdp, params: Record<string, string>, headers: Record<string, string> = {}) {
  const response = await fetch(idp.tokenUrl, { method: 'POST', headers, body: new URLSearchParams(params) });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const passwordGrant = (idp: RunningIdp, extra: Record<string, string> = {}) =>
  requestToken(idp, { grant_type: 'password', client_id: CLI_CLIENT_ID, username: 'alice', password: 'anything', ...extra });

const clientCredentials = (idp: RunningIdp, secret = SERVICE_CLIENT_SECRET) =>
  requestToken(idp, { grant_type: 'client_credentials' }, { authorization: basic(SERVICE_CLIENT_ID, secret) });

/** Verifies as any relying party would: keys from the JWKS named by discovery. */
async function verify(idp: RunningIdp, token: string) {
  const discovery = (await (await fetch(idp.discoveryUrl)).json()) as { jwks_uri: string };
  return jwtVerify(token, createRemoteJWKSet(new URL(discovery.jwks_uri)), { issuer: idp.issuer, audience: PLATFORM_RESOURCE });
}

describe('development identity provider', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'idp-test-'));
  const logLines: string[] = [];
  let port: number;
  let idp: RunningIdp;

  beforeAll(async () => {
    port = await freePort();
    idp = await startIdp({ port, dataDir, logger: createLogger('idp', 'info', { write: (line: string) => void logLines.push(line) }) });
  });
  afterAll(async () => {
    await idp?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('is a standard OpenID issuer on 127.0.0.1 offering exactly its two grants', async () => {
    expect(idp.issuer).toBe(`http://127.0.0.1:${port}`);
    const response = await fetch(idp.discoveryUrl);
    expect(response.status).toBe(200);
    const discovery = (await response.json()) as Record<string, unknown>;
    expect(discovery).toMatchObject({ issuer: idp.issuer, token_endpoint: idp.tokenUrl, jwks_uri: `${idp.issuer}/jwks` });
    expect(discovery.grant_types_supported).toEqual(['client_credentials', 'password']);
    const jwks = (await (await fetch(discovery.jwks_uri as string)).json()) as { keys: Record<string, unknown>[] };
    expect(jwks.keys.map((k) => k.alg).sort()).toEqual(['ES256', 'RS256']);
    // only public halves are published
    for (const key of jwks.keys) expect(key).not.toHaveProperty('d');
  });

  test('logs once, at start, that it accepts any username and password', () => {
    const warnings = logLines.map((line) => JSON.parse(line)).filter((entry) => entry.level === 40);
    expect(warnings).toHaveLength(1);
    expect(warnings[0].msg).toMatch(/ANY username with any password/);
  });

  test('the password grant issues a JWT for any username, with the organization asked for', async () => {
    const { status, body } = await passwordGrant(idp, { username: 'alice', password: 'not-checked', organization: 'Acme' });
    expect(status).toBe(200);
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
    const token = body.access_token as string;
    expect(decodeProtectedHeader(token)).toMatchObject({ alg: 'RS256', typ: 'at+jwt' });
    const { payload } = await verify(idp, token);
    expect(payload).toMatchObject({ iss: idp.issuer, aud: PLATFORM_RESOURCE, sub: 'alice', preferred_username: 'alice', organization: 'Acme', client_id: CLI_CLIENT_ID });
    expect(payload.exp! - payload.iat!).toBe(3600);
  });

  test('without an organization the token has no organization claim', async () => {
    const { status, body } = await passwordGrant(idp, { username: 'bob' });
    expect(status).toBe(200);
    const { payload } = await verify(idp, body.access_token as string);
    expect(payload.sub).toBe('bob');
    expect(payload).not.toHaveProperty('organization');
    expect(payload).not.toHaveProperty('organizationalUnit');
    expect(payload).not.toHaveProperty('roles');
  });

  test('an organizational unit and roles asked for are claims of the token (certificate OU; `admin` may issue certificates)', async () => {
    const { status, body } = await passwordGrant(idp, { username: 'carol', organization: 'Acme', organizationalUnit: 'Ops', roles: 'admin auditor' });
    expect(status).toBe(200);
    const { payload } = await verify(idp, body.access_token as string);
    expect(payload).toMatchObject({ preferred_username: 'carol', organization: 'Acme', organizationalUnit: 'Ops', roles: ['admin', 'auditor'] });
  });

  test('the password grant needs a username and accepts only the platform resource', async () => {
    const noUser = await requestToken(idp, { grant_type: 'password', client_id: CLI_CLIENT_ID, password: 'x' });
    expect(noUser).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    const otherResource = await passwordGrant(idp, { resource: 'https://elsewhere.example' });
    expect(otherResource).toMatchObject({ status: 400, body: { error: 'invalid_target' } });
  });

  test('client_credentials issues a JWT whose subject and username are the client id', async () => {
    const { status, body } = await clientCredentials(idp);
    expect(status).toBe(200);
    const { payload } = await verify(idp, body.access_token as string);
    expect(payload).toMatchObject({ sub: SERVICE_CLIENT_ID, preferred_username: SERVICE_CLIENT_ID, aud: PLATFORM_RESOURCE });
    expect(payload).not.toHaveProperty('organization');
  });

  test('a wrong client secret is refused with 401 invalid_client', async () => {
    const { status, body } = await clientCredentials(idp, 'wrong-secret');
    expect(status).toBe(401);
    expect(body.error).toBe('invalid_client');
  });

  test('each client may use only its own grant', async () => {
    const cliWithClientCredentials = await requestToken(idp, { grant_type: 'client_credentials', client_id: CLI_CLIENT_ID });
    expect(cliWithClientCredentials.status).toBe(400);
    expect(cliWithClientCredentials.body.access_token).toBeUndefined();
    const serviceWithPassword = await requestToken(
      idp,
      { grant_type: 'password', username: 'mallory', password: 'x' },
      { authorization: basic(SERVICE_CLIENT_ID, SERVICE_CLIENT_SECRET) },
    );
    expect(serviceWithPassword.status).toBe(400);
    expect(serviceWithPassword.body.access_token).toBeUndefined();
  });

  test('keys persist (owner-only file): a token issued before a restart verifies after it', async () => {
    const before = (await passwordGrant(idp, { username: 'carol' })).body.access_token as string;
    expect(statSync(keysFile(dataDir)).mode & 0o777).toBe(0o600);
    const jwksBefore = await (await fetch(`${idp.issuer}/jwks`)).json();

    await idp.stop();
    await expect(fetch(idp.discoveryUrl)).rejects.toThrow();
    idp = await startIdp({ port, dataDir, logger: createLogger('idp', 'silent') });

    expect(await (await fetch(`${idp.issuer}/jwks`)).json()).toEqual(jwksBefore);
    const { payload } = await verify(idp, before);
    expect(payload.sub).toBe('carol');
  });

  test('a damaged keys file stops the start with a message naming it, rather than replacing the keys', async () => {
    const otherDir = mkdtempSync(join(tmpdir(), 'idp-test-'));
    try {
      mkdirSync(dirname(keysFile(otherDir)), { recursive: true });
      writeFileSync(keysFile(otherDir), '{"keys": "oops"}');
      await expect(startIdp({ port: 0, dataDir: otherDir, logger: createLogger('idp', 'silent') })).rejects.toThrow(keysFile(otherDir));
    } finally {
      rmSync(otherDir, { recursive: true, force: true });
    }
  });

  test('the access token lifetime can be set', async () => {
    const other = await startIdp({ port: 0, dataDir, logger: createLogger('idp', 'silent'), accessTokenTtl: 120 });
    try {
      const { body } = await passwordGrant(other);
      expect(body.expires_in).toBe(120);
      const { payload } = await verify(other, body.access_token as string);
      expect(payload.exp! - payload.iat!).toBe(120);
    } finally {
      await other.stop();
    }
  });
});

describe("the dashboard's sign-in: authorization code with PKCE", () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'idp-code-test-'));
  const redirectUri = 'http://127.0.0.1:9999/dashboard';
  let idp: RunningIdp;
  let discovery: { authorization_endpoint: string; token_endpoint: string; response_types_supported: string[]; code_challenge_methods_supported: string[] };

  beforeAll(async () => {
    idp = await startIdp({ port: 0, dataDir, logger: createLogger('idp', 'silent'), dashboardRedirectUris: [redirectUri] });
    discovery = (await (await fetch(idp.discoveryUrl)).json()) as typeof discovery;
  });
  afterAll(async () => {
    await idp?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** A browser's steps without a browser: redirects followed by hand, cookies kept. */
  async function signIn(challenge: Record<string, string>): Promise<URL> {
    const cookies = new Map<string, string>();
    const go = async (url: string, init: RequestInit = {}) => {
      const response = await fetch(url, { ...init, redirect: 'manual', headers: { ...(init.headers as Record<string, string>), cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') } });
      for (const line of response.headers.getSetCookie()) {
        const [pair] = line.split(';');
        const at = pair.indexOf('=');
        cookies.set(pair.slice(0, at), pair.slice(at + 1));
      }
      return new URL(response.headers.get('location') ?? url, url);
    };
    const authorize = new URL(discovery.authorization_endpoint);
    authorize.search = new URLSearchParams({ response_type: 'code', client_id: DASHBOARD_CLIENT_ID, redirect_uri: redirectUri, scope: 'openid', state: 'st', ...challenge }).toString();
    let at = await go(authorize.toString());
    if (!at.pathname.startsWith('/interaction/')) return at;
    // the development login form: any login, any password
    at = await go(at.toString(), { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ prompt: 'login', login: 'erin', password: 'anything' }).toString() });
    // back at the authorization endpoint, which answers the redirect URI with the code (no consent page)
    return go(at.toString());
  }

  const verifier = 'v'.repeat(50);
  const challenge = createHash('sha256').update(verifier).digest('base64url');

  test('discovery offers the code flow with S256', () => {
    expect(discovery.response_types_supported).toContain('code');
    expect(discovery.code_challenge_methods_supported).toEqual(['S256']);
  });

  test('a sign-in with S256 comes back with a code that only its verifier exchanges, for a token of the platform', async () => {
    const back = await signIn({ code_challenge: challenge, code_challenge_method: 'S256' });
    expect(`${back.origin}${back.pathname}`).toBe(redirectUri);
    expect(back.searchParams.get('state')).toBe('st');
    const code = back.searchParams.get('code')!;
    const exchange = (codeVerifier: string) => requestToken(idp, { grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: DASHBOARD_CLIENT_ID, code_verifier: codeVerifier });
    const wrong = await exchange('w'.repeat(50));
    expect([wrong.status, wrong.body.error]).toEqual([400, 'invalid_grant']);
    const again = await signIn({ code_challenge: challenge, code_challenge_method: 'S256' });
    const right = await requestToken(idp, { grant_type: 'authorization_code', code: again.searchParams.get('code')!, redirect_uri: redirectUri, client_id: DASHBOARD_CLIENT_ID, code_verifier: verifier });
    expect(right.status).toBe(200);
    const { payload } = await verify(idp, right.body.access_token as string);
    expect(payload).toMatchObject({ aud: PLATFORM_RESOURCE, sub: 'erin', preferred_username: 'erin', client_id: DASHBOARD_CLIENT_ID });
  });

  test('a sign-in without PKCE is refused back to the dashboard', async () => {
    const back = await signIn({});
    expect(back.searchParams.get('error')).toBe('invalid_request');
  });
});
