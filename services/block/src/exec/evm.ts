// The EVM behind the VmExecutor seam (@platform/evm: @ethereumjs/evm over the
// same WorldState). What a transaction carries:
// - creation: initOrData is either Solidity source as UTF-8 (compiled by the
//   VM, cached, its ABI kept with the contract; metadata.name picks the
//   contract, metadata.args the constructor arguments) or init bytecode,
//   optionally followed by ABI-encoded constructor arguments (a raw
//   transaction); metadata.src, when present, is the source of that bytecode,
//   so the ABI is kept too;
// - call: metadata.funcName with metadata.args (JSON, ABI-encoded by the VM),
//   or else initOrData as calldata (selector + ABI-encoded arguments).
//
// With INDEX_EVM the node indexes EVM contracts, so their state changes are
// decoded as SolidVM's (every changed mapping entry, array element and struct
// member by path; structs and changed arrays in `state`): evmExecutorFor
// with decodeStorage. Without it nothing of that is computed.
import type { ExecutionContext, Transaction, WorldState } from '@platform/common';
import { callContract, compileUnitOffThread, createContract, type CallRequest, type CreateRequest, type ExecOptions } from '@platform/evm';
import { hexToBytes } from '@platform/crypto';
import { failedOutcome, type VmExecutor, type VmOutcome } from './vm.js';

export const EVM_UNAVAILABLE = 'EVM is not available on this node yet';

/** For nodes (and tests) without the EVM: a clean Failure instead of an error. */
export const unavailableEvm: VmExecutor = {
  kind: 'EVM',
  create: () => failedOutcome(EVM_UNAVAILABLE),
  call: () => failedOutcome(EVM_UNAVAILABLE),
};

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Solidity source, or null for bytecode. Init code starts with bytes that are
 * not valid UTF-8 text (0x60 0x80 …), and source names a contract.
 */
function sourceText(initOrData: string): string | null {
  let text: string;
  try {
    text = utf8.decode(hexToBytes(initOrData));
  } catch {
    return null;
  }
  return /\b(contract|library|interface)\s+\w+/.test(text) ? text : null;
}

/** The EVM executor; `decodeStorage`: state changes decoded for indexing (INDEX_EVM). */
export function evmExecutorFor(options: ExecOptions): VmExecutor {
  return {
    kind: 'EVM',

    async prepare(tx: Transaction): Promise<void> {
      const src = sourceText(tx.initOrData) ?? tx.metadata.src;
      // a source that does not compile is remembered too: execution reports it without another run
      if (src) await compileUnitOffThread(src).catch(() => undefined);
    },

    create(state: WorldState, ctx: ExecutionContext, tx: Transaction): Promise<VmOutcome> {
      const src = sourceText(tx.initOrData);
      const req: CreateRequest = { creator: tx.from, nonce: BigInt(tx.nonce) };
      if (src !== null) req.src = src;
      else {
        req.bytecode = tx.initOrData;
        if (tx.metadata.src) req.src = tx.metadata.src;
      }
      if (tx.metadata.name) req.contractName = tx.metadata.name;
      if (tx.metadata.args !== undefined && tx.metadata.args !== '') req.args = tx.metadata.args;
      return createContract(state, ctx, req, options);
    },

    call(state: WorldState, ctx: ExecutionContext, tx: Transaction): Promise<VmOutcome> {
      const req: CallRequest = { caller: tx.from, address: tx.to! };
      if (tx.metadata.funcName) {
        req.method = tx.metadata.funcName;
        if (tx.metadata.args !== undefined && tx.metadata.args !== '') req.args = tx.metadata.args;
      } else {
        req.data = tx.initOrData;
      }
      return callContract(state, ctx, req, options);
    },
  };
}

export const evmExecutor = evmExecutorFor({});
/** For a node that indexes EVM contracts (INDEX_EVM). */
export const indexingEvmExecutor = evmExecutorFor({ decodeStorage: true });
