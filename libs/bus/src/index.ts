export { SERVICE_NAMES, SUBJECTS, chainToken } from './subjects.js';
export type { ServiceName } from './subjects.js';
export { connectBus } from './connection.js';
export type { BusCredentials, BusOptions } from './connection.js';
export { ALL_ENDPOINTS, BUS_PERMISSIONS, BUS_USERS, NETWORK_ACCOUNT, apiPrefixOf, inboxPrefixOf, natsAccounts, nodeAccountName, nodeDurable, permissionTableMarkdown, permissionsOf } from './permissions.js';
export type { BusGrant, BusUser, BusUserKey, NatsAccountsOptions, StreamGrant, SubjectPermissions } from './permissions.js';
export { credentialsFile, ensureBusCredentials, publicKeyOfSeed, readBusCredentials } from './credentials.js';
export { decodeJson, encodeJson, preEncoded } from './codec.js';
export { batchingCaller, call, defineEndpoint, handle, pingService, serve } from './rpc.js';
export type { BatchingOptions, CallOptions, Endpoint, Handler, RequestMeta, RequestOf, ResponseOf, ServeOptions } from './rpc.js';
export { NETWORK_API_PREFIX, NETWORK_CONSUMER_LEADER_PREFIX, NETWORK_PULL_EXPIRES_MS, networkConsumerLeaderSubject, quickNetworkClient, renewPullOnNewLeader, STREAM_ANSWER_TIMEOUT_MS, busJetStream, isTimeout, publishUntilAnswered, nodeJetStream, deleteDurableConsumer, ensureDurableConsumer, ensureStream, isWrongLastSequence, streamManager } from './jetstream.js';
export type { BusJetStream, ScopedJetStream } from './jetstream.js';
export { PROPOSER_LEASE_MS, STREAMS, declaredStream, nodePlacementTag, streamTopology } from './streams.js';
export type { ScopedStreamSpec, StreamScope, StreamSpec, StreamTopology } from './streams.js';
export { consumeExecBatches, consumeExecResults, type ExecItem } from './exec-consumer.js';
export { ExecPartsMissing, execPartSubject, isExecResultRef, publishExecResult, readExecResult, type ExecResultRef } from './exec-results.js';
export type { ExecConsumerSpec } from './exec-consumer.js';
export type { DurableSpec } from './jetstream.js';
export { VAULT } from './contracts/vault.js';
export type { KeyRecord, SignRequest, SignatureRecord, UsersRequest, UserRecord } from './contracts/vault.js';
export { TX } from './contracts/tx.js';
export type {
  ContractPayload,
  FillRequest,
  FunctionPayload,
  IntegerInput,
  NonceRecord,
  NodeResultsRequest,
  NonceRequest,
  RawTransactionBody,
  ResultsRequest,
  SubmitItem,
  SubmitRawRequest,
  SubmitRequest,
  TransferPayload,
  TxDoneNotice,
  TxParamsInput,
} from './contracts/tx.js';
export { BLOCK, genesisMessageIsFor } from './contracts/block.js';
export type { ChainHealthRecord, ChainKeyEpoch, ChainKeyGrant, ChainStatusRecord, GenesisStreamMessage, NodeMetadataRecord, PeerRecord, SealedGenesis } from './contracts/block.js';
export type { AccountRecord, AccountRequest, CompileItem, CompiledRecord, NodeAccountRequest } from './contracts/block.js';
export type { NatsConnection, Subscription } from '@nats-io/nats-core';
export type { ConsumerMessages, JsMsg } from '@nats-io/jetstream';
export {
  contractPayloadSchema,
  fillParamsSchema,
  functionPayloadSchema,
  rawTransactionBodySchema,
  resultParamsSchema,
  resultsBodySchema,
  transactionBodySchema,
  transactionQuerySchema,
  transferPayloadSchema,
  txResultSchema,
} from './contracts/tx-schemas.js';
export { CIRRUS } from './contracts/cirrus.js';
export { VisibleChains, type VisibilityUser } from './visible-chains.js';
export type { SearchRequest, SearchResponse } from './contracts/cirrus.js';
export { IDENTITY, IDENTITY_SUBJECTS } from './contracts/identity.js';
export type { CertificateSubject, IdentityRecord, IdentityRequest, IssueRequest, IssuedCertificate, RegisterRequest, RegisteredCertificateRecord } from './contracts/identity.js';
export { CHAINS, CHAINS_SUBJECTS } from './contracts/chains.js';
export type { ChainBody, ChainRecord, ChainUser, CreateChainsRequest, ExistsAnswer, ExistsRequest, ListChainsRequest } from './contracts/chains.js';
