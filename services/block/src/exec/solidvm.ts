// SolidVM behind the VmExecutor seam: a creation's initOrData is the source
// as UTF-8 (several files: the JSON object of them), its contract name is
// metadata.name, constructor arguments metadata.args; a call names the
// function in metadata.funcName with metadata.args (JSON text or "(1,2)").
import type { ExecutionContext, Transaction, WorldState } from '@platform/common';
import { hexToBytes, recoverAddress } from '@platform/crypto';
import { callContract, createContract, type SolidVMHooks } from '@platform/solidvm';
import { failedOutcome, type VmExecutor, type VmOutcome } from './vm.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

const hooks: SolidVMHooks = {
  // the node's native secp256k1 instead of the interpreter's own
  ecrecover(hash, v, r, s) {
    if (v !== 27 && v !== 28) return undefined;
    try {
      return recoverAddress(hash, r, s, (v - 27) as 0 | 1);
    } catch {
      return undefined;
    }
  },
  parentChain: () => null,
};

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
    return createContract(state, ctx, { creator: tx.from, src, contractName, args: tx.metadata.args, nonce: BigInt(tx.nonce) }, { hooks });
  },

  call(state: WorldState, ctx: ExecutionContext, tx: Transaction): VmOutcome {
    const method = tx.metadata.funcName;
    if (!method) return failedOutcome('a SolidVM function call needs the function name (metadata.funcName)');
    return callContract(state, ctx, { caller: tx.from, address: tx.to!, method, args: tx.metadata.args }, { hooks });
  },
};
