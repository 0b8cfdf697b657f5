export { ERROR_CATALOGUE, ERROR_DOMAINS, RETIRED_ERRORS, PlatformError, clientErrorOf, isErrorCode, rawErrorResponse, statusOf, toPlatformError } from './errors.js';
export type { ErrorBody, ErrorCode, ErrorDomain, RetiredErrorCode } from './errors.js';
export { ConfigError, DEFAULT_NODE_NAME, EMBEDDED_S3_CREDENTIALS, NODE_NAME_PATTERN, envWithFlags, loadConfig } from './config.js';
export type { EventsConfig, FilesConfig, JoinConfig, NodeConfig } from './config.js';
export { REDACTED_PATHS, createLogger } from './logger.js';
export type { Logger } from './logger.js';
export { parseJsonLossless } from './json.js';
export { UndoJournal } from './journal.js';
export type { Undo } from './journal.js';
export { DEFAULT_MIN_GAS_PRICE, DEFAULT_PROTOCOL, MAIN_CHAIN, transactionKind } from './types.js';
export { DEFAULT_LIMITS, LIMIT_NAMES, limitMessage, limitsError, limitsOf } from './limits.js';
export type { ExecutionLimits } from './limits.js';
export { GOVERNANCE_ADDRESS, MEMBER_ADDED_EVENTS, MEMBER_REMOVED_EVENTS, chainGenesisText } from './chain-genesis.js';
export type {
  AccountState,
  Address,
  Block,
  BlockHeader,
  BlockAttestation,
  ChainId,
  ChainMember,
  CodeHash,
  ContractStateChange,
  CreatedContract,
  DecimalString,
  EventLog,
  ExecResult,
  ExecutionContext,
  Genesis,
  GenesisContract,
  Hash,
  ProtocolParams,
  Receipt,
  SendContents,
  SenderIdentity,
  Transaction,
  TransactionKind,
  TxResult,
  TxResultData,
  TxResultDetail,
  Validator,
  TxStatus,
  UploadContents,
  VmKind,
  WorldState,
  Xabi,
  XabiFunc,
  XabiType,
  XabiVar,
} from './types.js';
export { failStart, loadServiceConfig, runStopSteps, stopOnSignals } from './lifecycle.js';
export { AT_REST, collectWhenIdle } from './idle-memory.js';
export type { RestTiming } from './idle-memory.js';
