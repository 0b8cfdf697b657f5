// @platform/evm: EVM execution over the platform's WorldState, solc
// compilation, ABI encoding and decoding, xabi. See README.md.
export { createEvm, evmCallOf, evmCreationOf } from './evm.js';
export type { Evm, EvmOptions } from './evm.js';
export { createEvmCaches, clearEvmCaches } from './caches.js';
export type { EvmCacheLimits, EvmCaches } from './caches.js';
export type { ExecOutcome, ExecOptions, CallRequest, CreateRequest } from './exec.js';
export { EVM_VERSION, SOLC_VERSION } from './solc.js';
export type { Compilation, CompiledContract, CompiledUnit } from './solc.js';
export { solcWorkerRunning } from './solc-thread.js';
export { SolidityCompileError, COMPILE_ERROR } from './errors.js';
export type { FailureCode, SolcMessage } from './errors.js';
export { abiEncode, abiDecode, AbiDecodeError } from './abi-codec.js';
export { abiType, selectorOf, signature, eventTopic } from './abi-types.js';
export type { AbiEntry, AbiParam, AbiType } from './abi-types.js';
export { encodeArguments } from './args.js';
export { META_KEY } from './meta.js';
export type { ContractInfo } from './meta.js';
export type { RawLog } from './decode.js';
export { UNMETERED_GAS_LIMIT } from './gas.js';
