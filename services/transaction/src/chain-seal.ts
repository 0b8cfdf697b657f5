// What the transaction service publishes for a private chain is sealed with
// the chain's key (docs/network.md "Private chains across nodes"): the
// network's TX stream is stored on every node's server, members' or not.
// The key comes from the block service, which holds the node's key that
// unwraps it; it is asked once per chain and kept.
import type { NatsConnection } from '@nats-io/nats-core';
import { BLOCK, call } from '@platform/bus';
import { MAIN_CHAIN, type ChainId } from '@platform/common';
import { hexToBytes, seal } from '@platform/crypto';

/** chains whose keys are kept; a node holds few private chains, and one asked again costs one request */
const KEPT_KEYS = 10_000;

export class ChainSealer {
  private readonly keys = new Map<ChainId, Promise<Uint8Array>>();

  constructor(private readonly nc: NatsConnection) {}

  /** `data` as it goes on `subject` of a chain's stream: the main chain's as it is, a private chain's sealed. */
  async sealed(chainId: ChainId, subject: string, data: string): Promise<string | Uint8Array> {
    if (chainId === MAIN_CHAIN) return data;
    return seal(await this.keyOf(chainId), new TextEncoder().encode(data), subject);
  }

  private keyOf(chainId: ChainId): Promise<Uint8Array> {
    let key = this.keys.get(chainId);
    if (!key) {
      if (this.keys.size >= KEPT_KEYS) this.keys.clear();
      key = call(this.nc, BLOCK.chainKey, { chainId }).then((answer) => hexToBytes(answer.key));
      this.keys.set(chainId, key);
      // a failed question is asked again next time (the block service was restarting, say)
      key.catch(() => this.keys.delete(chainId));
    }
    return key;
  }
}
