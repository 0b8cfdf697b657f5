// The shape check of an admitted transaction, before it may enter a block. The
// transaction service validated it; this guards the block (whose encoding
// would fail on bad hex) against a bug or a foreign publisher.
import type { ChainId, Transaction } from '@platform/common';

const HEX = /^(?:[0-9a-f]{2})*$/;
const HASH = /^[0-9a-f]{64}$/;
const ADDRESS = /^[0-9a-f]{40}$/;
const DECIMAL = /^\d+$/;

/** Why the value is not a transaction of this chain, or null. */
export function transactionShapeError(tx: unknown, chainId: ChainId): string | null {
  if (!tx || typeof tx !== 'object') return 'not an object';
  const t = tx as Partial<Transaction>;
  if (typeof t.hash !== 'string' || !HASH.test(t.hash)) return 'hash is not 64 lowercase hex digits';
  if (t.chainId !== chainId) return `chainId ${JSON.stringify(t.chainId)} is not this chain's`;
  if (typeof t.from !== 'string' || !ADDRESS.test(t.from)) return 'from is not 40 lowercase hex digits';
  if (!(t.to === null || (typeof t.to === 'string' && ADDRESS.test(t.to)))) return 'to is neither null nor 40 lowercase hex digits';
  if (!Number.isSafeInteger(t.nonce) || t.nonce! < 0) return 'nonce is not a non-negative integer';
  for (const f of ['gasPrice', 'gasLimit', 'value'] as const) {
    if (typeof t[f] !== 'string' || !DECIMAL.test(t[f])) return `${f} is not a decimal string`;
  }
  if (typeof t.initOrData !== 'string' || !HEX.test(t.initOrData)) return 'initOrData is not lowercase hex';
  if (!t.metadata || typeof t.metadata !== 'object' || Object.values(t.metadata).some((v) => typeof v !== 'string')) return 'metadata is not an object of strings';
  if (typeof t.r !== 'string' || !HEX.test(t.r) || typeof t.s !== 'string' || !HEX.test(t.s)) return 'r and s are not hex';
  if (!Number.isSafeInteger(t.v) || t.v! < 0) return 'v is not a non-negative integer';
  if (typeof t.signingForm !== 'string' || typeof t.origin !== 'string') return 'signingForm and origin must be strings';
  if (t.submitter !== null && (typeof t.submitter !== 'object' || typeof t.submitter?.username !== 'string')) return 'submitter is neither null nor {username, organization}';
  return null;
}
