// The configuration every process reads (README "Configuration"): each
// variable's default, each kind of bad value stopping the start with a
// ConfigError that names the variable, and the forms a value may take.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, envWithFlags, loadConfig } from '../src/config.js';

/** an nkey user seed's shape: S, then 57 base32 characters */
const SEED = `SU${'A'.repeat(56)}`;

function refusal(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error(`expected a ConfigError for ${JSON.stringify(env)}`);
}

describe('loadConfig defaults', () => {
  test('an empty environment gives every documented default', () => {
    expect(loadConfig({})).toEqual({
      host: '127.0.0.1',
      port: 8080,
      vaultPort: 8090,
      idpPort: 8081,
      dataDir: '.data',
      logLevel: 'info',
      natsUrl: null,
      natsCredentials: null,
      natsCredentialsDir: null,
      databaseUrl: null,
      cirrusReadDatabaseUrl: null,
      cirrusReadRole: null,
      oauthDiscoveryUrl: null,
      oauthAudience: null,
      oauthUsernameClaims: ['preferred_username', 'sub'],
      oauthOrgClaim: 'organization',
      oauthAllowNoExp: false,
      nodeOrg: 'Platform',
      nodeName: 'node1',
      networkReplicas: 1,
      vaultPassword: null,
      vaultNewPassword: null,
      join: null,
      gasEnabled: false,
      indexEvm: false,
      accountNonceLimit: 2000,
      blockStateCacheMb: 32,
      idleCollectionMb: 8,
      resolveTimeoutMs: 60_000,
      identityRequired: true,
      identityAutoEnroll: true,
      nodeCaCert: null,
      nodeCaKey: null,
      adminUsers: [],
      rawTxRequireSignedMetadata: false,
      bodyLimit: 10 * 1024 * 1024,
      extStorage: null,
      files: {
        port: 8082,
        url: 'http://127.0.0.1:8082',
        maxBytes: 5 * 1024 ** 3,
        s3: { endpoint: null, embeddedPort: 8083, bucket: 'files', accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER', region: 'us-east-1', forcePathStyle: true },
      },
      events: { heartbeatMs: 15_000, bufferBytes: 1024 * 1024 },
      dashboardClientId: 'platform-dashboard',
    });
  });

  test('an empty or blank value is the default; values are trimmed', () => {
    const config = loadConfig({ PORT: '', HOST: '   ', NODE_ORG: ' Acme ', LOG_LEVEL: '\tdebug\n' });
    expect(config.port).toBe(8080);
    expect(config.host).toBe('127.0.0.1');
    expect(config.nodeOrg).toBe('Acme');
    expect(config.logLevel).toBe('debug');
  });

  test('the parsed configuration is frozen', () => {
    expect(Object.isFrozen(loadConfig({}))).toBe(true);
  });
});

describe('loadConfig values', () => {
  test('every variable is read into its field', () => {
    const config = loadConfig({
      HOST: '0.0.0.0',
      PORT: '9000',
      VAULT_PORT: '9001',
      IDP_PORT: '9002',
      DATA_DIR: '/srv/node',
      LOG_LEVEL: 'silent',
      NATS_URL: 'nats://nats.example:4222',
      NATS_CREDENTIALS_DIR: '/etc/nats-creds',
      DATABASE_URL: 'postgresql://u:p@db.example/platform',
      CIRRUS_READ_DATABASE_URL: 'postgresql://reader:p@db.example/platform',
      CIRRUS_READ_ROLE: 'reader',
      OAUTH_DISCOVERY_URL: 'https://id.example/.well-known/openid-configuration',
      OAUTH_AUDIENCE: 'platform',
      OAUTH_USERNAME_CLAIM: 'email',
      OAUTH_ORG_CLAIM: 'org',
      OAUTH_ALLOW_NO_EXP: 'true',
      NODE_ORG: 'Acme',
      NODE_NAME: 'acme-2',
      NETWORK_REPLICAS: '3',
      VAULT_PASSWORD: 'secret',
      GAS_ENABLED: 'yes',
      INDEX_EVM: 'on',
      ACCOUNT_NONCE_LIMIT: '5',
      RESOLVE_TIMEOUT_MS: '1000',
      IDENTITY_REQUIRED: 'false',
      IDENTITY_AUTO_ENROLL: '0',
      NODE_CA_CERT: '/etc/ca.pem',
      NODE_CA_KEY: '/etc/ca.key',
      ADMIN_USERS: ' alice, bob ,,carol ',
      RAW_TX_REQUIRE_SIGNED_METADATA: '1',
      BODY_LIMIT_BYTES: '2048',
      IDLE_COLLECTION_MB: '0',
    });
    expect(config).toMatchObject({
      host: '0.0.0.0',
      port: 9000,
      vaultPort: 9001,
      idpPort: 9002,
      dataDir: '/srv/node',
      logLevel: 'silent',
      natsUrl: 'nats://nats.example:4222',
      natsCredentialsDir: '/etc/nats-creds',
      databaseUrl: 'postgresql://u:p@db.example/platform',
      cirrusReadDatabaseUrl: 'postgresql://reader:p@db.example/platform',
      cirrusReadRole: 'reader',
      oauthDiscoveryUrl: 'https://id.example/.well-known/openid-configuration',
      oauthAudience: 'platform',
      oauthUsernameClaims: ['email'],
      oauthOrgClaim: 'org',
      oauthAllowNoExp: true,
      nodeOrg: 'Acme',
      nodeName: 'acme-2',
      networkReplicas: 3,
      vaultPassword: 'secret',
      gasEnabled: true,
      indexEvm: true,
      accountNonceLimit: 5,
      resolveTimeoutMs: 1000,
      identityRequired: false,
      identityAutoEnroll: false,
      nodeCaCert: '/etc/ca.pem',
      nodeCaKey: '/etc/ca.key',
      adminUsers: ['alice', 'bob', 'carol'],
      rawTxRequireSignedMetadata: true,
      bodyLimit: 2048,
      idleCollectionMb: 0,
    });
  });

  test.each(['true', 'TRUE', '1', 'yes', 'on'])('OAUTH_ALLOW_NO_EXP=%s accepts tokens without exp', (value) => {
    expect(loadConfig({ OAUTH_ALLOW_NO_EXP: value }).oauthAllowNoExp).toBe(true);
  });

  test.each(['false', 'False', '0', 'no', 'off'])('OAUTH_ALLOW_NO_EXP=%s refuses them', (value) => {
    expect(loadConfig({ OAUTH_ALLOW_NO_EXP: value }).oauthAllowNoExp).toBe(false);
  });

  test('the ports take 0 (any free port) to 65535', () => {
    expect(loadConfig({ PORT: '0', VAULT_PORT: '65535' })).toMatchObject({ port: 0, vaultPort: 65535 });
  });

  test('every NATS and PostgreSQL URL scheme the node speaks is accepted', () => {
    for (const url of ['nats://h:4222', 'tls://h:4222', 'ws://h:8080', 'wss://h']) expect(loadConfig({ NATS_URL: url }).natsUrl).toBe(url);
    for (const url of ['postgres://h/db', 'postgresql://h/db']) expect(loadConfig({ DATABASE_URL: url }).databaseUrl).toBe(url);
  });

  test('EXT_STORAGE_OBJ_BUCKET with both keys turns the file storage on; the endpoint is optional', () => {
    const env = { EXT_STORAGE_OBJ_BUCKET: 'files', EXT_STORAGE_OBJ_ACCESS_KEY_ID: 'id', EXT_STORAGE_OBJ_SECRET_ACCESS_KEY: 'key' };
    expect(loadConfig(env).extStorage).toEqual({ bucket: 'files', accessKeyId: 'id', secretAccessKey: 'key', endpoint: null });
    expect(loadConfig({ ...env, EXT_STORAGE_OBJ_ENDPOINT: 'https://s3.example' }).extStorage?.endpoint).toBe('https://s3.example');
  });

  test("the files service's object store: the embedded one by default, another one with its credentials", () => {
    const s3 = { FILES_S3_ENDPOINT: 'https://s3.example', FILES_S3_ACCESS_KEY_ID: 'id', FILES_S3_SECRET_ACCESS_KEY: 'key', FILES_S3_BUCKET: 'docs', FILES_S3_FORCE_PATH_STYLE: 'false' };
    expect(loadConfig(s3).files.s3).toEqual({ endpoint: 'https://s3.example', embeddedPort: 8083, bucket: 'docs', accessKeyId: 'id', secretAccessKey: 'key', region: 'us-east-1', forcePathStyle: false });
    expect(() => loadConfig({ FILES_S3_ENDPOINT: 'https://s3.example', FILES_S3_ACCESS_KEY_ID: 'id' })).toThrow('FILES_S3_SECRET_ACCESS_KEY');
    expect(() => loadConfig({ FILES_MAX_BYTES: '0' })).toThrow('FILES_MAX_BYTES');
    expect(loadConfig({ FILES_PORT: '9000' }).files.url).toBe('http://127.0.0.1:9000');
    expect(loadConfig({ FILES_URL: 'none' }).files.url).toBeNull();
    expect(() => loadConfig({ FILES_URL: 'off' })).toThrow('FILES_URL');
  });
});

describe('loadConfig refusals name the variable', () => {
  test.each([
    ['PORT', 'abc', /expected an integer, got "abc"/],
    ['PORT', '-1', /expected an integer/],
    ['PORT', '1.5', /expected an integer/],
    ['PORT', '65536', /from 0 to 65535, got 65536/],
    ['VAULT_PORT', '70000', /from 0 to 65535/],
    ['IDP_PORT', 'x', /expected an integer/],
    ['ACCOUNT_NONCE_LIMIT', 'many', /expected an integer/],
    ['RESOLVE_TIMEOUT_MS', '0', /from 1 to 3600000, got 0/],
    ['RESOLVE_TIMEOUT_MS', '3600001', /from 1 to 3600000/],
    ['EVENTS_HEARTBEAT_MS', '50', /from 100 to 3600000/],
    ['EVENTS_BUFFER_BYTES', '1', /from 4096 to/],
    ['BODY_LIMIT_BYTES', '1023', /from 1024 to/],
    ['LOG_LEVEL', 'verbose', /expected one of fatal, error, warn, info, debug, trace, silent/],
    ['GAS_ENABLED', 'maybe', /expected true or false, got "maybe"/],
    ['INDEX_EVM', '2', /expected true or false/],
    ['OAUTH_ALLOW_NO_EXP', 'sometimes', /expected true or false/],
    ['IDENTITY_REQUIRED', 'y', /expected true or false/],
    ['IDENTITY_AUTO_ENROLL', 'n', /expected true or false/],
    ['RAW_TX_REQUIRE_SIGNED_METADATA', 'nope', /expected true or false/],
    ['NATS_URL', 'not a url', /expected a URL$/],
    ['NATS_URL', 'http://h:4222', /expected a URL with scheme nats: or tls: or ws: or wss:, got http:/],
    ['DATABASE_URL', 'mysql://h/db', /expected a URL with scheme postgres: or postgresql:, got mysql:/],
    ['CIRRUS_READ_DATABASE_URL', 'http://h/db', /expected a URL with scheme postgres: or postgresql:, got http:/],
    // spliced into GRANT: a plain identifier only
    ['CIRRUS_READ_ROLE', 'reader; DROP TABLE x', /expected a plain role name/],
    ['CIRRUS_READ_ROLE', 'Reader', /expected a plain role name/],
    ['OAUTH_DISCOVERY_URL', 'ftp://id.example', /scheme http: or https:/],
    // a node's name names a NATS server, an account and consumers: no dots, spaces or capitals
    ['NODE_NAME', 'Node.1', /expected a lower-case letter, then up to 30 lower-case letters, digits or dashes, got "Node.1"/],
    ['NODE_NAME', '1node', /expected a lower-case letter/],
    ['NETWORK_REPLICAS', '0', /from 1 to 5, got 0/],
  ])('%s=%s', (variable, value, message) => {
    const err = refusal({ [variable]: value });
    expect(err.name).toBe('ConfigError');
    expect(err.variable).toBe(variable);
    expect(err.message.startsWith(`${variable}: `)).toBe(true);
    expect(err.message).toMatch(message);
  });

  test('EXT_STORAGE_OBJ_BUCKET without a key names the missing key', () => {
    expect(refusal({ EXT_STORAGE_OBJ_BUCKET: 'files' }).variable).toBe('EXT_STORAGE_OBJ_ACCESS_KEY_ID');
    expect(refusal({ EXT_STORAGE_OBJ_BUCKET: 'files', EXT_STORAGE_OBJ_ACCESS_KEY_ID: 'id' }).variable).toBe('EXT_STORAGE_OBJ_SECRET_ACCESS_KEY');
    const withKeys = { EXT_STORAGE_OBJ_BUCKET: 'files', EXT_STORAGE_OBJ_ACCESS_KEY_ID: 'id', EXT_STORAGE_OBJ_SECRET_ACCESS_KEY: 'key' };
    expect(refusal({ ...withKeys, EXT_STORAGE_OBJ_ENDPOINT: 's3.example' }).variable).toBe('EXT_STORAGE_OBJ_ENDPOINT');
  });
});

describe('NATS_CREDENTIALS', () => {
  const dir = mkdtempSync(join(tmpdir(), 'platform-common-config-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('a seed given as itself', () => {
    expect(loadConfig({ NATS_CREDENTIALS: SEED }).natsCredentials).toBe(SEED);
  });

  test('the path of a file holding the seed, surrounding whitespace ignored', () => {
    const file = join(dir, 'gateway.nk');
    writeFileSync(file, `\n${SEED}\n`, { mode: 0o600 });
    expect(loadConfig({ NATS_CREDENTIALS: file }).natsCredentials).toBe(SEED);
  });

  test('a file that cannot be read is refused with its path and the reason', () => {
    const missing = join(dir, 'missing.nk');
    const err = refusal({ NATS_CREDENTIALS: missing });
    expect(err.variable).toBe('NATS_CREDENTIALS');
    expect(err.message).toBe(`NATS_CREDENTIALS: cannot read the credentials file ${missing}: ENOENT`);
  });

  test('a file that holds something else is refused without echoing its content', () => {
    const file = join(dir, 'wrong.nk');
    writeFileSync(file, 'not-a-seed-but-a-secret-all-the-same\n', { mode: 0o600 });
    const err = refusal({ NATS_CREDENTIALS: file });
    expect(err.variable).toBe('NATS_CREDENTIALS');
    expect(err.message).toContain('does not hold an nkey seed');
    expect(err.message).not.toContain('secret-all-the-same');
  });

  test('a seed of the wrong shape is taken for a path, and refused as one', () => {
    const err = refusal({ NATS_CREDENTIALS: 'SUshort' });
    expect(err.message).toMatch(/cannot read the credentials file SUshort/);
  });
});

describe('envWithFlags', () => {
  test('--indexEVM=… sets INDEX_EVM and overrides the environment; other arguments are ignored', () => {
    const env = { INDEX_EVM: 'false', PORT: '1' };
    expect(envWithFlags(env, ['--reset', '--indexEVM=true', '--unknown=1'])).toEqual({ INDEX_EVM: 'true', PORT: '1' });
    expect(env.INDEX_EVM).toBe('false'); // the given environment is not changed
    expect(loadConfig(envWithFlags({}, ['--indexEVM=true'])).indexEvm).toBe(true);
  });

  test('a bad flag value is refused under the variable it stands for', () => {
    expect(refusal(envWithFlags({}, ['--indexEVM=perhaps']) as Record<string, string>).variable).toBe('INDEX_EVM');
  });
});
