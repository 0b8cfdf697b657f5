// Private chains (spec "Private chains", "Chain record"): creation and the
// records, answered by the chains service. A chain the user may not see is
// answered exactly as one that does not exist (404), so its existence does
// not leak.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { CHAINS, call, type NatsConnection } from '@platform/bus';
import { PlatformError } from '@platform/common';
import { principalOf } from '../auth.js';

const errorResponse = { $ref: 'ErrorBody#' } as const;
const hex64 = { type: 'string', pattern: '^[0-9a-f]{64}$' } as const;
const chainIdText = '^(0[xX])?[0-9a-fA-F]{64}$';

const member = {
  type: 'object',
  properties: { orgName: { type: 'string' }, orgUnit: { type: 'string' }, commonName: { type: 'string' }, access: { type: 'boolean' } },
} as const;

const chainBody = {
  type: 'object',
  description:
    "the governance contract (`contract`, `src`, constructor `args`), `label`, `members`, `balances`, `metadata.VM` (`SolidVM`), `metadata.membersOnly` (true: only members may send transactions to the chain; to anyone else it is as unknown as a chain that does not exist) and `parentChain`; fields are checked by the chains service, which names a bad one",
  properties: {
    label: { type: 'string' },
    contract: { type: 'string' },
    src: { type: 'string' },
    args: { type: 'object', additionalProperties: true },
    members: { type: 'array', items: member },
    balances: { type: 'array', items: { type: 'object', properties: { address: { type: 'string' }, balance: { anyOf: [{ type: 'string' }, { type: 'number' }] } } } },
    metadata: { type: 'object', additionalProperties: true },
    parentChain: { anyOf: [{ type: 'string' }, { type: 'null' }] },
  },
} as const;

const chainRecord = {
  type: 'object',
  required: ['id', 'info'],
  properties: {
    id: hex64,
    info: {
      type: 'object',
      properties: {
        label: { type: 'string' },
        members: { type: 'array', items: member },
        accountInfo: { type: 'array', items: { type: 'object', additionalProperties: true } },
        nonce: hex64,
        codeInfo: { type: 'array', items: { type: 'object', additionalProperties: true } },
        parentChain: { anyOf: [hex64, { type: 'null' }] },
        balances: { type: 'array', items: { type: 'object', additionalProperties: true } },
        creator: { type: 'string' },
        createdAt: { type: 'integer' },
        membersOnly: { type: 'boolean', description: 'only members may send transactions to the chain' },
      },
    },
  },
} as const;

const listQuery = {
  type: 'object',
  properties: {
    chainid: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }], description: 'one or more chain IDs (repeated, or comma-separated)' },
    limit: { type: 'string', pattern: '^\\d+$' },
    offset: { type: 'string', pattern: '^\\d+$' },
  },
} as const;

interface ListQuery {
  chainid?: string | string[];
  limit?: string;
  offset?: string;
}

function chainIdsOf(query: ListQuery): string[] | null {
  if (query.chainid === undefined) return null;
  const ids = (Array.isArray(query.chainid) ? query.chainid : [query.chainid]).flatMap((v) => v.split(',')).filter((v) => v !== '');
  const bad = ids.find((id) => !new RegExp(chainIdText).test(id));
  if (bad !== undefined) throw new PlatformError('BAD_HEX', `chainid ${JSON.stringify(bad)} is not a chain ID (64 hex digits)`, { field: 'chainid' });
  return ids;
}

export function chainRoutes(app: FastifyInstance, nc: NatsConnection): void {
  const user = (request: FastifyRequest) => {
    const { username, org } = principalOf(request);
    return { username, organization: org };
  };
  const list = (request: FastifyRequest<{ Querystring: ListQuery }>, paged: boolean) => {
    const chainIds = chainIdsOf(request.query);
    const page = paged ? { ...(request.query.limit ? { limit: Number(request.query.limit) } : {}), ...(request.query.offset ? { offset: Number(request.query.offset) } : {}) } : {};
    return call(nc, CHAINS.list, { ...user(request), chainIds, ...page }, { requestId: request.id });
  };

  app.post<{ Body: unknown }>(
    '/bloc/v2.2/chain',
    {
      schema: {
        tags: ['chains'],
        summary: 'Creates a private chain; answers its ID as a JSON string',
        description:
          "Runs the governance contract's constructor (SolidVM) in the chain's block 0, sent by the caller, who is a member. 403 when the caller's key is not in the vault; 404 for an unknown `parentChain`; 422 when the governance contract does not compile, has no explicit constructor or its constructor fails (`error.details.reason`).",
        body: chainBody,
        response: { 200: hex64, 400: errorResponse, 401: errorResponse, 403: errorResponse, 404: errorResponse, 422: errorResponse },
      },
    },
    async (request, reply) => {
      const [id] = await call(nc, CHAINS.create, { ...user(request), chains: [request.body] }, { requestId: request.id, timeoutMs: 30_000 });
      // a JSON string, as the spec answers: fastify would send a bare string as text
      return reply.type('application/json; charset=utf-8').send(JSON.stringify(id));
    },
  );

  app.post<{ Body: unknown[] }>(
    '/bloc/v2.2/chains',
    {
      schema: {
        tags: ['chains'],
        summary: 'Creates several private chains at once; answers their IDs in order',
        description: 'Every chain is checked before any is created: one that cannot be created refuses the whole request, naming it (`[i].…`).',
        body: { type: 'array', minItems: 1, maxItems: 100, items: chainBody },
        response: { 200: { type: 'array', items: hex64 }, 400: errorResponse, 401: errorResponse, 403: errorResponse, 404: errorResponse, 422: errorResponse },
      },
    },
    async (request) => call(nc, CHAINS.create, { ...user(request), chains: request.body }, { requestId: request.id, timeoutMs: 60_000 }),
  );

  app.get<{ Querystring: ListQuery }>(
    '/bloc/v2.2/chain',
    {
      schema: {
        tags: ['chains'],
        summary: 'The private chains the caller may see, oldest first (`limit`, at most 1000, and `offset`)',
        querystring: listQuery,
        response: { 200: { type: 'array', items: chainRecord }, 400: errorResponse, 401: errorResponse },
      },
    },
    async (request) => list(request, true),
  );

  app.get<{ Params: { id: string } }>(
    '/bloc/v2.2/chain/:id',
    {
      schema: {
        tags: ['chains'],
        summary: 'One private chain; 404 when it does not exist or the caller is not a member',
        params: { type: 'object', properties: { id: { type: 'string', pattern: chainIdText } } },
        response: { 200: chainRecord, 400: errorResponse, 401: errorResponse, 404: errorResponse },
      },
    },
    async (request) => {
      const [record] = await call(nc, CHAINS.list, { ...user(request), chainIds: [request.params.id] }, { requestId: request.id });
      if (!record) throw notFound(request.params.id);
      return record;
    },
  );

  app.get<{ Querystring: ListQuery }>(
    '/platform-api/eth/v1.2/chain',
    {
      schema: {
        tags: ['chains'],
        summary: 'The chain records the caller may see; `chainid` (repeated or comma-separated) selects some',
        querystring: listQuery,
        response: { 200: { type: 'array', items: chainRecord }, 400: errorResponse, 401: errorResponse },
      },
    },
    async (request) => list(request, false),
  );
}

function notFound(chainId: string): PlatformError {
  return new PlatformError('CHAIN_NOT_FOUND', `no chain ${chainId.replace(/^0x/i, '').toLowerCase()} on this node`, { chainId });
}

/** Throws the 404 of an unknown chain unless the user may see `chainId` ('' / absent: the main chain, which everyone sees). */
export async function requireVisibleChain(nc: NatsConnection, request: FastifyRequest, chainId: string | undefined | null): Promise<void> {
  const id = (chainId ?? '').replace(/^0x/i, '').toLowerCase();
  if (id === '' || id === 'main') return;
  const { username, org } = principalOf(request);
  const { chainIds } = await call(nc, CHAINS.visibleTo, { username, organization: org }, { requestId: request.id });
  if (!chainIds.includes(id)) throw notFound(id);
}

