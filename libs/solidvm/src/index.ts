// @platform/solidvm: SolidVM, the Solidity interpreter. See README.md.
export { createSolidVm, creationOf, callOf, compile, codeHashOf, createContract, callContract, readContractState } from './vm.js';
export type { CallRequest, CreateRequest, ExecOutcome, SolidVm, SolidVmOptions, SolidVMOptions } from './vm.js';
export type { CompiledUnit, ContractRt } from './scope.js';
export { xabiOf } from './xabi.js';
export { SOLIDVM_COMPILE_ERROR, SolidVMCompileError, VmFailure } from './errors.js';
export type { FailureCode } from './errors.js';
export type { SolidVMHooks } from './runtime.js';
export { GAS_TABLES, gasTable } from './gas.js';
export type { GasTable } from './gas.js';
export { MemoryWorldState } from './memory-state.js';
