// The VMs of one block service: one SolidVM and one EVM per process, created
// when the service starts, as long-lived as the module-level caches they
// replace. Every chain worker of the process (the main chain's and the
// private chains') runs its blocks on them, and the compile endpoint
// compiles with them, so an upload compiled by the endpoint compiles again
// for free when it executes, and vice versa.
import { createEvm, type Evm } from '@platform/evm';
import type { SolidVm } from '@platform/solidvm';
import type { VmExecutors } from '@platform/vm';
import { nodeSolidVm, solidVmExecutor } from './solidvm.js';

export interface BlockVms {
  solidVm: SolidVm;
  evm: Evm;
  /** what the chain workers execute with */
  executors: VmExecutors;
}

/** `indexEvm` (INDEX_EVM): the EVM decodes storage changes for cirrus. */
export function createBlockVms(options: { indexEvm?: boolean } = {}): BlockVms {
  const solidVm = nodeSolidVm();
  const evm = createEvm({ decodeStorage: options.indexEvm === true });
  return { solidVm, evm, executors: { SolidVM: solidVmExecutor(solidVm), EVM: evm } };
}
