import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT, importJWK, type JWK, type JWTPayload } from 'jose';
import { PlatformError, createLogger } from '@platform/common';
import { CLI_CLIENT_ID, PLATFORM_RESOURCE, SERVICE_CLIENT_ID, SERVICE_CLIENT_SECRET, keysFile, startIdp, type RunningIdp } from '@platform/idp';
import { freePort } from '@platform/launcher';
import { createHmac } from 'node:crypto';
import { createTokenVerifier, isAdministrator, wwwAuthenticate, type AuthOptions, type TokenVerifier } from '../src/index.js';
import { startTestIssuer, type TestIssuer } from '../src/test-issuer.js';

const CLAIMS = { usernameClaims: ['preferred_username', 'sub'], orgClaim: 'organization' };

async function rejection(promise: Promise<unknown>): Promise<PlatformError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(err instanceof PlatformError)) throw new Error(`expected a PlatformError, got ${String(err)}`);
  return err;
}

async function passwordToken(idp: RunningIdp, username: string, organization?: string): Promise<string> {
  const params = { grant_type: 'password', client_id: CLI_CLIENT_ID, username, password: 'x', ...(organization ? { organization } : {}) };
  const response = await fetch(idp.tokenUrl, { method: 'POST', body: new URLSearchParams(params) });
  return ((await response.json()) as { access_token: string }).access_token;
}

async function serviceToken(idp: RunningIdp): Promise<string> {
  const authorization = `Basic ${Buffer.from(`${SERVICE_CLIENT_ID}:${SERVICE_CLIENT_SECRET}`).toString('base64')}`;
  const response = await fetch(idp.tokenUrl, { method: 'POST', headers: { authorization }, body: new URLSearchParams({ grant_type: 'client_credentials' }) });
  return ((await response.json()) as { access_token: string }).access_token;
}

/** Replaces one character in the middle of the signature: the same header and claims, a signature that no longer matches. */
function tamperSignature(token: string): string {
  const [header, payload, signature] = token.split('.');
  const i = Math.floor(signature.length / 2);
  return `${header}.${payload}.${signature.slice(0, i)}${signature[i] === 'A' ? 'B' : 'A'}${signature.slice(i + 1)}`;
}

describe('createTokenVerifier with the development identity provider', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'auth-test-'));
  let idp: RunningIdp;
  let verifier: TokenVerifier;
  const verifierWith = (options: Partial<AuthOptions>) => createTokenVerifier({ discoveryUrl: idp.discoveryUrl, audience: null, ...CLAIMS, ...options });

  /** A token signed with the provider's own persisted key, with claims of our choosing. */
  async function signedByIdp(claims: JWTPayload, exp: number): Promise<string> {
    const jwk = (JSON.parse(readFileSync(keysFile(dataDir), 'utf8')) as { keys: JWK[] }).keys.find((k) => k.alg === 'RS256')!;
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: jwk.kid, typ: 'at+jwt' })
      .setIssuer(idp.issuer)
      .setAudience(PLATFORM_RESOURCE)
      .setIssuedAt(exp - 3600)
      .setExpirationTime(exp)
      .sign(await importJWK(jwk, 'RS256'));
  }

  beforeAll(async () => {
    idp = await startIdp({ port: await freePort(), dataDir, logger: createLogger('idp', 'silent') });
    verifier = verifierWith({});
  });
  afterAll(async () => {
    await idp?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('a valid token gives the principal: username and organization', async () => {
    const token = await passwordToken(idp, 'alice', 'Acme');
    const principal = await verifier.verify(`Bearer ${token}`);
    expect(principal).toMatchObject({ username: 'alice', org: 'Acme' });
    expect(principal.claims).toMatchObject({ iss: idp.issuer, sub: 'alice', aud: PLATFORM_RESOURCE });
    // the scheme is case-insensitive (RFC 7235)
    expect((await verifier.verify(`bearer ${token}`)).username).toBe('alice');
  });

  test('org is null when the token has no organization claim', async () => {
    expect(await verifier.verify(`Bearer ${await passwordToken(idp, 'bob')}`)).toMatchObject({ username: 'bob', org: null });
    expect(await verifier.verify(`Bearer ${await serviceToken(idp)}`)).toMatchObject({ username: SERVICE_CLIENT_ID, org: null });
  });

  test('TOKEN_MISSING when no Authorization header is sent', async () => {
    for (const header of [undefined, '', '   ']) {
      const err = await rejection(verifier.verify(header));
      expect(err.code).toBe('TOKEN_MISSING');
      expect(err.status).toBe(401);
    }
  });

  test('TOKEN_INVALID for garbage, another scheme, or a bare scheme', async () => {
    for (const header of ['Bearer garbage', 'Bearer a.b.c', 'Basic xyz', 'Bearer', 'Bearer two tokens']) {
      expect((await rejection(verifier.verify(header))).code).toBe('TOKEN_INVALID');
    }
  });

  test('TOKEN_INVALID for a tampered signature', async () => {
    const token = await passwordToken(idp, 'alice');
    const err = await rejection(verifier.verify(`Bearer ${tamperSignature(token)}`));
    expect(err.code).toBe('TOKEN_INVALID');
    expect(err.message).toBe('the token is not signed by the trusted issuer');
  });

  test('TOKEN_INVALID for an expired token signed by the trusted key', async () => {
    const now = Math.floor(Date.now() / 1000);
    // control: the same construction, not expired, is accepted
    expect((await verifier.verify(`Bearer ${await signedByIdp({ sub: 'dave' }, now + 600)}`)).username).toBe('dave');
    const err = await rejection(verifier.verify(`Bearer ${await signedByIdp({ sub: 'dave' }, now - 60)}`));
    expect(err.code).toBe('TOKEN_INVALID');
    expect(err.message).toBe('the token has expired');
  });

  test('the audience is checked only when configured', async () => {
    const token = `Bearer ${await passwordToken(idp, 'alice')}`;
    expect((await verifierWith({ audience: PLATFORM_RESOURCE }).verify(token)).username).toBe('alice');
    const err = await rejection(verifierWith({ audience: 'urn:another-platform' }).verify(token));
    expect(err.code).toBe('TOKEN_INVALID');
    expect(err.message).toBe(`the token's "aud" claim is not accepted`);
  });

  test('the username claims are tried in order; a token with none of them is refused', async () => {
    const now = Math.floor(Date.now() / 1000);
    const token = `Bearer ${await signedByIdp({ sub: 'user-42', preferred_username: 'erin' }, now + 600)}`;
    expect((await verifier.verify(token)).username).toBe('erin');
    expect((await verifierWith({ usernameClaims: ['sub', 'preferred_username'] }).verify(token)).username).toBe('user-42');
    // an empty preferred_username falls through to sub
    expect((await verifier.verify(`Bearer ${await signedByIdp({ sub: 'user-43', preferred_username: '' }, now + 600)}`)).username).toBe('user-43');
    const err = await rejection(verifierWith({ usernameClaims: ['email'] }).verify(token));
    expect(err.code).toBe('TOKEN_INVALID');
  });

  test('ready() and verify() report an identity provider that cannot be reached', async () => {
    expect(await verifier.ready()).toBe(true);
    const unreachable = createTokenVerifier({ discoveryUrl: `http://127.0.0.1:${await freePort()}/.well-known/openid-configuration`, audience: null, ...CLAIMS });
    expect(await unreachable.ready()).toBe(false);
    const err = await rejection(unreachable.verify(`Bearer ${await passwordToken(idp, 'alice')}`));
    expect(err.code).toBe('UNAVAILABLE');
    expect(err.status).toBe(503);
  });

  test('UNAVAILABLE, not TOKEN_INVALID, when the keys cannot be fetched after discovery', async () => {
    const token = `Bearer ${await passwordToken(idp, 'alice')}`;
    // an issuer whose JWKS endpoint fails, as behind a proxy while the provider restarts
    const failing = createServer((req, res) => {
      const body = req.url === '/.well-known/openid-configuration' ? JSON.stringify({ issuer: idp.issuer, jwks_uri: `${failingUrl}/jwks` }) : 'try later';
      res.writeHead(body === 'try later' ? 503 : 200).end(body);
    });
    await new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', resolve));
    const failingUrl = `http://127.0.0.1:${(failing.address() as AddressInfo).port}`;
    try {
      const err = await rejection(verifierWith({ discoveryUrl: `${failingUrl}/.well-known/openid-configuration` }).verify(token));
      expect(err.code).toBe('UNAVAILABLE');
    } finally {
      failing.close();
    }

    // and a provider that stopped between discovery and the first token
    const other = await startIdp({ port: 0, dataDir, logger: createLogger('idp', 'silent') });
    const otherVerifier = verifierWith({ discoveryUrl: other.discoveryUrl });
    expect(await otherVerifier.ready()).toBe(true);
    const otherToken = `Bearer ${await passwordToken(other, 'alice')}`;
    await other.stop();
    expect((await rejection(otherVerifier.verify(otherToken))).code).toBe('UNAVAILABLE');
  });

  describe('with an external issuer (plain jose + node:http, ES256)', () => {
    let external: TestIssuer;
    let externalVerifier: TokenVerifier;

    beforeAll(async () => {
      external = await startTestIssuer();
      externalVerifier = createTokenVerifier({ discoveryUrl: external.discoveryUrl, audience: null, ...CLAIMS });
    });
    afterAll(() => external?.stop());

    test('any standard OpenID issuer works: its tokens give a principal', async () => {
      expect(external.issuer).not.toBe(idp.issuer);
      const token = await external.token({ sub: 'frank', organization: 'Globex' });
      expect(await externalVerifier.verify(`Bearer ${token}`)).toMatchObject({ username: 'frank', org: 'Globex' });
      const err = await rejection(externalVerifier.verify(`Bearer ${await external.token({ sub: 'frank' }, { expiresIn: Math.floor(Date.now() / 1000) - 60 })}`));
      expect(err.message).toBe('the token has expired');
    });

    test('a verified token is remembered, but never past its expiry', async () => {
      const token = await external.token({ sub: 'gina' }, { expiresIn: Math.floor(Date.now() / 1000) + 2 });
      expect((await externalVerifier.verify(`Bearer ${token}`)).username).toBe('gina');
      expect((await externalVerifier.verify(`Bearer ${token}`)).username).toBe('gina');
      // past exp plus jose's 5 s clock tolerance: the cache must not answer for it
      await new Promise((resolve) => setTimeout(resolve, 7_500));
      expect((await rejection(externalVerifier.verify(`Bearer ${token}`))).code).toBe('TOKEN_INVALID');
    }, 20_000);

    test('a token without exp is refused unless allowNoExp (OAUTH_ALLOW_NO_EXP); then it is accepted on every call', async () => {
      const token = `Bearer ${await external.token({ sub: 'hugo' }, { expiresIn: null })}`;
      const err = await rejection(externalVerifier.verify(token));
      expect(err.code).toBe('TOKEN_INVALID');
      expect(err.message).toMatch(/no "exp" claim.*OAUTH_ALLOW_NO_EXP/);
      const lenient = createTokenVerifier({ discoveryUrl: external.discoveryUrl, audience: null, ...CLAIMS, allowNoExp: true });
      expect((await lenient.verify(token)).username).toBe('hugo');
      // the per-call policy overrides the verifier's, both ways
      expect((await externalVerifier.verify(token, { allowNoExp: true })).username).toBe('hugo');
      expect((await rejection(lenient.verify(token, { allowNoExp: false }))).code).toBe('TOKEN_INVALID');
      // an expired token stays expired however lenient the verifier
      expect((await rejection(lenient.verify(`Bearer ${await external.token({ sub: 'hugo' }, { expiresIn: Math.floor(Date.now() / 1000) - 60 })}`))).message).toBe('the token has expired');
    });

    test('forged tokens: another issuer named, a key the JWKS lacks, a tampered payload, alg none, HS256 keyed with the public JWK', async () => {
      const wrongIssuer = await rejection(externalVerifier.verify(`Bearer ${await external.token({ sub: 'ivan' }, { issuer: 'https://idp.example.com' })}`));
      expect(wrongIssuer.message).toBe(`the token's "iss" claim is not accepted`);
      const stranger = await rejection(externalVerifier.verify(`Bearer ${await external.token({ sub: 'ivan' }, { stranger: true })}`));
      expect(stranger.message).toBe('the token is not signed by the trusted issuer');

      const genuine = await external.token({ sub: 'ivan' });
      const [header, payload, signature] = genuine.split('.');
      const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
      const tampered = `${header}.${b64({ ...claims, sub: 'root', roles: ['admin'] })}.${signature}`;
      expect((await rejection(externalVerifier.verify(`Bearer ${tampered}`))).message).toBe('the token is not signed by the trusted issuer');
      for (const alg of ['none', 'None', 'NONE']) {
        const unsigned = `${b64({ alg, typ: 'JWT' })}.${b64({ ...claims, sub: 'root' })}.`;
        expect((await rejection(externalVerifier.verify(`Bearer ${unsigned}`))).code).toBe('TOKEN_INVALID');
      }
      const jwks = (await (await fetch(`${external.issuer}/jwks`)).json()) as { keys: unknown[] };
      const hsHead = `${b64({ alg: 'HS256', typ: 'JWT', kid: 'test-key' })}.${b64({ ...claims, sub: 'root' })}`;
      const hs = `${hsHead}.${createHmac('sha256', JSON.stringify(jwks.keys[0])).update(hsHead).digest('base64url')}`;
      expect((await rejection(externalVerifier.verify(`Bearer ${hs}`))).code).toBe('TOKEN_INVALID');
      // control: the genuine token passes
      expect((await externalVerifier.verify(`Bearer ${genuine}`)).username).toBe('ivan');
    });

    test('tokens of one issuer are refused by a verifier trusting the other', async () => {
      const fromIdp = await rejection(externalVerifier.verify(`Bearer ${await passwordToken(idp, 'alice', 'Acme')}`));
      expect(fromIdp.code).toBe('TOKEN_INVALID');
      const fromExternal = await rejection(verifier.verify(`Bearer ${await external.token({ sub: 'frank' })}`));
      expect(fromExternal.code).toBe('TOKEN_INVALID');
    });
  });
});

describe('isAdministrator', () => {
  const principal = (username: string, claims: Record<string, unknown> = {}) => ({ username, org: null, claims });
  test('a username of ADMIN_USERS, or the admin role in roles or realm_access.roles; nobody else', () => {
    expect(isAdministrator(principal('root'), ['root'])).toBe(true);
    expect(isAdministrator(principal('ann', { roles: ['admin'] }), [])).toBe(true);
    expect(isAdministrator(principal('ann', { roles: 'user admin' }), [])).toBe(true);
    expect(isAdministrator(principal('ann', { realm_access: { roles: ['admin'] } }), [])).toBe(true);
    expect(isAdministrator(principal('ann'), ['root'])).toBe(false);
    expect(isAdministrator(principal('ann', { roles: ['administrator', 'user'] }), [])).toBe(false);
    expect(isAdministrator(principal('ann', { role: 'admin' }), [])).toBe(false);
  });
});

describe('wwwAuthenticate', () => {
  test('a bare challenge when no token was sent', () => {
    expect(wwwAuthenticate(new PlatformError('TOKEN_MISSING', 'send an access token'))).toBe('Bearer');
  });

  test('invalid_token, with a description whose quotes cannot end the parameter, when a token was refused', () => {
    const err = new PlatformError('TOKEN_INVALID', `the token's "aud" claim is not accepted`);
    expect(wwwAuthenticate(err)).toBe(`Bearer error="invalid_token", error_description="the token's 'aud' claim is not accepted"`);
  });
});
