// The development identity provider (docs/conventions.md "Authentication"): a real
// OpenID provider, so the platform's verifier talks to it exactly as it would
// to Keycloak or any other issuer. It adds one thing no production provider
// should have: a `password` grant that accepts any username and password, and
// a browser sign-in (authorization code + PKCE, for the gateway's dashboard)
// whose login form does the same.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { errors, type Adapter, type ClientMetadata, type ResourceServer } from 'oidc-provider';
import { createLogger, type Logger } from '@platform/common';
import { loadOrCreateKeys, type Jwks } from './keys.js';

export { keysFile } from './keys.js';

export interface IdpOptions {
  port: number;
  /** interface to listen on; default 127.0.0.1 */
  host?: string;
  /** the keys are kept in `<dataDir>/idp/` */
  dataDir: string;
  logger?: Logger;
  /** access token lifetime in seconds; default one hour */
  accessTokenTtl?: number;
  /** where the dashboard's sign-in may return (its client's redirect URIs): the gateway's `/dashboard` */
  dashboardRedirectUris?: string[];
}

export interface RunningIdp {
  issuer: string;
  discoveryUrl: string;
  tokenUrl: string;
  stop(): Promise<void>;
}

/** The one resource (audience) every access token is issued for. */
export const PLATFORM_RESOURCE = 'urn:platform';
/** Public client for people: `password` grant, no secret. */
export const CLI_CLIENT_ID = 'platform-cli';
/** Public client of the gateway's dashboard: authorization code with PKCE (S256), no secret. */
export const DASHBOARD_CLIENT_ID = 'platform-dashboard';
/** Confidential client for programs: `client_credentials`, secret sent with HTTP Basic. */
export const SERVICE_CLIENT_ID = 'platform-service';
export const SERVICE_CLIENT_SECRET = 'platform-service-secret';

const DEFAULT_TTL = 60 * 60;

const clients = (dashboardRedirectUris: string[]): ClientMetadata[] => [
  ...(dashboardRedirectUris.length > 0
    ? [{ client_id: DASHBOARD_CLIENT_ID, token_endpoint_auth_method: 'none', grant_types: ['authorization_code'], response_types: ['code'], redirect_uris: dashboardRedirectUris } satisfies ClientMetadata]
    : []),
  { client_id: CLI_CLIENT_ID, token_endpoint_auth_method: 'none', grant_types: ['password'], response_types: [], redirect_uris: [] },
  {
    client_id: SERVICE_CLIENT_ID,
    client_secret: SERVICE_CLIENT_SECRET,
    token_endpoint_auth_method: 'client_secret_basic',
    grant_types: ['client_credentials'],
    response_types: [],
    redirect_uris: [],
  },
];

// Access tokens are self-contained JWTs that verifiers check against the JWKS,
// so only a browser sign-in's short-lived records (its interaction, session,
// grant and authorization code) are kept: in memory, each until it expires,
// at most MAX_RECORDS per kind (instead of oidc-provider's in-memory
// adapter, which grows and warns it is not for use).
const MAX_RECORDS = 10_000;
type Payload = Record<string, unknown> & { uid?: string; grantId?: string; consumed?: number };

class MemoryAdapter implements Adapter {
  private static readonly kinds = new Map<string, Map<string, { payload: Payload; until: number }>>();
  private readonly records: Map<string, { payload: Payload; until: number }>;

  constructor(name: string) {
    this.records = MemoryAdapter.kinds.get(name) ?? new Map();
    MemoryAdapter.kinds.set(name, this.records);
  }

  async upsert(id: string, payload: Payload, expiresIn: number): Promise<void> {
    this.records.delete(id);
    if (this.records.size >= MAX_RECORDS) this.records.delete(this.records.keys().next().value!);
    this.records.set(id, { payload, until: Date.now() + expiresIn * 1000 });
  }
  async find(id: string): Promise<Payload | undefined> {
    const record = this.records.get(id);
    if (!record) return undefined;
    if (record.until > Date.now()) return record.payload;
    this.records.delete(id);
    return undefined;
  }
  async findByUserCode(): Promise<undefined> {
    return undefined;
  }
  async findByUid(uid: string): Promise<Payload | undefined> {
    for (const [id, record] of this.records) if (record.payload.uid === uid) return this.find(id);
    return undefined;
  }
  async consume(id: string): Promise<void> {
    const record = this.records.get(id);
    if (record) record.payload.consumed = Math.floor(Date.now() / 1000);
  }
  async destroy(id: string): Promise<void> {
    this.records.delete(id);
  }
  async revokeByGrantId(grantId: string): Promise<void> {
    for (const [id, record] of this.records) if (record.payload.grantId === grantId) this.records.delete(id);
  }
}

export async function startIdp(options: IdpOptions): Promise<RunningIdp> {
  const host = options.host ?? '127.0.0.1';
  const logger = options.logger ?? createLogger('idp');
  const ttl = options.accessTokenTtl ?? DEFAULT_TTL;
  const jwks = await loadOrCreateKeys(options.dataDir);

  // The issuer goes into every token and must be a URL clients can reach: a
  // wildcard bind is reached on loopback. It needs the port, so the server
  // listens first (port 0 works) and gets its handler before any request is read.
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const issuerHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  const issuer = `http://${issuerHost}:${port}`;

  let provider: Provider;
  try {
    provider = createProvider(issuer, jwks, ttl, options.dashboardRedirectUris ?? []);
  } catch (err) {
    server.close();
    throw err;
  }
  provider.on('grant.success', (ctx) => {
    const { grant_type: grant, username } = ctx.oidc.params ?? {};
    logger.debug({ grant, client: ctx.oidc.client?.clientId, username }, 'token issued');
  });
  provider.on('grant.error', (ctx, err) => logger.info({ client: ctx.oidc.client?.clientId, error: err.message }, 'token refused'));
  provider.on('server_error', (_ctx, err) => logger.error({ err }, 'identity provider error'));
  server.on('request', provider.callback());

  logger.warn(`development identity provider: the password grant accepts ANY username with any password; never use it outside development`);
  return {
    issuer,
    discoveryUrl: `${issuer}/.well-known/openid-configuration`,
    tokenUrl: provider.urlFor('token'),
    stop: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}

function createProvider(issuer: string, jwks: Jwks, ttl: number, dashboardRedirectUris: string[]): Provider {
  const resourceServer: ResourceServer = { scope: '', audience: PLATFORM_RESOURCE, accessTokenFormat: 'jwt', accessTokenTTL: ttl };
  const provider = new Provider(issuer, {
    jwks,
    adapter: MemoryAdapter,
    clients: clients(dashboardRedirectUris),
    ttl: { AccessToken: ttl, ClientCredentials: ttl },
    // the dashboard's sign-in is the one browser flow; no refresh tokens
    responseTypes: dashboardRedirectUris.length > 0 ? ['code', 'none'] : ['none'],
    scopes: ['openid'],
    // the dashboard asks for nothing but a token: its grant needs no consent page
    loadExistingGrant: async (ctx) => {
      const { client, session } = ctx.oidc;
      const grantId = ctx.oidc.result?.consent?.grantId ?? (client ? session?.grantIdFor(client.clientId) : undefined);
      if (grantId) return ctx.oidc.provider.Grant.find(grantId);
      if (!client || !session?.accountId || client.clientId !== DASHBOARD_CLIENT_ID) return undefined;
      const grant = new ctx.oidc.provider.Grant({ clientId: client.clientId, accountId: session.accountId });
      grant.addOIDCScope('openid');
      grant.addResourceScope(PLATFORM_RESOURCE, '');
      await grant.save();
      return grant;
    },
    features: {
      // oidc-provider's own login form: any login, any password, as the password grant
      devInteractions: { enabled: dashboardRedirectUris.length > 0 },
      clientCredentials: { enabled: true },
      // resource indicators are how oidc-provider issues JWT access tokens;
      // a request naming no resource gets the platform's
      resourceIndicators: {
        enabled: true,
        defaultResource: () => PLATFORM_RESOURCE,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resource) => {
          if (resource !== PLATFORM_RESOURCE) throw new errors.InvalidTarget(`the only resource is ${PLATFORM_RESOURCE}`);
          return resourceServer;
        },
      },
    },
    // the platform takes the username from preferred_username (then sub), the
    // organization from `organization` (OAUTH_USERNAME_CLAIM, OAUTH_ORG_CLAIM),
    // the certificate's unit from `organizationalUnit`, and `roles` (`admin`
    // may issue certificates): a development token carries what was asked for
    extraTokenClaims: (ctx, token) => {
      if (token.kind === 'ClientCredentials') return { preferred_username: token.clientId };
      const text = (name: string) => {
        const value = ctx.oidc.params?.[name];
        return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
      };
      const organization = text('organization');
      const organizationalUnit = text('organizationalUnit');
      const roles = text('roles');
      return {
        preferred_username: token.accountId,
        ...(organization ? { organization } : {}),
        ...(organizationalUnit ? { organizationalUnit } : {}),
        ...(roles ? { roles: roles.split(/[\s,]+/).filter((r) => r !== '') } : {}),
      };
    },
  });

  provider.registerGrantType<{ username?: string; organization?: string; organizationalUnit?: string; roles?: string }>(
    'password',
    async (ctx) => {
      const { username, resource = PLATFORM_RESOURCE } = ctx.oidc.params;
      if (typeof username !== 'string' || username.trim() === '') throw new errors.InvalidRequest("missing required parameter 'username'");
      if (resource !== PLATFORM_RESOURCE) throw new errors.InvalidTarget(`the only resource is ${PLATFORM_RESOURCE}`);
      // no password check: that is the point of this provider
      const token = new provider.AccessToken({
        accountId: username,
        client: ctx.oidc.client,
        gty: 'password',
        // each request is a grant of its own; nothing is stored under it
        grantId: randomUUID(),
        resourceServer: new provider.ResourceServer(PLATFORM_RESOURCE, resourceServer),
      });
      const accessToken = await token.save();
      ctx.body = { access_token: accessToken, token_type: token.tokenType, expires_in: token.expiration };
    },
    ['username', 'password', 'organization', 'organizationalUnit', 'roles', 'resource'],
  );
  return provider;
}
