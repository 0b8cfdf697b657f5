// From a request to the bytes the EVM runs: the init code of a creation
// (compiled source or given bytecode, plus constructor arguments) and the
// calldata of a call (method and JSON arguments by the ABI, or raw calldata).
import { bytesToHex, hexToBytes, strip0x } from '@platform/crypto';
import { encodeArguments, encodeCall, normaliseArgs } from './args.js';
import { signature } from './abi-types.js';
import { ExecFailure, SolidityCompileError, badArguments } from './errors.js';
import type { EvmCaches } from './caches.js';
import { infoOfCompiled, type ContractInfo, type FnInfo } from './meta.js';
import { compileUnit, findContract, type CompiledContract, type CompiledUnit } from './solc.js';

export interface CreateRequest {
  /** the creating account (40 hex, 0x optional) */
  creator: string;
  /** init code (hex); with `src`, it must be the compiled contract's, optionally followed by ABI-encoded constructor arguments (a raw transaction) */
  bytecode?: string;
  /** Solidity source, one string or files by name: compiled (cached), and its ABI kept with the contract */
  src?: string | Record<string, string>;
  /** which contract of `src` (optional when it defines one deployable contract) */
  contractName?: string;
  /** constructor arguments: a JSON object by parameter name, a positional array, JSON text; or `0x…` ABI-encoded bytes */
  args?: unknown;
  /** the creator's nonce for the address (default: the account's current nonce) */
  nonce?: bigint;
  /** sent to the constructor (only with gas enabled; default ctx.tx.value) */
  value?: bigint;
}

export interface CallRequest {
  caller: string;
  address: string;
  /** a public function's name, or its full signature `f(uint256,string)` to pick an overload */
  method?: string;
  /** with `method`: JSON object by parameter name, positional array, or JSON text */
  args?: unknown;
  /** instead of method + args: calldata hex (selector + ABI-encoded arguments) */
  data?: string;
  /** sent with the call (only with gas enabled; default ctx.tx.value) */
  value?: bigint;
}

export function hexArg(hex: string, what: string): Uint8Array {
  try {
    return hexToBytes(hex);
  } catch (e) {
    return badArguments(`${what} is not hex: ${(e as Error).message}`);
  }
}

const isRawHex = (a: unknown): a is string => typeof a === 'string' && /^0x/i.test(a.trim());

export interface PreparedCreate {
  initCode: Uint8Array;
  /** set when created from source */
  compiled?: { unit: CompiledUnit; contract: CompiledContract; info: ContractInfo };
  name: string;
}

function compiledContract(caches: EvmCaches, req: CreateRequest): { unit: CompiledUnit; contract: CompiledContract } {
  let unit: CompiledUnit;
  try {
    unit = compileUnit(caches.compile, req.src!);
  } catch (e) {
    if (e instanceof SolidityCompileError) throw new ExecFailure('COMPILE_ERROR', e.message);
    throw e;
  }
  let contract: CompiledContract;
  if (req.contractName === undefined) {
    const deployable = unit.contracts.filter((c) => c.bin !== '');
    if (deployable.length !== 1) throw new ExecFailure('NO_CONTRACT', `name the contract to create: the source defines ${deployable.map((c) => c.name).join(', ') || 'no deployable contract'}`);
    contract = deployable[0];
  } else {
    try {
      contract = findContract(unit, req.contractName);
    } catch (e) {
      if (e instanceof SolidityCompileError) throw new ExecFailure('NO_CONTRACT', e.message);
      throw e;
    }
  }
  if (contract.bin === '') {
    const kind = { InterfaceKind: 'an interface', AbstractKind: 'an abstract contract', LibraryKind: 'a library', ContractKind: 'a contract without code' }[contract.xabi.kind];
    throw new ExecFailure('NO_CONTRACT', `${contract.name} is ${kind} and cannot be created`);
  }
  if (contract.unlinked.length) {
    throw new ExecFailure('COMPILE_ERROR', `${contract.name} calls external library functions (${contract.unlinked.join(', ')}), which need linking: make the library functions internal`);
  }
  return { unit, contract };
}

export function prepareCreate(caches: EvmCaches, req: CreateRequest): PreparedCreate {
  if (req.src === undefined) {
    if (req.bytecode === undefined) badArguments('a creation needs bytecode or src');
    if (req.args !== undefined && req.args !== null && !isRawHex(req.args)) badArguments('JSON constructor arguments need the source (its ABI): give src, or append the ABI-encoded arguments to the bytecode');
    const code = hexArg(strip0x(req.bytecode.trim()) + (isRawHex(req.args) ? strip0x(req.args.trim()) : ''), 'bytecode');
    if (code.length === 0) badArguments('the bytecode is empty');
    return { initCode: code, name: req.contractName ?? '' };
  }
  const { unit, contract } = compiledContract(caches, req);
  const info = infoOfCompiled(caches.meta, unit, contract);
  let argsHex: string;
  if (req.bytecode !== undefined) {
    const given = strip0x(req.bytecode.trim()).toLowerCase();
    if (!given.startsWith(contract.bin)) throw new ExecFailure('BAD_ARGUMENTS', `the bytecode is not ${contract.name}'s as compiled from the source`);
    argsHex = given.slice(contract.bin.length);
    if (argsHex !== '' && req.args !== undefined && req.args !== null) badArguments('constructor arguments given twice: in the bytecode and in args');
  } else argsHex = '';
  if (isRawHex(req.args)) argsHex = strip0x(req.args.trim());
  else if (argsHex === '') {
    const ctorInputs = info.ctor?.inputs ?? [];
    const args = normaliseArgs(req.args);
    argsHex = bytesToHex(encodeArguments(ctorInputs, args, `the constructor of ${contract.name}`, info.enums));
  }
  return { initCode: hexArg(contract.bin + argsHex, 'constructor arguments'), compiled: { unit, contract, info }, name: contract.name };
}

export interface PreparedCall {
  data: Uint8Array;
  /** the function called, when the ABI is known */
  fn?: FnInfo;
}

export function prepareCall(info: ContractInfo | undefined, req: CallRequest, address: string): PreparedCall {
  if (req.data !== undefined) {
    const data = hexArg(strip0x(req.data.trim()), 'data');
    return { data, fn: data.length >= 4 ? info?.selectors.get(bytesToHex(data.subarray(0, 4))) : undefined };
  }
  if (req.method === undefined) badArguments('a call needs a method (with args) or raw calldata');
  if (!info) throw new ExecFailure('UNKNOWN_METHOD', `the contract at ${address} was created from bytecode alone: its ABI is unknown, so call it with raw calldata`);
  const method = req.method.trim();
  const cands = method.includes('(') ? [...info.functions.values()].flat().filter((f) => signature(f) === method.replace(/\s+/g, '')) : (info.functions.get(method) ?? []);
  if (cands.length === 0) throw new ExecFailure('UNKNOWN_METHOD', `contract ${info.name} has no public function ${method}`);
  const args = normaliseArgs(req.args);
  const { fn, encoded } = encodeCall(method, cands, args, (f) => `${info.name}.${f.name}`, info.enums);
  const known = info.byEntry.get(fn)!;
  const data = new Uint8Array(4 + encoded.length);
  data.set(hexToBytes(known.selector));
  data.set(encoded, 4);
  return { data, fn: known };
}
