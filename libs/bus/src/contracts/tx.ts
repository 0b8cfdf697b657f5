// The transaction service's endpoints (services/transaction). The gateway
// authenticates and passes the token's user; the service validates every
// field itself (the bus is a trust boundary for shape, not for identity), and
// names a bad field by its path in the HTTP body (`txs[2].payload.method`,
// `nonce`, ...). Results are the spec's transaction result objects.
import type { TxResult } from '@platform/common';
import { defineEndpoint } from '../rpc.js';
import { SERVICE_NAMES, SUBJECTS } from '../subjects.js';

/** Integers: JSON numbers, or decimal strings when beyond 2^53 (the gateway parses losslessly). */
export type IntegerInput = number | string;

export interface TxParamsInput {
  gasLimit?: IntegerInput;
  gasPrice?: IntegerInput;
}

/** Fields every payload may carry. `chainid` must agree with the request's `chainId` when both are given. */
interface PayloadCommon {
  value?: IntegerInput;
  txParams?: TxParamsInput;
  chainid?: string | null;
  /** `VM` (`EVM` by default, or `SolidVM`), `history`, `noindex`, ...: strings */
  metadata?: Record<string, string>;
}

export interface ContractPayload extends PayloadCommon {
  /** the contract to create: the spec's `contract`; `contractName` is accepted too */
  contract?: string;
  contractName?: string;
  /** one source, or `{fileName: source}` */
  src: string | Record<string, string>;
  /** constructor arguments by parameter name (or positional) */
  args?: Record<string, unknown> | unknown[];
}

export interface FunctionPayload extends PayloadCommon {
  contractName?: string;
  contractAddress: string;
  method: string;
  args?: Record<string, unknown> | unknown[];
}

export interface TransferPayload extends PayloadCommon {
  toAddress: string;
  value: IntegerInput;
}

export type SubmitItem =
  | { type: 'CONTRACT'; payload: ContractPayload }
  | { type: 'FUNCTION'; payload: FunctionPayload }
  | { type: 'TRANSFER'; payload: TransferPayload };

export interface SubmitRequest {
  username: string;
  /** the token's organization claim, for identity built-ins; null when it has none */
  organization: string | null;
  /** the `chainid` query parameter; null when absent (a payload's `chainid` may name the chain) */
  chainId: string | null;
  /** the body's `txParams`: the default of every item */
  txParams?: TxParamsInput;
  /** the body's `txs`, in order */
  transactions: SubmitItem[];
  /** the `Idempotency-Key` header: a retry with the same key answers the first attempt's hashes */
  idempotencyKey?: string;
}

/** The spec's "Raw (self-signed) transaction body". Hex with or without 0x. */
export interface RawTransactionBody {
  nonce: IntegerInput;
  gasPrice: IntegerInput;
  gasLimit: IntegerInput;
  /** null or omitted for a creation */
  to?: string | null;
  value: IntegerInput;
  chainId?: string | null;
  initOrData: string;
  address?: string;
  r: string;
  s: string;
  /** 27 or 28; optional when `address` is given */
  v?: IntegerInput;
  metadata?: Record<string, string>;
}

export interface SubmitRawRequest {
  username: string;
  organization: string | null;
  /** the `chainid` query parameter; must agree with the body's `chainId` when both are given */
  chainId: string | null;
  transaction: RawTransactionBody;
  /** accepted and not needed: a raw transaction is idempotent by its hash (the same one again answers its result) */
  idempotencyKey?: string;
}

export interface ResultsRequest {
  /** 64 hex each, 0x optional */
  hashes: string[];
  /**
   * The asking user, required: a private chain's transaction is answered
   * only to the chain's members and to its sender, else counted as unknown.
   * The node's own reads go to `TX.nodeResults`.
   */
  username: string;
  /** the token's organization claim, for membership without a registered certificate */
  organization: string | null;
}

/** The node's own read of results, unfiltered: the gateway's `resolve=true` waiting for hashes a request was already answered. */
export interface NodeResultsRequest {
  hashes: string[];
}

export interface FillRequest {
  username: string;
  /** the account to credit: 40 hex, 0x optional */
  address: string;
}

export interface NonceRequest {
  address: string;
  /** '' or absent for the main chain */
  chainId?: string | null;
  /** the asking user, required: a private chain's nonces (its accounts' activity) are its members' to see */
  username: string;
  organization: string | null;
}

export interface NonceRecord {
  address: string;
  chainId: string;
  /** the nonce the account's next transaction must carry (counts its pending transactions) */
  nextNonce: number;
}

/**
 * `tx.done` (core NATS, published after the results are stored): the final
 * results of one recorded block — one notice per block, not per transaction,
 * since every notice reaches every gateway — in as many notices as the
 * server's max_payload requires. `stored` names the final transactions whose
 * result alone would not fit a message: read them with `TX.nodeResults` (`tx.results.node`: the gateway asks for hashes its request was already shown).
 * Subscribe first, then read the results once, so that a completion that
 * raced ahead is not missed (docs/architecture.md "One transaction, end to end", step 5).
 */
export interface TxDoneNotice {
  results: TxResult[];
  stored?: string[];
}

export const TX = {
  /** vault-signed transactions → the Pending results in request order. USER_NOT_FOUND, NONCE_LIMIT, VALIDATION_FAILED, BAD_HEX, CONFLICT (key reused for another request) */
  submit: defineEndpoint<SubmitRequest, TxResult[]>(SERVICE_NAMES.tx, 'submit', SUBJECTS.tx.submit),
  /** one self-signed transaction → its Pending result (data null). VALIDATION_FAILED/BAD_HEX name the field; NONCE_MISMATCH (details.expected), SIGNER_MISMATCH, METADATA_UNSIGNED, ARGS_UNPARSABLE, GAS_PRICE_TOO_LOW, INSUFFICIENT_BALANCE, NONCE_LIMIT */
  submitRaw: defineEndpoint<SubmitRawRequest, TxResult>(SERVICE_NAMES.tx, 'submit-raw', 'tx.submit.raw'),
  /** results in the order asked, as the user may see them; NOT_FOUND (404) with details.unknown when any hash is unknown (or hidden from the user); VALIDATION_FAILED without a username */
  results: defineEndpoint<ResultsRequest, TxResult[]>(SERVICE_NAMES.tx, 'results', 'tx.results'),
  /**
   * The node's own read (no user: nothing filtered), for the gateway's
   * `resolve=true`, which only ever asks for hashes the request was already
   * shown. A subject of its own, so that bus permissions can keep it to the
   * gateway and it is never the unfiltered fallback of a request that forgot its user.
   */
  nodeResults: defineEndpoint<NodeResultsRequest, TxResult[]>(SERVICE_NAMES.tx, 'results-node', 'tx.results.node'),
  /** the faucet: with gas disabled the spec's zero-hash Success, with gas enabled the Pending transfer of 2000 tokens */
  fill: defineEndpoint<FillRequest, TxResult>(SERVICE_NAMES.tx, 'fill', 'tx.fill'),
  /** the next nonce of an account on a chain, pending transactions included (for the account lookup and raw clients); a private chain's only to its members (else NOT_FOUND as an unknown chain) */
  nonce: defineEndpoint<NonceRequest, NonceRecord>(SERVICE_NAMES.tx, 'nonce', 'tx.nonce'),
} as const;
