// The peer implementation for differential tests and the benchmark: solc
// 0.8.37 (evmVersion cancun) and @ethereumjs/evm, with ABI encoding done by
// SolidVM's own abi module (checked against solc's layouts by these very tests).
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import { createEVM, type EVM } from '@ethereumjs/evm';
import { createAddressFromString } from '@ethereumjs/util';
import solc from 'solc';
import { abiDecode, abiEncode } from '../../src/abi.js';
import { decodeValue, normaliseArgs } from '../../src/args.js';
import { bytesToHex, hexToBytes, keccak256, utf8 } from '../../src/hash.js';
import { STRING, UINT256, elementaryType, type SType } from '../../src/types.js';
import { renderEventValue, renderValue } from '../../src/values.js';

export interface AbiParam {
  name: string;
  type: string;
  components?: AbiParam[];
}
export interface AbiEntry {
  type: string;
  name?: string;
  inputs?: AbiParam[];
  outputs?: AbiParam[];
}
export interface SolcContract {
  abi: AbiEntry[];
  bytecode: string;
}

export interface SolcOutput {
  contracts: Record<string, Record<string, SolcContract>>;
  errors: string[];
  /** the source file of each error ('' when solc names none) */
  errorFiles: string[];
}

/**
 * Compiles many sources in one solc run (it is slow to start); results cached
 * on disk by input hash. `bytecode: false` stops after analysis (enough to
 * learn whether solc accepts a source).
 */
export function solcCompile(sources: Record<string, string>, bytecode = true): SolcOutput {
  const input = {
    language: 'Solidity',
    sources: Object.fromEntries(Object.entries(sources).map(([k, v]) => [k, { content: v }])),
    settings: { evmVersion: 'cancun', optimizer: { enabled: false }, outputSelection: { '*': { '*': bytecode ? ['abi', 'evm.bytecode.object'] : ['abi'] } } },
  };
  const text = JSON.stringify(input);
  const key = createHash('sha256').update(text).digest('hex').slice(0, 24);
  const cacheFile = join(tmpdir(), `solidvm-solc-${key}.json`);
  let output: any;
  if (existsSync(cacheFile)) output = JSON.parse(readFileSync(cacheFile, 'utf8'));
  else {
    output = JSON.parse(solc.compile(text));
    writeFileSync(cacheFile, JSON.stringify(output));
  }
  const errs = (output.errors ?? []).filter((e: any) => e.severity === 'error');
  const contracts: Record<string, Record<string, SolcContract>> = {};
  for (const [file, cs] of Object.entries<any>(output.contracts ?? {})) {
    contracts[file] = {};
    for (const [name, c] of Object.entries<any>(cs)) contracts[file][name] = { abi: c.abi, bytecode: c.evm?.bytecode?.object ?? '' };
  }
  return { contracts, errors: errs.map((e: any) => e.formattedMessage as string), errorFiles: errs.map((e: any) => (e.sourceLocation?.file as string) ?? '') };
}

/**
 * Compiles sources of which some may not compile. solc emits no bytecode at
 * all when any source has an error, so the sources it rejects are set aside
 * and the rest compiled again, until what is left compiles. Returns the
 * output for the accepted sources and solc's messages for each rejected one.
 */
export function solcCompileEach(sources: Record<string, string>, bytecode = true): { out: SolcOutput; rejected: Map<string, string> } {
  const rejected = new Map<string, string>();
  let left = { ...sources };
  for (;;) {
    const out = solcCompile(left, bytecode);
    if (out.errors.length === 0) return { out, rejected };
    const bad = new Set(out.errorFiles.filter((f) => f in left));
    // an error naming no file we gave: nothing to set aside, report it on every source
    if (bad.size === 0) for (const f of Object.keys(left)) bad.add(f);
    for (const f of bad) {
      rejected.set(f, out.errors.filter((_, i) => out.errorFiles[i] === f || !(out.errorFiles[i] in left)).join('\n'));
      delete left[f];
    }
    left = { ...left };
    if (Object.keys(left).length === 0) return { out: { contracts: {}, errors: [], errorFiles: [] }, rejected };
  }
}

export function abiParamType(p: AbiParam): SType {
  const m = /^(.*)\[(\d*)\]$/.exec(p.type);
  if (m) return { k: 'array', elem: abiParamType({ ...p, type: m[1] }), len: m[2] === '' ? null : Number(m[2]) };
  if (p.type === 'tuple') {
    const fields = (p.components ?? []).map((c) => ({ name: c.name, t: abiParamType(c) }));
    return { k: 'struct', name: 'tuple', fields, index: new Map(fields.map((f, i) => [f.name, i])) };
  }
  const t = elementaryType(p.type);
  if (!t) throw new Error(`unsupported ABI type ${p.type}`);
  return t;
}

function canonical(p: AbiParam): string {
  const m = /^tuple(.*)$/.exec(p.type);
  if (m) return `(${(p.components ?? []).map(canonical).join(',')})${m[1]}`;
  return p.type;
}

export function selector(e: AbiEntry): string {
  return bytesToHex(keccak256(utf8(`${e.name}(${(e.inputs ?? []).map(canonical).join(',')})`)).slice(0, 4));
}

export function encodeArgs(inputs: AbiParam[], args: unknown): Uint8Array {
  const given = normaliseArgs(args);
  const types = inputs.map(abiParamType);
  const vals = Array.isArray(given) ? given : inputs.map((p) => (given as Record<string, unknown>)[p.name]);
  return abiEncode(
    types,
    types.map((t, i) => decodeValue(t, vals[i], inputs[i].name)),
  );
}

/** The EVM's block for every differential run: what the test helpers' context gives SolidVM. */
export const PEER_BLOCK = { number: 7n, timestamp: 1_700_000_000n, gasLimit: 10_000_000n };

const PANICS: Record<string, string> = { '1': 'assertion failed', '17': 'arithmetic overflow', '18': 'division by zero', '33': 'invalid enum value', '49': 'pop from an empty array', '50': 'array index out of bounds' };

export interface EvmOutcome {
  ok: boolean;
  returnValues: string[];
  /** the revert reason or panic message when one is encoded */
  message?: string;
}

export class EvmPeer {
  private constructor(readonly evm: EVM) {}
  static async create(): Promise<EvmPeer> {
    const common = new Common({ chain: Mainnet, hardfork: Hardfork.Cancun });
    return new EvmPeer(await createEVM({ common }));
  }

  // block.number, block.timestamp, block.coinbase (zero), block.gaslimit and
  // tx.gasprice as the tests' SolidVM context has them, so globals compare
  private readonly block = {
    header: {
      number: PEER_BLOCK.number,
      coinbase: createAddressFromString('0x' + '00'.repeat(20)),
      timestamp: PEER_BLOCK.timestamp,
      difficulty: 0n,
      prevRandao: new Uint8Array(32),
      gasLimit: PEER_BLOCK.gasLimit,
      baseFeePerGas: 0n,
      getBlobGasPrice: () => 0n,
    },
  };

  async deploy(c: SolcContract, args: unknown, caller: string): Promise<{ address?: string; out: EvmOutcome }> {
    const ctor = c.abi.find((e) => e.type === 'constructor');
    const data = new Uint8Array([...hexToBytes(c.bytecode), ...(ctor ? encodeArgs(ctor.inputs ?? [], args) : [])]);
    const res = await this.evm.runCall({ caller: createAddressFromString('0x' + caller), data, gasLimit: 30_000_000n, gasPrice: 1n, block: this.block });
    const out = this.outcome(res.execResult, [], c.abi);
    return { address: res.createdAddress?.toString().slice(2), out };
  }

  async call(c: SolcContract, address: string, method: string, args: unknown, caller: string): Promise<EvmOutcome> {
    const given = normaliseArgs(args);
    const fns = c.abi.filter((e) => e.type === 'function' && e.name === method);
    const fn = Array.isArray(given)
      ? fns.find((f) => (f.inputs ?? []).length === given.length)
      : fns.find((f) => (f.inputs ?? []).map((p) => p.name).sort().join() === Object.keys(given).sort().join());
    if (!fn) throw new Error(`no ABI entry for ${method}`);
    const data = new Uint8Array([...hexToBytes(selector(fn)), ...encodeArgs(fn.inputs ?? [], args)]);
    const res = await this.evm.runCall({ caller: createAddressFromString('0x' + caller), to: createAddressFromString('0x' + address), data, gasLimit: 30_000_000n, gasPrice: 1n, block: this.block });
    return this.outcome(res.execResult, fn.outputs ?? [], c.abi);
  }

  private outcome(r: { exceptionError?: unknown; returnValue: Uint8Array }, outputs: AbiParam[], abi: AbiEntry[]): EvmOutcome {
    if (r.exceptionError) {
      const hex = bytesToHex(r.returnValue);
      let message: string | undefined;
      if (hex.startsWith('08c379a0')) message = abiDecode([STRING], r.returnValue.subarray(4))[0] as string;
      else if (hex.startsWith('4e487b71')) message = PANICS[String(abiDecode([UINT256], r.returnValue.subarray(4))[0])];
      else {
        // a custom error the contract declares: rendered as SolidVM renders it, `Name(a, b)`
        const e = abi.find((x) => x.type === 'error' && hex.startsWith(selector(x)));
        if (e) {
          const types = (e.inputs ?? []).map(abiParamType);
          const vals = abiDecode(types, r.returnValue.subarray(4));
          message = `${e.name}(${types.map((t, i) => renderEventValue(t, vals[i]).replace(/^True$|^False$/, (b) => b.toLowerCase())).join(', ')})`;
        }
      }
      return { ok: false, returnValues: [], message };
    }
    const types = outputs.map(abiParamType);
    const vals = abiDecode(types, r.returnValue);
    return { ok: true, returnValues: types.map((t, i) => renderValue(t, vals[i])) };
  }
}
