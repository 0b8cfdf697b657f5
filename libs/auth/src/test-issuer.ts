// A minimal standard OpenID issuer (discovery document + JWKS over HTTP, ES256
// keys) that mints tokens on demand: the "external identity provider" of
// tests, built only from jose and node:http so it shares nothing with the
// development provider.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, exportJWK, generateKeyPair, type JWTPayload } from 'jose';

export interface TestIssuer {
  issuer: string;
  discoveryUrl: string;
  /**
   * a signed access token with these claims; `expiresIn` e.g. '1h' or a past
   * epoch second, null for no `exp`; `issuer` in place of the issuer's own;
   * `stranger` signs with a key the JWKS does not hold (under the same `kid`)
   */
  token(claims: JWTPayload, options?: { expiresIn?: string | number | null; audience?: string; issuer?: string; stranger?: boolean }): Promise<string>;
  stop(): Promise<void>;
}

export async function startTestIssuer(): Promise<TestIssuer> {
  const { publicKey, privateKey } = await generateKeyPair('ES256');
  const stranger = await generateKeyPair('ES256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'test-key', alg: 'ES256', use: 'sig' };
  let issuer = '';
  const server = createServer((req, res) => {
    const body =
      req.url === '/.well-known/openid-configuration'
        ? { issuer, jwks_uri: `${issuer}/jwks`, token_endpoint: `${issuer}/token`, id_token_signing_alg_values_supported: ['ES256'] }
        : req.url === '/jwks'
          ? { keys: [jwk] }
          : null;
    res.writeHead(body ? 200 : 404, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body ?? { error: 'not_found' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    discoveryUrl: `${issuer}/.well-known/openid-configuration`,
    async token(claims, options = {}) {
      const jwt = new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid: 'test-key', typ: 'at+jwt' }).setIssuer(options.issuer ?? issuer).setIssuedAt();
      if (options.expiresIn !== null) jwt.setExpirationTime(options.expiresIn ?? '1h');
      if (options.audience) jwt.setAudience(options.audience);
      return jwt.sign(options.stranger ? stranger.privateKey : privateKey);
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
