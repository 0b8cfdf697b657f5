// Configuration: environment variables (docs/conventions.md "Running it"), parsed and
// validated once at a process's edge. A bad value stops the start with a
// message naming the variable. Modules receive the parsed object, never
// process.env.

import { readFileSync } from 'node:fs';

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
  }
}

export interface NodeConfig {
  host: string;
  port: number;
  vaultPort: number;
  idpPort: number;
  dataDir: string;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** unset: the launcher starts an embedded server */
  natsUrl: string | null;
  /** this service process's NATS user nkey seed (`NATS_CREDENTIALS`: the seed, or a file holding it); the launcher sets it per service */
  natsCredentials: string | null;
  /** the launcher: a directory of the services' seeds (`<service>.nk`) for an existing NATS; unset: generated into the data dir */
  natsCredentialsDir: string | null;
  /** unset: the launcher starts an embedded PostgreSQL */
  databaseUrl: string | null;
  /**
   * CIRRUS_READ_DATABASE_URL: the gateway answers `/cirrus/search` itself,
   * reading cirrus's schema as a read-only role (docs/architecture.md "State
   * and storage"); unset: it asks cirrus over NATS. `npm start` sets it for
   * the embedded PostgreSQL, the Helm chart for each node's database.
   */
  cirrusReadDatabaseUrl: string | null;
  /** CIRRUS_READ_ROLE: the role cirrus grants read access to its schema (the role of CIRRUS_READ_DATABASE_URL); unset: none */
  cirrusReadRole: string | null;
  /** unset: the development identity provider */
  oauthDiscoveryUrl: string | null;
  oauthAudience: string | null;
  /** claims tried in order for the username */
  oauthUsernameClaims: string[];
  oauthOrgClaim: string;
  /** accept access tokens without `exp` (default false: refused) */
  oauthAllowNoExp: boolean;
  nodeOrg: string;
  /**
   * the node's name in its network (`NODE_NAME`): its NATS server's name,
   * its account's and its consumers' (docs/network.md); lower-case letters,
   * digits and dashes
   */
  nodeName: string;
  /** copies the network keeps of each network stream (`NETWORK_REPLICAS`): min(nodes, 3), the same on every node */
  networkReplicas: number;
  /** unset: generated into the data dir by the launcher */
  vaultPassword: string | null;
  /**
   * VAULT_NEW_PASSWORD: the vault re-encrypts its users' keys under this
   * password at its start, then runs with it (VAULT_PASSWORD must then be
   * set to it for later starts)
   */
  vaultNewPassword: string | null;
  gasEnabled: boolean;
  indexEvm: boolean;
  /** the block service's state caches together, MiB (BLOCK_STATE_CACHE_MB): committed values and decoded trie nodes of every chain it holds */
  blockStateCacheMb: number;
  /**
   * IDLE_COLLECTION_MB: how far a service's heap must have grown from its
   * smallest since its last collection at rest before it collects again at rest
   * (collectWhenIdle); 0: never, the heap is left to V8
   */
  idleCollectionMb: number;
  accountNonceLimit: number;
  resolveTimeoutMs: number;
  identityRequired: boolean;
  identityAutoEnroll: boolean;
  nodeCaCert: string | null;
  nodeCaKey: string | null;
  adminUsers: string[];
  rawTxRequireSignedMetadata: boolean;
  /** largest accepted request body, bytes */
  bodyLimit: number;
  extStorage: { bucket: string; accessKeyId: string; secretAccessKey: string; endpoint: string | null } | null;
  /** the files service (services/files) and its object store */
  files: FilesConfig;
  /** the gateway's live events (`GET /platform/v2.3/events`) */
  events: EventsConfig;
  /** DASHBOARD_CLIENT_ID: the dashboard's client at the identity provider (authorization code + PKCE); the development provider's is `platform-dashboard` */
  dashboardClientId: string;
  /** the launcher: this node joins a network of nodes on other machines (NETWORK_GENESIS set); null otherwise */
  join: JoinConfig | null;
}

/** How a node started by `npm start` joins a network whose other nodes run elsewhere (docs/network.md "Joining a network"). */
export interface JoinConfig {
  /** NETWORK_GENESIS: the network's genesis.json, the same file on every node */
  genesisFile: string;
  /** NODE_KEYS_DIR: this node's keys as `npm run deploy -- init` writes them (node.key, faucet.key, ca.pem, ca.key, route-password), installed into the data dir at the first start */
  keysDir: string | null;
  /** NATS_ROUTES: the other nodes' NATS route addresses, `host:port`, comma-separated */
  routes: string[];
  /** NATS_ROUTE_PASSWORD_FILE: the routes' password the network shares; default `<NODE_KEYS_DIR>/route-password` */
  routePasswordFile: string | null;
  /** NATS_CLUSTER_HOST (default 0.0.0.0) and NATS_CLUSTER_PORT (default 6222): where this node's server takes the others' routes */
  clusterHost: string;
  clusterPort: number;
  /** NATS_CLUSTER_ADVERTISE: the `host:port` the other nodes reach those routes at, when not the listening address (NAT, proxy) */
  clusterAdvertise: string | null;
  /** NETWORK_NODES: nodes beyond the genesis's validators (followers that joined later), whose accounts this node's server must define too */
  extraNodes: string[];
  /**
   * NATS_ROUTE_TLS_CERT, NATS_ROUTE_TLS_KEY, NATS_ROUTE_TLS_CA: routes in
   * mutual TLS (PEM files: this server's certificate and key, and the CAs
   * that sign the others'); null: routes authenticate by password alone
   */
  routeTls: { certFile: string; keyFile: string; caFile: string } | null;
}

/** The live events' settings (services/gateway README, "Live events"). */
export interface EventsConfig {
  /** EVENTS_HEARTBEAT_MS (15000): a comment line this often on every stream, so that proxies and clients know it is alive */
  heartbeatMs: number;
  /** EVENTS_BUFFER_BYTES (1 MiB): what a connection may hold unsent; a client further behind is told so and disconnected */
  bufferBytes: number;
}

/** The files service's settings (services/files README). */
export interface FilesConfig {
  /** FILES_PORT (8082): the files service's HTTP port, on loopback; the gateway routes `/api/v1/files` and `/apex-api` to it */
  port: number;
  /**
   * FILES_URL: where the gateway reaches the files service; default
   * http://127.0.0.1:<FILES_PORT>. `none`: the node runs no files service
   * (the Helm chart's, for now), and its gateway neither routes the file
   * endpoints nor waits for one to be ready.
   */
  url: string | null;
  /** largest file an upload may carry (FILES_MAX_BYTES, 5 GiB: one S3 copy carries at most that) */
  maxBytes: number;
  /** the object store: FILES_S3_ENDPOINT, or null for the node's embedded server on FILES_S3_PORT (8083) */
  s3: { endpoint: string | null; embeddedPort: number; bucket: string; accessKeyId: string; secretAccessKey: string; region: string; forcePathStyle: boolean };
}

/** The embedded object store's credentials (the s3rver package's fixed ones): it listens on loopback only. */
export const EMBEDDED_S3_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } as const;

type Env = Record<string, string | undefined>;

function read(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function str(env: Env, name: string, fallback: string): string {
  return read(env, name) ?? fallback;
}

function optional(env: Env, name: string): string | null {
  return read(env, name) ?? null;
}

/** what names a node in NATS: a server name, an account, a placement tag and part of durable names */
export const NODE_NAME_PATTERN = /^[a-z][a-z0-9-]{0,30}$/;
/** a node's name when NODE_NAME is not set: a network of one */
export const DEFAULT_NODE_NAME = 'node1';

function nodeName(env: Env): string {
  const name = str(env, 'NODE_NAME', DEFAULT_NODE_NAME);
  if (!NODE_NAME_PATTERN.test(name)) throw new ConfigError('NODE_NAME', `expected a lower-case letter, then up to 30 lower-case letters, digits or dashes, got "${name}"`);
  return name;
}

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `expected an integer, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(name, `expected an integer from ${min} to ${max}, got ${value}`);
  return value;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  const lower = raw.toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(lower)) return true;
  if (['false', '0', 'no', 'off'].includes(lower)) return false;
  throw new ConfigError(name, `expected true or false, got "${raw}"`);
}

function url(env: Env, name: string, protocols: string[]): string | null {
  const raw = read(env, name);
  if (raw === undefined) return null;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, 'expected a URL');
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(name, `expected a URL with scheme ${protocols.join(' or ')}, got ${parsed.protocol}`);
  }
  return raw;
}

const HOST_PORT = /^[A-Za-z0-9.-]+:\d{1,5}$|^\[[0-9A-Fa-f:]+\]:\d{1,5}$/;

function hostPorts(env: Env, name: string): string[] {
  const values = list(env, name);
  for (const v of values) if (!HOST_PORT.test(v)) throw new ConfigError(name, `expected host:port items, comma-separated, got "${v}"`);
  return values;
}

function vaultNewPassword(env: Env): string | null {
  const value = optional(env, 'VAULT_NEW_PASSWORD');
  if (value !== null && optional(env, 'VAULT_PASSWORD') === null) throw new ConfigError('VAULT_NEW_PASSWORD', 'rotates a password: VAULT_PASSWORD must name the current one');
  return value;
}

function joinConfig(env: Env): JoinConfig | null {
  const genesisFile = read(env, 'NETWORK_GENESIS');
  if (!genesisFile) return null;
  const keysDir = optional(env, 'NODE_KEYS_DIR');
  const routePasswordFile = optional(env, 'NATS_ROUTE_PASSWORD_FILE');
  if (!keysDir && !routePasswordFile) throw new ConfigError('NATS_ROUTE_PASSWORD_FILE', "a node joining a network needs the routes' password: set it, or NODE_KEYS_DIR holding route-password");
  const advertise = optional(env, 'NATS_CLUSTER_ADVERTISE');
  if (advertise !== null && !HOST_PORT.test(advertise)) throw new ConfigError('NATS_CLUSTER_ADVERTISE', `expected host:port, got "${advertise}"`);
  const extraNodes = list(env, 'NETWORK_NODES');
  for (const n of extraNodes) if (!NODE_NAME_PATTERN.test(n)) throw new ConfigError('NETWORK_NODES', `"${n}" is not a node name`);
  const tls = { certFile: optional(env, 'NATS_ROUTE_TLS_CERT'), keyFile: optional(env, 'NATS_ROUTE_TLS_KEY'), caFile: optional(env, 'NATS_ROUTE_TLS_CA') };
  const tlsGiven = Object.values(tls).filter((v) => v !== null).length;
  if (tlsGiven > 0 && tlsGiven < 3) throw new ConfigError('NATS_ROUTE_TLS_CERT', 'TLS on routes needs all three: NATS_ROUTE_TLS_CERT, NATS_ROUTE_TLS_KEY and NATS_ROUTE_TLS_CA');
  return {
    genesisFile,
    keysDir,
    routeTls: tlsGiven === 3 ? (tls as { certFile: string; keyFile: string; caFile: string }) : null,
    routes: hostPorts(env, 'NATS_ROUTES'),
    routePasswordFile,
    clusterHost: str(env, 'NATS_CLUSTER_HOST', '0.0.0.0'),
    clusterPort: int(env, 'NATS_CLUSTER_PORT', 6222, 1, 65535),
    clusterAdvertise: advertise,
    extraNodes,
  };
}

function filesConfig(env: Env): FilesConfig {
  const port = int(env, 'FILES_PORT', 8082, 0, 65535);
  const endpoint = url(env, 'FILES_S3_ENDPOINT', ['http:', 'https:']);
  const accessKeyId = optional(env, 'FILES_S3_ACCESS_KEY_ID');
  const secretAccessKey = optional(env, 'FILES_S3_SECRET_ACCESS_KEY');
  if (endpoint !== null && (accessKeyId === null || secretAccessKey === null)) {
    throw new ConfigError(accessKeyId === null ? 'FILES_S3_ACCESS_KEY_ID' : 'FILES_S3_SECRET_ACCESS_KEY', 'required when FILES_S3_ENDPOINT names an object store');
  }
  return {
    port,
    url: read(env, 'FILES_URL') === 'none' ? null : (url(env, 'FILES_URL', ['http:', 'https:']) ?? `http://127.0.0.1:${port}`),
    maxBytes: int(env, 'FILES_MAX_BYTES', 5 * 1024 ** 3, 1, 5 * 1024 ** 3),
    s3: {
      endpoint,
      embeddedPort: int(env, 'FILES_S3_PORT', 8083, 0, 65535),
      bucket: str(env, 'FILES_S3_BUCKET', 'files'),
      accessKeyId: accessKeyId ?? EMBEDDED_S3_CREDENTIALS.accessKeyId,
      secretAccessKey: secretAccessKey ?? EMBEDDED_S3_CREDENTIALS.secretAccessKey,
      region: str(env, 'FILES_S3_REGION', 'us-east-1'),
      forcePathStyle: bool(env, 'FILES_S3_FORCE_PATH_STYLE', true),
    },
  };
}

function list(env: Env, name: string): string[] {
  return (read(env, name) ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** A PostgreSQL role the services splice into GRANT: a plain lower-case identifier. */
function roleName(env: Env, name: string): string | null {
  const raw = read(env, name);
  if (raw === undefined) return null;
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(raw)) throw new ConfigError(name, `expected a plain role name (lower-case letters, digits, _), got "${raw}"`);
  return raw;
}

/** An nkey seed's text: `S`, then 57 base32 characters. */
const NKEY_SEED = /^S[A-Z2-7]{57}$/;

/** An nkey seed given as itself (`SU…`) or as the path of a file holding it. */
function seedOrFile(env: Env, name: string): string | null {
  const raw = read(env, name);
  if (raw === undefined) return null;
  if (NKEY_SEED.test(raw)) return raw;
  let text: string;
  try {
    text = readFileSync(raw, 'utf8').trim();
  } catch (err) {
    throw new ConfigError(name, `cannot read the credentials file ${raw}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  // never echo a file's content: it is a secret, whatever shape it has
  if (!NKEY_SEED.test(text)) throw new ConfigError(name, `${raw} does not hold an nkey seed (one line, S…)`);
  return text;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** Flags of the same meaning as a variable, e.g. `--indexEVM=true`. */
const FLAG_VARIABLES: Record<string, string> = { indexEVM: 'INDEX_EVM' };

/** Folds `--flag=value` arguments into the environment they stand for. */
export function envWithFlags(env: Env, argv: string[]): Env {
  const merged = { ...env };
  for (const arg of argv) {
    const match = /^--([A-Za-z]+)=(.*)$/.exec(arg);
    if (match && FLAG_VARIABLES[match[1]]) merged[FLAG_VARIABLES[match[1]]] = match[2];
  }
  return merged;
}

export function loadConfig(env: Env = process.env): NodeConfig {
  const logLevel = str(env, 'LOG_LEVEL', 'info');
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    throw new ConfigError('LOG_LEVEL', `expected one of ${LOG_LEVELS.join(', ')}`);
  }
  const usernameClaim = read(env, 'OAUTH_USERNAME_CLAIM');
  const bucket = read(env, 'EXT_STORAGE_OBJ_BUCKET');
  let extStorage: NodeConfig['extStorage'] = null;
  if (bucket !== undefined) {
    const accessKeyId = read(env, 'EXT_STORAGE_OBJ_ACCESS_KEY_ID');
    const secretAccessKey = read(env, 'EXT_STORAGE_OBJ_SECRET_ACCESS_KEY');
    if (accessKeyId === undefined) throw new ConfigError('EXT_STORAGE_OBJ_ACCESS_KEY_ID', 'required when EXT_STORAGE_OBJ_BUCKET is set');
    if (secretAccessKey === undefined) throw new ConfigError('EXT_STORAGE_OBJ_SECRET_ACCESS_KEY', 'required when EXT_STORAGE_OBJ_BUCKET is set');
    extStorage = { bucket, accessKeyId, secretAccessKey, endpoint: url(env, 'EXT_STORAGE_OBJ_ENDPOINT', ['http:', 'https:']) };
  }
  const config: NodeConfig = {
    host: str(env, 'HOST', '127.0.0.1'),
    port: int(env, 'PORT', 8080, 0, 65535),
    vaultPort: int(env, 'VAULT_PORT', 8090, 0, 65535),
    idpPort: int(env, 'IDP_PORT', 8081, 0, 65535),
    dataDir: str(env, 'DATA_DIR', '.data'),
    logLevel: logLevel as NodeConfig['logLevel'],
    natsUrl: url(env, 'NATS_URL', ['nats:', 'tls:', 'ws:', 'wss:']),
    natsCredentials: seedOrFile(env, 'NATS_CREDENTIALS'),
    natsCredentialsDir: optional(env, 'NATS_CREDENTIALS_DIR'),
    databaseUrl: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    cirrusReadDatabaseUrl: url(env, 'CIRRUS_READ_DATABASE_URL', ['postgres:', 'postgresql:']),
    cirrusReadRole: roleName(env, 'CIRRUS_READ_ROLE'),
    oauthDiscoveryUrl: url(env, 'OAUTH_DISCOVERY_URL', ['http:', 'https:']),
    oauthAudience: optional(env, 'OAUTH_AUDIENCE'),
    oauthUsernameClaims: usernameClaim ? [usernameClaim] : ['preferred_username', 'sub'],
    oauthOrgClaim: str(env, 'OAUTH_ORG_CLAIM', 'organization'),
    oauthAllowNoExp: bool(env, 'OAUTH_ALLOW_NO_EXP', false),
    nodeOrg: str(env, 'NODE_ORG', 'Platform'),
    nodeName: nodeName(env),
    networkReplicas: int(env, 'NETWORK_REPLICAS', 1, 1, 5),
    vaultPassword: optional(env, 'VAULT_PASSWORD'),
    vaultNewPassword: vaultNewPassword(env),
    gasEnabled: bool(env, 'GAS_ENABLED', false),
    indexEvm: bool(env, 'INDEX_EVM', false),
    blockStateCacheMb: int(env, 'BLOCK_STATE_CACHE_MB', 32, 4, 65_536),
    idleCollectionMb: int(env, 'IDLE_COLLECTION_MB', 8, 0, 65_536),
    accountNonceLimit: int(env, 'ACCOUNT_NONCE_LIMIT', 2000, 0, Number.MAX_SAFE_INTEGER),
    resolveTimeoutMs: int(env, 'RESOLVE_TIMEOUT_MS', 60_000, 1, 3_600_000),
    identityRequired: bool(env, 'IDENTITY_REQUIRED', true),
    identityAutoEnroll: bool(env, 'IDENTITY_AUTO_ENROLL', true),
    nodeCaCert: optional(env, 'NODE_CA_CERT'),
    nodeCaKey: optional(env, 'NODE_CA_KEY'),
    adminUsers: list(env, 'ADMIN_USERS'),
    rawTxRequireSignedMetadata: bool(env, 'RAW_TX_REQUIRE_SIGNED_METADATA', false),
    bodyLimit: int(env, 'BODY_LIMIT_BYTES', 10 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    extStorage,
    files: filesConfig(env),
    events: { heartbeatMs: int(env, 'EVENTS_HEARTBEAT_MS', 15_000, 100, 3_600_000), bufferBytes: int(env, 'EVENTS_BUFFER_BYTES', 1024 * 1024, 4096, 1024 * 1024 * 1024) },
    dashboardClientId: str(env, 'DASHBOARD_CLIENT_ID', 'platform-dashboard'),
    join: joinConfig(env),
  };
  return Object.freeze(config);
}
