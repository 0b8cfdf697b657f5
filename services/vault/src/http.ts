// The `{vault_url}` HTTP API: the key and signature routes for the token's
// user, the users listing (administrators), and health. Same error body as every platform
// endpoint; 400 for anything wrong with a request, never 500.
import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import Fastify, { LogController, type FastifyError, type FastifyReply, type FastifyRequest } from 'fastify';
import { PlatformError, clientErrorOf, rawErrorResponse, toPlatformError, type Logger } from '@platform/common';
import { isAdministrator, wwwAuthenticate, type TokenVerifier } from '@platform/auth';
import type { KeyStore } from './keystore.js';
import { requestObject } from './validate.js';

export interface HttpOptions {
  store: KeyStore;
  verifier: TokenVerifier;
  logger: Logger;
  /** largest accepted body, bytes */
  bodyLimit: number;
  /** throws when the vault cannot serve (its database is down) */
  health: () => Promise<void>;
  /** ADMIN_USERS: who may list the users (as may a token with the `admin` role) */
  adminUsers?: readonly string[];
  /** OAUTH_ALLOW_NO_EXP */
  allowNoExp?: boolean;
}

/** The whole request must arrive within this; a client trickling it is cut off with 408. */
const REQUEST_TIMEOUT_MS = 30_000;

const PREFIX = '/platform/v2.3';

export function createHttpServer(options: HttpOptions) {
  const { store, verifier } = options;
  const app = Fastify({
    loggerInstance: options.logger,
    // one line per request would dominate the log on the signing path; failures are logged below
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: () => randomUUID(),
    bodyLimit: options.bodyLimit,
    requestTimeout: REQUEST_TIMEOUT_MS,
    // what the router and Node's HTTP parser refuse answers with the error body too
    frameworkErrors: (err: FastifyError, req: FastifyRequest, reply: FastifyReply) => {
      const error = err.code === 'FST_ERR_MAX_PARAM_LENGTH' ? new PlatformError('URI_TOO_LONG', 'a segment of the path is too long') : new PlatformError('BAD_REQUEST', err.code === 'FST_ERR_BAD_URL' ? 'the path is not valid percent-encoded UTF-8' : 'the request is not valid');
      sendError(reply, error, req.id);
    },
    clientErrorHandler: (err: NodeJS.ErrnoException, socket: Socket) => {
      if (err.code === 'ECONNRESET' || socket.destroyed) return;
      if (!socket.writable) return void socket.destroy();
      socket.end(rawErrorResponse(clientErrorOf(err.code), randomUUID()));
      setTimeout(() => socket.destroy(), 1_000).unref();
    },
  });

  // Bodies are taken as bytes whatever their content type: routes without a
  // body ignore it (the platform's client sends empty forms), and the one route
  // with a body parses it itself, so bad JSON is our 400, not a framework's.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));

  const principal = (req: FastifyRequest) => verifier.verify(req.headers.authorization, { allowNoExp: options.allowNoExp ?? false });
  const username = async (req: FastifyRequest) => (await principal(req)).username;
  const keyAnswer = (record: { address: string; pubkey: string }) => ({ status: 'success', address: record.address, pubkey: record.pubkey });

  app.get(`${PREFIX}/key`, async (req) => keyAnswer(await store.get(await username(req))));
  app.post(`${PREFIX}/key`, async (req) => keyAnswer(await store.create(await username(req))));

  app.post(`${PREFIX}/signature`, async (req) => {
    const user = await username(req);
    const body = requestObject(jsonBody(req.body), 'signature');
    return store.sign(user, body.msgHash);
  });

  // every username and address of the node: for administrators only
  app.get(`${PREFIX}/users`, async (req) => {
    const who = await principal(req);
    if (!isAdministrator(who, options.adminUsers ?? [])) throw new PlatformError('FORBIDDEN', `${who.username} may not list the users: the list is for administrators (ADMIN_USERS, or the "admin" role)`);
    const users = await store.users(req.query as Record<string, unknown>);
    return users.map((u) => ({ username: u.username, address: u.address }));
  });

  app.get('/health', async () => {
    await options.health();
    return { status: 'ok' };
  });

  app.setNotFoundHandler((req, reply) => {
    sendError(reply, new PlatformError('ROUTE_NOT_FOUND', `no route ${req.method} ${req.url.split('?')[0]}`), req.id);
  });
  app.setErrorHandler((err, req, reply) => {
    const error = httpError(err, options.bodyLimit);
    if (error.code === 'INTERNAL') req.log.error({ err, requestId: req.id, url: req.url.split('?')[0] }, 'request failed');
    sendError(reply, error, req.id);
  });
  return app;
}

function jsonBody(body: unknown): unknown {
  if (!Buffer.isBuffer(body) || body.length === 0) throw new PlatformError('VALIDATION_FAILED', 'send a JSON body {"msgHash": "<64 hex digits>"}');
  // plain JSON.parse, not the lossless parser: that one turns a long number into
  // its digits as a string, which would pass for hex; no field here is a number
  try {
    return JSON.parse(body.toString('utf8'));
  } catch (err) {
    throw new PlatformError('INVALID_JSON', `the body is not valid JSON: ${err instanceof Error ? err.message : 'parse error'}`);
  }
}

function sendError(reply: FastifyReply, error: PlatformError, requestId: string): void {
  if (error.status === 401) reply.header('WWW-Authenticate', wwwAuthenticate(error));
  void reply.status(error.status).type('application/json').send(error.toBody(requestId));
}

/** Fastify's own request errors (body too large, bad Content-Length, …) are the client's: 4xx, never 500. */
function httpError(err: unknown, bodyLimit: number): PlatformError {
  if (err instanceof PlatformError) return err;
  const e = err as { code?: unknown; statusCode?: unknown; message?: unknown };
  if (e?.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return new PlatformError('BODY_TOO_LARGE', `the body exceeds the vault's limit of ${bodyLimit} bytes`, { limit: bodyLimit });
  if (typeof e?.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) return new PlatformError('BAD_REQUEST', String(e.message));
  return toPlatformError(err);
}
