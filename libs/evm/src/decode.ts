// Turning what the EVM returns into the platform's forms: why a transaction
// failed (a revert reason, a panic, a custom error, an exceptional halt),
// returned values as strings, and logs as EventLogs.
import type { EventLog } from '@platform/common';
import { bytesToHex } from '@platform/crypto';
import { abiDecode } from './abi-codec.js';
import { isDynamic, type AbiType } from './abi-types.js';
import type { FailureCode } from './errors.js';
import type { ContractInfo } from './meta.js';
import { renderEventValue, renderValue } from './render.js';

const ERROR_STRING = '08c379a0'; // Error(string)
const PANIC = '4e487b71'; // Panic(uint256)

// Solidity's panic codes, worded as SolidVM words them
const PANICS: Record<string, string> = {
  '0': 'generic panic',
  '1': 'assertion failed',
  '17': 'arithmetic overflow',
  '18': 'division by zero',
  '33': 'invalid enum value',
  '34': 'invalid storage byte array',
  '49': 'pop from an empty array',
  '50': 'array index out of bounds',
  '65': 'out of memory',
  '81': 'call to an uninitialised function',
};

const STRING: AbiType = { k: 'string' };
const UINT: AbiType = { k: 'uint', bits: 256 };

/** The code and message of a revert, from its return data. */
export function revertReason(data: Uint8Array, infos: Array<ContractInfo | undefined>): { code: FailureCode; message: string } {
  const hex = bytesToHex(data);
  const body = data.subarray(4);
  try {
    if (hex.startsWith(ERROR_STRING)) return { code: 'REVERT', message: abiDecode([STRING], body)[0] as string };
    if (hex.startsWith(PANIC)) {
      const n = (abiDecode([UINT], body)[0] as bigint).toString();
      return { code: 'PANIC', message: PANICS[n] ?? `panic 0x${BigInt(n).toString(16)}` };
    }
    const sel = hex.slice(0, 8);
    for (const info of infos) {
      const e = info?.errors.get(sel);
      if (!e) continue;
      // a custom error reads as SolidVM renders it: Name(a, b)
      const vals = abiDecode(e.inputs, body);
      return { code: 'REVERT', message: `${e.entry.name}(${e.inputs.map((t, i) => renderValue(t, vals[i])).join(', ')})` };
    }
  } catch {
    // malformed revert data: reported as raw bytes below
  }
  if (data.length === 0) return { code: 'REVERT', message: 'reverted without a reason' };
  return { code: 'REVERT', message: `reverted with data ${hex}` };
}

/** The code and message of an exceptional halt other than a revert (the EVM's own error text otherwise; 'code store out of gas' too). */
export function haltReason(error: string): { code: FailureCode; message: string } {
  if (error.includes('out of gas')) return { code: 'OUT_OF_GAS', message: 'out of gas' };
  if (error === 'insufficient balance') return { code: 'INSUFFICIENT_BALANCE', message: 'insufficient balance for the value sent' };
  return { code: 'EVM_ERROR', message: error };
}

/** Returned values as strings; undefined when the data does not decode as the outputs. */
export function returnValues(outputs: AbiType[], data: Uint8Array): string[] | undefined {
  try {
    const vals = abiDecode(outputs, data);
    return outputs.map((t, i) => renderValue(t, vals[i]));
  } catch {
    return undefined;
  }
}

export interface RawLog {
  address: string;
  /** 64 hex each; topic 0 is the event's signature hash unless it is anonymous */
  topics: string[];
  /** hex */
  data: string;
}

/**
 * A log as an EventLog, its arguments as strings (indexed ones of a dynamic
 * type are only their Keccak-256 in the log: they read as that hash).
 * Undefined when the contract's ABI is unknown or does not declare the event.
 */
export function decodeLog(log: [Uint8Array, Uint8Array[], Uint8Array], info: ContractInfo | undefined, chainId: string, index: number): EventLog | undefined {
  const [addr, topics, data] = log;
  if (!info || topics.length === 0) return undefined;
  const ev = info.events.get(bytesToHex(topics[0]));
  if (!ev) return undefined;
  const params = ev.entry.inputs ?? [];
  try {
    const unindexed = ev.inputs.filter((_, i) => !params[i].indexed);
    const dataVals = abiDecode(unindexed, data);
    let d = 0;
    let t = 1;
    const args: Array<[string, string]> = params.map((p, i) => {
      const type = ev.inputs[i];
      const name = p.name || `arg${i}`;
      if (!p.indexed) return [name, renderEventValue(type, dataVals[d++])];
      const topic = topics[t++];
      if (!topic) throw new Error('missing topic');
      if (isDynamic(type) || type.k === 'array' || type.k === 'tuple') return [name, bytesToHex(topic)];
      return [name, renderEventValue(type, abiDecode([type], topic)[0])];
    });
    return { address: bytesToHex(addr), chainId, contractName: info.name, name: ev.entry.name!, args, index };
  } catch {
    return undefined;
  }
}
