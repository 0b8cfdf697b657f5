// The block service's request/reply endpoints (contract: libs/bus/src/contracts/block.ts):
// the account lookup over this node's applied state, compilation, and the
// node's place in its network (metadata).
import { BLOCK, CHAINS, IDENTITY, call, handle, type AccountRecord, type Handler, type NatsConnection } from '@platform/bus';
import { PlatformError, type ChainId, type Genesis, type Validator } from '@platform/common';
import type { ChainHealthRecord, ChainStatusRecord, NodeMetadataRecord } from '@platform/bus';
import { bytesToHex, type KeyPair } from '@platform/crypto';
import { chainKeyRecord, type ChainKeys } from './chain/chain-keys.js';
import { checkPrivateGenesis } from './chain/private-genesis.js';
import { compileItems, type Compilers } from './compile.js';
import { genesisHash } from './genesis.js';
import { identityStatus } from './exec/identity-status.js';
import { EMPTY_ROOT } from './state/root.js';
import type { ChainStore } from './state/store.js';

/** A chain this node holds: its store is read directly (lmdb reads are snapshot reads, never blocked by the block loop). */
export interface HeldChain {
  chainId: ChainId;
  store: ChainStore;
  /** whether its block loop makes progress (ChainWorker.health) */
  health?: () => ChainHealthRecord;
  /** where it stands against the network (ChainWorker.status) */
  status?: () => ChainStatusRecord;
}

/** What the metadata endpoint says of the node itself. */
export interface NodeIdentity {
  node: string;
  organization: string | null;
  key: KeyPair;
  genesis: Genesis;
  /** the validators now (the main chain's validator set); empty on a node of its own */
  validators(): Validator[];
  /** the NATS cluster's view of the network's servers: names of those connected now and of the BLOCKS stream's leader, null when it cannot be told */
  clusterView(): Promise<{ connected: Set<string>; leader: string | null } | null>;
}

/**
 * `byId`: the chains held now; private chains are added to it as they start.
 * `nc` asks the chains service who may see a private chain. `chainKeys`:
 * this node's keys of private chains, for the services that seal or open
 * their data. `compilers`: the process's VMs, whose caches execution shares.
 */
export function blockHandlers(byId: ReadonlyMap<ChainId, HeldChain>, nc: NatsConnection, self: NodeIdentity, chainKeys: ChainKeys, compilers: Compilers): Handler[] {
  const held = (chainId: ChainId): HeldChain => {
    const chain = byId.get(chainId);
    if (!chain) throw notHeld(chainId);
    return chain;
  };
  return [
    handle(BLOCK.account, async (request, meta) => {
      const address = hexField(request?.address, 'address', 20);
      const chainId = chainField(request.chainId);
      const username = request.username;
      if (typeof username !== 'string' || username === '') throw invalid('username', 'is required: a private chain\'s accounts are its members\' to see');
      if (chainId !== '') {
        // the chains service decides; to a non-member the chain is as unknown as one this node does not hold
        const { chainIds } = await call(nc, CHAINS.visibleTo, { username, organization: request.organization ?? null }, meta.requestId ? { requestId: meta.requestId } : {});
        if (!chainIds.includes(chainId)) throw notHeld(chainId);
      }
      return accountOf(held(chainId), address);
    }),
    // the node's own read: the transaction service's funds check
    handle(BLOCK.nodeAccount, (request) => accountOf(held(chainField(request?.chainId)), hexField(request?.address, 'address', 20))),
    handle(BLOCK.compile, (request) => compileItems(request, compilers)),
    handle(BLOCK.health, () => ({ chains: [...byId.values()].flatMap((chain) => (chain.health ? [chain.health()] : [])) })),
    handle(BLOCK.metadata, async () => metadataOf(self, byId)),
    handle(BLOCK.checkGenesis, (genesis) => {
      if (!genesis || typeof genesis !== 'object') throw invalid('genesis', 'must be a genesis object');
      return checkPrivateGenesis(genesis);
    }),
    handle(BLOCK.sealGenesis, (genesis) => {
      if (!genesis || typeof genesis !== 'object') throw invalid('genesis', 'must be a genesis object');
      checkPrivateGenesis(genesis);
      return chainKeys.sealGenesis(genesis);
    }),
    handle(BLOCK.chainGenesis, (request) => chainKeys.genesisOf(request?.chainId)),
    handle(BLOCK.chainKey, async (request) => chainKeyRecord(await chainKeys.requireCurrentKey(request?.chainId))),
    handle(IDENTITY.status, (request) => {
      const main = byId.get('')!;
      return identityStatus(main.store, hexField(request?.address, 'address', 20), main.store.head()?.header.number ?? 0);
    }),
  ];
}

/**
 * The account as the last applied block left it. Both reads happen in one
 * synchronous turn, and a block is applied in one synchronous lmdb
 * transaction, so the head and the account always belong together.
 */
function accountOf({ chainId, store }: HeldChain, address: string): AccountRecord | null {
  const record = store.accountRecord(address);
  if (!record) return null;
  const { state, latestBlock } = record;
  const out: AccountRecord = {
    address,
    chainId,
    balance: state.balance.toString(),
    nonce: Number(state.nonce),
    codeHash: state.codeHash,
    contractRoot: bytesToHex(store.storageRoot(address) ?? EMPTY_ROOT),
    latestBlockNum: latestBlock,
    blockNumber: store.head()?.header.number ?? 0,
  };
  if (state.vm !== undefined) out.kind = state.vm;
  if (state.contractName !== undefined) out.contractName = state.contractName;
  return out;
}

function notHeld(chainId: ChainId): PlatformError {
  return new PlatformError('CHAIN_NOT_FOUND', `chain ${chainId} is not held by this node`, { chainId });
}

function invalid(field: string, message: string): PlatformError {
  return new PlatformError('VALIDATION_FAILED', `${field} ${message}`, { field });
}

/** Hex of a fixed length, 0x optional → lowercase without 0x; BAD_HEX / VALIDATION_FAILED naming the field. */
function hexField(value: unknown, field: string, bytes: number): string {
  if (typeof value !== 'string') throw invalid(field, value === undefined ? 'is required' : 'must be a hex string');
  const body = value.replace(/^0x/i, '');
  if (!/^[0-9a-fA-F]*$/.test(body)) throw new PlatformError('BAD_HEX', `${field} is not hexadecimal`, { field });
  if (body.length !== bytes * 2) throw invalid(field, `must be ${bytes} bytes (${bytes * 2} hex digits), got ${body.length} digits`);
  return body.toLowerCase();
}

/** '' (also null or absent) is the main chain. */
function chainField(value: unknown): ChainId {
  if (value === undefined || value === null || value === '') return '';
  return hexField(value, 'chainid', 32);
}

async function metadataOf(self: NodeIdentity, byId: ReadonlyMap<ChainId, HeldChain>): Promise<NodeMetadataRecord> {
  const validators = self.validators().map(({ node, organization, address }) => ({ node, organization, address }));
  const view = validators.length > 1 ? await self.clusterView() : null;
  return {
    node: self.node,
    organization: self.organization,
    nodeAddress: self.key.address,
    nodePubKey: bytesToHex(self.key.publicKey),
    validators,
    networkId: genesisHash(self.genesis),
    chains: [...byId.values()].flatMap((chain) => (chain.status ? [chain.status()] : [])),
    peers: validators.filter((v) => v.node !== self.node).map((v) => ({ ...v, connected: view?.connected.has(v.node) ?? false })),
    orderingLeader: view?.leader ?? null,
  };
}
