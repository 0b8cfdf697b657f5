// Blocks as bytes: the header's RLP (whose Keccak-256 is the block hash), the
// transaction leaves behind transactionsRoot (tx-leaf.ts), and the proposer's signature.
import type { Block, BlockAttestation, BlockHeader, Hash, Transaction } from '@platform/common';
import { bytesToHex, hexToBytes, keccak256, recoverAddress, rlpEncode, sign, type KeyPair, type RlpInput } from '@platform/crypto';
import { trieRootOf } from './state/mpt.js';
import { transactionLeaf } from './tx-leaf.js';

export { transactionLeaf, transactionLeafFields } from './tx-leaf.js';

const utf8 = new TextEncoder();
export const ZERO_HASH = '0'.repeat(64);
export const ZERO_ADDRESS = '0'.repeat(40);

/**
 * RLP `[chainId, number, parentHash, timestamp, transactionsRoot, stateRoot,
 * proposer]`, plus `identitiesRoot` on a private chain's blocks that carry
 * identities, plus `replaces` on a block that replaces a refused one (after
 * an empty `identitiesRoot` when there is none, so that every position keeps
 * its meaning); the main chain's ID is the empty string.
 */
export function headerRlp(h: BlockHeader): Uint8Array {
  const fields: RlpInput[] = [
    hexToBytes(h.chainId),
    h.number,
    hexToBytes(h.parentHash),
    h.timestamp,
    hexToBytes(h.transactionsRoot),
    hexToBytes(h.stateRoot),
    hexToBytes(h.proposer),
  ];
  if (h.identitiesRoot !== undefined || h.replaces !== undefined) fields.push(h.identitiesRoot === undefined ? new Uint8Array(0) : hexToBytes(h.identitiesRoot));
  if (h.replaces !== undefined) fields.push(hexToBytes(h.replaces));
  return rlpEncode(fields);
}

/** Keccak-256 of the RLP of `[[address, certificate PEM], …]` sorted by address. */
export function identitiesRoot(identities: Record<string, string>): Hash {
  const entries = Object.keys(identities)
    .sort()
    .map((address): RlpInput => [hexToBytes(address), utf8.encode(identities[address])]);
  return bytesToHex(keccak256(rlpEncode(entries)));
}

export function blockHash(h: BlockHeader): Hash {
  return bytesToHex(keccak256(headerRlp(h)));
}

/** Ethereum's transaction trie: keys RLP(index), values the transaction leaves. */
export function transactionsRoot(txs: Transaction[]): Hash {
  return bytesToHex(trieRootOf(txs.map((tx, i) => [rlpEncode(i), transactionLeaf(tx)])));
}

export function signBlock(header: BlockHeader, transactions: Transaction[], key: KeyPair, identities?: Record<string, string>, refusals?: BlockAttestation[]): Block {
  const hash = blockHash(header);
  const sig = sign(hexToBytes(hash), key.privateKey);
  return { hash, header, transactions, signature: { r: bytesToHex(sig.r), s: bytesToHex(sig.s), v: sig.v }, ...(identities ? { identities } : {}), ...(refusals ? { refusals } : {}) };
}

/** Why a block's hash or signature is wrong, or null when both are right. */
export function blockIntegrityError(block: Block): string | null {
  const expected = blockHash(block.header);
  if (block.hash !== expected) return `its hash ${block.hash} is not the hash of its header (${expected})`;
  if (!block.signature) return 'it carries no proposer signature';
  const { r, s, v } = block.signature;
  let signer: string;
  try {
    signer = recoverAddress(hexToBytes(block.hash), hexToBytes(r), hexToBytes(s), (v - 27) as 0 | 1);
  } catch {
    return 'its signature does not recover';
  }
  if (signer !== block.header.proposer) return `it is signed by ${signer}, not by its proposer ${block.header.proposer}`;
  if ((block.identities === undefined) !== (block.header.identitiesRoot === undefined)) return 'its identities and its header\'s identitiesRoot do not come together';
  if (block.identities !== undefined) {
    const entries = typeof block.identities === 'object' && block.identities !== null ? Object.entries(block.identities) : null;
    if (!entries || entries.some(([address, pem]) => !/^[0-9a-f]{40}$/.test(address) || typeof pem !== 'string')) return 'its identities are not a map of addresses to certificates';
    const root = identitiesRoot(block.identities);
    if (root !== block.header.identitiesRoot) return `its identities root is ${root}, its header says ${block.header.identitiesRoot}`;
  }
  if ((block.refusals === undefined) !== (block.header.replaces === undefined)) return 'its refusals and its header\'s replaces do not come together';
  if (block.refusals !== undefined && !Array.isArray(block.refusals)) return 'its refusals are not a list';
  return null;
}
