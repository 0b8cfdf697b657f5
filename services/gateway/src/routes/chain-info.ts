// Chain information answered by the block service from this node's applied
// state: the platform's account lookup (spec "chain information (eth/v1.2)",
// docs/conventions.md "Accounts and identity") and contract compilation
// (docs/conventions.md "Transactions": `POST /bloc/v2.2/contracts/compile`).
import type { FastifyInstance } from 'fastify';
import { BLOCK, call, type AccountRecord, type CompileItem, type NatsConnection } from '@platform/bus';
import { principalOf } from '../auth.js';
import { requireVisibleChain } from './chains.js';

const errorResponse = { $ref: 'ErrorBody#' } as const;

/** Keccak-256 of no bytes: the code hash of an account without code, as Ethereum and the platform give it. */
const EMPTY_CODE_HASH = 'c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470';

const hex64 = { type: 'string', pattern: '^[0-9a-f]{64}$' } as const;

const accountQuery = {
  type: 'object',
  required: ['address'],
  properties: {
    address: { type: 'string', pattern: '^(0[xX])?[0-9a-fA-F]{40}$', description: 'the account, 40 hex, 0x optional' },
    chainid: { type: 'string', pattern: '^((0[xX])?[0-9a-fA-F]{64})?$', description: 'a private chain (64 hex); empty or absent for the main chain' },
  },
} as const;

/** The platform's `AddressStateRef` record, as its client reads it. */
const accountSchema = {
  type: 'object',
  required: ['kind', 'address', 'balance', 'nonce', 'codeHash', 'contractRoot', 'chainId', 'latestBlockNum'],
  properties: {
    kind: { type: 'string', enum: ['AddressStateRef'] },
    address: { type: 'string', pattern: '^[0-9a-f]{40}$' },
    balance: { type: 'string', pattern: '^[0-9]+$', description: 'in the smallest unit (18 decimals per token), as a decimal string' },
    nonce: { type: 'integer', description: 'the nonce its next transaction executes with' },
    codeHash: { ...hex64, description: 'Keccak-256 of the code (SolidVM: of the source); c5d246…a470, the hash of no code, for an account without code' },
    contractRoot: { ...hex64, description: 'root of the storage trie (56e81f…b421 without storage)' },
    chainId: { anyOf: [hex64, { type: 'null' }], description: 'null on the main chain' },
    latestBlockNum: { anyOf: [{ type: 'integer' }, { type: 'null' }], description: 'the last block that changed the account' },
  },
} as const;

const compileBody = {
  type: 'array',
  minItems: 1,
  maxItems: 100,
  items: {
    type: 'object',
    required: ['source'],
    properties: {
      contractName: { type: 'string', minLength: 1, description: 'only this contract; absent: every contract of the source' },
      source: {
        anyOf: [
          { type: 'string', minLength: 1 },
          { type: 'object', minProperties: 1, additionalProperties: { type: 'string' } },
        ],
        description: 'the source, or {fileName: source}',
      },
      vm: { type: 'string', enum: ['EVM', 'SolidVM'], description: '`EVM` by default' },
    },
  },
} as const;

const compiledSchema = {
  type: 'object',
  required: ['contractName', 'codeHash'],
  properties: {
    contractName: { type: 'string' },
    codeHash: { type: 'string', description: 'SolidVM: the code hash an upload of the source gets; EVM: Keccak-256 of the deployed code solc produces' },
  },
} as const;

/** The block service's record as the platform's lookup shows it. */
export function addressStateRef(account: AccountRecord): Record<string, unknown> {
  return {
    kind: 'AddressStateRef',
    address: account.address,
    balance: account.balance,
    nonce: account.nonce,
    codeHash: account.codeHash ?? EMPTY_CODE_HASH,
    contractRoot: account.contractRoot,
    chainId: account.chainId === '' ? null : account.chainId,
    latestBlockNum: account.latestBlockNum,
  };
}

export function chainInfoRoutes(app: FastifyInstance, nc: NatsConnection): void {
  app.get<{ Querystring: { address: string; chainid?: string } }>(
    '/platform-api/eth/v1.2/account',
    {
      schema: {
        tags: ['accounts'],
        summary: 'The account lookup: balance, nonce and code hash of an address',
        description:
          "An array with the account's record, from the node's last applied block; an empty array for an address the chain's state does not hold (as the platform answers). A chain this node does not hold, or a private chain the caller is not a member of, is 404.",
        querystring: accountQuery,
        response: { 200: { type: 'array', items: accountSchema }, 400: errorResponse, 401: errorResponse, 404: errorResponse },
      },
    },
    async (request) => {
      // a private chain's accounts are its members' to see: others get the 404 of a chain that does not exist
      await requireVisibleChain(nc, request, request.query.chainid);
      const { username, org } = principalOf(request);
      const account = await call(nc, BLOCK.account, { address: request.query.address, chainId: request.query.chainid ?? null, username, organization: org }, { requestId: request.id });
      return account ? [addressStateRef(account)] : [];
    },
  );

  app.post<{ Body: CompileItem[] }>(
    '/bloc/v2.2/contracts/compile',
    {
      schema: {
        tags: ['contracts'],
        summary: 'Compiles contracts and answers their code hashes',
        description:
          "Each item is compiled for its `vm` (`EVM` by default, with solc; or `SolidVM`); the answer lists `{contractName, codeHash}` for the named contract, or for every contract of the source, items in request order. Source that does not compile, or lacks the named contract, is 422 `COMPILE_FAILED` with the compiler's messages in `error.details.errors`.",
        body: compileBody,
        response: { 200: { type: 'array', items: compiledSchema }, 400: errorResponse, 401: errorResponse, 422: errorResponse },
      },
    },
    async (request) => {
      principalOf(request);
      // solc takes seconds on a new source, and waits behind the block being executed: more room than the bus's default 10 s
      return call(nc, BLOCK.compile, request.body, { requestId: request.id, timeoutMs: 30_000 });
    },
  );
}
