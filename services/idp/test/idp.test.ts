import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { createLogger } from '@platform/common';
import { freePort } from '@platform/launcher';
import { CLI_CLIENT_ID, PLATFORM_RESOURCE, SERVICE_CLIENT_ID, SERVICE_CLIENT_SECRET, keysFile, startIdp, type RunningIdp } from '../src/index.js';

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
