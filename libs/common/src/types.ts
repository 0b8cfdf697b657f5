// The shared vocabulary of the node: what crosses NATS between services and
// what the VMs execute against. Hex is lowercase without 0x; amounts and other
// integers that may exceed 2^53 travel as decimal strings.
import { DEFAULT_LIMITS, type ExecutionLimits } from './limits.js';

/** 40 hex characters */
export type Address = string;
/** 64 hex characters */
export type Hash = string;
/** '' for the main chain, otherwise 64 hex characters */
export type ChainId = string;
export type VmKind = 'EVM' | 'SolidVM';
export type DecimalString = string;

export const MAIN_CHAIN: ChainId = '';

// ---------------------------------------------------------------------------
// Transactions

/**
 * A signed, admitted transaction: the signed fields of docs/conventions.md "Raw
 * transactions: the signed bytes", the signature, and what admission derived
 * (hash, sender). A creation has `to: null`; a transfer has `to` set, empty
 * `initOrData` and no `metadata.funcName`; anything else with `to` is a call.
 */
export interface Transaction {
  hash: Hash;
  chainId: ChainId;
  from: Address;
  nonce: number;
  gasPrice: DecimalString;
  gasLimit: DecimalString;
  value: DecimalString;
  to: Address | null;
  /** hex: EVM bytecode or call data, SolidVM source (UTF-8) for a creation, empty otherwise */
  initOrData: string;
  /** VM, name, funcName, args (SolidVM: JSON text or the raw form "(1,2)"), history, noindex, … */
  metadata: Record<string, string>;
  r: string;
  s: string;
  v: number;
  /** which list was signed: 'platform' | 'literal' | 'metadata' */
  signingForm: 'platform' | 'literal' | 'metadata';
  /** who signed: the vault on the user's behalf, or the caller */
  origin: 'vault' | 'raw';
  /** the submitting user, for identity built-ins and result visibility; null for system transactions */
  submitter: { username: string; organization: string | null } | null;
  /** ms since epoch at admission (not consensus data: blocks carry the time) */
  admittedAt: number;
}

export type TransactionKind = 'create' | 'call' | 'transfer';

export function transactionKind(tx: Pick<Transaction, 'to' | 'initOrData' | 'metadata'>): TransactionKind {
  if (tx.to === null) return 'create';
  if (tx.initOrData === '' && tx.metadata.funcName === undefined) return 'transfer';
  return 'call';
}

// ---------------------------------------------------------------------------
// Blocks (`block.<chain>`: what was decided, not what it did)

export interface BlockHeader {
  chainId: ChainId;
  number: number;
  parentHash: Hash;
  /** seconds since epoch, set by the proposer; the VMs' block.timestamp */
  timestamp: number;
  transactionsRoot: Hash;
  stateRoot: Hash;
  /** address of the proposing node's key */
  proposer: Address;
  /**
   * Private chains only: the root of `Block.identities`, so that the
   * identities a block was executed with are part of what its hash and
   * signature cover. Absent on the main chain (it reads its own registry).
   */
  identitiesRoot?: Hash;
  /**
   * Set on a block that replaces a refused one: the hash of the block at this
   * height that a majority of the validators refused (each computed another
   * state root than its header's). `Block.refusals` carries their signed word.
   */
  replaces?: Hash;
}

/** What one validator computed at one height of one chain, signed by its block-signing key (services/block attestations). */
export interface BlockAttestation {
  chainId: ChainId;
  height: number;
  hash: Hash;
  stateRoot: Hash;
  /** the attesting node's name */
  node: string;
  signature: { r: string; s: string; v: 27 | 28 };
}

export interface Block {
  /** Keccak-256 of the RLP of the header */
  hash: Hash;
  header: BlockHeader;
  transactions: Transaction[];
  /** the proposer's signature over the hash: r, s, v */
  signature: { r: string; s: string; v: number } | null;
  /**
   * Private chains only: each sender's certificate (PEM) as the main chain's
   * registry held it when the block was proposed — a private chain has no
   * registry of its own, and re-executing the block later must see the same
   * identities (`tx.username`, `tx.organization`, …, the creator's
   * organization of new contracts). Senders without one are absent.
   */
  identities?: Record<Address, string>;
  /**
   * With `header.replaces` only: the attestations of more than half of the
   * validators that they computed, for the replaced block, a state root other
   * than its header's. What lets every node, now or catching up later, set
   * the replaced block and its descendants aside.
   */
  refusals?: BlockAttestation[];
}

// ---------------------------------------------------------------------------
// Execution results (`exec.<chain>`: what this node's execution of a block did)

/** An event, its arguments rendered as strings (a bool reads `True`/`False`). */
export interface EventLog {
  address: Address;
  chainId: ChainId;
  contractName: string;
  name: string;
  /** [argument name, value as text] in declaration order */
  args: Array<[string, string]>;
  /** position among the block's events, for ordering */
  index: number;
}

/**
 * A contract's state after a transaction, variable by variable: the input of
 * cirrus's row upsert and history row. Values are JSON (numbers as decimal
 * strings, mappings and arrays as objects and arrays).
 */
export interface ContractStateChange {
  address: Address;
  chainId: ChainId;
  contractName: string;
  codeHash: Hash;
  vm: VmKind;
  created: boolean;
  deleted: boolean;
  /** every state variable's current value */
  state: Record<string, unknown>;
  /** only what this transaction changed, by storage path */
  diff: Record<string, unknown>;
}

/** Facts fixed at a contract's creation, for naming its cirrus table and typing its columns. */
export interface CreatedContract {
  address: Address;
  chainId: ChainId;
  name: string;
  codeHash: Hash;
  vm: VmKind;
  /** organization of the uploader's certificate, when it has one */
  creatorOrg: string | null;
  /** the contract the user uploaded, when this one was created by it with `new` */
  appName: string | null;
  xabi: Xabi;
  /** EVM: the compiler's creation and deployed bytecode (hex), for the upload result's `bin`/`bin-runtime`; absent for SolidVM and bare bytecode */
  bin?: string;
  binRuntime?: string;
}

export interface Receipt {
  transactionHash: Hash;
  from: Address;
  status: 'Success' | 'Failure';
  /** `Success!` or the failure reason */
  message: string;
  kind: VmKind;
  /** SolidVM: JSON text of the returned values; EVM: ABI-encoded hex */
  response: string;
  /** the returned values as strings (the `Call` data) */
  returnValues: string[];
  contractsCreated: CreatedContract[];
  contractsDeleted: Address[];
  gasUsed: DecimalString;
  etherUsed: DecimalString;
  stateChanges: ContractStateChange[];
  events: EventLog[];
  /** execution time, ms */
  time: number;
  trace: string;
}

export interface ExecResult {
  chainId: ChainId;
  block: { number: number; hash: Hash; timestamp: number; parentHash: Hash; stateRoot: Hash };
  receipts: Receipt[];
}

// ---------------------------------------------------------------------------
// The spec's transaction result object

export type TxStatus = 'Pending' | 'Success' | 'Failure';

export interface TxResultDetail {
  blockHash: Hash;
  transactionHash: Hash;
  message: string;
  response: string;
  /** comma-separated addresses */
  contractsCreated: string;
  contractsDeleted: string;
  /** 64 hex */
  gasUsed: string;
  /** 64 hex */
  etherUsed: string;
  /** JSON text of {address: {path: value}} */
  stateDiff: string;
  newStorage: string;
  deletedStorage: string;
  time: number;
  kind: VmKind;
  chainId: string | null;
  trace: string;
  status: string;
}

export interface CodeHash {
  kind: VmKind;
  digest: Hash;
}

export interface UploadContents {
  bin: string;
  'bin-runtime': string;
  address: Address;
  chainId: string | null;
  codeHash: CodeHash;
  name: string;
  src: string;
  xabi: Xabi;
}

export interface SendContents {
  hash: Hash;
  from: Address;
  to: Address;
  value: DecimalString;
  nonce: number;
  gasLimit: DecimalString;
  gasPrice: DecimalString;
  codeOrData: string;
  r: string;
  s: string;
  v: string;
  chainId: string | null;
  metadata: Record<string, string>;
}

export type TxResultData =
  | { tag: 'Upload'; contents: UploadContents }
  | { tag: 'Call'; contents: string[] }
  | { tag: 'Send'; contents: SendContents };

export interface TxResult {
  status: TxStatus;
  hash: Hash;
  txResult: TxResultDetail | null;
  data: TxResultData | null;
}

// ---------------------------------------------------------------------------
// xabi (docs/conventions.md "Transactions": the platform's layout)

export type XabiType =
  | { type: 'Int'; signed: boolean; bytes: number }
  | { type: 'String'; dynamic?: boolean }
  | { type: 'Bytes'; dynamic: boolean; bytes?: number }
  | { type: 'Bool' }
  | { type: 'Address' }
  | { type: 'Account' }
  | { type: 'Decimal' }
  | { type: 'Struct'; typedef: string }
  | { type: 'Enum'; typedef: string; names?: string[] }
  | { type: 'Contract'; typedef: string }
  | { type: 'Array'; entry: XabiType; length?: number }
  | { type: 'Mapping'; key: XabiType; value: XabiType };

export interface XabiFunc {
  args: Record<string, XabiType & { index: number }>;
  vals: Record<string, XabiType>;
  stateMutability?: string;
  visibility?: string;
  modifiers?: string[];
}

export interface XabiVar {
  type: XabiType;
  public?: boolean;
  constant?: boolean;
  initialValue?: unknown;
  atBytes?: number;
}

export interface Xabi {
  funcs: Record<string, XabiFunc>;
  constr: XabiFunc | null;
  vars: Record<string, XabiVar & XabiType>;
  types: Record<string, unknown>;
  modifiers: Record<string, unknown>;
  events: Record<string, { anonymous: boolean; logs: Array<[string, XabiType]> }>;
  kind: 'ContractKind' | 'InterfaceKind' | 'LibraryKind' | 'AbstractKind';
  using: Record<string, unknown>;
}

// ---------------------------------------------------------------------------
// World state: what the block service provides and the VMs execute against.
// Synchronous on purpose: reads come from an embedded store or an in-memory
// overlay, and an await per storage slot would dominate SolidVM's run time.

export interface AccountState {
  nonce: bigint;
  balance: bigint;
  /** null for an externally owned account */
  codeHash: Hash | null;
  /** set for contracts */
  vm?: VmKind;
  contractName?: string;
}

export interface WorldState {
  readonly chainId: ChainId;
  getAccount(address: Address): AccountState | undefined;
  putAccount(address: Address, account: AccountState): void;
  deleteAccount(address: Address): void;
  getCode(codeHash: Hash): Uint8Array | undefined;
  /** stores code, returns its Keccak-256 */
  putCode(code: Uint8Array): Hash;
  /** SolidVM: storage paths (`.balances<"alice">`); EVM: 32-byte slots as 64 hex */
  getStorage(address: Address, key: string): string | undefined;
  /** undefined deletes */
  putStorage(address: Address, key: string, value: string | undefined): void;
  /** keys and values of one contract with the given key prefix, in key order */
  storageEntries(address: Address, prefix?: string): Iterable<[string, string]>;
  /** nested journal: every checkpoint is ended by exactly one commit or revert */
  checkpoint(): void;
  commit(): void;
  revert(): void;
}

/** A sender's registered certificate as execution sees it: `tx.username` = CN, `tx.organization` = O, `tx.organizationalUnit` = OU, `tx.certificate` = the PEM. */
export interface SenderIdentity {
  username: string;
  organization: string;
  organizationalUnit: string;
  certificate: string;
}

/** What a VM knows of the block and transaction it executes in. */
export interface ExecutionContext {
  chainId: ChainId;
  block: { number: number; timestamp: number; coinbase: Address; hash?: Hash };
  tx: { hash: Hash; origin: Address; gasPrice: bigint; gasLimit: bigint; value: bigint };
  /** the sender's certificate fields, for tx.username and friends (identity issue) */
  identity: SenderIdentity | null;
  protocol: ProtocolParams;
  gasEnabled: boolean;
  /** SolidVM's `account(a, "parent")`: the parent chain ('' = the main chain); null or absent on the main chain, which has none */
  parentChain?: ChainId | null;
}

// ---------------------------------------------------------------------------
// Genesis (docs/architecture.md "Chains")

export interface ProtocolParams {
  /** with gas disabled: most interpreter steps a transaction may take */
  stepLimit: number;
  /** which gas cost table the VMs meter with */
  gasTableVersion: number;
  /** execution limits; absent (a genesis older than them): DEFAULT_LIMITS, see limits.ts */
  limits?: Partial<ExecutionLimits>;
  /**
   * With gas enabled, the lowest `gasPrice` a transaction is admitted with
   * (decimal text, in the smallest unit): below it, admission refuses it as
   * it refuses an account that cannot pay. Absent (a genesis older than
   * it): DEFAULT_MIN_GAS_PRICE.
   */
  minGasPrice?: DecimalString;
}

export interface ChainMember {
  orgName: string;
  orgUnit?: string;
  commonName?: string;
  access: boolean;
}

export interface GenesisContract {
  address: Address;
  name: string;
  vm: VmKind;
  src: string;
  args: Record<string, unknown>;
}

/**
 * A node that may propose blocks: its name in the network, its organization,
 * and its block-signing key, by address and by public key (65 bytes
 * uncompressed, hex): private chains' keys are wrapped to it
 * (docs/network.md "Private chains across nodes").
 */
export interface Validator {
  node: string;
  organization: string;
  address: Address;
  publicKey: string;
}

export interface Genesis {
  format: 1;
  /** '' for the main chain */
  chainId: ChainId;
  label: string;
  /** seconds since epoch */
  timestamp: number;
  parentChain: ChainId | null;
  /** 64 hex; private chains: random, so two creations never share an ID */
  nonce: string;
  protocol: ProtocolParams;
  /** PEM root certificates the network trusts */
  trustedRoots: string[];
  accounts: Array<{ address: Address; balance: DecimalString }>;
  /** contracts created at genesis: the certificate registry, a private chain's governance */
  contracts: GenesisContract[];
  members: ChainMember[];
  /** the creator of a private chain */
  creator: Address | null;
  /**
   * The main chain of a network of several nodes: the nodes that may propose
   * blocks, each by its node key's address (docs/network.md). Absent on a
   * node of its own (its own key proposes) and on private chains (the main
   * chain's validators order them), so such geneses hash as they did before.
   */
  validators?: Validator[];
  /**
   * A private chain that admits transactions from its members only (the
   * creation body's `metadata.membersOnly`); to anyone else it is as unknown
   * as a chain that does not exist. Present only when true, so a genesis
   * without it hashes as it did before the field existed (its chain keeps its ID).
   */
  membersOnly?: true;
}

/** 1, the platform client's default gas price: a free (0) transaction would let an account nobody funded transact */
export const DEFAULT_MIN_GAS_PRICE: DecimalString = '1';

export const DEFAULT_PROTOCOL: ProtocolParams = { stepLimit: 10_000_000, gasTableVersion: 1, limits: { ...DEFAULT_LIMITS }, minGasPrice: DEFAULT_MIN_GAS_PRICE };
