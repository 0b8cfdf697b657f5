// Private chains' keys on this node (docs/network.md "Private chains across
// nodes"). A private chain's genesis, admitted transactions and blocks cross
// the network's streams sealed with the chain's key, so that a node of an
// organization that is not a member stores and relays only ciphertext.
//
// - A new chain's key is wrapped for the block-signing key of each node of
//   the chain's member organizations (the main genesis's validators name
//   each node's organization and public key) and of this node; the sealed
//   genesis carries them (`SealedGenesis`).
// - A node whose organization a governance event admits later gets the key
//   from a member node: a grant on `genesis.<chain>.key.<node>`.
// - This node's key is the block service's alone: the transaction service
//   asks it for a chain's key (BLOCK.chainKey) and the chains service for a
//   chain's opened genesis (BLOCK.chainGenesis).
//
// Everything here is read from the GENESIS stream itself when not yet known,
// so a question asked before this node's consumer reached the chain is
// answered the same.
import { MAIN_CHAIN, PlatformError, type ChainId, type Genesis, type Logger, type Validator } from '@platform/common';
import { STREAMS, SUBJECTS, decodeJson, genesisMessageIsFor, encodeJson, type BusJetStream, type ChainKeyGrant, type SealedGenesis } from '@platform/bus';
import { bytesToHex, generateChainKey, hexToBytes, open, seal, unwrapKey, wrapKey, type KeyPair } from '@platform/crypto';
import { privateChainId } from './private-genesis.js';

export interface ChainKeysOptions {
  bus: BusJetStream;
  /** this node's block-signing key, which unwraps chain keys */
  key: KeyPair;
  /** this node's name in the network */
  node: string;
  /** the validators now: every node's organization and public key; empty on a node of its own */
  validators: () => readonly Validator[];
  logger: Logger;
}

/** What a wrapped key is bound to: one chain, one node. */
function wrapContext(chainId: ChainId, node: string): string {
  return `chain-key:${chainId}:${node}`;
}

/** A chain this node has no key for: to the asking service, as unknown as one that does not exist. */
function notOurs(chainId: string): PlatformError {
  return new PlatformError('NOT_FOUND', `this node holds no private chain ${chainId}`, { chainId });
}

export class ChainKeys {
  private readonly keys = new Map<ChainId, Uint8Array>();

  constructor(private readonly o: ChainKeysOptions) {}

  /** The nodes a chain whose members are `organizations` belongs on: those of its member organizations, and this node. */
  nodesOf(organizations: ReadonlySet<string>): Array<{ node: string; publicKey: Uint8Array }> {
    const self = { node: this.o.node, publicKey: this.o.key.publicKey };
    const others = this.o
      .validators()
      .filter((v) => v.node !== this.o.node && organizations.has(v.organization))
      .map((v) => ({ node: v.node, publicKey: hexToBytes(v.publicKey) }));
    return [self, ...others];
  }

  /** A new chain's genesis sealed with a new key, wrapped for each of its nodes. */
  sealGenesis(genesis: Genesis): SealedGenesis {
    return sealGenesisFor(genesis, this.nodesOf(new Set(genesis.members.map((m) => m.orgName)))).sealed;
  }

  /** Whether a genesis message or a grant is for this node. */
  isOurs(message: SealedGenesis | ChainKeyGrant): boolean {
    return genesisMessageIsFor(message, this.o.node);
  }

  /** A chain's key, or null when this node holds none (not a member's node, or no such chain). */
  async keyOf(chainId: ChainId): Promise<Uint8Array | null> {
    if (chainId === MAIN_CHAIN) return null;
    const known = this.keys.get(chainId);
    if (known) return known;
    const wrapped = (await this.sealedGenesis(chainId))?.keys?.[this.o.node] ?? (await this.grant(chainId))?.wrapped;
    if (typeof wrapped !== 'string') return null;
    const key = unwrapKey(this.o.key.privateKey, wrapped, wrapContext(chainId, this.o.node));
    this.keys.set(chainId, key);
    return key;
  }

  /** As keyOf, for the other services: NOT_FOUND when this node holds none. */
  async requireKey(chainId: string): Promise<Uint8Array> {
    const key = typeof chainId === 'string' && /^[0-9a-f]{64}$/.test(chainId) ? await this.keyOf(chainId) : null;
    if (!key) throw notOurs(chainId);
    return key;
  }

  /** A chain's genesis, opened and checked against its ID; NOT_FOUND when this node holds no key for it, UNPROCESSABLE when it is not the chain's. */
  async genesisOf(chainId: string): Promise<Genesis> {
    const key = await this.requireKey(chainId);
    const sealedGenesis = await this.sealedGenesis(chainId);
    if (!sealedGenesis) throw notOurs(chainId);
    const genesis = decodeJson<Genesis>(open(key, Buffer.from(sealedGenesis.sealed, 'base64'), SUBJECTS.chains.genesis(chainId)));
    if (genesis?.chainId !== chainId || privateChainId(genesis) !== chainId) {
      throw new PlatformError('UNPROCESSABLE', `the genesis sealed for chain ${chainId} is not that chain's: its ID is not the hash of its genesis`, { chainId, reason: 'BAD_GENESIS' });
    }
    return genesis;
  }

  /**
   * Gives the chain's key to the nodes of an organization a governance event
   * admitted, which do not hold it yet. Every member node does this for the
   * same event; the stream keeps the first grant (msgID), and a node that
   * already holds the key ignores later ones.
   */
  async grantTo(chainId: ChainId, organization: string): Promise<void> {
    const key = await this.keyOf(chainId);
    if (!key) return;
    const sealedGenesis = await this.sealedGenesis(chainId);
    for (const { node, publicKey } of this.nodesOf(new Set([organization]))) {
      if (node === this.o.node || sealedGenesis?.keys?.[node] || (await this.grant(chainId, node))) continue;
      await this.o.bus.network.js.publish(SUBJECTS.chains.genesisKey(chainId, node), encodeJson(keyGrant(chainId, node, publicKey, key)), { msgID: `key:${chainId}:${node}` });
      this.o.logger.info({ chain: chainId, node, organization }, 'a member organization\'s node was given the chain\'s key');
    }
  }

  private async sealedGenesis(chainId: ChainId): Promise<SealedGenesis | null> {
    return this.lastOf<SealedGenesis>(SUBJECTS.chains.genesis(chainId));
  }

  private async grant(chainId: ChainId, node = this.o.node): Promise<ChainKeyGrant | null> {
    return this.lastOf<ChainKeyGrant>(SUBJECTS.chains.genesisKey(chainId, node));
  }

  private async lastOf<T>(subject: string): Promise<T | null> {
    // null when the subject has no message; a stream that does not answer throws (not the same as "not ours")
    const message = await this.o.bus.network.jsm.streams.getMessage(STREAMS.geneses.name, { last_by_subj: subject });
    if (!message) return null;
    try {
      return decodeJson<T>(message.data);
    } catch {
      this.o.logger.error({ subject }, 'a message of the GENESIS stream is not JSON; ignored');
      return null;
    }
  }
}

/** A new chain's genesis sealed with a new key (answered too), the key wrapped for each of `nodes`. */
export function sealGenesisFor(genesis: Genesis, nodes: ReadonlyArray<{ node: string; publicKey: Uint8Array }>): { sealed: SealedGenesis; key: Uint8Array } {
  const chainId = genesis.chainId;
  const key = generateChainKey();
  const keys: Record<string, string> = {};
  for (const { node, publicKey } of nodes) keys[node] = wrapKey(publicKey, key, wrapContext(chainId, node));
  const sealed = seal(key, encodeJson(genesis), SUBJECTS.chains.genesis(chainId));
  return { sealed: { chainId, keys, sealed: Buffer.from(sealed).toString('base64') }, key };
}

/** A chain's key wrapped for a node that joins it after its genesis. */
export function keyGrant(chainId: ChainId, node: string, publicKey: Uint8Array, key: Uint8Array): ChainKeyGrant {
  return { chainId, node, wrapped: wrapKey(publicKey, key, wrapContext(chainId, node)) };
}

/** A chain key as the transaction service receives it. */
export function chainKeyRecord(key: Uint8Array): { key: string } {
  return { key: bytesToHex(key) };
}
