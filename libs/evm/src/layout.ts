// State variables read back from EVM storage by solc's storage layout, for
// the indexer's row (ContractStateChange.state) and the named part of a diff.
// Only variables whose value sits in known slots: value types (packed several
// to a slot) and string/bytes. Mappings, arrays and structs are spread over
// hashed slots and are left to the raw slot diff.
import { bytesToHex, hexToBytes, keccak256 } from '@platform/crypto';

/** solc's `storageLayout` output. */
export interface SolcStorageLayout {
  storage: Array<{ label: string; slot: string; offset: number; type: string }>;
  types: Record<string, { encoding: string; label: string; numberOfBytes: string }> | null;
}

export type VarKind = 'uint' | 'int' | 'bool' | 'address' | 'fbytes' | 'string' | 'bytes';

export interface LayoutVar {
  name: string;
  /** 64 hex */
  slot: string;
  /** bytes from the low-order end of the slot */
  offset: number;
  size: number;
  kind: VarKind;
}

/** Reads one storage slot (64-hex key) as stored: 64 hex, or undefined for zero. */
export type SlotReader = (slot: string) => string | undefined;

const MAX_BYTES = 1 << 20;

function kindOf(encoding: string, label: string): VarKind | undefined {
  if (encoding === 'bytes') return label === 'string' ? 'string' : 'bytes';
  if (encoding !== 'inplace') return undefined;
  if (/^uint\d+$/.test(label) || label.startsWith('enum ')) return 'uint';
  if (/^int\d+$/.test(label)) return 'int';
  if (label === 'bool') return 'bool';
  if (label === 'address' || label === 'address payable' || label.startsWith('contract ')) return 'address';
  if (/^bytes\d+$/.test(label)) return 'fbytes';
  return undefined;
}

export function slotHex(n: bigint): string {
  return BigInt.asUintN(256, n).toString(16).padStart(64, '0');
}

/** The variables of a layout this module can read, in declaration order. */
export function simpleVars(layout: SolcStorageLayout | undefined): LayoutVar[] {
  if (!layout?.types) return [];
  const out: LayoutVar[] = [];
  for (const s of layout.storage) {
    const t = layout.types[s.type];
    const kind = t && kindOf(t.encoding, t.label);
    if (!kind) continue;
    out.push({ name: s.label, slot: slotHex(BigInt(s.slot)), offset: s.offset, size: Number(t.numberOfBytes), kind });
  }
  return out;
}

function wordOf(read: SlotReader, slot: string): Uint8Array {
  const v = read(slot);
  return v === undefined ? new Uint8Array(32) : hexToBytes(v.padStart(64, '0'));
}

/** A variable's value in SolidVM's JSON form: integers as decimal strings, bools as booleans, hex without 0x. */
export function readVar(v: LayoutVar, read: SlotReader): unknown {
  const w = wordOf(read, v.slot);
  if (v.kind === 'string' || v.kind === 'bytes') return readBytes(v, w, read);
  const b = w.subarray(32 - v.offset - v.size, 32 - v.offset);
  const n = b.every((x) => x === 0) ? 0n : BigInt('0x' + bytesToHex(b));
  switch (v.kind) {
    case 'uint':
      return n.toString();
    case 'int':
      return BigInt.asIntN(v.size * 8, n).toString();
    case 'bool':
      return n !== 0n;
    default:
      return bytesToHex(b);
  }
}

// Solidity's layout of string/bytes: up to 31 bytes inline with 2×length in
// the lowest byte; longer ones keep 2×length+1 in the slot and the data from
// slot keccak256(slot) on.
function readBytes(v: LayoutVar, w: Uint8Array, read: SlotReader): string | undefined {
  let data: Uint8Array;
  if ((w[31] & 1) === 0) data = w.subarray(0, Math.min(w[31] >> 1, 31));
  else {
    const len = (BigInt('0x' + bytesToHex(w)) - 1n) / 2n;
    if (len > BigInt(MAX_BYTES)) return undefined;
    const n = Number(len);
    const base = BigInt('0x' + bytesToHex(keccak256(hexToBytes(v.slot))));
    data = new Uint8Array(Math.ceil(n / 32) * 32);
    for (let i = 0; i * 32 < n; i++) data.set(wordOf(read, slotHex(base + BigInt(i))), i * 32);
    data = data.subarray(0, n);
  }
  return v.kind === 'string' ? new TextDecoder().decode(data) : bytesToHex(data);
}
