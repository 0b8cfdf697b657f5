// JSON schemas (draft-07, as fastify's ajv reads them) of the HTTP bodies the
// transaction endpoints take (services/transaction), for the gateway's routes: early 400s and the
// OpenAPI document. They check shape only — the service re-checks every field
// and names it — and never forbid extra fields (docs/conventions.md "Requests":
// unknown fields are accepted and ignored). Query values are strings (the
// gateway does not coerce types).

/** An integer as a JSON number, or as a decimal string (beyond 2^53 the lossless parser gives one). */
const integer = {
  anyOf: [
    { type: 'integer', minimum: 0 },
    { type: 'string', pattern: '^[0-9]+$' },
  ],
} as const;

const hex = { type: 'string', pattern: '^(0[xX])?([0-9a-fA-F]{2})*$', description: 'hex, 0x optional' } as const;
const address = { type: 'string', pattern: '^(0[xX])?[0-9a-fA-F]{40}$', description: '20 bytes of hex, 0x optional' } as const;
const hash = { type: 'string', pattern: '^(0[xX])?[0-9a-fA-F]{64}$', description: '32 bytes of hex, 0x optional' } as const;
const chainId = {
  anyOf: [{ type: 'string', pattern: '^((0[xX])?[0-9a-fA-F]{64})?$' }, { type: 'null' }],
  description: 'chain ID of a private chain (64 hex); empty or null for the main chain',
} as const;
const metadata = {
  type: 'object',
  additionalProperties: { anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }] },
  description: '`VM` (`EVM` by default, or `SolidVM`), `history`, `noindex`, ...',
} as const;
const txParams = {
  type: 'object',
  properties: { gasLimit: integer, gasPrice: integer },
  description: 'ignored while gas is disabled',
} as const;
const args = { anyOf: [{ type: 'object' }, { type: 'array' }], description: 'arguments keyed by parameter name (or positional)' } as const;

export const contractPayloadSchema = {
  type: 'object',
  required: ['src'],
  anyOf: [{ required: ['contract'] }, { required: ['contractName'] }],
  properties: {
    contract: { type: 'string', minLength: 1, description: 'name of the contract to create' },
    contractName: { type: 'string', minLength: 1, description: 'accepted in place of `contract`' },
    src: {
      anyOf: [
        { type: 'string', minLength: 1 },
        { type: 'object', minProperties: 1, additionalProperties: { type: 'string' } },
      ],
      description: 'the source, or {fileName: source}',
    },
    args,
    value: integer,
    txParams,
    chainid: chainId,
    metadata,
  },
} as const;

export const functionPayloadSchema = {
  type: 'object',
  required: ['contractAddress', 'method'],
  properties: {
    contractName: { type: 'string' },
    contractAddress: address,
    method: { type: 'string', minLength: 1 },
    args,
    value: integer,
    txParams,
    chainid: chainId,
    metadata,
  },
} as const;

export const transferPayloadSchema = {
  type: 'object',
  required: ['toAddress', 'value'],
  properties: { toAddress: address, value: integer, txParams, chainid: chainId, metadata },
} as const;

const payloadOf = (type: string, schema: object) => ({ if: { type: 'object', properties: { type: { const: type } } }, then: { type: 'object', properties: { payload: schema } } });

/** `POST /platform/v2.3/transaction`: the spec's standard transaction request body. */
export const transactionBodySchema = {
  type: 'object',
  required: ['txs'],
  properties: {
    txs: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['type', 'payload'],
        properties: {
          type: { type: 'string', enum: ['CONTRACT', 'FUNCTION', 'TRANSFER'] },
          payload: { type: 'object' },
        },
        allOf: [payloadOf('CONTRACT', contractPayloadSchema), payloadOf('FUNCTION', functionPayloadSchema), payloadOf('TRANSFER', transferPayloadSchema)],
      },
    },
    txParams,
  },
} as const;

/** `POST /platform/v2.3/transaction/raw` and `/bloc/v2.2/transaction/raw`: one self-signed transaction. */
export const rawTransactionBodySchema = {
  type: 'object',
  required: ['nonce', 'gasPrice', 'gasLimit', 'value', 'initOrData', 'r', 's'],
  properties: {
    nonce: integer,
    gasPrice: integer,
    gasLimit: integer,
    to: { anyOf: [address, { type: 'string', maxLength: 0 }, { type: 'null' }], description: 'null or omitted for a creation' },
    value: integer,
    chainId,
    initOrData: hex,
    address,
    r: { type: 'string', pattern: '^(0[xX])?([0-9a-fA-F]{2}){1,32}$' },
    s: { type: 'string', pattern: '^(0[xX])?([0-9a-fA-F]{2}){1,32}$' },
    v: { anyOf: [{ type: 'integer', enum: [27, 28] }, { type: 'string', enum: ['27', '28'] }], description: 'optional when address is given' },
    metadata,
  },
} as const;

/** `POST /bloc/v2.2/transactions/results`: a JSON array of hashes. */
export const resultsBodySchema = { type: 'array', items: hash, maxItems: 10_000 } as const;

/** `GET /bloc/v2.2/transactions/<hash>/result` */
export const resultParamsSchema = { type: 'object', required: ['hash'], properties: { hash } } as const;

/** `POST /bloc/v2.2/users/user/<address>/fill` (its body, if any, is ignored) */
export const fillParamsSchema = { type: 'object', required: ['address'], properties: { address } } as const;

/** `resolve` and `chainid` of the transaction and faucet endpoints. */
export const transactionQuerySchema = {
  type: 'object',
  properties: {
    resolve: { type: 'string', enum: ['true', 'false', '1', '0', ''], description: 'wait for completion (at most RESOLVE_TIMEOUT_MS)' },
    chainid: chainId,
  },
} as const;

/**
 * The spec's transaction result object, for responses. `txResult` and `data`
 * are described, not typed: the gateway's response serializer (fast-json-
 * stringify) checks an `anyOf` with a validator for every value it writes,
 * which made serializing results five times slower than JSON.stringify (7 ms
 * per 1,000 results against 1.3); an untyped value it hands to JSON.stringify.
 * The service that builds them gives them their shapes (services/transaction,
 * results.ts).
 */
export const txResultSchema = {
  type: 'object',
  required: ['status', 'hash', 'txResult', 'data'],
  properties: {
    status: { type: 'string', enum: ['Pending', 'Success', 'Failure'] },
    hash: { type: 'string', pattern: '^[0-9a-f]{64}$' },
    txResult: { description: 'null while Pending; then an object: blockHash, transactionHash, message, response, contractsCreated, contractsDeleted, gasUsed, etherUsed, stateDiff, newStorage, deletedStorage, time, kind, chainId, trace, status' },
    data: { description: 'null, or an object: `{tag: "Upload", contents: {...}}`, `{tag: "Call", contents: [...]}` or `{tag: "Send", contents: {...}}`' },
  },
} as const;
