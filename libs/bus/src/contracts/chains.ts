// The chains service's endpoints (services/chains): private chains'
// creation, their records, and who may see them. Every answer about a chain
// is already filtered by membership: a caller never learns of a private
// chain it may not see (spec "Private chains"; docs/conventions.md "Private chains").
import type { ChainId, ChainMember, DecimalString, ProtocolParams } from '@platform/common';
import { defineEndpoint } from '../rpc.js';
import { SERVICE_NAMES } from '../subjects.js';

/** The user asking: membership matches the user's registered certificate, else these token facts. */
export interface ChainUser {
  username: string;
  /** the token's organization claim (the gateway's principal) */
  organization: string | null;
}

/** The spec's chain creation body, as the client sent it (validated by the service). */
export interface ChainBody {
  label: string;
  contract: string;
  src: string;
  args?: Record<string, unknown>;
  members?: ChainMember[];
  balances?: Array<{ address: string; balance: DecimalString | number }>;
  /** `membersOnly: true`: only members may send transactions to the chain (recorded in its genesis) */
  metadata?: { VM?: string; membersOnly?: boolean | string } & Record<string, unknown>;
  parentChain?: string | null;
}

export interface CreateChainsRequest extends ChainUser {
  /** one body per chain; all or none are created */
  chains: unknown[];
}

/** The spec's chain record. */
export interface ChainRecord {
  id: ChainId;
  info: {
    label: string;
    /** the members now: the creation's, then the governance events applied in block order */
    members: ChainMember[];
    /** the genesis's accounts: balances, and the governance contract */
    accountInfo: Array<{ address: string; balance: DecimalString; contractName?: string; codeHash?: string }>;
    /** 64 hex */
    nonce: string;
    /** the governance contract's code */
    codeInfo: Array<{ name: string; vm: string; src: string; codeHash: string }>;
    /** null for a child of the main chain */
    parentChain: ChainId | null;
    balances: Array<{ address: string; balance: DecimalString }>;
    /** the creating account */
    creator: string;
    /** seconds since the epoch */
    createdAt: number;
    /** only members may send transactions to it (the creation's `metadata.membersOnly`) */
    membersOnly: boolean;
  };
}

export interface ListChainsRequest extends ChainUser {
  /** only these chains (each still only if the user may see it); absent: all the user may see */
  chainIds?: string[] | null;
  limit?: number;
  offset?: number;
}

export interface ExistsRequest extends ChainUser {
  /** 64 hex, 0x optional; '' / null / absent: the main chain */
  chainId: string | null;
}

/** Whether the asking user may send transactions to a chain, and by which rules. */
export interface ExistsAnswer {
  chainId: ChainId;
  /**
   * The chain exists for this user: false for a chain that does not exist,
   * and for a members-only chain the user is not a member of (the same
   * answer, so that such a chain's existence does not leak).
   */
  exists: boolean;
  /** a members-only chain (the user is a member): this answer holds for this user only, not for every user */
  membersOnly: boolean;
  /** the chain's genesis's protocol parameters (the minimum gas price); null when it does not exist for the user */
  protocol: ProtocolParams | null;
}

export const CHAINS_SUBJECTS = {
  create: 'chains.create',
  list: 'chains.list',
  visibleTo: 'chains.visibleTo',
  exists: 'chains.exists',
} as const;

export const CHAINS = {
  /**
   * Creates private chains: validates each body, dry-runs its genesis with
   * the block service, publishes the geneses and answers their IDs in order.
   * VALIDATION_FAILED naming the field (`[i].label`, …); FORBIDDEN when the
   * creator has no key in the vault; NOT_FOUND for an unknown `parentChain`;
   * COMPILE_FAILED, GOVERNANCE_CONSTRUCTOR_FAILED or GOVERNANCE_NO_CONSTRUCTOR
   * when the governance contract does not compile, fails in its constructor
   * or has none; GOVERNANCE_VM_UNSUPPORTED for an EVM one.
   */
  create: defineEndpoint<CreateChainsRequest, ChainId[]>(SERVICE_NAMES.chains, 'create', CHAINS_SUBJECTS.create),
  /** chain records the user may see, ordered by creation; BAD_HEX/VALIDATION_FAILED for a malformed ID or page */
  list: defineEndpoint<ListChainsRequest, ChainRecord[]>(SERVICE_NAMES.chains, 'list', CHAINS_SUBJECTS.list),
  /** every chain whose data the user may see: '' (the main chain) first, then the private chains it is a member of */
  visibleTo: defineEndpoint<ChainUser, { chainIds: ChainId[] }>(SERVICE_NAMES.chains, 'visible-to', CHAINS_SUBJECTS.visibleTo),
  /**
   * Whether a chain exists for the user, who may then send to it: any user
   * to a default private chain (its ID is what it takes), only members to a
   * members-only one. VALIDATION_FAILED without a username.
   */
  exists: defineEndpoint<ExistsRequest, ExistsAnswer>(SERVICE_NAMES.chains, 'exists', CHAINS_SUBJECTS.exists),
} as const;
