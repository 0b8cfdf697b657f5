// EVM instances, reused: building one (opcode tables, precompiles) costs far
// more than a token transfer, so each chain keeps a few idle ones. An
// instance serves one transaction at a time (it holds the journal and the
// block of the running call), hence the pool rather than a single instance.
import { Hardfork, Mainnet, createCustomCommon, type Common } from '@ethereumjs/common';
import { createEVM, type EVM } from '@ethereumjs/evm';
import { WorldStateAdapter } from './state-adapter.js';
import { keccak256 } from '@platform/crypto';

export interface Engine {
  evm: EVM;
  adapter: WorldStateAdapter;
  chainId: string;
}

const IDLE_PER_CHAIN = 4;
const commons = new Map<string, Common>();
const idle = new Map<string, Engine[]>();

/**
 * The hardfork and chain of a chain's EVM. CHAINID reads as SolidVM's
 * block.chainid: 0 on the main chain, the 256-bit chain ID of a private chain.
 */
function commonFor(chainId: string): Common {
  let c = commons.get(chainId);
  if (!c) {
    // Common deep-copies its config through JSON, which has no bigint: a 256-bit
    // chain ID goes in as hex text (Common reads it back with BigInt())
    const id = chainId === '' ? 0 : '0x' + chainId;
    // KECCAK256 and address derivation with the node's WebAssembly Keccak rather than the library's JavaScript one
    c = createCustomCommon({ chainId: id as unknown as number }, Mainnet, { hardfork: Hardfork.Cancun, customCrypto: { keccak256 } });
    commons.set(chainId, c);
  }
  return c;
}

export async function acquire(chainId: string): Promise<Engine> {
  const e = idle.get(chainId)?.pop();
  if (e) return e;
  const adapter = new WorldStateAdapter();
  const evm = await createEVM({ common: commonFor(chainId), stateManager: adapter });
  return { evm, adapter, chainId };
}

export function release(e: Engine): void {
  e.adapter.end();
  let list = idle.get(e.chainId);
  if (!list) idle.set(e.chainId, (list = []));
  if (list.length < IDLE_PER_CHAIN) list.push(e);
}
