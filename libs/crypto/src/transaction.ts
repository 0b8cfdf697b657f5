import { CryptoError } from './errors.js';
import { addressOfHash, keccak256 } from './hash.js';
import { addressToBytes, bytesToHex, hexToBytes } from './hex.js';
import { encodeItem, integerItem, stripLeadingZeros, type RlpItem } from './rlp.js';

/** The fields a raw transaction's signature covers (docs/conventions.md "Raw transactions: the signed bytes"). */
export interface UnsignedTxFields {
  nonce: bigint;
  gasPrice: bigint;
  gasLimit: bigint;
  /** 40 hex digits (optional `0x`); null (or '') for a contract creation. */
  to: string | null;
  value: bigint;
  /** Raw bytes: EVM init code or call data, or SolidVM source as UTF-8. */
  initOrData: Uint8Array;
  /** 64 hex digits for a private chain; null or '' for the main chain. */
  chainId: string | null;
  metadata?: Record<string, string> | null;
}

/**
 * Which RLP list a signature covers.
 * - `platform`: `[nonce, gasPrice, gasLimit, to, value, initOrData]`, plus the
 *   32-byte chainId as a seventh item only on a private chain. The canonical form.
 * - `literal`: always seven items; the seventh is the empty string on the main chain.
 * - `metadata`: the platform form with the metadata appended as one more item,
 *   a list of `[key, value]` pairs sorted by key.
 */
export type SigningForm = 'platform' | 'literal' | 'metadata';

const EMPTY = new Uint8Array(0);
const utf8 = new TextEncoder();

function chainIdItem(chainId: string | null | undefined): Uint8Array | null {
  if (chainId === null || chainId === undefined || chainId === '') return null;
  const bytes = hexToBytes(chainId);
  if (bytes.length !== 32) throw new CryptoError('BAD_HEX', `a chain id must be 32 bytes (64 hex digits), got ${bytes.length} bytes`);
  return bytes;
}

/**
 * `[[key, value], …]` as UTF-8 bytes, sorted by the keys' UTF-8 bytes (for
 * keys of ASCII text, the plain alphabetical order).
 */
function metadataItem(metadata: Record<string, string> | null | undefined): RlpItem[] {
  if (metadata === null || metadata === undefined) return [];
  const pairs: Array<[Uint8Array, Uint8Array]> = [];
  for (const [key, value] of Object.entries(metadata)) {
    if (typeof value !== 'string') throw new TypeError(`metadata.${key} must be a string, got ${typeof value}`);
    pairs.push([utf8.encode(key), utf8.encode(value)]);
  }
  pairs.sort((a, b) => compareBytes(a[0], b[0]));
  return pairs;
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

function baseItems(tx: UnsignedTxFields): RlpItem[] {
  if (!(tx.initOrData instanceof Uint8Array)) throw new TypeError('initOrData must be a Uint8Array');
  return [
    integerItem(tx.nonce, 'nonce'),
    integerItem(tx.gasPrice, 'gasPrice'),
    integerItem(tx.gasLimit, 'gasLimit'),
    tx.to === null || tx.to === undefined || tx.to === '' ? EMPTY : addressToBytes(tx.to, 'to'),
    integerItem(tx.value, 'value'),
    tx.initOrData,
  ];
}

/** The RLP bytes whose Keccak-256 is signed, in the given form. */
export function signingPayload(tx: UnsignedTxFields, form: SigningForm): Uint8Array {
  const items = baseItems(tx);
  const chainId = chainIdItem(tx.chainId);
  switch (form) {
    case 'platform':
      if (chainId) items.push(chainId);
      break;
    case 'literal':
      items.push(chainId ?? EMPTY);
      break;
    case 'metadata':
      if (chainId) items.push(chainId);
      items.push(metadataItem(tx.metadata));
      break;
    default:
      throw new TypeError(`unknown signing form ${JSON.stringify(form)}`);
  }
  return encodeItem(items);
}

/** Keccak-256 of `signingPayload(tx, form)`; the form defaults to the platform's. */
export function signingHash(tx: UnsignedTxFields, form: SigningForm = 'platform'): Uint8Array {
  return keccak256(signingPayload(tx, form));
}

/**
 * The transaction hash (64 hex digits): Keccak-256 of the RLP list
 * `[nonce, gasPrice, gasLimit, to, value, initOrData, chainId or empty, v, r, s,
 * [[key, value] sorted by key]]`, with `v`, `r` and `s` as minimal integers.
 * Two transactions that differ only in metadata get different hashes.
 */
export function transactionHash(tx: UnsignedTxFields, sig: { r: Uint8Array; s: Uint8Array; v: number }): string {
  if (!(sig.r instanceof Uint8Array) || !(sig.s instanceof Uint8Array) || sig.r.length > 32 || sig.s.length > 32) {
    throw new CryptoError('BAD_SIGNATURE', 'r and s must be byte arrays of at most 32 bytes');
  }
  const items = baseItems(tx);
  items.push(
    chainIdItem(tx.chainId) ?? EMPTY,
    integerItem(sig.v, 'v'),
    stripLeadingZeros(sig.r),
    stripLeadingZeros(sig.s),
    metadataItem(tx.metadata),
  );
  return bytesToHex(keccak256(encodeItem(items)));
}

/** Address of a contract created by `creator` at `nonce`: Keccak-256 of RLP `[creator, nonce]`, last 20 bytes. */
export function contractAddress(creator: string, nonce: bigint): string {
  return addressOfHash(keccak256(encodeItem([addressToBytes(creator, 'creator'), integerItem(nonce, 'nonce')])));
}

/**
 * Address of a salted creation (`new C{salt: s}(…)`): Keccak-256 of RLP
 * `[0xff, creator, salt, contract name as UTF-8, code hash]`, last 20 bytes.
 */
export function saltedContractAddress(creator: string, salt: Uint8Array, contractName: string, codeHash: Uint8Array): string {
  if (!(salt instanceof Uint8Array) || !(codeHash instanceof Uint8Array)) throw new TypeError('salt and codeHash must be Uint8Arrays');
  const items: RlpItem[] = [Uint8Array.of(0xff), addressToBytes(creator, 'creator'), salt, utf8.encode(contractName), codeHash];
  return addressOfHash(keccak256(encodeItem(items)));
}
