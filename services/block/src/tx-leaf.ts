// A transaction's leaf in its block's transactions trie: what it is
// (`transactionLeafFields`, RLP items as the generic encoder takes them) and
// how the block service writes it (`transactionLeaf`, the same bytes written
// straight into one buffer). The generic path made about twenty small byte
// arrays per transaction, and a block's transactions root cost as much as
// executing the block, on the proposer and on every node that checks it; a
// property test keeps the two equal (test/tx-leaf.test.ts).
import { Buffer } from 'node:buffer';
import type { Transaction } from '@platform/common';
import { bigintToMinimalBytes, hexToBytes, rlpHeaderLength, writeRlpHeader, type RlpInput } from '@platform/crypto';

const utf8 = new TextEncoder();

/**
 * Everything of a transaction that execution depends on, as RLP items: the
 * signed fields, the signature, the metadata (sorted by key) and what
 * admission derived (sender, submitter). `admittedAt` is left out: it is not
 * consensus data.
 */
export function transactionLeafFields(tx: Transaction): RlpInput {
  const metadata: RlpInput[] = Object.keys(tx.metadata)
    .sort()
    .map((k) => [utf8.encode(k), utf8.encode(tx.metadata[k])]);
  const submitter: RlpInput[] = tx.submitter ? [utf8.encode(tx.submitter.username), utf8.encode(tx.submitter.organization ?? '')] : [];
  return [
    hexToBytes(tx.hash),
    hexToBytes(tx.chainId),
    hexToBytes(tx.from),
    tx.nonce,
    BigInt(tx.gasPrice),
    BigInt(tx.gasLimit),
    BigInt(tx.value),
    tx.to === null ? new Uint8Array(0) : hexToBytes(tx.to),
    hexToBytes(tx.initOrData),
    metadata,
    hexToBytes(tx.r),
    hexToBytes(tx.s),
    tx.v,
    utf8.encode(tx.signingForm),
    utf8.encode(tx.origin),
    submitter,
  ];
}

// --- the writer -------------------------------------------------------------------

/**
 * One string of the leaf: its bytes given as hexadecimal (already checked by
 * the transaction's shape, or by admission), as text (written as UTF-8), or
 * as bytes (an integer's minimal form).
 */
type Piece = { kind: 'hex'; text: string; length: number } | { kind: 'utf8'; text: string; length: number } | { kind: 'bytes'; bytes: Uint8Array; length: number };

const HEX_DIGITS = /^[0-9a-fA-F]*$/;
const hex = (text: string): Piece => {
  if (typeof text === 'string' && text.length % 2 === 0 && HEX_DIGITS.test(text)) return { kind: 'hex', text, length: text.length >>> 1 };
  // anything else as the generic path takes it: `0x` accepted, bad hex refused (BAD_HEX)
  const bytes = hexToBytes(text);
  return { kind: 'bytes', bytes, length: bytes.length };
};
const text = (s: string): Piece => ({ kind: 'utf8', text: s, length: Buffer.byteLength(s, 'utf8') });
const integer = (n: bigint): Piece => {
  const bytes = bigintToMinimalBytes(n);
  return { kind: 'bytes', bytes, length: bytes.length };
};

/** A string that is one byte below 0x80 is its own encoding. */
function firstByte(p: Piece): number {
  if (p.kind === 'bytes') return p.bytes[0]!;
  if (p.kind === 'hex') return parseInt(p.text.slice(0, 2), 16);
  return p.text.charCodeAt(0);
}

function encodedSize(p: Piece): number {
  return p.length === 1 && firstByte(p) < 0x80 ? 1 : rlpHeaderLength(p.length) + p.length;
}

function writePiece(out: Buffer, p: Piece, pos: number): number {
  if (p.length === 1 && firstByte(p) < 0x80) {
    out[pos] = firstByte(p);
    return pos + 1;
  }
  pos = writeRlpHeader(out, 0x80, p.length, pos);
  if (p.kind === 'hex') out.write(p.text, pos, 'hex');
  else if (p.kind === 'utf8') out.write(p.text, pos, 'utf8');
  else out.set(p.bytes, pos);
  return pos + p.length;
}

/** The leaf's RLP (`transactionLeafFields`), written once into one buffer. */
export function transactionLeaf(tx: Transaction): Uint8Array {
  const keys = Object.keys(tx.metadata).sort();
  const pairs = keys.map((k) => [text(k), text(tx.metadata[k])] as const);
  const submitter = tx.submitter ? [text(tx.submitter.username), text(tx.submitter.organization ?? '')] : [];
  const head = [hex(tx.hash), hex(tx.chainId), hex(tx.from), integer(BigInt(tx.nonce)), integer(BigInt(tx.gasPrice)), integer(BigInt(tx.gasLimit)), integer(BigInt(tx.value)), hex(tx.to ?? ''), hex(tx.initOrData)];
  const tail = [hex(tx.r), hex(tx.s), integer(BigInt(tx.v)), text(tx.signingForm), text(tx.origin)];

  const pairPayloads = pairs.map(([k, v]) => encodedSize(k) + encodedSize(v));
  const metadataPayload = pairPayloads.reduce((sum, n) => sum + rlpHeaderLength(n) + n, 0);
  const submitterPayload = submitter.reduce((sum, p) => sum + encodedSize(p), 0);
  const payload =
    head.reduce((sum, p) => sum + encodedSize(p), 0) +
    rlpHeaderLength(metadataPayload) + metadataPayload +
    tail.reduce((sum, p) => sum + encodedSize(p), 0) +
    rlpHeaderLength(submitterPayload) + submitterPayload;

  const out = Buffer.allocUnsafe(rlpHeaderLength(payload) + payload);
  let pos = writeRlpHeader(out, 0xc0, payload, 0);
  for (const p of head) pos = writePiece(out, p, pos);
  pos = writeRlpHeader(out, 0xc0, metadataPayload, pos);
  pairs.forEach(([k, v], i) => {
    pos = writeRlpHeader(out, 0xc0, pairPayloads[i]!, pos);
    pos = writePiece(out, k, pos);
    pos = writePiece(out, v, pos);
  });
  for (const p of tail) pos = writePiece(out, p, pos);
  pos = writeRlpHeader(out, 0xc0, submitterPayload, pos);
  for (const p of submitter) pos = writePiece(out, p, pos);
  if (pos !== out.length) throw new Error(`a transaction leaf's size was measured as ${out.length} bytes but ${pos} were written`);
  return out;
}
