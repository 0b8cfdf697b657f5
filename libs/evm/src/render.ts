// Decoded ABI values → the text SolidVM gives the same Solidity values, so a
// client reads results alike from either VM: integers in decimal, bools
// `true`/`false` (`True`/`False` in events, the spec's form), addresses and
// bytes as lowercase hex without 0x, strings as they are, arrays and structs
// as JSON text (scalars as strings inside, structs as objects by member name).
import { bytesToHex } from '@platform/crypto';
import type { AbiType } from './abi-types.js';

export function toJson(t: AbiType, v: unknown): unknown {
  switch (t.k) {
    case 'bool':
      return v as boolean;
    case 'array':
      return (v as unknown[]).map((e) => toJson(t.elem, e));
    case 'tuple': {
      const vals = v as unknown[];
      // a struct (every member named) reads as an object, an anonymous tuple as an array
      if (t.names.length > 0 && t.names.every((n) => n !== '')) return Object.fromEntries(t.items.map((it, i) => [t.names[i], toJson(it, vals[i])]));
      return t.items.map((it, i) => toJson(it, vals[i]));
    }
    default:
      return scalarText(t, v);
  }
}

function scalarText(t: AbiType, v: unknown): string {
  switch (t.k) {
    case 'uint':
    case 'int':
      return (v as bigint).toString();
    case 'bool':
      return v ? 'true' : 'false';
    case 'fbytes':
    case 'bytes':
      return bytesToHex(v as Uint8Array);
    default:
      return String(v);
  }
}

/** A returned value as one string (the `Call` data). */
export function renderValue(t: AbiType, v: unknown): string {
  return t.k === 'array' || t.k === 'tuple' ? JSON.stringify(toJson(t, v)) : scalarText(t, v);
}

/** An event argument: like a returned value, but a bool reads `True`/`False`. */
export function renderEventValue(t: AbiType, v: unknown): string {
  if (t.k === 'bool') return v ? 'True' : 'False';
  return renderValue(t, v);
}
