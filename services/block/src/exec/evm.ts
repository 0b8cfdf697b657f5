// The EVM behind @platform/vm's executor seam: @platform/evm's createEvm
// decodes a transaction itself (source or bytecode, metadata arguments or
// call data) and keeps its caches; the block service creates one per process
// (vms.ts). With INDEX_EVM its state changes are decoded as SolidVM's (every
// changed mapping entry, array element and struct member by path; structs and
// changed arrays in `state`): `decodeStorage`. Without it nothing of that is
// computed.
import { failedOutcome, type VmExecutor } from '@platform/vm';

export const EVM_UNAVAILABLE = 'EVM is not available on this node yet';

/** For nodes (and tests) without the EVM: a clean Failure instead of an error. */
export const unavailableEvm: VmExecutor = {
  kind: 'EVM',
  create: () => failedOutcome(EVM_UNAVAILABLE),
  call: () => failedOutcome(EVM_UNAVAILABLE),
};
