// Every node says what it computed (docs/network.md "Agreement"). After each
// block a node applies — and before it halts on a block whose state root it
// computes differently — it publishes a signed attestation `{chain, height,
// hash, stateRoot}` on `attest.<chain>.<node>` (the ATTEST stream, kept
// briefly). Each node compares the validators' attestations with its own:
//
// - the agreed height is the highest height at which a majority of the
//   validators attested the block hash and state root this node applied;
// - when a majority attests another root at a height this node applied, this
//   node is the one that disagrees: its chain halts, loudly.
//
// A node that refuses a block (its own execution gives another root) says
// so the same way and waits: a majority of refusals is what a replacement
// block carries (replacement.ts), a majority for the block's own root
// outvotes the refusing node.
import { DeliverPolicy } from '@nats-io/jetstream';
import type { BlockAttestation, ChainId, Logger } from '@platform/common';
import { NETWORK_PULL_EXPIRES_MS, STREAMS, SUBJECTS, encodeJson, type BusJetStream } from '@platform/bus';
import { bytesToHex, hexToBytes, keccak256, recoverAddress, sign, type KeyPair } from '@platform/crypto';

/** What one node computed at one height of one chain, signed by its block-signing key. */
export type Attestation = BlockAttestation;

/** heights remembered, own and others': an attestation further behind is of no use to anyone */
const WINDOW = 1_024;

function attestedHash(a: Pick<Attestation, 'chainId' | 'height' | 'hash' | 'stateRoot' | 'node'>): Uint8Array {
  return keccak256(new TextEncoder().encode(JSON.stringify(['platform attestation', a.chainId, a.height, a.hash, a.stateRoot, a.node])));
}

/** The address that signed an attestation, or null when its signature is not one. */
export function attestationSigner(a: Attestation): string | null {
  try {
    const { r, s, v } = a.signature;
    return recoverAddress(attestedHash(a), hexToBytes(r), hexToBytes(s), (v - 27) as 0 | 1);
  } catch {
    return null;
  }
}

export function signAttestation(fields: Omit<Attestation, 'signature'>, key: KeyPair): Attestation {
  const sig = sign(attestedHash(fields), key.privateKey);
  return { ...fields, signature: { r: bytesToHex(sig.r), s: bytesToHex(sig.s), v: sig.v } };
}

/** the smallest number of validators that is more than half of them */
export function majorityOf(validators: number): number {
  return Math.floor(validators / 2) + 1;
}

export type Verdict = { kind: 'agreed' } | { kind: 'outvoted'; majority: Computed; votes: number } | { kind: 'open' };

/**
 * What the attestations of one height say of this node's: a majority of
 * `validators` computed the same (agreed), a majority computed something else
 * (outvoted), or neither yet (open).
 */
export function verdict(mine: Computed, theirs: readonly Computed[], validators: number): Verdict {
  const majority = majorityOf(validators);
  const keyOf = (c: Computed) => `${c.hash}/${c.stateRoot}`;
  const tally = new Map<string, { computed: Computed; votes: number }>([[keyOf(mine), { computed: mine, votes: 1 }]]);
  for (const c of theirs) {
    const entry = tally.get(keyOf(c));
    if (entry) entry.votes++;
    else tally.set(keyOf(c), { computed: c, votes: 1 });
  }
  if (tally.get(keyOf(mine))!.votes >= majority) return { kind: 'agreed' };
  for (const { computed, votes } of tally.values()) if (votes >= majority) return { kind: 'outvoted', majority: computed, votes };
  return { kind: 'open' };
}

export interface AttestationsOptions {
  bus: BusJetStream;
  chainId: ChainId;
  key: KeyPair;
  /** the validators' addresses now: only theirs count, and a majority is of them */
  validators: () => readonly string[];
  /** what goes on the stream: a private chain's sealed with its key */
  sealed(subject: string, data: Uint8Array): Uint8Array;
  opened<T>(subject: string, data: Uint8Array): T;
  logger: Logger;
  /** a majority of the validators computed something else at a height this node applied */
  outvoted(reason: string): void;
}

export interface Computed {
  hash: string;
  stateRoot: string;
}

interface Stoppable {
  stop(): unknown;
}

/** This node's word at a height: what it applied, or what it computed for a block it refused. */
interface Own {
  signed: Attestation;
  refused: boolean;
}

export class Attestations {
  private readonly own = new Map<number, Own>();
  /** height → signer address → its signed attestation */
  private readonly others = new Map<number, Map<string, Attestation>>();
  private agreed = -1;
  private messages: Stoppable | null = null;
  private readonly node: string;

  constructor(private readonly o: AttestationsOptions) {
    this.node = o.bus.topology.node;
  }

  /** the highest height at which a majority of the validators computed what this node applied; -1 before any */
  get agreedHeight(): number {
    return this.agreed;
  }

  async start(): Promise<void> {
    const consumer = await this.o.bus.network.js.consumers.get(STREAMS.attestations.name, {
      filter_subjects: SUBJECTS.block.attestation(this.o.chainId, '*'),
      // each node's latest, then as they come: enough to know where the network agrees after a restart
      deliver_policy: DeliverPolicy.LastPerSubject,
    });
    const messages = await consumer.consume({ expires: NETWORK_PULL_EXPIRES_MS });
    this.messages = messages;
    void (async () => {
      for await (const m of messages) {
        let attestation: Attestation;
        try {
          attestation = this.o.opened<Attestation>(m.subject, m.data);
        } catch {
          this.o.logger.warn({ seq: m.seq }, 'an attestation is not JSON, or not sealed with the chain\'s key; ignored');
          continue;
        }
        this.take(attestation);
      }
    })().catch((err: unknown) => this.o.logger.error({ err }, 'the attestation consumer stopped'));
  }

  stop(): void {
    void Promise.resolve(this.messages?.stop()).catch(() => {});
  }

  /**
   * Says what this node computed at `height` — for the block it applied, or
   * (`refused`) for a block whose header says another state root — and
   * weighs it against the others.
   */
  attest(height: number, computed: Computed, refused = false): void {
    const signed = signAttestation({ chainId: this.o.chainId, height, hash: computed.hash, stateRoot: computed.stateRoot, node: this.node }, this.o.key);
    this.remember(this.own, height, { signed, refused });
    const subject = SUBJECTS.block.attestation(this.o.chainId, this.node);
    // an attestation lost is one less voice at one height: never worth holding a block for.
    // Its msgID names what it says: a node that refused a block and then applied
    // its replacement (or, set right, the block itself) says so a second time
    void this.o.bus.network.js
      .publish(subject, this.o.sealed(subject, encodeJson(signed)), { msgID: `${this.o.chainId}:${height}:${this.node}:${computed.hash}:${computed.stateRoot}` })
      .catch((err: unknown) => this.o.logger.debug({ err, height }, 'an attestation could not be published'));
    this.weigh(height);
  }

  /**
   * The signed attestations, this node's among them, that computed for
   * `block` (at `height`) a state root other than `headerRoot`: a replacement
   * of the block carries them when they are more than half of the validators.
   */
  refusalsOf(height: number, block: string, headerRoot: string): Attestation[] {
    const own = this.own.get(height);
    const all = [...(own ? [own.signed] : []), ...(this.others.get(height)?.values() ?? [])];
    return all.filter((a) => a.hash === block && a.stateRoot !== headerRoot);
  }

  private take(a: Attestation): void {
    if (!a || a.chainId !== this.o.chainId || !Number.isSafeInteger(a.height) || typeof a.hash !== 'string' || typeof a.stateRoot !== 'string') return;
    const signer = attestationSigner(a);
    if (signer === null || !this.o.validators().includes(signer)) {
      this.o.logger.warn({ node: a.node, height: a.height }, 'an attestation not signed by a validator; ignored');
      return;
    }
    if (signer === this.o.key.address) return;
    let at = this.others.get(a.height);
    if (!at) this.remember(this.others, a.height, (at = new Map()));
    at.set(signer, a);
    this.weigh(a.height);
  }

  private weigh(height: number): void {
    const own = this.own.get(height);
    const theirs = this.others.get(height);
    if (!own || !theirs) return;
    const mine = own.signed;
    const validators = this.o.validators().length;
    const v = verdict(mine, [...theirs.values()], validators);
    // a majority refusing the same block with this node applies nothing: the agreed height is of applied blocks
    if (v.kind === 'agreed') {
      if (!own.refused) this.agreed = Math.max(this.agreed, height);
    } else if (v.kind === 'outvoted') {
      this.o.outvoted(
        `at height ${height} a majority of the validators (${v.votes} of ${validators}) computed block ${v.majority.hash} with state root ${v.majority.stateRoot}; this node has ${mine.hash} with ${mine.stateRoot}`,
      );
    }
  }

  private remember<V>(map: Map<number, V>, height: number, value: V): void {
    map.set(height, value);
    if (map.size > 2 * WINDOW) {
      const floor = height - WINDOW;
      for (const h of map.keys()) if (h < floor) map.delete(h);
    }
  }
}
