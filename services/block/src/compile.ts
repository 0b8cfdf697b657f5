// `block.compile` (docs/conventions.md: `POST /bloc/v2.2/contracts/compile`, body
// `[{contractName?, source, vm?}]`, answer `[{contractName, codeHash}]`,
// errors carrying the compiler's messages). It lives here because this
// service already holds both compilers and their caches: an upload compiled
// by this endpoint compiles again for free when it executes, and vice versa.
//
// A malformed item is VALIDATION_FAILED (400, the field named); source that
// does not compile, or lacks the named contract, is COMPILE_FAILED (422): the
// request is well formed, and the compiler's messages are in
// `details.errors`. solc runs on a worker thread (a new source takes it
// 0.3–2 s; a cache hit nothing), so that compile requests never hold this
// service's event loop, and with it the chains' blocks.
import type { CompileItem, CompiledRecord } from '@platform/bus';
import { PlatformError, type VmKind } from '@platform/common';
import { SolidityCompileError, type Evm } from '@platform/evm';
import { SolidVMCompileError, type SolidVm } from '@platform/solidvm';

/** The process's VMs (exec/vms.ts): the endpoint compiles into the caches execution reads. */
export interface Compilers {
  solidVm: SolidVm;
  evm: Evm;
}

/** More sources than any client compiles at once; bounds one request's work. */
const MAX_ITEMS = 100;

export async function compileItems(request: unknown, { solidVm: svm, evm: ethVm }: Compilers): Promise<CompiledRecord[]> {
  if (!Array.isArray(request)) throw invalid('body', 'must be a JSON array of {contractName?, source, vm?}');
  if (request.length === 0) throw invalid('body', 'must hold at least one item');
  if (request.length > MAX_ITEMS) throw invalid('body', `must hold at most ${MAX_ITEMS} items, got ${request.length}`);
  const items = request.map((raw, i) => itemOf(raw, `[${i}]`));
  // every EVM source through solc on the worker first; what follows finds it in the cache (units and errors alike)
  await Promise.all(items.filter((item) => item.vm !== 'SolidVM').map((item) => ethVm.compileUnitOffThread(item.source).catch(() => undefined)));
  return items.flatMap((item, i) => (item.vm === 'SolidVM' ? solidVm(svm, item, `[${i}]`) : evm(ethVm, item, `[${i}]`)));
}

function evm(vm: Evm, item: CompileItem, at: string): CompiledRecord[] {
  let contracts;
  try {
    contracts = vm.compileSolidity(item.source).contracts;
  } catch (err) {
    if (err instanceof SolidityCompileError) throw refused(`${at}.source`, 'EVM', 'the source does not compile', err.errors);
    throw err;
  }
  if (item.contractName !== undefined) {
    try {
      // the unit is cached: this only picks the contract (by name, or file:Name)
      const named = vm.compileSolidity(item.source, item.contractName).contracts[item.contractName];
      return [{ contractName: item.contractName, codeHash: named.codeHash }];
    } catch (err) {
      if (err instanceof SolidityCompileError) throw refused(`${at}.contractName`, 'EVM', err.message, err.errors);
      throw err;
    }
  }
  // interfaces and abstract contracts have no code, hence no code hash to give
  return Object.entries(contracts)
    .filter(([, c]) => c.binRuntime !== '')
    .map(([name, c]) => ({ contractName: name, codeHash: c.codeHash }));
}

function solidVm(vm: SolidVm, item: CompileItem, at: string): CompiledRecord[] {
  let unit;
  try {
    unit = vm.compile(item.source);
  } catch (err) {
    if (err instanceof SolidVMCompileError) {
      const position = err.line > 0 ? { file: err.file, line: err.line, column: err.column } : {};
      throw refused(`${at}.source`, 'SolidVM', 'the source does not compile', [{ severity: 'error', message: err.message, formatted: err.message, ...position }]);
    }
    throw err;
  }
  const names = [...unit.contracts.keys()];
  if (item.contractName !== undefined) {
    if (!unit.contracts.has(item.contractName)) {
      const message = `no contract named ${item.contractName} in the source (it defines ${names.join(', ') || 'none'})`;
      throw refused(`${at}.contractName`, 'SolidVM', message, [{ severity: 'error', message, formatted: message }]);
    }
    return [{ contractName: item.contractName, codeHash: unit.codeHash }];
  }
  // SolidVM stores the source itself: every contract of it has the source's code hash
  return names.map((contractName) => ({ contractName, codeHash: unit.codeHash }));
}

function itemOf(raw: unknown, at: string): CompileItem {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw invalid(at, 'must be an object {contractName?, source, vm?}');
  const { contractName, source, vm } = raw as Record<string, unknown>;
  const item: CompileItem = { source: sourceOf(source, `${at}.source`) };
  if (contractName !== undefined && contractName !== null) {
    if (typeof contractName !== 'string' || contractName.trim() === '') throw invalid(`${at}.contractName`, 'must be a non-empty string');
    item.contractName = contractName;
  }
  if (vm !== undefined && vm !== null) {
    if (vm !== 'EVM' && vm !== 'SolidVM') throw invalid(`${at}.vm`, `must be EVM or SolidVM, got ${JSON.stringify(vm)}`);
    item.vm = vm;
  }
  return item;
}

function sourceOf(value: unknown, field: string): string | Record<string, string> {
  if (typeof value === 'string') {
    if (value.trim() === '') throw invalid(field, 'must not be empty');
    return value;
  }
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const files = Object.entries(value);
    if (files.length === 0) throw invalid(field, 'must name at least one file');
    for (const [name, text] of files) if (typeof text !== 'string') throw invalid(`${field}.${name}`, 'must be the text of the file');
    return value as Record<string, string>;
  }
  throw invalid(field, value === undefined ? 'is required' : 'must be the source text, or an object {fileName: source}');
}

function invalid(field: string, message: string): PlatformError {
  return new PlatformError('VALIDATION_FAILED', `${field} ${message}`, { field });
}

interface CompilerMessage {
  severity: string;
  message: string;
  formatted: string;
  type?: string;
  file?: string;
  line?: number;
  column?: number;
}

/** 422 whose message carries the first compiler message (with solc's ` --> file:line:column` when it gives one). */
function refused(field: string, vm: VmKind, summary: string, errors: CompilerMessage[]): PlatformError {
  const [first, second] = errors[0]?.formatted.trim().split('\n') ?? [];
  const where = second?.match(/^\s*-->\s*(\S+?):?\s*$/)?.[1];
  const detail = first && first !== summary ? `: ${first}${where ? ` (${where})` : ''}` : '';
  return new PlatformError('COMPILE_FAILED', `${field}: ${summary}${detail}`, { field, vm, errors });
}
