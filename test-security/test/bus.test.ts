// The bus is locked: the node's NATS server (its own authorization, generated
// from the permission table, with no open user) refuses a connection without
// credentials, and refuses each service every subject outside its table.
// Probes are real publishes and subscriptions; the server's refusals come
// back as permission violations naming the subject.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from '@nats-io/transport-node';
import { createUser } from '@nats-io/nkeys';
import { nkeyAuthenticator, type NatsConnection } from '@nats-io/nats-core';
import {
  ALL_ENDPOINTS,
  BUS_USERS,
  NETWORK_API_PREFIX,
  STREAMS,
  SUBJECTS,
  connectBus,
  inboxPrefixOf,
  permissionTableMarkdown,
  permissionsOf,
  type BusUser,
} from '@platform/bus';
import { DEFAULT_NODE_NAME } from '@platform/common';
import { REPO_ROOT, startTestInfra, type TestInfra } from '@platform/launcher';

let infra: TestInfra;
let url: string;

beforeAll(async () => {
  infra = await startTestInfra({ nats: true, openNats: false });
  url = infra.nats!.url;
}, 60_000);
afterAll(async () => infra?.stop());

/** NATS subject matching: `*` one token, `>` the rest. */
function matches(pattern: string, subject: string): boolean {
  const p = pattern.split('.');
  const s = subject.split('.');
  for (let i = 0; i < p.length; i++) {
    if (p[i] === '>') return s.length > i;
    if (i >= s.length || (p[i] !== '*' && p[i] !== s[i])) return false;
  }
  return p.length === s.length;
}
const allowed = (patterns: string[], subject: string) => patterns.some((p) => matches(p, subject));

const streamNames = Object.values(STREAMS).map((s) => s.name);
/** Subjects anyone might try: every endpoint, every stream's subjects, every JetStream operation on every stream, the services' discovery. */
const PUBLISH_PROBES = [
  ...ALL_ENDPOINTS.flatMap((e) => [e.subject, `${e.subject}.batch`]),
  'tx.admitted.main',
  'block.main',
  'exec.main',
  'genesis.main',
  SUBJECTS.tx.done,
  SUBJECTS.chains.visibilityChanged,
  // the node's own JetStream API, and the network's through its import
  ...['$JS.API', NETWORK_API_PREFIX].flatMap((api) => [
    `${api}.INFO`,
    `${api}.STREAM.NAMES`,
    `${api}.STREAM.LIST`,
    ...streamNames.flatMap((s) => [
      `${api}.STREAM.INFO.${s}`,
      `${api}.STREAM.CREATE.${s}`,
      `${api}.STREAM.DELETE.${s}`,
      `${api}.STREAM.PURGE.${s}`,
      `${api}.STREAM.MSG.GET.${s}`,
      `${api}.STREAM.MSG.DELETE.${s}`,
      `${api}.CONSUMER.CREATE.${s}.intruder`,
      `${api}.CONSUMER.DELETE.${s}.cirrus`,
      `${api}.CONSUMER.MSG.NEXT.${s}.transaction-results`,
    ]),
  ]),
  '$SRV.PING.vault',
  'anything.else',
];
const SUBSCRIBE_PROBES = [
  '>',
  'vault.sign',
  'vault.>',
  'tx.submit',
  'tx.>',
  'block.>',
  'exec.>',
  'tx.admitted.>',
  SUBJECTS.tx.done,
  '_INBOX.>',
  ...BUS_USERS.map((u) => `${inboxPrefixOf(u)}.x`),
  '$JS.API.>',
  `${NETWORK_API_PREFIX}.>`,
  '$SRV.PING.vault',
];

interface Refusal {
  operation: string;
  subject: string;
}

/** Connects as a user, runs the probes, and collects what the server refused. */
async function refusalsOf(user: BusUser, probe: (nc: NatsConnection) => void): Promise<Refusal[]> {
  const nc = await connectBus({ url, name: `probe-${user}`, credentials: infra.busCredentials(user) });
  const refusals: Refusal[] = [];
  void (async () => {
    for await (const status of nc.status()) {
      const error = status.type === 'error' ? (status.error as Error & { operation?: string; subject?: string }) : null;
      if (error?.subject) refusals.push({ operation: error.operation ?? '?', subject: error.subject });
    }
  })();
  probe(nc);
  await nc.flush();
  // the refusals arrive before the flush's PONG, and reach the status iterator a turn later
  await new Promise((r) => setTimeout(r, 200));
  await nc.close();
  return refusals;
}

test('a connection without credentials is refused', async () => {
  await expect(connect({ servers: url, reconnect: false })).rejects.toThrow(/Authorization Violation/i);
});

test('a connection with an nkey the table does not know is refused', async () => {
  const stranger = createUser();
  await expect(connect({ servers: url, reconnect: false, authenticator: nkeyAuthenticator(stranger.getSeed()) })).rejects.toThrow(/Authorization Violation/i);
});

describe.each(BUS_USERS.map((user) => [user]))('the %s user', (user) => {
  const permissions = permissionsOf(user, DEFAULT_NODE_NAME);

  test('is refused every probed subject outside its table, for publishing', async () => {
    const forbidden = PUBLISH_PROBES.filter((s) => !allowed(permissions.publish, s));
    expect(forbidden.length).toBeGreaterThan(0);
    const refusals = await refusalsOf(user, (nc) => forbidden.forEach((subject) => nc.publish(subject, 'probe')));
    expect(new Set(refusals.filter((r) => r.operation === 'publish').map((r) => r.subject))).toEqual(new Set(forbidden));
  });

  test('is refused every probed subject outside its table, for subscribing', async () => {
    const forbidden = SUBSCRIBE_PROBES.filter((s) => !allowed(permissions.subscribe, s));
    expect(forbidden.length).toBeGreaterThan(0);
    const refusals = await refusalsOf(user, (nc) => forbidden.forEach((subject) => nc.subscribe(subject)));
    expect(new Set(refusals.filter((r) => r.operation.startsWith('sub')).map((r) => r.subject))).toEqual(new Set(forbidden));
  });

  test('is allowed the subjects of its table it was probed with', async () => {
    const publish = PUBLISH_PROBES.filter((s) => allowed(permissions.publish, s) && !s.startsWith('$JS.') && !s.startsWith(`${NETWORK_API_PREFIX}.`));
    const subscribe = SUBSCRIBE_PROBES.filter((s) => allowed(permissions.subscribe, s));
    const refusals = await refusalsOf(user, (nc) => {
      publish.forEach((subject) => nc.publish(subject, 'probe'));
      subscribe.forEach((subject) => nc.subscribe(subject));
    });
    expect(refusals).toEqual([]);
  });
});

test('only the vault answers vault.sign, only the transaction service and the gateway reach it, and the answer reaches only the caller', async () => {
  const vault = await connectBus({ url, name: 'vault', credentials: infra.busCredentials('vault') });
  const transaction = await connectBus({ url, name: 'transaction', credentials: infra.busCredentials('transaction') });
  try {
    vault.subscribe(SUBJECTS.vault.sign, { callback: (_err, msg) => void msg.respond('signed') });
    await vault.flush();
    const reply = await transaction.request(SUBJECTS.vault.sign, 'hash', { timeout: 2_000 });
    expect(reply.string()).toBe('signed');
    // the responder may answer once, on the reply subject only: not publish to another service's inbox
    const stray = await refusalsOf('vault', (nc) => nc.publish(`${inboxPrefixOf('gateway')}.stolen`, 'x'));
    expect(stray).toEqual([{ operation: 'publish', subject: `${inboxPrefixOf('gateway')}.stolen` }]);
    const cirrusAsks = await refusalsOf('cirrus', (nc) => nc.publish(SUBJECTS.vault.sign, 'hash'));
    expect(cirrusAsks).toEqual([{ operation: 'publish', subject: SUBJECTS.vault.sign }]);
  } finally {
    await Promise.all([vault.close(), transaction.close()]);
  }
});

test('docs/nats-permissions.md holds the table the server configuration is generated from', () => {
  const doc = readFileSync(join(REPO_ROOT, 'docs', 'nats-permissions.md'), 'utf8');
  // regenerate with: node --import tsx libs/bus/bin/permission-table.ts
  expect(doc).toContain(permissionTableMarkdown());
});
