// The vault service: users' secp256k1 keys, encrypted at rest in its own
// PostgreSQL schema; signing on their behalf over NATS; the `{vault_url}` API.
import type { AddressInfo } from 'node:net';
import { runStopSteps, type Logger, type NodeConfig } from '@platform/common';
import { connectBus, serve, type BusCredentials } from '@platform/bus';
import { createTokenVerifier } from '@platform/auth';
import { loadCa } from './ca.js';
import { createPool, ping, prepareDatabase } from './db.js';
import { vaultHandlers } from './endpoints.js';
import { createHttpServer } from './http.js';
import { KeyStore } from './keystore.js';

export { MasterKeyError } from './master-key.js';

export interface VaultOptions {
  config: NodeConfig;
  logger: Logger;
  natsUrl: string;
  /** the service's NATS user; absent only against a test server that admits unauthenticated connections */
  natsCredentials?: BusCredentials | null;
  databaseUrl: string;
  /** decrypted keys kept in memory; default 10 000 */
  cacheSize?: number;
}

export interface RunningVault {
  /** the `{vault_url}`, with the port actually bound */
  httpUrl: string;
  /** HTTP close, NATS service stop, NATS drain, database pool end; idempotent */
  stop(): Promise<void>;
}

const VERSION = '0.1.0';
// the vault's own requests are tiny; a client's large body need not be buffered up to the node's limit
const MAX_BODY = 64 * 1024;

/**
 * Starts one vault instance. Rejects, having released what it opened, when the
 * database cannot be migrated, the master key is not the vault's
 * (MasterKeyError, whose message says what to do), or the port is taken.
 */
export async function startVault(options: VaultOptions): Promise<RunningVault> {
  const { config, logger } = options;
  // the steps that undo the start, newest first, so stop() runs them in the order the brief gives
  const undo: Array<() => Promise<unknown>> = [];
  const pool = createPool(options.databaseUrl);
  pool.on('error', (err) => logger.warn({ err }, 'an idle database connection failed'));
  undo.unshift(() => pool.end());
  let store: KeyStore | undefined;
  try {
    // a CA in the data dir may appear after the vault started (the launcher creates it): looked for again when needed
    let ca = loadCa(config);
    if (!ca) logger.warn('no node certificate authority yet (NODE_CA_CERT / NODE_CA_KEY, or the data dir\'s ca/): certificates cannot be issued until there is one');
    const caNow = () => (ca ??= loadCa(config));
    const { key: masterKey, rotated } = await prepareDatabase(pool, { password: config.vaultPassword, newPassword: config.vaultNewPassword, dataDir: config.dataDir });
    if (rotated) logger.warn("the vault's keys are now encrypted with VAULT_NEW_PASSWORD: set VAULT_PASSWORD to it (and unset VAULT_NEW_PASSWORD) for the next start");
    store = new KeyStore({ pool, masterKey, logger, ...(options.cacheSize ? { cacheSize: options.cacheSize } : {}) });

    const nc = await connectBus({ url: options.natsUrl, name: 'vault', credentials: options.natsCredentials ?? null, logger });
    undo.unshift(() => nc.drain());
    const service = await serve(nc, { name: 'vault', version: VERSION, description: "users' keys and signatures", logger }, vaultHandlers(store, caNow));
    undo.unshift(() => service.stop());
    // the subscriptions reach the server asynchronously: a round trip makes "started" mean "answering"
    await nc.flush();

    const verifier = createTokenVerifier({
      discoveryUrl: config.oauthDiscoveryUrl ?? `http://127.0.0.1:${config.idpPort}/.well-known/openid-configuration`,
      audience: config.oauthAudience,
      usernameClaims: config.oauthUsernameClaims,
      orgClaim: config.oauthOrgClaim,
      allowNoExp: config.oauthAllowNoExp,
    });
    const app = createHttpServer({
      store,
      verifier,
      logger,
      bodyLimit: Math.min(config.bodyLimit, MAX_BODY),
      health: () => ping(pool),
      adminUsers: config.adminUsers,
      allowNoExp: config.oauthAllowNoExp,
    });
    undo.unshift(() => app.close());
    await app.listen({ host: config.host, port: config.vaultPort });
    const httpUrl = urlOf(app.server.address() as AddressInfo);
    logger.info({ httpUrl }, 'vault started');

    let stopping: Promise<void> | undefined;
    const keys = store;
    return {
      httpUrl,
      stop: () => (stopping ??= runStopSteps(undo, logger).then(() => keys.clear())),
    };
  } catch (err) {
    await runStopSteps(undo, logger);
    store?.clear();
    throw err;
  }
}


function urlOf(address: AddressInfo): string {
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}
