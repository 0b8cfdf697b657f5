// Transactions (spec "Transactions", "Raw (self-signed) transaction body",
// "Account and faucet"): the gateway checks the shape of the request and the
// query parameters; the transaction service validates every field and names
// a bad one by its path in the body.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { PlatformError, type TxResult } from '@platform/common';
import {
  TX,
  batchingCaller,
  call,
  fillParamsSchema,
  rawTransactionBodySchema,
  resultParamsSchema,
  resultsBodySchema,
  transactionBodySchema,
  transactionQuerySchema,
  txResultSchema,
  type NatsConnection,
  type RawTransactionBody,
  type SubmitItem,
  type TxParamsInput,
} from '@platform/bus';
import { principalOf } from '../auth.js';
import type { ResolveHub } from '../resolve.js';

export interface TransactionRouteDeps {
  nc: NatsConnection;
  hub: ResolveHub;
  resolveTimeoutMs: number;
}

const errorResponse = { $ref: 'ErrorBody#' } as const;
const txResult = { $ref: 'TxResult#' } as const;

export const TX_RESULT_SCHEMA = { $id: 'TxResult', description: "the spec's transaction result object", ...txResultSchema } as const;
const resolveQuery = { type: 'object', properties: { resolve: transactionQuerySchema.properties.resolve } } as const;

interface TxQuery {
  resolve?: string;
  chainid?: string;
}

/**
 * Raw transactions' messages to the transaction service awaiting their answer:
 * its admissions commit in groups anyway, and requests that arrive meanwhile
 * are better sent together than in a message each.
 */
const RAW_MESSAGES_IN_FLIGHT = 2;

const wantsResolve = (query: TxQuery) => query.resolve === '' || query.resolve === 'true' || query.resolve === '1';

function idempotencyKey(request: FastifyRequest): { idempotencyKey: string } | object {
  const key = request.headers['idempotency-key'];
  if (key === undefined) return {};
  if (typeof key !== 'string' || key.length === 0 || key.length > 255) throw new PlatformError('VALIDATION_FAILED', 'the Idempotency-Key header must be 1 to 255 characters');
  return { idempotencyKey: key };
}

export function transactionRoutes(app: FastifyInstance, deps: TransactionRouteDeps): void {
  const { nc, hub } = deps;
  // the results `fetch` answers, or with resolve=true their final results
  const settle = (request: FastifyRequest<{ Querystring: TxQuery }>, fetch: () => Promise<TxResult[]>) =>
    wantsResolve(request.query) ? hub.settle(fetch, deps.resolveTimeoutMs, request.id) : fetch();

  app.post<{ Querystring: TxQuery; Body: { txs: SubmitItem[]; txParams?: TxParamsInput } }>(
    '/platform/v2.3/transaction',
    {
      schema: {
        tags: ['transactions'],
        summary: 'Sends transactions signed by the vault with the user\'s key',
        description:
          'Each item is `CONTRACT` (upload), `FUNCTION` (call) or `TRANSFER`; results come back in request order. An `Idempotency-Key` header makes a retry answer the first attempt\'s hashes (409 `IDEMPOTENCY_KEY_REUSED` for another request). 403 `IDENTITY_REQUIRED` for an account without a registered certificate where the node asks for one; 404 for a chain the user cannot see.',
        querystring: transactionQuerySchema,
        body: transactionBodySchema,
        response: { 200: { type: 'array', items: txResult }, 400: errorResponse, 401: errorResponse, 403: errorResponse, 404: errorResponse, 409: errorResponse, 422: errorResponse, 504: errorResponse },
      },
    },
    async (request) => {
      const { username, org } = principalOf(request);
      return settle(request, () => call(
        nc,
        TX.submit,
        { username, organization: org, chainId: request.query.chainid ?? null, transactions: request.body.txs, ...(request.body.txParams ? { txParams: request.body.txParams } : {}), ...idempotencyKey(request) },
        { requestId: request.id },
      ));
    },
  );

  // raw transactions come one per request, often many at once: they share messages to the transaction service
  const submitRaw = batchingCaller(nc, TX.submitRaw, { maxInFlight: RAW_MESSAGES_IN_FLIGHT });
  const rawHandler = async (request: FastifyRequest<{ Querystring: TxQuery; Body: RawTransactionBody }>) => {
    const { username, org } = principalOf(request);
    const submission = { username, organization: org, chainId: request.query.chainid ?? null, transaction: request.body, ...idempotencyKey(request) };
    return (await settle(request, async () => [await submitRaw(submission, { requestId: request.id })]))[0];
  };
  const rawSchema = {
    tags: ['transactions'],
    summary: 'Sends one transaction signed by the caller',
    description:
      'The signed fields, `r`, `s` and `v` (or `address`), and optional `metadata` (the conventions, "Raw transactions: the signed bytes", docs/conventions.md in the repository). Answers one result object. 403, 404 and 409 as for vault-signed transactions.',
    querystring: transactionQuerySchema,
    body: rawTransactionBodySchema,
    response: { 200: txResult, 400: errorResponse, 401: errorResponse, 403: errorResponse, 404: errorResponse, 409: errorResponse, 422: errorResponse, 504: errorResponse },
  };
  app.post('/platform/v2.3/transaction/raw', { schema: rawSchema }, rawHandler);
  app.post('/bloc/v2.2/transaction/raw', { schema: { ...rawSchema, summary: `${rawSchema.summary} (v2.2 path)` } }, rawHandler);

  app.get<{ Params: { hash: string } }>(
    '/bloc/v2.2/transactions/:hash/result',
    {
      schema: {
        tags: ['transactions'],
        summary: 'The result of one transaction',
        params: resultParamsSchema,
        response: { 200: txResult, 400: errorResponse, 404: errorResponse },
      },
    },
    async (request) => {
      const { username, org } = principalOf(request);
      const [result] = await call(nc, TX.results, { hashes: [request.params.hash], username, organization: org }, { requestId: request.id });
      return result;
    },
  );

  app.post<{ Querystring: TxQuery; Body: string[] }>(
    '/bloc/v2.2/transactions/results',
    {
      schema: {
        tags: ['transactions'],
        summary: 'The results of several transactions, in the order asked',
        description: 'Unknown hashes: 404, with `details.unknown` listing them.',
        querystring: resolveQuery,
        body: resultsBodySchema,
        response: { 200: { type: 'array', items: txResult }, 400: errorResponse, 404: errorResponse, 504: errorResponse },
      },
    },
    async (request) => {
      const { username, org } = principalOf(request);
      return settle(request, () => call(nc, TX.results, { hashes: request.body, username, organization: org }, { requestId: request.id }));
    },
  );

  app.post<{ Querystring: TxQuery; Params: { address: string } }>(
    '/bloc/v2.2/users/user/:address/fill',
    {
      schema: {
        tags: ['accounts'],
        summary: 'The faucet: adds 2000 tokens to an account',
        description: 'With gas disabled: `Success` with a hash of 64 zeros. Takes no body; any body is ignored.',
        params: fillParamsSchema,
        querystring: resolveQuery,
        response: { 200: txResult, 400: errorResponse, 401: errorResponse, 504: errorResponse },
      },
    },
    async (request) => {
      const { username } = principalOf(request);
      return (await settle(request, async () => [await call(nc, TX.fill, { username, address: request.params.address }, { requestId: request.id })]))[0];
    },
  );
}
