// Live events (server-sent events): `GET /platform/v2.3/events` streams the
// blocks this node applies, their transactions' results and their contracts'
// events, filtered per client, resumable with `Last-Event-ID`, and
// `POST /platform/v2.3/events/ticket` lets a browser's EventSource (which
// cannot send headers) authenticate. The format is the services/gateway
// README's "Live events"; the parts are in ../events/.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { VisibleChains, type NatsConnection } from '@platform/bus';
import { PlatformError, type EventsConfig, type Logger } from '@platform/common';
import type { TokenVerifier } from '@platform/auth';
import { principalOf, requireToken } from '../auth.js';
import { documentCommonStatuses } from '../statuses.js';
import { EventConnection, type EventFilter } from '../events/connection.js';
import { EventFeed } from '../events/feed.js';
import { EVENT_KINDS, IDS_PER_BLOCK, parseEventId, type EventKind } from '../events/messages.js';
import { EventTickets } from '../events/tickets.js';

export interface EventRouteDeps {
  nc: NatsConnection;
  logger: Logger;
  verifier: TokenVerifier;
  config: EventsConfig & { allowNoExp: boolean };
}

const errorResponse = { $ref: 'ErrorBody#' } as const;
const CHAIN_ID = /^(0x)?[0-9a-f]{64}$/i;
const ADDRESS = /^[0-9a-f]{40}$/i;

export const EVENTS_PATH = '/platform/v2.3/events';

const eventsQuery = {
  type: 'object',
  properties: {
    chainid: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }], description: 'only these chains (64 hex, or `main`; repeated or comma-separated); default: every chain the caller may see' },
    contract: { type: 'string', minLength: 1, maxLength: 256, description: "a contract's name or address (40 hex, no `0x`): only its transactions and events" },
    event: { type: 'string', minLength: 1, maxLength: 256, description: "an event's name: only those events, and the transactions that emitted one" },
    kinds: { type: 'string', description: 'comma-separated `block`, `tx`, `event`; default all three' },
    ticket: { type: 'string', maxLength: 128, description: 'instead of the Authorization header (EventSource): a ticket from `POST /platform/v2.3/events/ticket`' },
    lastEventId: { type: 'string', maxLength: 32, description: 'instead of the `Last-Event-ID` header (a new EventSource cannot send it): resume after this id' },
  },
} as const;

interface EventsQuery {
  chainid?: string | string[];
  contract?: string;
  event?: string;
  kinds?: string;
  ticket?: string;
  lastEventId?: string;
}

function kindsOf(text: string | undefined): Set<EventKind> {
  if (text === undefined) return new Set(EVENT_KINDS);
  const kinds = text.split(',').map((k) => k.trim()).filter((k) => k !== '');
  const bad = kinds.find((k) => !(EVENT_KINDS as readonly string[]).includes(k));
  if (bad !== undefined || kinds.length === 0) throw new PlatformError('VALIDATION_FAILED', `kinds ${JSON.stringify(bad ?? text)} is not one of block, tx, event (comma-separated)`, { field: 'kinds' });
  return new Set(kinds as EventKind[]);
}

/** '' for the main chain, else the lower-case 64-hex ID; null without the parameter. */
function chainsOf(value: string | string[] | undefined): Set<string> | null {
  if (value === undefined) return null;
  const ids = (Array.isArray(value) ? value : [value]).flatMap((v) => v.split(',')).filter((v) => v !== '');
  const bad = ids.find((id) => id !== 'main' && !CHAIN_ID.test(id));
  if (bad !== undefined) throw new PlatformError('BAD_HEX', `chainid ${JSON.stringify(bad)} is not a chain ID (64 hex digits) or main`, { field: 'chainid' });
  return new Set(ids.map((id) => (id === 'main' ? '' : id.replace(/^0x/i, '').toLowerCase())));
}

/** The id to resume after: the header, else the query's (a new EventSource cannot set the header); -1 for none. */
function resumeAfter(request: FastifyRequest<{ Querystring: EventsQuery }>): number {
  const header = request.headers['last-event-id'];
  const text = typeof header === 'string' && header !== '' ? header : request.query.lastEventId;
  if (text === undefined || text === '') return -1;
  const id = parseEventId(text.trim());
  if (!id) throw new PlatformError('VALIDATION_FAILED', `Last-Event-ID ${JSON.stringify(text.slice(0, 32))} is not an id of this stream (a non-negative integer)`, { field: 'Last-Event-ID' });
  return id.seq * IDS_PER_BLOCK + id.index;
}

export function eventRoutes(app: FastifyInstance, deps: EventRouteDeps): { tickets: EventTickets } {
  const feed = new EventFeed(deps.nc, deps.logger);
  const visible = new VisibleChains(deps.nc, deps.logger);
  const tickets = new EventTickets();
  // the open streams end before the server waits for its connections to close
  app.addHook('preClose', async () => feed.close());
  app.addHook('onClose', async () => visible.stop());

  void app.register(async (scope) => {
    // behind its own token check (below), the route answers what every route behind one does
    documentCommonStatuses(scope);
    // a ticket stands for the bearer token here, and only here (tickets.ts); the header works as everywhere
    scope.addHook('onRequest', async (request) => {
      const ticket = (request.query as EventsQuery).ticket;
      request.principal = ticket !== undefined ? tickets.redeem(ticket) : await deps.verifier.verify(request.headers.authorization, { allowNoExp: deps.config.allowNoExp });
    });
    scope.get<{ Querystring: EventsQuery }>(
      EVENTS_PATH,
      {
        schema: {
          tags: ['events'],
          summary: 'Live events (server-sent events): blocks as they are applied, transaction results and contract events',
          description:
            '`text/event-stream`. Each message has `id:` (an integer that strictly increases across all chains), `event:` `block`, `tx` or `event`, and `data:` JSON: a block `{hash, number, timestamp, parentHash, transactions, chainId}`; a transaction `{hash, status, blockHash, blockNumber, from, message, chainId}`; a contract event `{name, args, address, contractName, transactionHash, blockHash, blockNumber, chainId}` (`chainId` null on the main chain). `Last-Event-ID` (or `lastEventId`) resumes: the later messages are replayed from the node\'s record, and the comment `: live` follows the replay (or opens a stream without one). Heartbeats are comment lines. A client further behind than `EVENTS_BUFFER_BYTES` gets `event: lagged` and is disconnected. Only chains the caller may see are streamed. Authorization: the bearer token, or `ticket` from `POST /platform/v2.3/events/ticket`.',
          querystring: eventsQuery,
          response: {
            200: { description: 'the stream', content: { 'text/event-stream': { schema: { type: 'string' } } } },
            400: errorResponse,
            404: errorResponse,
          },
        },
      },
      async (request, reply) => {
        const principal = principalOf(request);
        const user = { username: principal.username, organization: principal.org };
        const filter: EventFilter = {
          kinds: kindsOf(request.query.kinds),
          chains: chainsOf(request.query.chainid),
          contract: request.query.contract === undefined ? null : ADDRESS.test(request.query.contract) ? request.query.contract.toLowerCase() : request.query.contract,
          event: request.query.event ?? null,
        };
        const after = resumeAfter(request);
        if (filter.chains) {
          const mine = await visible.of(user, request.id);
          const hidden = [...filter.chains].find((id) => id !== '' && !mine.includes(id));
          // the same answer as for a chain that does not exist (docs/conventions.md "Private chains")
          if (hidden !== undefined) throw new PlatformError('CHAIN_NOT_FOUND', `no chain ${hidden} on this node`, { chainId: hidden });
        }
        const started = Date.now();
        const exp = principal.claims.exp;
        const connection = new EventConnection(
          reply.raw,
          { filter, user, visible, bufferBytes: deps.config.bufferBytes, heartbeatMs: deps.config.heartbeatMs, expiresAt: typeof exp === 'number' ? exp * 1000 : null, logger: deps.logger, requestId: request.id, after },
          (reason) => {
            feed.unsubscribe(connection);
            request.log.info({ method: request.method, url: request.url.split('?')[0], status: 200, ms: Date.now() - started, reason }, 'request');
          },
        );
        let through: number;
        try {
          through = await feed.subscribe(connection);
        } catch (err) {
          request.log.warn({ err }, 'the execution results cannot be read');
          throw new PlatformError('UNAVAILABLE', "the node's execution results cannot be read; retry");
        }
        // from here on the stream is the connection's: no error body can follow its headers
        reply.hijack();
        // a client gone while it subscribed: its close came before there was anything to leave
        if (connection.isClosed) return void feed.unsubscribe(connection);
        connection.open();
        if (after >= 0) {
          const from = Math.floor(after / IDS_PER_BLOCK);
          try {
            await feed.replay(from, through, (block) => connection.replayed(block));
          } catch (err) {
            if (!connection.isClosed) {
              request.log.warn({ err }, 'a resume could not be read from the stream');
              connection.end('the resume could not be read; reconnect');
            }
            return;
          }
        }
        connection.goLive();
      },
    );
  });

  void app.register(async (scope) => {
    requireToken(scope, deps.verifier, { allowNoExp: deps.config.allowNoExp });
    scope.post(
      `${EVENTS_PATH}/ticket`,
      {
        schema: {
          tags: ['events'],
          summary: "A ticket for the live events of a browser's EventSource, which cannot send the Authorization header",
          description: '`GET /platform/v2.3/events?ticket=<ticket>` takes it instead of the bearer token, for `expiresIn` seconds; the streams it opens end when the token does.',
          response: {
            200: { type: 'object', required: ['ticket', 'expiresIn'], properties: { ticket: { type: 'string' }, expiresIn: { type: 'integer' } } },
          },
        },
      },
      async (request) => tickets.issue(principalOf(request)),
    );
  });
  return { tickets };
}
