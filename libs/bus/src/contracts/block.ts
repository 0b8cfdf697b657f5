// The block service's request/reply endpoints (services/block): reads of the
// applied world state and compilation. Both answer from this node's own
// copy of the chain, so they need no database and no other service.
//
// The subjects are `block-svc.*`, not `block.*`: the BLOCKS stream captures
// `block.>`, so a request on `block.account` would be stored as a block and
// acknowledged by JetStream instead of reaching the service.
import type { Genesis, VmKind } from '@platform/common';
import { defineEndpoint } from '../rpc.js';
import { SERVICE_NAMES, SUBJECTS } from '../subjects.js';

export interface AccountRequest {
  /** 40 hex, 0x optional */
  address: string;
  /** '' or absent for the main chain; 64 hex (0x optional) for a private chain */
  chainId?: string | null;
  /** the asking user, required: a private chain's accounts are its members' to see (`chains.visibleTo`) */
  username: string;
  organization: string | null;
}

/** The node's own read of an account (no user): the transaction service's funds check. */
export interface NodeAccountRequest {
  address: string;
  chainId?: string | null;
}

/** One account of the applied state (the last applied block's), as the block service keeps it. */
export interface AccountRecord {
  /** 40 hex, no 0x */
  address: string;
  /** '' for the main chain */
  chainId: string;
  /** in the smallest unit (18 decimals per token), decimal text: balances exceed 2^53 */
  balance: string;
  /** the nonce its next transaction executes with */
  nonce: number;
  /** 64 hex; null for an account without code */
  codeHash: string | null;
  /** contracts only: the VM that runs the code */
  kind?: VmKind;
  /** contracts only */
  contractName?: string;
  /** the storage trie's root, 64 hex (the empty trie's root without storage) */
  contractRoot: string;
  /** the last block that changed the account (0 for the genesis's accounts); null when the store predates this record */
  latestBlockNum: number | null;
  /** the block the answer was read at */
  blockNumber: number;
}

export interface CompileItem {
  /** only this contract of the source; absent: every contract the source defines */
  contractName?: string;
  /** one source, or `{fileName: source}` */
  source: string | Record<string, string>;
  /** `EVM` (default: the compile endpoint is the EVM's, as on the platform) or `SolidVM` */
  vm?: VmKind;
}

export interface CompiledRecord {
  contractName: string;
  /**
   * 64 hex. SolidVM: the source's code hash (every contract of one source
   * shares it). EVM: Keccak-256 of the deployed code solc produced, which is
   * the deployed contract's code hash unless the contract has immutables.
   */
  codeHash: string;
}

export const BLOCK = {
  /**
   * An account of the applied state, or null when the state has no such
   * account (the platform's account lookup answers an empty list for one).
   * VALIDATION_FAILED/BAD_HEX (`address`, `chainid`, `username`); NOT_FOUND
   * for a chain this node does not hold, and the same for a private chain
   * the user is not a member of.
   */
  account: defineEndpoint<AccountRequest, AccountRecord | null>(SERVICE_NAMES.block, 'account', SUBJECTS.blockService.account),
  /**
   * The same record for the node itself, unfiltered: the transaction
   * service reading a sender's balance to admit its transaction (gas
   * enabled). Its own subject, so that bus permissions keep it to that service.
   */
  nodeAccount: defineEndpoint<NodeAccountRequest, AccountRecord | null>(SERVICE_NAMES.block, 'account-node', SUBJECTS.blockService.nodeAccount),
  /**
   * Compiles each item; answers `{contractName, codeHash}` for each contract,
   * items in request order. VALIDATION_FAILED (400) for a malformed item
   * (`details.field` = `[i].source`, …); COMPILE_FAILED (422) for source that
   * does not compile or lacks the named contract, with the compiler's
   * messages in `details.errors`.
   */
  compile: defineEndpoint<CompileItem[], CompiledRecord[]>(SERVICE_NAMES.block, 'compile', SUBJECTS.blockService.compile),
  /**
   * Runs a private chain's genesis on an empty state, as block 0 will: the
   * governance contract's code hash, or a 422 whose code says why the chain
   * cannot start: COMPILE_FAILED, GOVERNANCE_NO_CONSTRUCTOR,
   * GOVERNANCE_CONSTRUCTOR_FAILED, GENESIS_INVALID.
   */
  checkGenesis: defineEndpoint<Genesis, { codeHash: string }>(SERVICE_NAMES.block, 'genesis-check', SUBJECTS.blockService.checkGenesis),
  /**
   * A new private chain's genesis as the GENESIS stream holds it: sealed
   * with a new chain key, the key wrapped for each node of the chain's
   * member organizations and for this node (docs/network.md "Private chains
   * across nodes").
   */
  sealGenesis: defineEndpoint<Genesis, SealedGenesis>(SERVICE_NAMES.block, 'genesis-seal', SUBJECTS.blockService.sealGenesis),
  /** A private chain's genesis, opened with this node's key; NOT_FOUND when this node is not one of the chain's (it holds no key for it). */
  chainGenesis: defineEndpoint<{ chainId: string }, Genesis>(SERVICE_NAMES.block, 'genesis-open', SUBJECTS.blockService.chainGenesis),
  /**
   * A private chain's current key (64 hex) and its epoch, for sealing what
   * is published to its streams (`sealInEpoch`); NOT_FOUND as chainGenesis,
   * and when this node holds the chain's current key no more.
   */
  chainKey: defineEndpoint<{ chainId: string }, { key: string; epoch: number }>(SERVICE_NAMES.block, 'chain-key', SUBJECTS.blockService.chainKey),
  /**
   * Whether each chain this node holds makes progress (the gateway's `/ready`
   * and `/metrics`): a chain whose block loop keeps failing is `stuck`, with
   * the reason of the first failure and the rounds retried.
   */
  health: defineEndpoint<Record<string, never>, { chains: ChainHealthRecord[] }>(SERVICE_NAMES.block, 'health', 'block-svc.health'),
  /**
   * The node in its network (the gateway's `/metadata` and `/peers`): its
   * block-signing key, the validators, where each chain it holds stands
   * against the network's head, and the other nodes as the NATS cluster
   * sees them. Private chains are filtered by the gateway.
   */
  metadata: defineEndpoint<Record<string, never>, NodeMetadataRecord>(SERVICE_NAMES.block, 'metadata', 'block-svc.metadata'),
} as const;

/**
 * A private chain's genesis on the GENESIS stream (`genesis.<chain>`): the
 * genesis JSON sealed with the chain's key (base64), and that key wrapped for
 * each member node's block-signing public key, by node name. A node without
 * an entry cannot read the chain, and does not run it.
 */
export interface SealedGenesis {
  chainId: string;
  keys: Record<string, string>;
  sealed: string;
}

/**
 * A chain's keys wrapped for a node that became a member later
 * (`genesis.<chain>.key.<node>`): every key epoch's the granting node holds,
 * by epoch, so that the new member reads the chain's history too.
 */
export interface ChainKeyGrant {
  chainId: string;
  node: string;
  keys: Record<string, string>;
}

/**
 * A private chain's new key from the block at `epoch` on
 * (`genesis.<chain>.epoch.<epoch>`), wrapped for each node that stays a
 * member when an organization leaves the chain; the first one published
 * for an epoch is the one.
 */
export interface ChainKeyEpoch {
  chainId: string;
  epoch: number;
  keys: Record<string, string>;
}

export type GenesisStreamMessage = SealedGenesis | ChainKeyGrant | ChainKeyEpoch;

/** Whether a message of the GENESIS stream is for `node`: a genesis or a key epoch sealed for it, or keys granted to it. */
export function genesisMessageIsFor(message: GenesisStreamMessage, node: string): boolean {
  return 'node' in message ? message.node === node : typeof message.keys?.[node] === 'string';
}

/** Where one chain stands on this node. */
export interface ChainStatusRecord {
  /** '' for the main chain */
  chainId: string;
  /** the last block applied here, its hash and state root */
  height: number;
  hash: string;
  stateRoot: string;
  /** the last block the network ordered, as far as this node has heard */
  networkHeight: number;
  /**
   * the highest block a majority of the validators attested with the hash
   * and state root this node applied (-1 before any); null on a node of its
   * own, which has no one to agree with
   */
  agreedHeight: number | null;
  /** whether this node proposes the chain's blocks now (holds its lease) */
  proposer: boolean;
  halted: string | null;
}

export interface PeerRecord {
  node: string;
  organization: string;
  /** the address of its block-signing key */
  address: string;
  /** whether its NATS server is in the cluster now, as the network's block stream sees it */
  connected: boolean;
}

export interface NodeMetadataRecord {
  node: string;
  organization: string | null;
  /** the address of this node's block-signing key, and its public key (uncompressed, 65 bytes hex) */
  nodeAddress: string;
  nodePubKey: string;
  /** the validators of the main genesis; empty on a node of its own */
  validators: Array<{ node: string; organization: string; address: string }>;
  /** the main genesis's hash: what identifies the network */
  networkId: string;
  chains: ChainStatusRecord[];
  /** the other validators' nodes */
  peers: PeerRecord[];
  /** the node whose NATS server leads the BLOCKS stream's Raft group now (it takes every append first), null when none or alone */
  orderingLeader: string | null;
}

/** One chain's progress as the block service sees it. */
export interface ChainHealthRecord {
  /** '' for the main chain */
  chainId: string;
  /** the last applied block */
  height: number;
  /** its block loop has failed several rounds in a row and is retrying: nothing after `height` is applied or published meanwhile */
  stuck: boolean;
  /** ms since epoch of the first failure of the current run of failures, null when there is none */
  since: number | null;
  reason: string | null;
  /** failed rounds since the service started */
  retries: number;
  /** why the chain stopped for good (a block that does not verify), or null */
  halted: string | null;
  /** the last block the network ordered, as far as this node has heard */
  networkHeight: number;
  /** the highest block a majority of the validators attested with this node's hash and root; null on a node of its own */
  agreedHeight: number | null;
}
