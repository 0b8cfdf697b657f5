// SolidVM behind @platform/vm's executor seam: @platform/solidvm's
// createSolidVm decodes a transaction itself (source text, metadata name and
// arguments) and keeps its compiled units; what the block service adds is
// the node's: the hooks of a run (native ecrecover, the identity built-ins
// over the registry in the state being executed, the parent chain) and the
// reserved names of the platform's system contracts.
import type { ExecutionContext, Transaction, WorldState } from '@platform/common';
import { recoverAddress } from '@platform/crypto';
import { REGISTRY_ADDRESS, identityHooks, isReservedContractName } from '@platform/identity';
import { createSolidVm, creationOf, type SolidVm, type SolidVMHooks } from '@platform/solidvm';
import { failedOutcome, type VmExecutor, type VmOutcome } from '@platform/vm';

const baseHooks: SolidVMHooks = {
  // the node's native secp256k1 instead of the interpreter's own
  ecrecover(hash, v, r, s) {
    if (v !== 27 && v !== 28) return undefined;
    try {
      return recoverAddress(hash, r, s, (v - 27) as 0 | 1);
    } catch {
      return undefined;
    }
  },
};

/** The hooks of one transaction: the identity built-ins read the registry in the state being executed, at the block's time. */
export function hooksFor(state: WorldState, ctx: ExecutionContext): SolidVMHooks {
  // assigned onto the identity hooks' fresh object, not spread into a new one: on Node 20
  // `{ ...baseHooks, parentChain, ...more }` cost some 7 µs per transaction (docs/benchmarks.md "A trap of Node 20")
  return Object.assign(identityHooks(state, ctx.block.timestamp), baseHooks, { parentChain: () => ctx.parentChain ?? null });
}

/** A SolidVM with the node's hooks. */
export function nodeSolidVm(options: { compileCacheSize?: number } = {}): SolidVm {
  return createSolidVm({ ...options, hooks: hooksFor });
}

const reserved = (name: string) => failedOutcome(`the contract name ${name} is reserved for the platform's system contracts: choose another name`);

/**
 * System contract names (the registry's) are reserved (docs/conventions.md): a
 * transaction that creates a contract of such a name, directly or with `new`,
 * fails unless it is the registry's own call. Run inside a checkpoint so that
 * such a failure leaves nothing behind.
 */
function guarded(state: WorldState, tx: Transaction, run: () => VmOutcome): VmOutcome {
  state.checkpoint();
  let out: VmOutcome;
  try {
    out = run();
  } catch (err) {
    state.revert();
    throw err;
  }
  const name = tx.to === REGISTRY_ADDRESS ? undefined : out.contractsCreated.find((c) => isReservedContractName(c.name))?.name;
  if (name !== undefined) {
    state.revert();
    return reserved(name);
  }
  state.commit();
  return out;
}

/** The block service's SolidVM executor: `vm`'s, with the reserved contract names enforced. */
export function solidVmExecutor(vm: SolidVm): VmExecutor {
  return {
    kind: 'SolidVM',
    create(state, ctx, tx) {
      const req = creationOf(tx);
      if (typeof req === 'string') return failedOutcome(req);
      if (isReservedContractName(req.contractName)) return reserved(req.contractName);
      return guarded(state, tx, () => vm.createContract(state, ctx, req));
    },
    call: (state, ctx, tx) => guarded(state, tx, () => vm.call(state, ctx, tx)),
  };
}
