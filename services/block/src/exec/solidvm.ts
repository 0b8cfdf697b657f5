// SolidVM behind the VmExecutor seam: a creation's initOrData is the source
// as UTF-8 (several files: the JSON object of them), its contract name is
// metadata.name, constructor arguments metadata.args; a call names the
// function in metadata.funcName with metadata.args (JSON text or "(1,2)").
import type { ExecutionContext, Transaction, WorldState } from '@platform/common';
import { hexToBytes, recoverAddress } from '@platform/crypto';
import { REGISTRY_ADDRESS, identityHooks, isReservedContractName } from '@platform/identity';
import { callContract, createContract, type SolidVMHooks } from '@platform/solidvm';
import { failedOutcome, type VmExecutor, type VmOutcome } from './vm.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

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
  return { ...baseHooks, parentChain: () => ctx.parentChain ?? null, ...identityHooks(state, ctx.block.timestamp) };
}

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
  const reserved = tx.to === REGISTRY_ADDRESS ? undefined : out.contractsCreated.find((c) => isReservedContractName(c.name));
  if (reserved) {
    state.revert();
    return failedOutcome(`the contract name ${reserved.name} is reserved for the platform's system contracts: choose another name`);
  }
  state.commit();
  return out;
}

/** The source of a creation: plain text, or `{fileName: source}` sent as its JSON. */
function sourceOf(initOrData: string): string | Record<string, string> {
  const text = utf8.decode(hexToBytes(initOrData));
  if (text.trimStart().startsWith('{')) {
    try {
      const files = JSON.parse(text) as unknown;
      if (files && typeof files === 'object' && !Array.isArray(files) && Object.values(files).every((v) => typeof v === 'string')) {
        return files as Record<string, string>;
      }
    } catch {
      // not JSON: Solidity source never starts with '{', so the compiler will say what is wrong
    }
  }
  return text;
}

export const solidVmExecutor: VmExecutor = {
  kind: 'SolidVM',

  create(state: WorldState, ctx: ExecutionContext, tx: Transaction): VmOutcome {
    const contractName = tx.metadata.name;
    if (!contractName) return failedOutcome('a SolidVM contract creation needs the contract name (metadata.name)');
    let src: string | Record<string, string>;
    try {
      src = sourceOf(tx.initOrData);
    } catch {
      return failedOutcome('the contract source (initOrData) is not valid UTF-8');
    }
    if (isReservedContractName(contractName)) {
      return failedOutcome(`the contract name ${contractName} is reserved for the platform's system contracts: choose another name`);
    }
    const hooks = hooksFor(state, ctx);
    return guarded(state, tx, () => createContract(state, ctx, { creator: tx.from, src, contractName, args: tx.metadata.args, nonce: BigInt(tx.nonce) }, { hooks }));
  },

  call(state: WorldState, ctx: ExecutionContext, tx: Transaction): VmOutcome {
    const method = tx.metadata.funcName;
    if (!method) return failedOutcome('a SolidVM function call needs the function name (metadata.funcName)');
    const hooks = hooksFor(state, ctx);
    return guarded(state, tx, () => callContract(state, ctx, { caller: tx.from, address: tx.to!, method, args: tx.metadata.args }, { hooks }));
  },
};
