// Private chains' keys on this node (docs/network.md "Private chains across
// nodes"). A private chain's genesis, admitted transactions, blocks and
// attestations cross the network's streams sealed with the chain's key, so
// that a node of an organization that is not a member stores and relays
// only ciphertext.
//
// - A new chain's key (epoch 0) is wrapped for the block-signing key of each
//   node of the chain's member organizations (the validators name each
//   node's organization and public key) and of this node; the sealed genesis
//   carries them (`SealedGenesis`).
// - A node whose organization a governance event admits later gets every key
//   from a member node: a grant on `genesis.<chain>.key.<node>`.
// - When an organization leaves the chain, the member nodes make a new key
//   for the nodes that stay, from that block on: a key epoch on
//   `genesis.<chain>.epoch.<height>`, the first one published being the one.
//   Messages carry the epoch they are sealed in (`sealInEpoch`).
// - This node's key is the block service's alone: the transaction service
//   asks it for a chain's current key (BLOCK.chainKey) and the chains service
//   for a chain's opened genesis (BLOCK.chainGenesis).
//
// Everything here is read from the GENESIS stream itself, so a question asked
// before this node's consumer reached the chain is answered the same.
import { MAIN_CHAIN, PlatformError, type ChainId, type Genesis, type Logger, type Validator } from '@platform/common';
import { STREAMS, SUBJECTS, decodeJson, encodeJson, genesisMessageIsFor, isWrongLastSequence, type BusJetStream, type ChainKeyEpoch, type ChainKeyGrant, type GenesisStreamMessage, type SealedGenesis } from '@platform/bus';
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

/** A chain's keys as this node holds them. */
export interface Keyring {
  /** by epoch (the block height from which each was used; 0 the genesis's) */
  keys: Map<number, Uint8Array>;
  /** the newest epoch the stream has */
  current: number;
  /** the nodes that hold the current epoch's key */
  holders: Set<string>;
}

/** A chain's keys as its worker uses them: the one to seal with now, and each epoch's to open with. */
export interface ChainKeyring {
  /** the current epoch and its key; null when this node no longer holds it (its organization left the chain) */
  sealing(): { epoch: number; key: Uint8Array } | null;
  /** an epoch's key; null when this node does not know it (yet: a new epoch it has not read) */
  opening(epoch: number): Uint8Array | null;
  /** reads the chain's keys from the stream again */
  refresh(): Promise<void>;
}


/** What a wrapped key is bound to: one chain, one node, one epoch. */
function wrapContext(chainId: ChainId, node: string, epoch: number): string {
  return `chain-key:${chainId}:${node}:${epoch}`;
}

/** The key to seal with now, and its epoch; null when this node does not hold the current epoch's key (its organization left the chain). */
export function currentKey(ring: Keyring | null | undefined): { epoch: number; key: Uint8Array } | null {
  const key = ring?.keys.get(ring.current);
  return ring && key ? { epoch: ring.current, key } : null;
}

/** A chain this node has no key for: to the asking service, as unknown as one that does not exist. */
function notOurs(chainId: string): PlatformError {
  return new PlatformError('CHAIN_NOT_FOUND', `this node holds no private chain ${chainId}`, { chainId });
}

export class ChainKeys {
  private readonly rings = new Map<ChainId, Keyring>();

  constructor(private readonly o: ChainKeysOptions) {}

  /** The nodes of these organizations, with their public keys, as the validators list them. */
  private nodesOfOrganizations(organizations: ReadonlySet<string>): Array<{ node: string; publicKey: Uint8Array }> {
    return this.o
      .validators()
      .filter((v) => organizations.has(v.organization))
      .map((v) => ({ node: v.node, publicKey: hexToBytes(v.publicKey) }));
  }

  private publicKeyOf(node: string): Uint8Array | null {
    if (node === this.o.node) return this.o.key.publicKey;
    const v = this.o.validators().find((x) => x.node === node);
    return v ? hexToBytes(v.publicKey) : null;
  }

  /** A new chain's genesis sealed with a new key, wrapped for the nodes of its member organizations and this node. */
  sealGenesis(genesis: Genesis): SealedGenesis {
    const nodes = this.nodesOfOrganizations(new Set(genesis.members.map((m) => m.orgName))).filter((n) => n.node !== this.o.node);
    return sealGenesisFor(genesis, [{ node: this.o.node, publicKey: this.o.key.publicKey }, ...nodes]).sealed;
  }

  /** Whether a message of the GENESIS stream is for this node. */
  isOurs(message: GenesisStreamMessage): boolean {
    return genesisMessageIsFor(message, this.o.node);
  }

  /** A chain's keys (read from the stream the first time), or null when this node holds none. */
  async ring(chainId: ChainId): Promise<Keyring | null> {
    if (chainId === MAIN_CHAIN) return null;
    return this.rings.get(chainId) ?? (await this.load(chainId));
  }

  /** The chain's keys read from the stream again (a new epoch, a grant). */
  reload(chainId: ChainId): Promise<Keyring | null> {
    return this.load(chainId);
  }

  /** The chain's keys as its worker uses them; the keyring must have been loaded (ring). */
  keyring(chainId: ChainId): ChainKeyring {
    // every message of an epoch not read yet asks for a reload: one at a time serves them all
    let reloading: Promise<void> | null = null;
    return {
      sealing: () => currentKey(this.rings.get(chainId)),
      opening: (epoch) => this.rings.get(chainId)?.keys.get(epoch) ?? null,
      refresh: () =>
        (reloading ??= this.load(chainId)
          .then(() => undefined)
          .finally(() => (reloading = null))),
    };
  }

  /** The keys of a chain another service asks about (its ID not checked yet): null for what is no private chain's ID. */
  private async requestedRing(chainId: unknown): Promise<Keyring | null> {
    return typeof chainId === 'string' && /^[0-9a-f]{64}$/.test(chainId) ? this.ring(chainId) : null;
  }

  /** The current key for the other services: NOT_FOUND when this node holds none, or no longer. */
  async requireCurrentKey(chainId: string): Promise<{ key: Uint8Array; epoch: number }> {
    const current = currentKey(await this.requestedRing(chainId));
    if (!current) throw notOurs(chainId);
    return current;
  }

  /** A chain's genesis, opened and checked against its ID; NOT_FOUND when this node holds no key for it, GENESIS_INVALID when it is not the chain's. */
  async genesisOf(chainId: string): Promise<Genesis> {
    const key = (await this.requestedRing(chainId))?.keys.get(0);
    const sealedGenesis = key ? await this.sealedGenesis(chainId) : null;
    if (!key || !sealedGenesis) throw notOurs(chainId);
    const genesis = decodeJson<Genesis>(open(key, Buffer.from(sealedGenesis.sealed, 'base64'), SUBJECTS.chains.genesis(chainId)));
    if (genesis?.chainId !== chainId || privateChainId(genesis) !== chainId) {
      throw new PlatformError('GENESIS_INVALID', `the genesis sealed for chain ${chainId} is not that chain's: its ID is not the hash of its genesis`, { chainId });
    }
    return genesis;
  }

  /**
   * Gives every key of the chain to the nodes of an organization a governance
   * event admitted, which do not hold the current one yet. Every member node
   * does this for the same event; the stream keeps the first grant (msgID).
   */
  async grantTo(chainId: ChainId, organization: string): Promise<void> {
    const ring = await this.load(chainId);
    if (!ring || !currentKey(ring)) return;
    for (const { node, publicKey } of this.nodesOfOrganizations(new Set([organization]))) {
      if (ring.holders.has(node)) continue;
      await this.o.bus.network.js.publish(SUBJECTS.chains.genesisKey(chainId, node), encodeJson(keyGrant(chainId, node, publicKey, ring.keys)), { msgID: `key:${chainId}:${ring.current}:${node}` });
      this.o.logger.info({ chain: chainId, node, organization }, 'a member organization\'s node was given the chain\'s keys');
    }
    await this.load(chainId);
  }

  /**
   * A new key for the chain from block `epoch` on, wrapped for the nodes that
   * hold the current one except those of the organization that left: what
   * the chain publishes from then on is sealed for them only. Every member
   * node does this for the same event; the first epoch published is the one.
   */
  async rekeyWithout(chainId: ChainId, epoch: number, organization: string): Promise<void> {
    const ring = await this.load(chainId);
    if (!ring || epoch <= ring.current) return;
    const leaving = new Set(this.nodesOfOrganizations(new Set([organization])).map((n) => n.node));
    if (![...ring.holders].some((node) => leaving.has(node))) return;
    const key = generateChainKey();
    const keys: Record<string, string> = {};
    for (const node of ring.holders) {
      if (leaving.has(node)) continue;
      const publicKey = this.publicKeyOf(node);
      if (publicKey) keys[node] = wrapKey(publicKey, key, wrapContext(chainId, node, epoch));
      else this.o.logger.warn({ chain: chainId, node }, 'a member node is no validator any more: it gets no new key of the chain');
    }
    const message: ChainKeyEpoch = { chainId, epoch, keys };
    try {
      await this.o.bus.network.js.publish(SUBJECTS.chains.genesisEpoch(chainId, epoch), encodeJson(message), { msgID: `epoch:${chainId}:${epoch}`, expect: { lastSubjectSequence: 0 } });
      this.o.logger.info({ chain: chainId, epoch, organization, nodes: Object.keys(keys) }, 'an organization left the chain: a new key for the nodes that stay');
    } catch (err) {
      // another member node published this epoch first: its key is the one
      if (!isWrongLastSequence(err)) throw err;
    }
    await this.load(chainId);
  }

  /** Reads a chain's keys from the stream: the genesis's, every epoch's, and grants. */
  private async load(chainId: ChainId): Promise<Keyring | null> {
    const node = this.o.node;
    const sealedGenesis = await this.sealedGenesis(chainId);
    if (!sealedGenesis) return null;
    const keys = new Map<number, Uint8Array>();
    const take = (epoch: number, wrapped: string | undefined) => {
      if (typeof wrapped === 'string' && !keys.has(epoch)) keys.set(epoch, unwrapKey(this.o.key.privateKey, wrapped, wrapContext(chainId, node, epoch)));
    };
    take(0, sealedGenesis.keys?.[node]);
    let current = 0;
    let holders = new Set(Object.keys(sealedGenesis.keys ?? {}));
    for (const e of (await this.allOf<ChainKeyEpoch>(SUBJECTS.chains.genesisEpoch(chainId, '*'))).sort((a, b) => a.epoch - b.epoch)) {
      if (e.chainId !== chainId || !Number.isSafeInteger(e.epoch)) continue;
      take(e.epoch, e.keys?.[node]);
      if (e.epoch > current) {
        current = e.epoch;
        holders = new Set(Object.keys(e.keys ?? {}));
      }
    }
    for (const grant of await this.allOf<ChainKeyGrant>(SUBJECTS.chains.genesisKey(chainId, '*'))) {
      if (grant.chainId !== chainId || typeof grant.keys !== 'object') continue;
      if (typeof grant.keys[String(current)] === 'string') holders.add(grant.node);
      if (grant.node === node) for (const [epoch, wrapped] of Object.entries(grant.keys)) take(Number(epoch), wrapped);
    }
    if (keys.size === 0) {
      this.rings.delete(chainId);
      return null;
    }
    const ring = { keys, current, holders };
    this.rings.set(chainId, ring);
    return ring;
  }

  private async sealedGenesis(chainId: ChainId): Promise<SealedGenesis | null> {
    return this.lastOf<SealedGenesis>(SUBJECTS.chains.genesis(chainId));
  }

  /** The last message of every subject `filter` matches (a chain's epochs, or its grants). */
  private async allOf<T>(filter: string): Promise<T[]> {
    const info = await this.o.bus.network.jsm.streams.info(STREAMS.geneses.name, { subjects_filter: filter });
    const out: T[] = [];
    for (const subject of Object.keys(info.state.subjects ?? {})) {
      const value = await this.lastOf<T>(subject);
      if (value) out.push(value);
    }
    return out;
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
  for (const { node, publicKey } of nodes) keys[node] = wrapKey(publicKey, key, wrapContext(chainId, node, 0));
  const sealed = seal(key, encodeJson(genesis), SUBJECTS.chains.genesis(chainId));
  return { sealed: { chainId, keys, sealed: Buffer.from(sealed).toString('base64') }, key };
}

/** A chain's keys, by epoch, wrapped for a node that joins it after its genesis. */
export function keyGrant(chainId: ChainId, node: string, publicKey: Uint8Array, keys: ReadonlyMap<number, Uint8Array>): ChainKeyGrant {
  return { chainId, node, keys: Object.fromEntries([...keys].map(([epoch, key]) => [String(epoch), wrapKey(publicKey, key, wrapContext(chainId, node, epoch))])) };
}

/** A chain key as the transaction service receives it. */
export function chainKeyRecord(current: { key: Uint8Array; epoch: number }): { key: string; epoch: number } {
  return { key: bytesToHex(current.key), epoch: current.epoch };
}
