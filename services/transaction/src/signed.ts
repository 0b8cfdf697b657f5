// From signed fields to the Transaction that crosses the bus: the signing
// hash (docs/conventions.md "Raw transactions: the signed bytes") and the
// transaction hash, which also covers the metadata, so two transactions that
// differ only there never share a hash.
import type { Transaction } from '@platform/common';
import { bytesToHex, hexToBytes, signingHash, transactionHash, type SigningForm, type UnsignedTxFields } from '@platform/crypto';
import type { Draft } from './drafts.js';

export interface Signature {
  /** 64 hex each */
  r: string;
  s: string;
  v: number;
}

export function unsignedFields(draft: Draft, nonce: number): UnsignedTxFields {
  return {
    nonce: BigInt(nonce),
    gasPrice: draft.gasPrice,
    gasLimit: draft.gasLimit,
    to: draft.to,
    value: draft.value,
    initOrData: draft.initOrData,
    chainId: draft.chainId === '' ? null : draft.chainId,
    metadata: draft.metadata,
  };
}

/** The hash the vault (or the faucet key) signs: the platform's form. */
export function hashToSign(draft: Draft, nonce: number): string {
  return bytesToHex(signingHash(unsignedFields(draft, nonce), 'platform'));
}

export interface Signer {
  from: string;
  nonce: number;
  signature: Signature;
  signingForm: SigningForm;
  origin: Transaction['origin'];
  submitter: Transaction['submitter'];
}

export function buildTransaction(draft: Draft, signer: Signer): Transaction {
  const { r, s, v } = signer.signature;
  const hash = transactionHash(unsignedFields(draft, signer.nonce), { r: hexToBytes(r), s: hexToBytes(s), v });
  return {
    hash,
    chainId: draft.chainId,
    from: signer.from,
    nonce: signer.nonce,
    gasPrice: draft.gasPrice.toString(),
    gasLimit: draft.gasLimit.toString(),
    value: draft.value.toString(),
    to: draft.to,
    initOrData: bytesToHex(draft.initOrData),
    metadata: draft.metadata,
    r,
    s,
    v,
    signingForm: signer.signingForm,
    origin: signer.origin,
    submitter: signer.submitter,
    admittedAt: Date.now(),
  };
}
