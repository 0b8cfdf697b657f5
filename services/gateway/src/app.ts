// The gateway: the node's only HTTP entrance for the spec's endpoints. It
// authenticates, validates and routes each request to the service that owns
// it over NATS. It owns no database; the one exception is `/cirrus/search`,
// answered here by reading cirrus's schema as a read-only role when
// CIRRUS_READ_DATABASE_URL is set (routes/cirrus.ts, docs/architecture.md).
import { randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { Logger, NodeConfig } from '@platform/common';
import type { TokenVerifier } from '@platform/auth';
import type { NatsConnection, ServiceName } from '@platform/bus';
import { startCirrusReader } from '@platform/cirrus-read';
import { requireToken } from './auth.js';
import { installBodyParsers } from './body.js';
import { installRequestDeadline } from './deadline.js';
import { MAX_PARAM_LENGTH, clientErrorHandler, frameworkErrors, installErrorHandling } from './errors.js';
import { installObservability } from './observability.js';
import { requestLoggerFactory } from './request-logger.js';
import { chainInfoRoutes } from './routes/chain-info.js';
import { networkRoutes } from './routes/network.js';
import { chainRoutes } from './routes/chains.js';
import { dashboardRoutes } from './routes/dashboard.js';
import { eventRoutes } from './routes/events.js';
import { cirrusRoutes } from './routes/cirrus.js';
import { FILE_PATHS, PUBLIC_PATHS, fileRoutes } from './routes/files.js';
import { keyRoutes } from './routes/key.js';
import { x509Routes } from './routes/x509.js';
import { TX_RESULT_SCHEMA, transactionRoutes } from './routes/transactions.js';
import { ResolveHub } from './resolve.js';

export interface GatewayDeps {
  config: Pick<NodeConfig, 'bodyLimit' | 'resolveTimeoutMs' | 'identityAutoEnroll' | 'nodeOrg' | 'adminUsers'> &
    Partial<Pick<NodeConfig, 'oauthAllowNoExp' | 'host' | 'port' | 'vaultPort' | 'oauthDiscoveryUrl' | 'files' | 'events' | 'dashboardClientId' | 'cirrusReadDatabaseUrl'>>;
  logger: Logger;
  nc: NatsConnection;
  verifier: TokenVerifier;
  /** how long a body may take after its headers (60 s; tests shorten it) */
  requestTimeoutMs?: number;
}

/** Services the registered routes call; /ready waits for each. Grows as routes are added. */
const ROUTED_SERVICES: ServiceName[] = ['vault', 'tx', 'block', 'cirrus', 'chains'];

/** EVENTS_HEARTBEAT_MS and EVENTS_BUFFER_BYTES unset (libs/common config) */
const DEFAULT_EVENTS = { heartbeatMs: 15_000, bufferBytes: 1024 * 1024 };

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** What a request's message on the bus carries besides its body (the user, the route's other fields, headers). */
const BUS_HEADROOM = 64 * 1024;
/** Headers, then a body, must each arrive within this; a client trickling either is cut off with 408 (a file's transfer: when it stalls this long; deadline.ts). */
const REQUEST_TIMEOUT_MS = 60_000;

/**
 * The largest body the gateway takes: BODY_LIMIT_BYTES, but never more than
 * the bus carries in one message (the server's max_payload, less room for
 * the rest of the message): a larger body could only fail later, as a 503,
 * so it is refused with 413 before it is read.
 */
export function effectiveBodyLimit(configured: number, maxPayload: number | undefined): number {
  if (maxPayload === undefined) return configured;
  return Math.max(1024, Math.min(configured, maxPayload - BUS_HEADROOM));
}

export const ERROR_BODY_SCHEMA = {
  $id: 'ErrorBody',
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: { type: 'string', description: 'stable error code' },
        message: { type: 'string' },
        details: { type: 'object', additionalProperties: true },
        requestId: { type: 'string', description: 'correlates with the node logs' },
      },
    },
  },
} as const;

export async function buildGateway(deps: GatewayDeps): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    // one line per request, written by the onResponse hook below
    logController: new LogController({ disableRequestLogging: true }),
    // each request's child logger is made when the request first logs (request-logger.ts)
    childLoggerFactory: requestLoggerFactory,
    bodyLimit: effectiveBodyLimit(deps.config.bodyLimit, deps.nc.info?.max_payload),
    // Node's limit is the whole server's: it stays on headers (its headersTimeout, 60 s), and each body gets its own (deadline.ts)
    requestTimeout: 0,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    // what the router and Node's HTTP parser refuse answers with the platform's error body too
    frameworkErrors,
    clientErrorHandler,
    // a client's id is kept when it is a plain token, so that its logs and ours match
    genReqId: (request) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    ajv: { customOptions: { coerceTypes: false, allErrors: false } },
  });
  app.decorateRequest('principal', null);
  // hooks that never wait are written with `done`: an async one costs a promise and a turn of the microtask queue per request
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    if (deps.logger.isLevelEnabled('info')) request.log.info({ method: request.method, url: request.url.split('?')[0], status: reply.statusCode, ms: Math.round(reply.elapsedTime) }, 'request');
    done();
  });
  installRequestDeadline(app, deps.requestTimeoutMs ?? REQUEST_TIMEOUT_MS);
  installBodyParsers(app);
  installErrorHandling(app);
  app.addSchema(ERROR_BODY_SCHEMA);
  app.addSchema(TX_RESULT_SCHEMA);
  const hub = new ResolveHub(deps.nc, deps.logger);
  app.addHook('onClose', async () => hub.close());
  // `/cirrus/search` read here, as the read-only role, when the node gives its URL
  const cirrusReader = deps.config.cirrusReadDatabaseUrl ? startCirrusReader({ databaseUrl: deps.config.cirrusReadDatabaseUrl, logger: deps.logger, applicationName: 'gateway-cirrus-read' }) : undefined;
  if (cirrusReader) app.addHook('onClose', async () => cirrusReader.stop());

  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: { title: 'Platform REST interface', version: '2.3', description: 'Accounts, transactions, contract data and private chains of a node.' },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
      security: [{ bearer: [] }],
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  installObservability(app, { nc: deps.nc, verifier: deps.verifier, services: ROUTED_SERVICES, filesUrl: deps.config.files?.url ?? undefined, ...(cirrusReader ? { cirrusReader } : {}) });

  // every spec endpoint: behind the token check
  await app.register(async (platform) => {
    requireToken(platform, deps.verifier, { allowNoExp: deps.config.oauthAllowNoExp ?? false });
    keyRoutes(platform, { nc: deps.nc, hub, config: deps.config });
    x509Routes(platform, { nc: deps.nc, config: deps.config });
    cirrusRoutes(platform, { nc: deps.nc, logger: deps.logger, reader: cirrusReader });
    transactionRoutes(platform, { nc: deps.nc, hub, resolveTimeoutMs: deps.config.resolveTimeoutMs });
    chainInfoRoutes(platform, deps.nc);
    chainRoutes(platform, deps.nc);
    networkRoutes(platform, { nc: deps.nc, config: deps.config });
    // the files service's endpoints, passed through as streams (FILES_URL; `none`: the node has none)
    if (deps.config.files?.url) fileRoutes(platform, deps.config.files.url, FILE_PATHS);
  });
  if (deps.config.files?.url) fileRoutes(app, deps.config.files.url, PUBLIC_PATHS);
  // the live events take a ticket instead of the bearer token (EventSource): their own token check
  eventRoutes(app, { nc: deps.nc, logger: deps.logger, verifier: deps.verifier, config: { ...(deps.config.events ?? DEFAULT_EVENTS), allowNoExp: deps.config.oauthAllowNoExp ?? false } });
  if (deps.config.oauthDiscoveryUrl) await dashboardRoutes(app, { discoveryUrl: deps.config.oauthDiscoveryUrl, clientId: deps.config.dashboardClientId ?? 'platform-dashboard' });
  return app;
}
