// What the transaction service publishes for a private chain is sealed with
// the chain's current key (docs/network.md "Private chains across nodes"):
// the network's TX stream is stored on every node's server, members' or not.
// The key comes from the block service, which holds the node's key that
// unwraps it. A chain gets a new key when an organization leaves it, so an
// answer is kept for a moment only.
import type { NatsConnection } from '@nats-io/nats-core';
import { BLOCK, call } from '@platform/bus';
import { MAIN_CHAIN, type ChainId } from '@platform/common';
import { hexToBytes, sealInEpoch } from '@platform/crypto';

/** chains whose keys are kept; a node holds few private chains, and one asked again costs one request */
const KEPT_KEYS = 10_000;
/** how long a chain's key is used before it is asked for again: what is sealed after an organization left with the key it still held */
const KEY_TTL_MS = 2_000;

interface CurrentKey {
  key: Uint8Array;
  epoch: number;
}

export class ChainSealer {
  private readonly keys = new Map<ChainId, { until: number; current: Promise<CurrentKey> }>();

  constructor(private readonly nc: NatsConnection) {}

  /** `data` as it goes on `subject` of a chain's stream: the main chain's as it is, a private chain's sealed. */
  async sealed(chainId: ChainId, subject: string, data: string): Promise<string | Uint8Array> {
    if (chainId === MAIN_CHAIN) return data;
    const { key, epoch } = await this.keyOf(chainId);
    return sealInEpoch(epoch, key, new TextEncoder().encode(data), subject);
  }

  private keyOf(chainId: ChainId): Promise<CurrentKey> {
    const kept = this.keys.get(chainId);
    if (kept && kept.until > Date.now()) return kept.current;
    if (this.keys.size >= KEPT_KEYS) this.keys.clear();
    const current = call(this.nc, BLOCK.chainKey, { chainId }).then((answer) => ({ key: hexToBytes(answer.key), epoch: answer.epoch }));
    this.keys.set(chainId, { until: Date.now() + KEY_TTL_MS, current });
    // a failed question is asked again next time (the block service was restarting, say)
    current.catch(() => this.keys.delete(chainId));
    return current;
  }
}
