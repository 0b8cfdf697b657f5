// Indexed contract data (spec "Indexed data queries"): PostgREST's query
// language over every contract's table, its history, its events and the side
// tables of its arrays and mappings. The query string is searched as it came,
// by @platform/cirrus-read's search, in one of two places:
// - with CIRRUS_READ_DATABASE_URL (`npm start` and the Helm chart set it), here: the gateway
//   reads cirrus's schema as the read-only role, with the caller's visible
//   chains (the chains service's answer, as cirrus asks it) — the one
//   deliberate exception to "no service reads another's schema"
//   (docs/architecture.md "State and storage"), taken because every query
//   otherwise crossed the bus twice for work shorter than the crossing;
// - without, over NATS: cirrus's `cirrus.search` runs the same search.
// Either way the same answers, errors and statuses.
import type { FastifyInstance } from 'fastify';
import { CIRRUS, VisibleChains, call, type NatsConnection, type SearchRequest, type SearchResponse } from '@platform/bus';
import { PlatformError, type Logger } from '@platform/common';
import type { CirrusReader } from '@platform/cirrus-read';
import { principalOf } from '../auth.js';

const errorResponse = { $ref: 'ErrorBody#' } as const;
const rows = { type: 'array', items: { type: 'object', additionalProperties: true } } as const;

export interface CirrusRouteDeps {
  nc: NatsConnection;
  logger: Logger;
  /** the read path; absent: cirrus answers over NATS */
  reader?: CirrusReader | undefined;
}

export function cirrusRoutes(app: FastifyInstance, deps: CirrusRouteDeps): void {
  const { nc, reader } = deps;
  let search: (request: SearchRequest, requestId: string) => Promise<SearchResponse>;
  if (reader) {
    // the chains service's answer per user, remembered until its notice says visibility changed (and a second at most), as cirrus does
    const visible = new VisibleChains(nc, deps.logger);
    app.addHook('onClose', async () => visible.stop());
    search = async (request, requestId) => reader.search(request, await visible.of(request, requestId));
  } else {
    search = (request, requestId) => call(nc, CIRRUS.search, request, { requestId });
  }
  app.get<{ Params: { table: string } }>(
    '/cirrus/search/:table',
    {
      schema: {
        tags: ['contract data'],
        summary: "Rows of a contract's table (`<org>-<Contract>`, or the bare `<Contract>` when only one table has it), its history (`history@<table>`), an event table (`<table>.<Event>`) or a side table of an array or mapping (`<table>-<variable>`)",
        description:
          'PostgREST query parameters: `select`, filters (`eq neq lt lte gt gte like ilike in is`, `not.`), `or=(…)`/`and=(…)`, `order`, `limit`, `offset`; `Prefer: count=exact` answers the total in `Content-Range`. A bare contract name several tables have is 409 listing their full names.',
        params: { type: 'object', properties: { table: { type: 'string' } } },
        response: { 200: rows, 206: { ...rows, description: 'a part of the rows (`limit`/`offset` with `Prefer: count=exact`), `Content-Range` saying which' }, 400: errorResponse, 401: errorResponse, 404: errorResponse, 409: errorResponse, 416: errorResponse },
      },
      // the rows arrive as JSON text with every digit of every number: sent as they are
      serializerCompiler: () => (data) => (typeof data === 'string' ? data : JSON.stringify(data)),
    },
    async (request, reply) => {
      const { username, org } = principalOf(request);
      const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?') + 1) : '';
      const prefer = request.headers.prefer;
      const result = await search({ table: request.params.table, query, username, organization: org, ...(typeof prefer === 'string' ? { prefer } : {}) }, request.id);
      // PostgREST answers a 416 with `Content-Range: */<total>` too: the error handler keeps the header
      if (result.contentRange) reply.header('content-range', result.contentRange);
      if (result.status === 416) throw new PlatformError('RANGE_NOT_SATISFIABLE', result.message ?? 'the requested range is not satisfiable', { contentRange: result.contentRange });
      return reply.status(result.status).type('application/json; charset=utf-8').send(result.rows);
    },
  );
}
