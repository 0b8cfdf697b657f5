// The seam between the block service and a virtual machine: the contract
// every VM implements is @platform/vm's (VmExecutor, VmOutcome); the block
// service does everything around it (nonce, fees, value of plain transfers,
// receipts) and hands it the transaction as admitted.
export { failedOutcome } from '@platform/vm';
export type { VmExecutor, VmExecutors, VmOutcome } from '@platform/vm';
