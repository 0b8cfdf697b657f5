// @platform/evm: EVM execution over the platform's WorldState, solc
// compilation, ABI encoding and decoding, xabi. See README.md.
export { createContract, callContract } from './exec.js';
export type { ExecOutcome, ExecOptions, CallRequest, CreateRequest } from './exec.js';
export { compileSolidity, compileUnitOffThread, compileCacheStats, clearCompileCache, EVM_VERSION, SOLC_VERSION } from './solc.js';
export { solcWorkerRunning } from './solc-thread.js';
export type { Compilation, CompiledContract } from './solc.js';
export { SolidityCompileError, COMPILE_ERROR } from './errors.js';
export type { FailureCode, SolcMessage } from './errors.js';
export { abiEncode, abiDecode, AbiDecodeError } from './abi-codec.js';
export { abiType, selectorOf, signature, eventTopic } from './abi-types.js';
export type { AbiEntry, AbiParam, AbiType } from './abi-types.js';
export { encodeArguments } from './args.js';
export { loadMeta as contractMeta, META_KEY } from './meta.js';
export type { ContractInfo } from './meta.js';
export type { RawLog } from './decode.js';
export { UNMETERED_GAS_LIMIT } from './gas.js';
export { readContractState } from './outcome.js';
export { clearCaches } from './caches.js';
