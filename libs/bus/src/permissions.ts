// Who may do what on the bus: one NATS user per service, and for each the
// subjects it may publish and subscribe to. This table is the one source of
// the node's NATS authorization: the launcher generates the server's
// configuration from it (`natsAuthorization`), and docs/nats-permissions.md
// is rendered from it (`permissionTableMarkdown`; a test checks they agree).
//
// Least privilege, per service:
// - an endpoint is answered only by the service that owns it (subscribe on its
//   subject and its `.batch` twin), and called only by the services listed as
//   its callers (publish on those subjects); answers go back on the caller's
//   own inbox (`_INBOX.<user>.>`), which nobody else may subscribe to, through
//   the server's `allow_responses` (a responder may publish one answer to the
//   reply subject of a request it received, nothing else there);
// - a stream is written only by its producer (publish on its subjects);
//   its JetStream API is reachable only by the services that use it, and
//   only for the operations they use (declare, read a message, their own
//   durable consumers);
// - nothing may touch another stream, another service's consumers, or the
//   JetStream API beyond that (no stream purges or listings, no deletes but
//   the block service's of the node's own results, for a rebuild).
import { BLOCK } from './contracts/block.js';
import { CHAINS } from './contracts/chains.js';
import { CIRRUS } from './contracts/cirrus.js';
import { IDENTITY } from './contracts/identity.js';
import { TX } from './contracts/tx.js';
import { VAULT } from './contracts/vault.js';
import { NETWORK_API_PREFIX, NETWORK_CONSUMER_LEADER_PREFIX, networkConsumerLeaderSubject } from './jetstream.js';
import { replyPartsPrefix, type Endpoint } from './rpc.js';
import { STREAMS, type StreamScope } from './streams.js';
import { SERVICE_NAMES, SUBJECTS, type ServiceName } from './subjects.js';

/**
 * The NATS users of a node: one per service process, named as the process is,
 * and `observer`, the operator's read-only view of the node's flow (tools and
 * the benchmark watch blocks and results with it; no service connects as it).
 */
export const BUS_USERS = ['vault', 'transaction', 'block', 'cirrus', 'chains', 'files', 'gateway', 'observer'] as const;
export type BusUser = (typeof BUS_USERS)[number];

/** The request/reply service a bus user answers as (`@nats-io/services` name), if any. */
const ANSWERS_AS: Record<BusUser, ServiceName | null> = {
  vault: SERVICE_NAMES.vault,
  transaction: SERVICE_NAMES.tx,
  block: SERVICE_NAMES.block,
  cirrus: SERVICE_NAMES.cirrus,
  chains: SERVICE_NAMES.chains,
  files: null,
  gateway: null,
  observer: null,
};

type AnyEndpoint = Endpoint<unknown, unknown>;
const endpointsOf = (...contracts: Array<Record<string, AnyEndpoint>>): AnyEndpoint[] => contracts.flatMap((c) => Object.values(c));
/** every request/reply endpoint of the node */
export const ALL_ENDPOINTS: readonly AnyEndpoint[] = endpointsOf(VAULT, TX, BLOCK, CIRRUS, IDENTITY, CHAINS);

type StreamName = (typeof STREAMS)[keyof typeof STREAMS]['name'];

/** What a user may do with one JetStream stream. */
export interface StreamGrant {
  stream: StreamName;
  /** append to the stream (publish on its subjects): its producer only */
  publish?: boolean;
  /** fetch single messages (the last one of a subject) */
  read?: boolean;
  /**
   * delete the stream, to declare it anew: a node's own results, made again
   * from the network's blocks (the block service's `--rebuild`; a purge would
   * keep the duplicate window, which drops what is published again)
   */
  recreate?: boolean;
  /** durable names of the user's own consumers; `*` for consumers named per chain or ephemeral (ordered) ones */
  consumers?: string[];
  /** hear of the stream's consumers' new leaders (a network stream's; renewPullOnNewLeader) */
  newLeaders?: boolean;
}

export interface BusGrant {
  /** why the service is on the bus, for the docs */
  role: string;
  /** endpoints it calls */
  calls: AnyEndpoint[];
  /** core NATS subjects it publishes (notices) */
  publishes: string[];
  /** core NATS subjects it subscribes to (notices) */
  subscribes: string[];
  /** services whose readiness it checks (`$SRV.PING.<name>`) */
  pings: ServiceName[];
  streams: StreamGrant[];
}

/** A durable name of a consumer on a network stream: the node's name in it, since every node's consumers share the stream's account. */
export const NODE_NAME_IN_DURABLE = '{node}';

/** The durable name of a node's consumer on a network stream. */
export function nodeDurable(base: string, node: string): string {
  return `${base}-${node}`;
}

export const BUS_PERMISSIONS: Record<BusUser, BusGrant> = {
  vault: {
    role: 'keys, signatures and the node CA: answers `vault.*`, calls nobody',
    calls: [],
    publishes: [],
    subscribes: [],
    pings: [],
    streams: [],
  },
  transaction: {
    role: 'admission, results, the faucet: answers `tx.*`, signs through the vault, appends admitted transactions',
    // BLOCK.chainKey: what goes to a private chain's stream is sealed with its key
    calls: [VAULT.keyGet, VAULT.sign, IDENTITY.ca, IDENTITY.caSign, IDENTITY.status, BLOCK.nodeAccount, BLOCK.chainKey, CHAINS.exists, CHAINS.visibleTo],
    publishes: [SUBJECTS.tx.done],
    subscribes: [SUBJECTS.chains.visibilityChanged],
    pings: [],
    streams: [
      { stream: STREAMS.tx.name, publish: true },
      // read: the results a database crash lost after their messages were acknowledged are recorded again from the stream
      { stream: STREAMS.exec.name, read: true, consumers: ['transaction-results'] },
      { stream: STREAMS.execParts.name, read: true },
    ],
  },
  block: {
    role: 'ordering and execution: consumes admitted transactions and geneses, appends blocks and execution results',
    // the account lookup asks who may see a private chain
    calls: [CHAINS.visibleTo],
    publishes: [],
    subscribes: [],
    pings: [],
    streams: [
      // newLeaders: a pull lost with a consumer's leader is renewed at once
      { stream: STREAMS.tx.name, consumers: ['*'], newLeaders: true },
      { stream: STREAMS.blocks.name, publish: true, read: true, consumers: ['*'] },
      // recreate: `--rebuild` empties the node's results before re-executing every chain from the network's blocks
      { stream: STREAMS.exec.name, publish: true, read: true, recreate: true },
      // results too big for one message, in parts (exec-results.ts); the readers are the results' consumers
      { stream: STREAMS.execParts.name, publish: true, recreate: true },
      // publish: a private chain's key for a node that became a member later
      { stream: STREAMS.geneses.name, publish: true, read: true, consumers: ['*'] },
      { stream: STREAMS.leases.name, publish: true, read: true },
      { stream: STREAMS.attestations.name, publish: true, consumers: ['*'] },
    ],
  },
  cirrus: {
    role: 'the read model: consumes execution results, answers `cirrus.search`',
    calls: [CHAINS.visibleTo],
    publishes: [],
    subscribes: [SUBJECTS.chains.visibilityChanged],
    pings: [],
    streams: [
      { stream: STREAMS.exec.name, consumers: ['cirrus'] },
      { stream: STREAMS.execParts.name, read: true },
    ],
  },
  chains: {
    role: 'private chains: answers `chains.*`, appends geneses, follows governance in execution results',
    calls: [BLOCK.checkGenesis, BLOCK.sealGenesis, BLOCK.chainGenesis, VAULT.keyGet, IDENTITY.status],
    publishes: [SUBJECTS.chains.visibilityChanged],
    subscribes: [],
    pings: [],
    streams: [
      { stream: STREAMS.exec.name, consumers: ['chains-membership'] },
      { stream: STREAMS.execParts.name, read: true },
      { stream: STREAMS.geneses.name, publish: true, consumers: [nodeDurable('chains-geneses', NODE_NAME_IN_DURABLE)], newLeaders: true },
    ],
  },
  files: {
    role: "the file application and the legacy file storage (HTTP behind the gateway): sends its users' transactions, reads their files' records from cirrus; answers nothing on the bus",
    // BLOCK.account: a file's contract must run the file application's code (its code hash, BLOCK.compile) and a member's balance decides a token grant
    calls: [VAULT.keyGet, TX.submit, TX.results, CIRRUS.search, BLOCK.account, BLOCK.compile],
    publishes: [],
    subscribes: [],
    pings: [],
    streams: [],
  },
  gateway: {
    role: 'the HTTP edge: calls the services for authenticated users, waits for results, streams execution results as live events; answers nothing on the bus',
    calls: [
      VAULT.keyCreate,
      VAULT.keyGet,
      IDENTITY.issue,
      IDENTITY.ca,
      IDENTITY.status,
      IDENTITY.register,
      TX.submit,
      TX.submitRaw,
      TX.results,
      TX.nodeResults,
      TX.fill,
      BLOCK.account,
      BLOCK.compile,
      // /ready and /metrics: whether each chain makes progress
      BLOCK.health,
      // /metadata and /peers
      BLOCK.metadata,
      CHAINS.create,
      CHAINS.list,
      CHAINS.visibleTo,
      CIRRUS.search,
    ],
    publishes: [],
    // the live events: who may see which chain changed
    subscribes: [SUBJECTS.tx.done, SUBJECTS.chains.visibilityChanged],
    pings: [SERVICE_NAMES.vault, SERVICE_NAMES.tx, SERVICE_NAMES.block, SERVICE_NAMES.cirrus, SERVICE_NAMES.chains],
    // the live events: ordered consumers of the execution results (one following the end, one per resume), and their parts
    streams: [
      { stream: STREAMS.exec.name, consumers: ['*'] },
      { stream: STREAMS.execParts.name, read: true },
    ],
  },
  observer: {
    role: "the operator's read-only view: sees admitted transactions, blocks, results and notices go by; publishes nothing, calls nothing",
    calls: [],
    publishes: [],
    subscribes: [...STREAMS.tx.subjects, ...STREAMS.blocks.subjects, ...STREAMS.exec.subjects, ...STREAMS.execParts.subjects, SUBJECTS.tx.done],
    pings: [],
    streams: [],
  },
};

/** The inbox prefix of a user's connection: replies to its requests come only there. */
export function inboxPrefixOf(user: string): string {
  return `_INBOX.${user}`;
}

const endpointSubjects = (endpoint: AnyEndpoint): string[] => [endpoint.subject, `${endpoint.subject}.batch`];

const streamSpec = (name: StreamName) => Object.values(STREAMS).find((s) => s.name === name)!;

/** Where a user of a stream's scope reaches its JetStream API: a node's own in its account, the network's through the import (jetstream.ts). */
export function apiPrefixOf(scope: StreamScope): string {
  return scope === 'network' ? NETWORK_API_PREFIX : '$JS.API';
}

/** The JetStream API subjects a stream grant opens (and the stream's own subjects for its producer). */
function streamSubjects(grant: StreamGrant, node: string): string[] {
  const s = grant.stream;
  const api = apiPrefixOf(streamSpec(s).scope);
  // every user of a stream declares it identically at its start (any of them may start first)
  const out = [`${api}.INFO`, `${api}.STREAM.INFO.${s}`, `${api}.STREAM.CREATE.${s}`, `${api}.STREAM.UPDATE.${s}`];
  if (grant.publish) out.push(...streamSpec(s).subjects);
  if (grant.read) out.push(`${api}.STREAM.MSG.GET.${s}`, `${api}.DIRECT.GET.${s}`, `${api}.DIRECT.GET.${s}.>`);
  if (grant.recreate) out.push(`${api}.STREAM.DELETE.${s}`);
  for (const named of grant.consumers ?? []) {
    const durable = named.replace(NODE_NAME_IN_DURABLE, node);
    out.push(
      `${api}.CONSUMER.CREATE.${s}.${durable}`,
      `${api}.CONSUMER.CREATE.${s}.${durable}.>`,
      `${api}.CONSUMER.DURABLE.CREATE.${s}.${durable}`,
      `${api}.CONSUMER.INFO.${s}.${durable}`,
      `${api}.CONSUMER.DELETE.${s}.${durable}`,
      `${api}.CONSUMER.MSG.NEXT.${s}.${durable}`,
      // acknowledgements, in the server's two reply formats (without and with domain and account hash)
      `$JS.ACK.${s}.${durable}.>`,
      `$JS.ACK.*.*.${s}.${durable}.>`,
    );
  }
  return out;
}

export interface SubjectPermissions {
  publish: string[];
  subscribe: string[];
}

/** The subjects a user of a node may publish and subscribe to, as the server's allow lists. */
export function permissionsOf(user: BusUser, node: string): SubjectPermissions {
  const grant = BUS_PERMISSIONS[user];
  const publish = new Set<string>();
  const subscribe = new Set<string>([`${inboxPrefixOf(user)}.>`]);
  const service = ANSWERS_AS[user];
  if (service) {
    for (const endpoint of ALL_ENDPOINTS.filter((e) => e.service === service)) for (const subject of endpointSubjects(endpoint)) subscribe.add(subject);
    // @nats-io/services discovery: PING, INFO and STATS, for all services, by name, and by instance id
    for (const verb of ['PING', 'INFO', 'STATS']) {
      subscribe.add(`$SRV.${verb}`);
      subscribe.add(`$SRV.${verb}.${service}`);
      subscribe.add(`$SRV.${verb}.${service}.*`);
    }
    // its answers too large for a message, fetched by their callers in parts (rpc.ts)
    subscribe.add(`${replyPartsPrefix(service)}.*`);
  }
  for (const endpoint of grant.calls) for (const subject of endpointSubjects(endpoint)) publish.add(subject);
  for (const callee of new Set(grant.calls.map((e) => e.service))) publish.add(`${replyPartsPrefix(callee)}.*`);
  for (const name of grant.pings) publish.add(`$SRV.PING.${name}`);
  for (const subject of grant.publishes) publish.add(subject);
  for (const subject of grant.subscribes) subscribe.add(subject);
  for (const stream of grant.streams) {
    for (const subject of streamSubjects(stream, node)) publish.add(subject);
    if (stream.newLeaders) subscribe.add(networkConsumerLeaderSubject(stream.stream, '*'));
  }
  return { publish: [...publish], subscribe: [...subscribe] };
}

/** A user's entry in the server configuration: its nkey and permissions. */
export interface BusUserKey {
  user: BusUser;
  /** the nkey's public key (`U…`) */
  nkey: string;
}

const quoted = (subjects: string[]) => `[${subjects.map((s) => JSON.stringify(s)).join(', ')}]`;

/** JetStream's announcements of a consumer's new leader, `<this>.<stream>.<consumer>`. */
const CONSUMER_LEADER_ADVISORY = '$JS.EVENT.ADVISORY.CONSUMER.LEADER_ELECTED';

/** The account of the network's streams, shared by every node (docs/network.md). */
export const NETWORK_ACCOUNT = 'NETWORK';

/** The NATS account of a node's services: its name, which names nothing else on the server. */
export function nodeAccountName(node: string): string {
  return `node-${node}`;
}

/** What the NETWORK account offers every node's account: the network's streams' subjects, their JetStream API and their acknowledgements. */
function networkServices(): Array<{ subject: string; streamResponses?: true; to?: string }> {
  const streams = Object.values(STREAMS).filter((s) => s.scope === 'network');
  return [
    // a pull consumer's batch answers one request with many messages: only a stream response carries them back
    { subject: '$JS.API.>', streamResponses: true, to: `${NETWORK_API_PREFIX}.>` },
    ...streams.flatMap((s) => s.subjects.map((subject) => ({ subject }))),
    ...streams.map((s) => ({ subject: `$JS.ACK.${s.name}.>` })),
  ];
}

export interface NatsAccountsOptions {
  /** this server's node */
  node: string;
  /** its services' users */
  users: BusUserKey[];
  /** the network's other nodes: their accounts exist on every server of the cluster (JetStream's assignments name them), without users here */
  otherNodes?: string[];
  /**
   * a user every connection without credentials becomes, allowed everything
   * in the node's account: for tests of a single service only, never for a node
   */
  open?: { user: string; password: string };
}

/**
 * The `accounts` block of nats-server's configuration: the NETWORK account
 * holding the network's streams, and one account per node whose users are
 * its services, each with its permissions (only this node's users are on
 * this server). A node's account imports the network's streams; everything
 * else in it — requests, notices, its own streams — is invisible to every
 * other account.
 */
export function natsAccounts(options: NatsAccountsOptions): string {
  const services = networkServices();
  const lines = ['accounts {', `  ${NETWORK_ACCOUNT}: {`, '    jetstream: enabled', '    exports: ['];
  for (const e of services) lines.push(`      { service: ${JSON.stringify(e.subject)}${e.streamResponses ? ', response_type: stream' : ''} }`);
  // the consumers' new leaders, so that a pull lost with the old one is renewed at once (renewPullOnNewLeader)
  lines.push(`      { stream: ${JSON.stringify(`${CONSUMER_LEADER_ADVISORY}.>`)} }`);
  lines.push('    ]', '  }');
  const imports = services.map((e) => `      { service: { account: ${NETWORK_ACCOUNT}, subject: ${JSON.stringify(e.subject)} }${e.to ? `, to: ${JSON.stringify(e.to)}` : ''} }`);
  imports.push(`      { stream: { account: ${NETWORK_ACCOUNT}, subject: ${JSON.stringify(`${CONSUMER_LEADER_ADVISORY}.>`)} }, to: ${JSON.stringify(`${NETWORK_CONSUMER_LEADER_PREFIX}.>`)} }`);
  for (const node of [options.node, ...(options.otherNodes ?? []).filter((n) => n !== options.node)]) {
    lines.push(`  ${JSON.stringify(nodeAccountName(node))}: {`, '    jetstream: enabled');
    if (node === options.node) {
      lines.push('    users: [');
      for (const { user, nkey } of options.users) {
        const p = permissionsOf(user, node);
        lines.push(`      # ${user}: ${BUS_PERMISSIONS[user].role}`);
        lines.push(`      { nkey: ${JSON.stringify(nkey)}, permissions: { publish: { allow: ${quoted(p.publish)} }, subscribe: { allow: ${quoted(p.subscribe)} }, allow_responses: true } }`);
      }
      if (options.open) lines.push(`      { user: ${JSON.stringify(options.open.user)}, password: ${JSON.stringify(options.open.password)} }`);
      lines.push('    ]');
    }
    lines.push('    imports: [', ...imports, '    ]', '  }');
  }
  lines.push('}');
  if (options.open) lines.push(`no_auth_user: ${JSON.stringify(options.open.user)}`);
  return `${lines.join('\n')}\n`;
}

const code = (subjects: string[]) => (subjects.length === 0 ? '—' : subjects.map((s) => `\`${s}\``).join(', '));

/** The permission table as Markdown, for docs/nats-permissions.md. */
export function permissionTableMarkdown(): string {
  const rows = ['| user | role | answers (subscribe) | calls (publish) | notices | streams |', '|---|---|---|---|---|---|'];
  for (const user of BUS_USERS) {
    const grant = BUS_PERMISSIONS[user];
    const service = ANSWERS_AS[user];
    const answers = service ? ALL_ENDPOINTS.filter((e) => e.service === service).map((e) => e.subject) : [];
    const calls = [...grant.calls.map((e) => e.subject), ...grant.pings.map((n) => `$SRV.PING.${n}`)];
    const notices = [...grant.publishes.map((s) => `pub ${s}`), ...grant.subscribes.map((s) => `sub ${s}`)];
    const streams = grant.streams.map((g) => {
      const what = [g.publish ? 'append' : null, g.read ? 'read' : null, g.recreate ? 'recreate' : null, g.consumers?.length ? `consumers ${g.consumers.join(', ')}` : null, g.newLeaders ? 'their new leaders' : null].filter(Boolean);
      return `${g.stream}${what.length ? ` (${what.join('; ')})` : ' (declare)'}`;
    });
    rows.push(`| \`${user}\` | ${grant.role} | ${code(answers)} | ${code(calls)} | ${code(notices)} | ${streams.length ? streams.join('<br>') : '—'} |`);
  }
  return `${rows.join('\n')}\n`;
}
