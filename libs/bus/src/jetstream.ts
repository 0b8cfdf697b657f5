// JetStream set-up: streams and durable consumers are declared by the service
// that owns them, idempotently at its start (create, or update to the
// declared configuration).
import { TimeoutError, type NatsConnection, type Subscription } from '@nats-io/nats-core';
import { jetstream, jetstreamManager, type ConsumerConfig, type ConsumerMessages, type JetStreamClient, type JetStreamManager, type JetStreamPublishOptions, type PubAck, type StreamInfo, type ConsumerInfo, AckPolicy, DeliverPolicy, JetStreamApiCodes, JetStreamApiError } from '@nats-io/jetstream';
import { declaredStream, type ScopedStreamSpec, type StreamScope, type StreamSpec, type StreamTopology } from './streams.js';

/** Creates the stream, or brings an existing one to the given configuration (a scope, streams.ts, is not the server's). */
export async function ensureStream(jsm: JetStreamManager, scoped: StreamSpec & { scope?: StreamScope }): Promise<StreamInfo> {
  const { scope: _scope, ...spec } = scoped;
  try {
    await jsm.streams.info(spec.name);
  } catch (err) {
    if (!isNotFound(err)) throw err;
    return jsm.streams.add({ duplicate_window: 2 * 60 * 1_000_000_000, ...spec });
  }
  return jsm.streams.update(spec.name, spec);
}

export interface DurableSpec {
  stream: string;
  durable: string;
  filterSubject?: string;
  /** how long a delivered message may stay unacknowledged before redelivery; default 30 s */
  ackWaitMs?: number;
  /** most messages delivered and not yet acknowledged; the server's default (1000) caps a batch consumer */
  maxAckPending?: number;
}

/** A durable pull consumer acknowledging each message explicitly, from the first message of the stream. */
export async function ensureDurableConsumer(jsm: JetStreamManager, spec: DurableSpec): Promise<ConsumerInfo> {
  const config: Partial<ConsumerConfig> = {
    durable_name: spec.durable,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    ack_wait: (spec.ackWaitMs ?? 30_000) * 1_000_000,
    ...(spec.filterSubject ? { filter_subject: spec.filterSubject } : {}),
    ...(spec.maxAckPending ? { max_ack_pending: spec.maxAckPending } : {}),
  };
  try {
    await jsm.consumers.info(spec.stream, spec.durable);
    return await jsm.consumers.update(spec.stream, spec.durable, config);
  } catch (err) {
    if (!isNotFound(err)) throw err;
    return jsm.consumers.add(spec.stream, config);
  }
}

/**
 * Deletes a durable consumer if there is one, so that the one declared next
 * delivers its stream from the first message again (a consumer that forgot
 * what it derived: a rebuild, a reindex).
 */
export async function deleteDurableConsumer(jsm: JetStreamManager, stream: string, durable: string): Promise<void> {
  try {
    await jsm.consumers.delete(stream, durable);
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
}

export async function streamManager(nc: NatsConnection): Promise<JetStreamManager> {
  return jetstreamManager(nc);
}

/**
 * The prefix under which a node's account reaches the NETWORK account's
 * JetStream API (the server's account import, permissions.ts): the network's
 * streams are managed and consumed through it, a node's own streams through
 * the plain `$JS.API`.
 */
export const NETWORK_API_PREFIX = 'JSNET.API';

/**
 * How long a pull of a consumer on a network stream waits before it is
 * renewed; the server sends heartbeats every half of it, and two missed
 * heartbeats make the client recreate its pull (or, for an ordered consumer,
 * the consumer) elsewhere. nats.js's 30 s default would leave a node deaf for
 * a minute after the server holding its consumer died.
 */
export const NETWORK_PULL_EXPIRES_MS = 5_000;

/**
 * Where a node's account receives the NETWORK account's announcements that a
 * consumer has a new leader (JetStream's advisory
 * `$JS.EVENT.ADVISORY.CONSUMER.LEADER_ELECTED.<stream>.<consumer>`, imported
 * under this prefix: permissions.ts). A pull waiting at the old leader is
 * not handed over: the new leader knows of no pull until the client sends
 * another.
 */
export const NETWORK_CONSUMER_LEADER_PREFIX = 'JSNET.EVENT.CONSUMER.LEADER_ELECTED';

/** The subject of `consumer`'s new leaders on the network's `stream`, in a node's account. */
export function networkConsumerLeaderSubject(stream: string, consumer: string): string {
  return `${NETWORK_CONSUMER_LEADER_PREFIX}.${stream}.${consumer}`;
}

/**
 * Sends a new pull for `messages` (a `consume()` of the durable `consumer` on
 * the network's `stream`) as soon as the consumer has a new leader. Without
 * it the client notices the lost pull only after two missed heartbeats (5 to
 * 7.5 s with NETWORK_PULL_EXPIRES_MS): when a node stopped, the proposer of
 * the other nodes took no transaction for that long. The renewal is nats.js's
 * own answer to missed heartbeats (`resetPending`: the consumer's info, then
 * a pull), called early. Stop the returned subscription with the messages.
 */
export function renewPullOnNewLeader(nc: NatsConnection, stream: string, consumer: string, messages: ConsumerMessages, onRenew?: () => void): Subscription {
  // not in nats.js's types: PullConsumerMessagesImpl's method, which its heartbeat monitor calls
  const renewable = messages as ConsumerMessages & { resetPending?: () => Promise<boolean> };
  return nc.subscribe(networkConsumerLeaderSubject(stream, consumer), {
    callback: () => {
      if (typeof renewable.resetPending !== 'function') return;
      onRenew?.();
      void renewable.resetPending().catch(() => {});
    },
  });
}

/**
 * How long a publication to a stream waits for the stream's answer before it
 * is sent again (nats.js waits 5 s). One in flight when the stream's leader
 * steps down (its server stopping) is never answered: in the network bench's
 * stops, appends and admissions waited the whole 5 s.
 */
export const STREAM_ANSWER_TIMEOUT_MS = 1_500;

/** The answer did not come in time (nats.js throws it, or wraps it). */
export function isTimeout(err: unknown): boolean {
  return err instanceof TimeoutError || (err instanceof Error && err.cause instanceof TimeoutError);
}

/**
 * Publishes with a msgID, and sends it again when the stream does not answer
 * in STREAM_ANSWER_TIMEOUT_MS, up to `attempts` sends in all: the same msgID
 * makes a copy already stored answer as a duplicate, so a publication is
 * stored once however often it is sent. Other failures are thrown at once.
 */
export async function publishUntilAnswered(js: JetStreamClient, subject: string, data: Uint8Array | string, options: Partial<JetStreamPublishOptions> & { msgID: string }, attempts = 3): Promise<PubAck> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await js.publish(subject, data, { ...options, timeout: STREAM_ANSWER_TIMEOUT_MS });
    } catch (err) {
      if (attempt >= attempts || !isTimeout(err)) throw err;
    }
  }
}

/** A JetStream client and manager for one scope of streams. */
export interface ScopedJetStream {
  js: JetStreamClient;
  jsm: JetStreamManager;
}

/** A service's JetStream: the network's streams and the node's own, each reached its way. */
export interface BusJetStream {
  /** the connection both scopes' clients use (for the core subscriptions that go with them) */
  readonly nc: NatsConnection;
  readonly topology: StreamTopology;
  readonly network: ScopedJetStream;
  readonly node: ScopedJetStream;
  /** declares the stream as this node's topology says (streams.ts) */
  ensure(spec: ScopedStreamSpec): Promise<StreamInfo>;
}

/** The JetStream of the node's own streams (EXEC, EXEC_PARTS) alone: for a process that only reads them. */
export async function nodeJetStream(nc: NatsConnection): Promise<ScopedJetStream> {
  return { js: jetstream(nc), jsm: await jetstreamManager(nc, { checkAPI: false }) };
}

export async function busJetStream(nc: NatsConnection, topology: StreamTopology): Promise<BusJetStream> {
  // checkAPI: false, since while a cluster elects its meta leader the check would time out a start that can wait
  const network = { js: jetstream(nc, { apiPrefix: NETWORK_API_PREFIX }), jsm: await jetstreamManager(nc, { apiPrefix: NETWORK_API_PREFIX, checkAPI: false }) };
  const node = await nodeJetStream(nc);
  const of = (spec: { scope: StreamScope }) => (spec.scope === 'network' ? network : node);
  return { nc, topology, network, node, ensure: (spec) => ensureStream(of(spec).jsm, declaredStream(spec, topology)) };
}

/**
 * A client of the network's streams whose requests give up after
 * STREAM_ANSWER_TIMEOUT_MS (nats.js waits 5 s). For creating a one-server
 * (ordered) consumer in place of one whose server stopped: the server it is
 * placed on answers its creation, and nats-server 2.9.10 may place it on the
 * server that just stopped, while the cluster still counts that server a
 * peer of the stream. Such a creation is never answered; the sooner it is
 * given up, the sooner another is placed elsewhere.
 */
export function quickNetworkClient(bus: Pick<BusJetStream, 'nc'>): JetStreamClient {
  return jetstream(bus.nc, { apiPrefix: NETWORK_API_PREFIX, timeout: STREAM_ANSWER_TIMEOUT_MS });
}

/** An append refused because the subject's last sequence was not the one it expected: another writer got there first (the fence of appends with `expect.lastSubjectSequence`). */
export function isWrongLastSequence(err: unknown): boolean {
  return err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamWrongLastSequence;
}

function isNotFound(err: unknown): boolean {
  const e = err as { code?: unknown; api_error?: { err_code?: number }; message?: string };
  // 10059 stream not found, 10014 consumer not found
  const code = e?.api_error?.err_code;
  return code === 10059 || code === 10014 || /not found/i.test(String(e?.message ?? ''));
}
