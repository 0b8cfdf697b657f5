// Typed request/reply between services, on `@nats-io/services`: every endpoint
// of a service subscribes in the service's queue group, so two instances of a
// service share the load, and `ping` finds them for readiness checks.
//
// Errors over the wire: a handler that throws a PlatformError answers with the
// NATS micro error headers (status and message) and the error body as data;
// the caller rebuilds the same PlatformError, so the gateway answers with the
// code the service chose. Anything else thrown becomes INTERNAL, logged on the
// service side with its stack, and nothing of it crosses the wire.
//
// Batched calls: every endpoint also answers on `<subject>.batch` a list of
// requests with the list of their outcomes. A caller that makes many calls to
// one endpoint at once (the gateway, one per HTTP request) sends those made in
// one event-loop turn as one message: on this machine a NATS message costs
// more in system calls than most handlers cost in work.
//
// Answers of any size: an answer larger than a message (the server's
// max_payload less 64 KiB: a transaction result near the execution limits,
// whose values JSON escapes several times over, a batch of them) is kept by
// the instance that made it, for a minute, and the reply says where to fetch
// it in parts (`_REPLY_PARTS.<service>.<instance>`, that instance alone);
// the caller fetches them and hands over the whole answer. Before, such an
// answer could not be sent at all: the caller waited for its timeout.
import type { Msg, NatsConnection, RequestOptions } from '@nats-io/nats-core';
import { NoRespondersError, RequestError, headers as natsHeaders } from '@nats-io/nats-core';
import { isTimeout } from './jetstream.js';
import { Svcm, type Service, type ServiceMsg } from '@nats-io/services';
import { randomBytes } from 'node:crypto';
import { PlatformError, isErrorCode, toPlatformError, type ErrorBody, type ErrorCode, type Logger } from '@platform/common';
import { decodeJson, encodeJson, jsonTextOf } from './codec.js';
import type { ServiceName } from './subjects.js';

const encoder = new TextEncoder();

/** A request/reply endpoint: its subject and, as phantom types, its messages. */
export interface Endpoint<Req, Res> {
  readonly service: ServiceName;
  /** the endpoint's name in the service's info */
  readonly name: string;
  readonly subject: string;
  /** never set: carries the request and response types */
  readonly types?: { request: Req; response: Res };
}

export function defineEndpoint<Req, Res>(service: ServiceName, name: string, subject: string): Endpoint<Req, Res> {
  return { service, name, subject };
}

export type RequestOf<E> = E extends Endpoint<infer Req, unknown> ? Req : never;
export type ResponseOf<E> = E extends Endpoint<unknown, infer Res> ? Res : never;

/** Metadata that travels with every request (as headers). */
export interface RequestMeta {
  /** the gateway's request id, so that a service's log lines can be matched to the HTTP request */
  requestId?: string;
}

export interface Handler {
  readonly endpoint: Endpoint<unknown, unknown>;
  readonly run: (request: unknown, meta: RequestMeta) => Promise<unknown>;
}

export function handle<Req, Res>(endpoint: Endpoint<Req, Res>, run: (request: Req, meta: RequestMeta) => Promise<Res> | Res): Handler {
  return { endpoint: endpoint as Endpoint<unknown, unknown>, run: async (request, meta) => run(request as Req, meta) };
}

export interface ServeOptions {
  name: ServiceName;
  version: string;
  description?: string;
  logger: Logger;
}

const REQUEST_ID_HEADER = 'Platform-Request-Id';
const ERROR_HEADER = 'Nats-Service-Error-Code';
/** set on a reply that says where its answer's parts are */
const PARTS_HEADER = 'Platform-Reply-Parts';
/** room left in a message for headers */
const HEADROOM = 64 * 1024;
/** how long an instance keeps an answer in parts for its caller */
const PARTS_KEPT_MS = 60_000;
/**
 * most bytes of such answers an instance keeps at once: callers fetch the
 * parts right after the reply, so only callers that never do fill this; the
 * oldest answer goes first, and its caller, if it comes late, is told to call again
 */
const MAX_KEPT_BYTES = 256 * 1024 * 1024;

/** The subject prefix of a service's answers in parts; an instance answers `<prefix>.<instance>` (permissions.ts grants it). */
export function replyPartsPrefix(service: ServiceName): string {
  return `_REPLY_PARTS.${service}`;
}

/** Where an answer too large for a message is, and how to ask for it. */
interface PartsRef {
  subject: string;
  id: string;
  parts: number;
  bytes: number;
}

/**
 * The answers of one service instance kept in parts, and the subscription
 * that hands them out. Not in the queue group: the caller asks the instance
 * that made the answer.
 */
class ReplyParts {
  /** in the order they were made */
  private readonly kept = new Map<string, { data: Uint8Array; served: Set<number> }>();
  private keptBytes = 0;
  private readonly subscription: { unsubscribe(): void };
  readonly subject: string;
  readonly limit: number;

  constructor(
    private readonly nc: NatsConnection,
    service: ServiceName,
    logger: Logger,
  ) {
    this.subject = `${replyPartsPrefix(service)}.${randomBytes(8).toString('hex')}`;
    const max = nc.info?.max_payload ?? 1024 * 1024;
    // (a server with a small limit: half of it, not less than nothing)
    this.limit = Math.max(Math.floor(max / 2), max - HEADROOM);
    this.subscription = nc.subscribe(this.subject, {
      callback: (err, msg) => {
        if (err) {
          logger.error({ err, subject: this.subject }, 'the reply-parts subscription failed');
          return;
        }
        try {
          const { id, i } = decodeJson<{ id: string; i: number }>(msg.data);
          const entry = this.kept.get(id);
          if (!entry || !Number.isInteger(i)) throw new PlatformError('ANSWER_EXPIRED', 'that answer is no longer kept: call again');
          msg.respond(entry.data.subarray(i * this.limit, (i + 1) * this.limit));
          entry.served.add(i);
          if (entry.served.size * this.limit >= entry.data.length) this.forget(id);
        } catch (thrown) {
          const error = toPlatformError(thrown);
          msg.respond(encodeJson(error.toBody()), { headers: errorHeaders(error) });
        }
      },
    });
  }

  close(): void {
    this.subscription.unsubscribe();
    this.kept.clear();
    this.keptBytes = 0;
  }

  private forget(id: string): void {
    const entry = this.kept.get(id);
    if (!entry) return;
    this.kept.delete(id);
    this.keptBytes -= entry.data.length;
  }

  /** Answers `data`, in parts when it does not fit in a message. */
  respond(msg: ServiceMsg, data: Uint8Array): void {
    if (data.length <= this.limit) {
      msg.respond(data);
      return;
    }
    const id = randomBytes(12).toString('hex');
    for (const [oldest] of this.kept) {
      if (this.keptBytes + data.length <= MAX_KEPT_BYTES) break;
      this.forget(oldest);
    }
    this.kept.set(id, { data, served: new Set() });
    this.keptBytes += data.length;
    setTimeout(() => this.forget(id), PARTS_KEPT_MS).unref();
    const hdrs = natsHeaders();
    hdrs.set(PARTS_HEADER, '1');
    const ref: PartsRef = { subject: this.subject, id, parts: Math.ceil(data.length / this.limit), bytes: data.length };
    // (@nats-io/services is typed against an older nats-core: the same headers at runtime)
    msg.respond(encodeJson(ref), { headers: hdrs as never });
  }
}

function errorHeaders(error: PlatformError) {
  const hdrs = natsHeaders();
  hdrs.set(ERROR_HEADER, String(error.status));
  return hdrs;
}

/** Starts answering the given endpoints as one service instance. Stop it with `service.stop()`. */
export async function serve(nc: NatsConnection, options: ServeOptions, handlers: Handler[]): Promise<Service> {
  // `@nats-io/services` is built against an older nats-core release whose
  // connection type differs only in private members; the runtime contract is the same
  const service = await new Svcm(nc as never).add({
    name: options.name,
    version: options.version,
    description: options.description ?? '',
    queue: options.name,
  });
  const parts = new ReplyParts(nc, options.name, options.logger);
  void service.stopped.then(
    () => parts.close(),
    () => parts.close(),
  );
  for (const handler of handlers) {
    if (handler.endpoint.service !== options.name) {
      throw new Error(`endpoint ${handler.endpoint.subject} belongs to service ${handler.endpoint.service}, not ${options.name}`);
    }
    service.addEndpoint(handler.endpoint.name, {
      subject: handler.endpoint.subject,
      handler: (err, msg) => {
        if (err) {
          options.logger.error({ err, subject: handler.endpoint.subject }, 'endpoint subscription failed');
          return;
        }
        void answer(handler, msg, options.logger, parts);
      },
    });
    service.addEndpoint(`${handler.endpoint.name}-batch`, {
      subject: batchSubject(handler.endpoint),
      handler: (err, msg) => {
        if (err) {
          options.logger.error({ err, subject: batchSubject(handler.endpoint) }, 'endpoint subscription failed');
          return;
        }
        void answerBatch(handler, msg, options.logger, parts);
      },
    });
  }
  return service;
}

const batchSubject = (endpoint: Endpoint<unknown, unknown>) => `${endpoint.subject}.batch`;

/** One call of a batch on the wire. */
interface BatchedCall {
  request: unknown;
  requestId?: string;
}

/** One call's outcome on the wire: its response, or its error body. */
type BatchedAnswer = { value: unknown } | { error: ErrorBody['error'] };

async function answer(handler: Handler, msg: ServiceMsg, logger: Logger, parts: ReplyParts): Promise<void> {
  const requestId = msg.headers?.get(REQUEST_ID_HEADER) || undefined;
  const meta: RequestMeta = requestId ? { requestId } : {};
  try {
    let request: unknown;
    try {
      request = decodeJson(msg.data);
    } catch {
      throw new PlatformError('BAD_REQUEST', `the request on ${handler.endpoint.subject} is not JSON`);
    }
    const response = await handler.run(request, meta);
    parts.respond(msg, encodeJson(response));
  } catch (thrown) {
    const error = failureOf(handler, thrown, logger, requestId);
    msg.respondError(error.status, headerText(error.message), encodeJson(error.toBody()));
  }
}

/**
 * An error's message as the NATS error header's description: a header value
 * cannot hold CR or LF (nats-core throws, and the caller would get no answer
 * at all), and a message may echo a request's text. The body keeps the
 * message whole; the header is only a summary.
 */
function headerText(message: string): string {
  return message.replace(/[\r\n]+/g, ' ');
}

/** What a handler threw, as the PlatformError its caller gets; an unexpected one is logged here, with its stack, and crosses the wire as INTERNAL. */
function failureOf(handler: Handler, thrown: unknown, logger: Logger, requestId: string | undefined): PlatformError {
  const error = toPlatformError(thrown);
  if (error.code === 'INTERNAL') logger.error({ err: thrown, subject: handler.endpoint.subject, requestId }, 'endpoint failed');
  return error;
}

/** Runs every call of a batch at once (a handler may batch them further) and answers their outcomes in order. */
async function answerBatch(handler: Handler, msg: ServiceMsg, logger: Logger, parts: ReplyParts): Promise<void> {
  let calls: BatchedCall[];
  try {
    calls = decodeJson<BatchedCall[]>(msg.data);
    if (!Array.isArray(calls)) throw new Error('not a list');
  } catch {
    const error = new PlatformError('BAD_REQUEST', `the request on ${batchSubject(handler.endpoint)} is not a JSON list of calls`);
    msg.respondError(error.status, headerText(error.message), encodeJson(error.toBody()));
    return;
  }
  const answers = await Promise.all(
    calls.map(async ({ request, requestId }): Promise<BatchedAnswer> => {
      try {
        return { value: await handler.run(request, requestId ? { requestId } : {}) };
      } catch (thrown) {
        return failureOf(handler, thrown, logger, requestId).toBody();
      }
    }),
  );
  // a value may be pre-encoded text: each answer is written out on its own
  parts.respond(msg, new TextEncoder().encode(`[${answers.map((a) => ('value' in a ? `{"value":${jsonTextOf(a.value)}}` : JSON.stringify(a))).join(',')}]`));
}

export interface CallOptions extends RequestMeta {
  /** default 10 s */
  timeoutMs?: number;
}

/** Calls an endpoint; rejects with the service's PlatformError, or UNAVAILABLE when no instance answers. */
export async function call<Req, Res>(nc: NatsConnection, endpoint: Endpoint<Req, Res>, request: Req, options: CallOptions = {}): Promise<Res> {
  const hdrs = natsHeaders();
  if (options.requestId) hdrs.set(REQUEST_ID_HEADER, options.requestId);
  const reply = await requestReply(nc, endpoint, endpoint.subject, encodeJson(request), { timeout: options.timeoutMs ?? 10_000, headers: hdrs });
  return decodeJson<Res>(reply);
}

/**
 * A request on one of the endpoint's subjects: the answer's bytes, fetched in
 * parts when the service says so; rejects with UNAVAILABLE when nobody
 * answers, or with the error the service answered.
 */
async function requestReply(nc: NatsConnection, endpoint: Endpoint<unknown, unknown>, subject: string, data: Uint8Array, options: RequestOptions): Promise<Uint8Array> {
  let reply: Msg;
  try {
    reply = await nc.request(subject, data, options);
  } catch (err) {
    throw unavailable(endpoint, err);
  }
  if (reply.headers?.get(ERROR_HEADER)) throw remoteError(endpoint, reply);
  if (!reply.headers?.get(PARTS_HEADER)) return reply.data;
  const ref = decodeJson<PartsRef>(reply.data);
  const whole = new Uint8Array(ref.bytes);
  let at = 0;
  for (let i = 0; i < ref.parts; i++) {
    let part: Msg;
    try {
      part = await nc.request(ref.subject, encodeJson({ id: ref.id, i }), { timeout: options.timeout });
    } catch (err) {
      throw unavailable(endpoint, err);
    }
    if (part.headers?.get(ERROR_HEADER)) throw remoteError(endpoint, part);
    if (at + part.data.length > ref.bytes) throw new PlatformError('INTERNAL', `the ${endpoint.service} service answered in parts longer than it said`);
    whole.set(part.data, at);
    at += part.data.length;
  }
  if (at !== ref.bytes) throw new PlatformError('INTERNAL', `the ${endpoint.service} service answered ${at} bytes in parts, not the ${ref.bytes} it said`);
  return whole;
}

export interface BatchingOptions {
  /** most calls in one message (default 256) */
  maxCalls?: number;
  /** most request bytes in one message (default: the server's max_payload less 4 KiB for headers) */
  maxBytes?: number;
  /**
   * most messages awaiting their answer (default: no limit); calls made
   * meanwhile wait, together, for one to come back. Under load the messages
   * grow with the service's latency instead of staying one turn's worth.
   */
  maxInFlight?: number;
}

/**
 * A caller of `endpoint` that sends the calls made in one event-loop turn as
 * one message to the endpoint's batch twin, each call answered with its own
 * response or PlatformError, as `call` would. A lone call, and a call too big
 * to share a message, goes as a plain call.
 */
export function batchingCaller<Req, Res>(nc: NatsConnection, endpoint: Endpoint<Req, Res>, options: BatchingOptions = {}): (request: Req, meta?: RequestMeta) => Promise<Res> {
  const maxCalls = options.maxCalls ?? 256;
  const maxBytes = options.maxBytes ?? (nc.info?.max_payload ?? 1024 * 1024) - 4096;
  const maxInFlight = options.maxInFlight ?? Infinity;
  interface Queued {
    request: Req;
    meta: RequestMeta;
    text: string;
    resolve(value: Res): void;
    reject(err: unknown): void;
  }
  /** full batches waiting for a message to come back */
  const ready: Queued[][] = [];
  let open: Queued[] = [];
  let bytes = 0;
  let inFlight = 0;
  let scheduled = false;

  const send = (batch: Queued[]): Promise<void> => {
    if (batch.length === 1) {
      const [only] = batch;
      return call(nc, endpoint, only!.request, only!.meta).then(only!.resolve, only!.reject);
    }
    return sendBatch(nc, endpoint, batch.map((q) => q.text)).then(
      (answers) => batch.forEach((q, i) => settle(endpoint, answers[i], q)),
      (err: unknown) => batch.forEach((q) => q.reject(err)),
    );
  };
  const closeOpen = (): void => {
    if (open.length > 0) ready.push(open);
    open = [];
    bytes = 0;
  };
  const pump = (): void => {
    scheduled = false;
    while (inFlight < maxInFlight) {
      // full batches first; the open one goes only when a message may go now, else it keeps growing
      if (ready.length === 0) closeOpen();
      const batch = ready.shift();
      if (!batch) return;
      inFlight++;
      void send(batch).finally(() => {
        inFlight--;
        pump();
      });
    }
  };

  return (request, meta = {}) =>
    new Promise<Res>((resolve, reject) => {
      const text = JSON.stringify({ request, ...(meta.requestId ? { requestId: meta.requestId } : {}) } satisfies BatchedCall);
      // a call that would not fit a message with others goes alone, as a plain call
      if (text.length * 3 > maxBytes) return void call(nc, endpoint, request, meta).then(resolve, reject);
      if (open.length >= maxCalls || bytes + text.length * 3 > maxBytes) closeOpen();
      open.push({ request, meta, text, resolve, reject });
      bytes += text.length * 3;
      if (!scheduled) {
        scheduled = true;
        setImmediate(pump);
      }
    });
}

async function sendBatch<Req, Res>(nc: NatsConnection, endpoint: Endpoint<Req, Res>, texts: string[]): Promise<BatchedAnswer[]> {
  const reply = await requestReply(nc, endpoint, batchSubject(endpoint), encoder.encode(`[${texts.join(',')}]`), { timeout: 10_000 });
  const answers = decodeJson<BatchedAnswer[]>(reply);
  if (!Array.isArray(answers) || answers.length !== texts.length) throw new PlatformError('INTERNAL', `the ${endpoint.service} service answered a batch of ${texts.length} calls unreadably`);
  return answers;
}

function settle<Res>(endpoint: Endpoint<unknown, Res>, answer: BatchedAnswer | undefined, q: { resolve(value: Res): void; reject(err: unknown): void }): void {
  if (answer && 'error' in answer) q.reject(errorOfBody(endpoint, answer));
  else q.resolve(answer?.value as Res);
}

/** The PlatformError a service answered with, rebuilt from its body; INTERNAL for a body that is not ours. */
function errorOfBody(endpoint: Endpoint<unknown, unknown>, body: Partial<ErrorBody> | undefined): PlatformError {
  const error = body?.error;
  // a retired code comes from a peer of an older version: it is passed on as it came
  if (isErrorCode(error?.code)) return new PlatformError(error.code as ErrorCode, String(error.message), error.details);
  return new PlatformError('INTERNAL', `the ${endpoint.service} service answered with an unreadable error`);
}

function unavailable(endpoint: Endpoint<unknown, unknown>, err: unknown): PlatformError {
  const noResponders = err instanceof NoRespondersError || (err instanceof RequestError && err.isNoResponders());
  const timedOut = isTimeout(err);
  const why = noResponders ? 'is not running' : timedOut ? 'did not answer in time' : 'could not be reached';
  return new PlatformError('UNAVAILABLE', `the ${endpoint.service} service ${why}; try again shortly`, { service: endpoint.service }, { cause: err });
}

function remoteError(endpoint: Endpoint<unknown, unknown>, reply: Pick<Msg, 'data'>): PlatformError {
  let body: ErrorBody | undefined;
  try {
    body = decodeJson<ErrorBody>(reply.data);
  } catch {
    // an answer that is not ours
  }
  return errorOfBody(endpoint, body);
}

/** The instances of a service that answer a ping within `waitMs`. */
export async function pingService(nc: NatsConnection, name: ServiceName, waitMs = 1000): Promise<number> {
  const client = new Svcm(nc as never).client({ maxWait: waitMs, strategy: 'timer' } as never);
  let count = 0;
  try {
    const replies = await client.ping(name);
    for await (const _ of replies) count++;
  } catch {
    return count;
  }
  return count;
}
