// Test helpers: a fresh world state, an execution context, and shorthands
// to create and call contracts.
import type { ExecutionContext } from '@platform/common';
import { MemoryWorldState, createSolidVm } from '../src/index.js';
import type { ExecOutcome, SolidVMOptions } from '../src/index.js';

export const ALICE = 'a11ce00000000000000000000000000000000001';
export const BOB = 'b0b0000000000000000000000000000000000002';

/** One SolidVM for the tests of a file, as a node keeps one: its cache of compiled units is shared by every Chain. */
export const vm = createSolidVm();

export function makeCtx(over: Partial<ExecutionContext> = {}): ExecutionContext {
  return {
    chainId: '',
    block: { number: 7, timestamp: 1_700_000_000, coinbase: '0000000000000000000000000000000000000000' },
    tx: { hash: '00'.repeat(32), origin: ALICE, gasPrice: 1n, gasLimit: 10_000_000n, value: 0n },
    identity: { username: 'alice', organization: 'Acme', organizationalUnit: 'Eng', certificate: '-----BEGIN CERTIFICATE-----' },
    protocol: { stepLimit: 100_000, gasTableVersion: 1 },
    gasEnabled: false,
    ...over,
  };
}

export class Chain {
  readonly state = new MemoryWorldState();
  ctx = makeCtx();
  nonce = 0n;
  constructor(readonly opts?: SolidVMOptions) {}

  create(src: string | Record<string, string>, contractName: string, args?: unknown, creator = ALICE): ExecOutcome {
    const out = vm.createContract(this.state, this.ctx, { creator, src, contractName, args, nonce: this.nonce++ }, this.opts);
    return out;
  }

  call(address: string, method: string, args?: unknown, caller = ALICE): ExecOutcome {
    return vm.callContract(this.state, { ...this.ctx, tx: { ...this.ctx.tx, origin: caller } }, { caller, address, method, args }, this.opts);
  }

  read(address: string): Record<string, unknown> {
    return vm.readContractState(this.state, address);
  }
}
