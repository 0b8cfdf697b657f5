// Access-token verification (docs/conventions.md "Authentication"): a bearer JWT
// signed by the trusted issuer's keys, found through OpenID discovery. Works
// with any standard provider; no provider-specific adapter.
import { createRemoteJWKSet, jwtVerify, errors as joseErrors, type JWTPayload } from 'jose';
import { PlatformError, type NodeConfig } from '@platform/common';

export interface AuthOptions {
  /** the issuer's `/.well-known/openid-configuration` */
  discoveryUrl: string;
  /** required `aud`, or null not to check it */
  audience: string | null;
  /** claims tried in order for the username */
  usernameClaims: string[];
  /** claim giving the user's organization */
  orgClaim: string;
  /**
   * accept tokens without `exp` (OAUTH_ALLOW_NO_EXP); default false: a token
   * that never expires is a credential that cannot be taken back
   */
  allowNoExp?: boolean;
}

/** Per-call policy, for a caller that did not create the verifier (the gateway's routes). */
export interface VerifyOptions {
  /** as AuthOptions.allowNoExp, which it overrides */
  allowNoExp?: boolean;
}

/** The authenticated user of a request. */
export interface Principal {
  username: string;
  /** from the organization claim; null when the token has none */
  org: string | null;
  claims: JWTPayload;
}

interface Discovered {
  issuer: string;
  jwks: ReturnType<typeof createRemoteJWKSet>;
}

export interface TokenVerifier {
  /** Verifies an `Authorization` header value; throws TOKEN_MISSING, TOKEN_INVALID, or UNAVAILABLE when the issuer cannot be reached. */
  verify(authorization: string | undefined, options?: VerifyOptions): Promise<Principal>;
  /** Fetches discovery now (readiness): true when the issuer's document and keys location are known. */
  ready(): Promise<boolean>;
}

const ALGORITHMS = ['RS256', 'ES256', 'PS256', 'EdDSA', 'RS384', 'RS512', 'ES384'];
const DISCOVERY_RETRY_MS = 5_000;

/** Verified tokens kept (by the Authorization header that carried them): a client sends the same token with every request, and a signature check per request is wasted work. */
const VERIFIED_CACHE_SIZE = 10_000;
/** a cached verification is re-done at least this often, so that a rotated issuer key takes effect */
const VERIFIED_CACHE_MS = 60_000;

/** The verifier a service process makes from the node's configuration (the OAUTH_* settings). */
export function tokenVerifierOf(config: Pick<NodeConfig, 'oauthAudience' | 'oauthUsernameClaims' | 'oauthOrgClaim'> & { oauthDiscoveryUrl: string }): TokenVerifier {
  return createTokenVerifier({ discoveryUrl: config.oauthDiscoveryUrl, audience: config.oauthAudience, usernameClaims: config.oauthUsernameClaims, orgClaim: config.oauthOrgClaim });
}

export function createTokenVerifier(options: AuthOptions): TokenVerifier {
  let discovered: Promise<Discovered> | null = null;
  let failedAt = 0;
  // insertion-ordered: the oldest entry is the first to go
  const verified = new Map<string, { principal: Principal; until: number }>();

  // discovery is fetched on first use, not at start, so a service may start
  // before its identity provider; a failed fetch is retried after a pause
  async function discover(): Promise<Discovered> {
    if (!discovered || (failedAt && Date.now() - failedAt > DISCOVERY_RETRY_MS)) {
      failedAt = 0;
      discovered = fetchDiscovery(options.discoveryUrl).catch((err: unknown) => {
        failedAt = Date.now();
        throw err;
      });
    }
    return discovered;
  }

  return {
    async verify(authorization, callOptions) {
      // keyed by the header as sent (a client sends the same one with every request): a hit skips parsing it
      const hit = authorization === undefined ? undefined : verified.get(authorization);
      if (hit && Date.now() < hit.until) return hit.principal;
      const token = bearerToken(authorization);
      const allowNoExp = callOptions?.allowNoExp ?? options.allowNoExp ?? false;
      let issuer: Discovered;
      try {
        issuer = await discover();
      } catch (err) {
        throw new PlatformError('UNAVAILABLE', 'the identity provider cannot be reached to check the token; try again shortly', undefined, { cause: err });
      }
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(token, issuer.jwks, {
          issuer: issuer.issuer,
          algorithms: ALGORITHMS,
          ...(options.audience ? { audience: options.audience } : {}),
          ...(allowNoExp ? {} : { requiredClaims: ['exp'] }),
          clockTolerance: 5,
        }));
      } catch (err) {
        throw invalidToken(err);
      }
      const username = options.usernameClaims.map((claim) => payload[claim]).find((v) => typeof v === 'string' && v.trim() !== '') as string | undefined;
      if (!username) throw new PlatformError('TOKEN_INVALID', `the token has no username claim (${options.usernameClaims.join(', ')})`);
      const org = payload[options.orgClaim];
      const principal: Principal = { username, org: typeof org === 'string' && org !== '' ? org : null, claims: payload };
      // never beyond the token's own expiry
      const until = Math.min(Date.now() + VERIFIED_CACHE_MS, typeof payload.exp === 'number' ? payload.exp * 1000 : 0);
      // only tokens with an expiry are remembered, so a hit needs no exp check
      if (until > Date.now()) {
        if (verified.size >= VERIFIED_CACHE_SIZE) verified.delete(verified.keys().next().value!);
        verified.set(authorization!, { principal, until });
      }
      return principal;
    },
    async ready() {
      try {
        await discover();
        return true;
      } catch {
        return false;
      }
    },
  };
}

function bearerToken(authorization: string | undefined): string {
  if (authorization === undefined || authorization.trim() === '') {
    throw new PlatformError('TOKEN_MISSING', 'send an access token: Authorization: Bearer <token>');
  }
  const match = /^Bearer[ \t]+([A-Za-z0-9\-_.~+/]+=*)[ \t]*$/i.exec(authorization);
  if (!match) throw new PlatformError('TOKEN_INVALID', 'the Authorization header must be "Bearer <token>"');
  return match[1]!;
}

function invalidToken(err: unknown): PlatformError {
  if (keysUnavailable(err)) {
    return new PlatformError('UNAVAILABLE', "the identity provider's keys cannot be fetched; try again shortly", undefined, { cause: err });
  }
  let why = 'the token is not valid';
  if (err instanceof joseErrors.JWTExpired) why = 'the token has expired';
  else if (err instanceof joseErrors.JWTClaimValidationFailed && err.claim === 'exp' && err.reason === 'missing') why = 'the token has no "exp" claim: tokens that never expire are refused (OAUTH_ALLOW_NO_EXP)';
  else if (err instanceof joseErrors.JWTClaimValidationFailed) why = `the token's "${err.claim}" claim is not accepted`;
  else if (err instanceof joseErrors.JWSSignatureVerificationFailed || err instanceof joseErrors.JWKSNoMatchingKey) why = 'the token is not signed by the trusted issuer';
  else if (err instanceof joseErrors.JWTInvalid || err instanceof joseErrors.JWSInvalid || err instanceof joseErrors.JOSEAlgNotAllowed) why = 'the token is not a well-formed signed JWT';
  return new PlatformError('TOKEN_INVALID', why, undefined, { cause: err });
}

// The issuer's keys could not be had, which is no fault of the token: 503, not
// 401. jose throws its base JOSEError (code ERR_JOSE_GENERIC) only when the
// JWKS answer is not 200 OK JSON; fetch() rejects with a TypeError, recognised
// by name because in a VM context (jest) it is not of this realm's Error.
function keysUnavailable(err: unknown): boolean {
  if (err instanceof joseErrors.JWKSTimeout || err instanceof joseErrors.JWKSInvalid) return true;
  if (err instanceof joseErrors.JOSEError) return err.code === 'ERR_JOSE_GENERIC';
  const { name, message } = (err ?? {}) as { name?: unknown; message?: unknown };
  return name === 'TypeError' && typeof message === 'string' && /fetch|ECONNREFUSED|network/i.test(message);
}

async function fetchDiscovery(url: string): Promise<Discovered> {
  const response = await fetch(url, { signal: AbortSignal.timeout(5_000) });
  if (!response.ok) throw new Error(`discovery document ${url} answered ${response.status}`);
  const doc = (await response.json()) as { issuer?: unknown; jwks_uri?: unknown };
  if (typeof doc.issuer !== 'string' || typeof doc.jwks_uri !== 'string') throw new Error(`discovery document ${url} lacks issuer or jwks_uri`);
  return { issuer: doc.issuer, jwks: createRemoteJWKSet(new URL(doc.jwks_uri), { timeoutDuration: 5_000, cooldownDuration: 30_000 }) };
}

/** The `WWW-Authenticate` value of a 401 (RFC 6750): `invalid_token` only when a token was sent. */
export function wwwAuthenticate(error: PlatformError): string {
  return error.code === 'TOKEN_INVALID' ? `Bearer error="invalid_token", error_description="${error.message.replace(/"/g, "'")}"` : 'Bearer';
}

/** The `admin` role, in `roles` or Keycloak's `realm_access.roles`: an administrator, as is a username in ADMIN_USERS. */
export const ADMIN_ROLE = 'admin';

function roles(claims: Principal['claims']): string[] {
  const own = claims.roles;
  const realm = (claims.realm_access as { roles?: unknown } | undefined)?.roles;
  const list = (v: unknown): string[] => (Array.isArray(v) ? v.filter((r): r is string => typeof r === 'string') : typeof v === 'string' ? v.split(/[\s,]+/) : []);
  return [...list(own), ...list(realm)];
}

/** An administrator of the node: named in ADMIN_USERS, or carrying the `admin` role. */
export function isAdministrator(principal: Principal, adminUsers: readonly string[]): boolean {
  return adminUsers.includes(principal.username) || roles(principal.claims).includes(ADMIN_ROLE);
}
