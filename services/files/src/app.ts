// The files service's HTTP server, behind the gateway: the reference file
// application (`/api/v1/files`, routes.ts) and the legacy file storage
// (`/apex-api/bloc/file`, legacy.ts). Bodies stream: the gateway passes an
// upload through as it arrives and this server hands it to the object store
// part by part. It checks the bearer token itself too, so that its port is
// no way around the gateway's check.
import { randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyError, type FastifyInstance } from 'fastify';
import './auth.js';
import type { TokenVerifier } from '@platform/auth';
import { wwwAuthenticate } from '@platform/auth';
import type { NatsConnection } from '@platform/bus';
import { PlatformError, type FilesConfig, type Logger, type NodeConfig } from '@platform/common';
import { errorBody } from './errors.js';
import { Ledger } from './ledger.js';
import { CirrusReader } from './cirrus.js';
import { LEGACY_CONTENT_PATH, legacyRoutes } from './legacy.js';
import { PAGE_PATHS, pageRoutes } from './page.js';
import { Records } from './records.js';
import { fileRoutes } from './routes.js';
import type { ObjectStore } from './store.js';

export interface FilesDeps {
  config: Pick<NodeConfig, 'resolveTimeoutMs' | 'gasEnabled' | 'oauthAllowNoExp'> & { files: Pick<FilesConfig, 'maxBytes'> };
  logger: Logger;
  nc: NatsConnection;
  verifier: TokenVerifier;
  /** the file application's store */
  store: ObjectStore;
  /** the legacy file storage's store: null when EXT_STORAGE_OBJ_* leave it off */
  legacyStore: ObjectStore | null;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** JSON and form bodies (a `member`, a `contractAddress`): small; uploads are not parsed, they stream */
const SMALL_BODY_LIMIT = 64 * 1024;

function toError(error: unknown): PlatformError {
  if (error instanceof PlatformError) return error;
  const e = error as Partial<FastifyError>;
  if (e?.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return new PlatformError('BODY_TOO_LARGE', `the body exceeds the limit of ${SMALL_BODY_LIMIT} bytes`, { limit: SMALL_BODY_LIMIT });
  if (e?.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || e?.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') return new PlatformError('INVALID_JSON', e.message ?? 'the body is not JSON');
  if (e?.statusCode && e.statusCode >= 400 && e.statusCode < 500) return new PlatformError('BAD_REQUEST', e.message ?? 'the request is not valid');
  return new PlatformError('INTERNAL', 'internal error; report the request id', undefined, { cause: error });
}

export async function buildFilesApp(deps: FilesDeps): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: SMALL_BODY_LIMIT,
    // an upload of gigabytes takes as long as it takes; the gateway in front bounds a stalled client
    requestTimeout: 0,
    // the spec writes the upload's route as `/api/v1/files/`
    routerOptions: { ignoreTrailingSlash: true },
    genReqId: (request) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
  });
  app.decorateRequest('principal', null);
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    // a one-time download URL is its own credential (legacy.ts)
    const path = request.url.split('?')[0]!;
    if (path === '/health' || path === LEGACY_CONTENT_PATH || PAGE_PATHS.includes(path)) return;
    request.principal = await deps.verifier.verify(request.headers.authorization, { allowNoExp: deps.config.oauthAllowNoExp });
  });
  app.addHook('onResponse', async (request, reply) => {
    request.log.info({ method: request.method, url: request.url.split('?')[0], status: reply.statusCode, ms: Math.round(reply.elapsedTime) }, 'request');
  });
  // uploads are read by the routes as they stream (multipart.ts); other bodies of no known type are left unread
  app.addContentTypeParser('multipart/form-data', (_request, _payload, done) => done(null, undefined));
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))));
  app.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
  app.setErrorHandler(async (error, request, reply) => {
    const platformError = toError(error);
    if (platformError.code === 'INTERNAL' && !(error instanceof PlatformError)) request.log.error({ err: error }, 'request failed');
    else if (platformError.status >= 500) request.log.warn({ code: platformError.code, reason: platformError.message }, 'request failed');
    if (platformError.status === 401) reply.header('www-authenticate', wwwAuthenticate(platformError));
    // the unread rest of a refused upload is dropped, so that its client reads the answer rather than a broken pipe
    if (!request.raw.readableEnded) request.raw.resume();
    return reply.status(platformError.status).type('application/json; charset=utf-8').send(errorBody(platformError, request.id));
  });
  app.setNotFoundHandler((request, reply) => {
    const error = new PlatformError('ROUTE_NOT_FOUND', `no endpoint ${request.method} ${request.url.split('?')[0]}; see /docs`);
    return reply.status(404).type('application/json; charset=utf-8').send(errorBody(error, request.id));
  });
  app.get('/health', async () => ({ status: 'ok' }));

  const ledger = new Ledger(deps.nc, deps.config.resolveTimeoutMs);
  const cirrus = new CirrusReader(deps.nc, ledger);
  const records = new Records(cirrus);
  fileRoutes(app, { ledger, records, store: deps.store, logger: deps.logger, maxBytes: deps.config.files.maxBytes, gasEnabled: deps.config.gasEnabled });
  pageRoutes(app);
  legacyRoutes(app, { ledger, cirrus, store: deps.legacyStore, logger: deps.logger, maxBytes: deps.config.files.maxBytes });
  return app;
}
