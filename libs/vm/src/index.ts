// @platform/vm: the contract between the node and its virtual machines. See README.md.
export { FAILURE_CODES, failedOutcome } from './outcome.js';
export type { FailureCode, VmOutcome } from './outcome.js';
export type { VmExecutor, VmExecutors } from './executor.js';
export { GAS_TABLES, gasTable } from './gas.js';
export type { GasTable } from './gas.js';
export {
  ArgumentError,
  argumentsDecoder,
  checkArgsText,
  chooseOverload,
  normaliseArgs,
  parseAccount,
  parseAddress,
  parseDecimal,
  parseRawArgs,
  toBigInt,
  valueDecoder,
} from './args.js';
export type { ArgParam, ArgRepresentation, ArgumentsDecoder, DecoderOptions, GivenArgs, ValueDecoder } from './args.js';
export { foldXabi, structFieldsIn, xabiTypeText } from './xabi.js';
export type { StructFields, StructSource, WalkOptions, Xabi, XabiFunc, XabiOf, XabiStruct, XabiType, XabiVar, XabiVisitor } from './xabi.js';
