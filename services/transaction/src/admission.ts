// Admission (docs/architecture.md "One transaction, end to end", step 2): a request
// becomes signed transactions that are stored Pending with their outbox rows,
// with their nonces, atomically; then they are published. Concurrent requests
// of one account take consecutive nonces in turn, and a failure anywhere
// before the store (vault, limit, database) takes no nonce:
// - the common request (one chain, no idempotency key) signs with the nonces
//   the account should be at and stores them in one statement that refuses
//   nonces taken meanwhile (then it signs again; NonceBook);
// - any other locks the account's rows from nonce reservation to commit.
import type { NatsConnection } from '@nats-io/nats-core';
import { VAULT, call, preEncoded, type FillRequest, type SignRequest, type SignatureRecord, type SubmitRawRequest, type SubmitRequest } from '@platform/bus';
import { PlatformError, type NodeConfig, type Transaction, type TxResult } from '@platform/common';
import { keccak256Hex } from '@platform/crypto';
import type pg from 'pg';
import type { Asker, ChainGate } from './chains.js';
import { checkReservedNames, type IdentityGate } from './checks.js';
import { inTransaction, type Db } from './db.js';
import { draftsOf, type Draft } from './drafts.js';
import { faucetDraft, type Faucet } from './faucet.js';
import { address as addressField, invalid, username as usernameField } from './fields.js';
import { requireFunds } from './funds.js';
import { requireGasPrice } from './gas-price.js';
import type { Outbox } from './outbox.js';
import { parseRaw } from './raw.js';
import { ZERO_HASH_SUCCESS, pending } from './results.js';
import { buildTransaction, hashToSign, type Signature } from './signed.js';
import type { RawAdmissions } from './raw-batch.js';
import type { AdmittedCache } from './admitted-cache.js';
import type { NonceBook } from './nonce-book.js';
import type { RecentResults } from './recent-results.js';
import { admitSigned, claimIdempotencyKey, findIdempotent, insertAdmitted, nextNonce, readResults, readStoredResults, recordIdempotentHashes, reserveNonces, type StoredResult } from './store.js';

const SIGN_IN_FLIGHT = 500;

export interface AdmissionDeps {
  pool: Db;
  nc: NatsConnection;
  /**
   * `vault.sign`, the calls of one event-loop turn sent as one message
   * (`batchingCaller`): a request of a hundred transactions costs the vault,
   * this process and the NATS server one message each way, not a hundred
   */
  vaultSign: (request: SignRequest) => Promise<SignatureRecord>;
  outbox: Outbox;
  /** raw admissions, group-committed */
  raw: RawAdmissions;
  /** what this process admitted, for recording the results */
  admitted: AdmittedCache;
  /** the main chain's final results recorded here lately, for the results endpoint */
  recent: RecentResults;
  /** the next nonces of the accounts the vault signs for */
  nonces: NonceBook;
  faucet: Faucet;
  /** IDENTITY_REQUIRED */
  identity: IdentityGate;
  /** which chains exist, and whose results a user may read */
  chains: ChainGate;
  config: Pick<NodeConfig, 'accountNonceLimit' | 'gasEnabled' | 'rawTxRequireSignedMetadata'>;
}

/** Transactions signed by the vault for the user: their Pending results, in request order. */
// A user's address never changes (one key per user, never replaced), so it is
// asked of the vault once per user, not once per request.
const ADDRESS_CACHE_SIZE = 10_000;
const addresses = new Map<string, string>();

async function addressOf(nc: AdmissionDeps['nc'], username: string): Promise<string> {
  const known = addresses.get(username);
  if (known) return known;
  const { address } = await call(nc, VAULT.keyGet, { username });
  if (addresses.size >= ADDRESS_CACHE_SIZE) addresses.delete(addresses.keys().next().value!);
  addresses.set(username, address);
  return address;
}

export async function submit(deps: AdmissionDeps, request: SubmitRequest): Promise<TxResult[]> {
  deps.outbox.requireOrdering();
  const username = usernameField(request?.username);
  const submitter = { username, organization: organization(request.organization) };
  const drafts = draftsOf(request.transactions, request.txParams, request.chainId);
  checkReservedNames(drafts, (i) => `txs[${i}].payload.contract`);
  const rules = await deps.chains.requireKnown(drafts.map((d) => d.chainId), submitter, (i) => (request.chainId ? 'chainid' : `txs[${i}].payload.chainid`));
  const key = idempotencyKey(request.idempotencyKey);
  // what makes two requests "the same" under one key
  const digest = key ? keccak256Hex(JSON.stringify([request.chainId, request.txParams, request.transactions])) : '';
  if (key) {
    const earlier = await replay(deps.pool, username, key, digest);
    if (earlier) return earlier;
  }

  const from = await addressOf(deps.nc, username);
  await deps.identity.check(from, drafts);
  if (deps.config.gasEnabled) {
    const fields = drafts.map((_, i) => `txs[${i}]`);
    requireGasPrice(from, drafts, rules, fields);
    await requireFunds(deps.nc, from, drafts, fields);
  }

  const sign = async (nonces: number[]): Promise<Signed> => {
    const signatures = await signAll(deps.vaultSign, username, drafts.map((draft, i) => hashToSign(draft, nonces[i])));
    const transactions = drafts.map((draft, i) =>
      buildTransaction(draft, { from, nonce: nonces[i], signature: signatures[i], signingForm: 'platform', origin: 'vault', submitter }),
    );
    return { transactions, bodies: transactions.map((t) => JSON.stringify(t)) };
  };
  const chainId = drafts[0].chainId;
  const admitted =
    !key && drafts.every((d) => d.chainId === chainId)
      ? await admitInOneStatement(deps, from, chainId, drafts.length, sign)
      : await admitInTransaction(deps, from, drafts, sign, key ? { username, key, digest } : null);
  if ('replayOf' in admitted) return results(deps.pool, admitted.replayOf);
  deps.admitted.remember(admitted.transactions, admitted.bodies);
  await deps.outbox.publish(admitted.transactions.map((t, i) => ({ hash: t.hash, chainId: t.chainId, body: admitted.bodies[i] })));
  return admitted.transactions.map((t) => pending(t.hash));
}

/**
 * One self-signed transaction: its Pending result. It is idempotent by its
 * hash — the same signed transaction again answers its current result — so
 * it needs no idempotency key.
 */
export async function submitRaw(deps: AdmissionDeps, request: SubmitRawRequest): Promise<TxResult> {
  deps.outbox.requireOrdering();
  const username = usernameField(request?.username);
  const submitter = { username, organization: organization(request.organization) };
  const raw = parseRaw(request.transaction, request.chainId, deps.config.rawTxRequireSignedMetadata);
  const tx = buildTransaction(raw.draft, { from: raw.from, nonce: raw.nonce, signature: raw.signature, signingForm: raw.signingForm, origin: 'raw', submitter });
  checkReservedNames([raw.draft], () => 'metadata.name');
  const rules = await deps.chains.requireKnown([tx.chainId], submitter, () => 'chainId');
  await deps.identity.check(tx.from, [raw.draft]);
  if (tx.nonce > deps.config.accountNonceLimit) throw nonceLimit(tx.from, tx.chainId, tx.nonce, deps.config.accountNonceLimit);
  if (deps.config.gasEnabled) {
    try {
      requireGasPrice(tx.from, [raw.draft], rules, [null]);
      await requireFunds(deps.nc, tx.from, [raw.draft], [null]);
    } catch (err) {
      // the same signed transaction again answers its result, even once the balance is spent
      const known = (await readResults(deps.pool, [tx.hash]))[0];
      if (known) return known;
      throw err;
    }
  }

  const body = JSON.stringify(tx);
  if (!(await deps.raw.admit(tx, body))) {
    // a resubmission of an admitted transaction finds its nonce taken: answer its result
    const known = (await readResults(deps.pool, [tx.hash]))[0];
    if (known) return known;
    const expected = await nextNonce(deps.pool, tx.from, tx.chainId);
    throw new PlatformError('NONCE_MISMATCH', `nonce ${tx.nonce} is not the next nonce of ${tx.from}${chainText(tx.chainId)}: expected ${expected}`, {
      field: 'nonce',
      expected,
      got: tx.nonce,
    });
  }
  deps.admitted.rememberRaw([tx.hash]);
  deps.nonces.forget(tx.from, tx.chainId);
  await deps.outbox.publish([{ hash: tx.hash, chainId: tx.chainId, body }]);
  return pending(tx.hash);
}

/** The faucet: nothing to do while gas is disabled (the spec's answer); else 2000 tokens from the faucet account. */
export async function fill(deps: AdmissionDeps, request: FillRequest): Promise<TxResult> {
  usernameField(request?.username);
  const to = addressField(request.address, 'address');
  if (!deps.config.gasEnabled) return ZERO_HASH_SUCCESS;
  deps.outbox.requireOrdering();
  const draft = faucetDraft(to);
  const { tx, body } = await inTransaction(deps.pool, async (client) => {
    const [nonce] = await allocate(client, deps.faucet.address, [draft], Infinity);
    const tx = buildTransaction(draft, {
      from: deps.faucet.address,
      nonce,
      signature: deps.faucet.sign(hashToSign(draft, nonce)),
      signingForm: 'platform',
      origin: 'vault',
      submitter: null,
    });
    const body = JSON.stringify(tx);
    await insertAdmitted(client, [tx], [body]);
    return { tx, body };
  });
  deps.admitted.remember([tx], [body]);
  await deps.outbox.publish([{ hash: tx.hash, chainId: tx.chainId, body }]);
  return pending(tx.hash);
}

/**
 * The results of hashes, in order; NOT_FOUND naming every unknown one. With
 * `asker`, a private chain's transaction it may not see counts as unknown.
 */
export async function results(pool: Db, hashes: string[], visibility?: Visibility): Promise<TxResult[]> {
  const stored = await readStoredResults(pool, hashes);
  await refuseUnknown(hashes, stored, visibility);
  return stored.map((s) => s.result!);
}

interface Visibility {
  chains: ChainGate;
  asker: Asker;
}

async function refuseUnknown(hashes: string[], stored: StoredResult[], visibility?: Visibility): Promise<void> {
  const hidden = visibility ? await visibility.chains.hidden(stored.map((s, i) => ({ ...s, hash: hashes[i] })), visibility.asker) : new Set<string>();
  const unknown = hashes.filter((h, i) => stored[i].result === null || hidden.has(h));
  if (unknown.length > 0) throw new PlatformError('TRANSACTION_NOT_FOUND', `unknown transaction hash${unknown.length > 1 ? 'es' : ''}: ${unknown.join(', ')}`, { unknown });
}

/**
 * `results` for the results endpoint, as JSON text: the main chain's recent
 * final results come as they were announced (`recent`, anyone may read them),
 * only the others are read from the database.
 */
export async function resultsText(pool: Db, recent: RecentResults, hashes: string[], visibility?: Visibility): Promise<TxResult[]> {
  const texts = hashes.map((h) => recent.get(h));
  const missing = [...new Set(hashes.filter((_, i) => texts[i] === undefined))];
  if (missing.length > 0) {
    const stored = await readStoredResults(pool, missing);
    await refuseUnknown(missing, stored, visibility);
    const read = new Map(missing.map((h, i) => [h, JSON.stringify(stored[i].result)]));
    hashes.forEach((h, i) => (texts[i] ??= read.get(h)));
  }
  return preEncoded(`[${texts.join(',')}]`);
}

// ---------------------------------------------------------------------------

interface Signed {
  transactions: Transaction[];
  bodies: string[];
}

/**
 * The common request (one chain, no idempotency key): signed with the nonces
 * the account should be at, then stored with them in one statement, which
 * refuses them if they were taken meanwhile (then signed again).
 */
function admitInOneStatement(deps: AdmissionDeps, from: string, chainId: string, count: number, sign: (nonces: number[]) => Promise<Signed>): Promise<Signed> {
  return deps.nonces.inTurn(from, chainId, count, async (first) => {
    if (first + count - 1 > deps.config.accountNonceLimit) throw nonceLimit(from, chainId, first + count - 1, deps.config.accountNonceLimit, first);
    const signed = await sign(Array.from({ length: count }, (_, i) => first + i));
    return (await admitSigned(deps.pool, first, signed.transactions, signed.bodies)) ? signed : null;
  });
}

/**
 * A request over several chains, or under an idempotency key: its key, its
 * nonces (the account's rows locked until the commit) and its transactions in
 * one database transaction, all or nothing.
 */
async function admitInTransaction(
  deps: AdmissionDeps,
  from: string,
  drafts: Draft[],
  sign: (nonces: number[]) => Promise<Signed>,
  idempotency: { username: string; key: string; digest: string } | null,
): Promise<Signed | { replayOf: string[] }> {
  const admitted = await inTransaction<Signed | { replayOf: string[] }>(deps.pool, async (client) => {
    if (idempotency) {
      const claim = await claimIdempotencyKey(client, idempotency.username, idempotency.key, idempotency.digest);
      if (!claim.claimed) return { replayOf: sameRequest(claim, idempotency.digest) };
    }
    const signed = await sign(await allocate(client, from, drafts, deps.config.accountNonceLimit));
    await insertAdmitted(client, signed.transactions, signed.bodies);
    if (idempotency) await recordIdempotentHashes(client, idempotency.username, idempotency.key, signed.transactions.map((t) => t.hash));
    return signed;
  });
  // the nonce book's guesses for these accounts are behind now
  for (const chainId of new Set(drafts.map((d) => d.chainId))) deps.nonces.forget(from, chainId);
  return admitted;
}

/** Nonces for the drafts in request order, reserved per chain (in chain order, so two requests never wait on each other crosswise). */
async function allocate(client: pg.PoolClient, from: string, drafts: Draft[], limit: number): Promise<number[]> {
  const counts = new Map<string, number>();
  for (const d of drafts) counts.set(d.chainId, (counts.get(d.chainId) ?? 0) + 1);
  const next = new Map<string, number>();
  for (const chainId of [...counts.keys()].sort()) {
    const count = counts.get(chainId)!;
    const first = await reserveNonces(client, from, chainId, count);
    if (first + count - 1 > limit) throw nonceLimit(from, chainId, first + count - 1, limit, first);
    next.set(chainId, first);
  }
  return drafts.map((d) => {
    const nonce = next.get(d.chainId)!;
    next.set(d.chainId, nonce + 1);
    return nonce;
  });
}

/** One signature per hash, asked together (the signer sends them as few messages), bounded for huge requests. */
async function signAll(vaultSign: AdmissionDeps['vaultSign'], username: string, hashes: string[]): Promise<Signature[]> {
  const signatures: Signature[] = [];
  for (let i = 0; i < hashes.length; i += SIGN_IN_FLIGHT) {
    signatures.push(...(await Promise.all(hashes.slice(i, i + SIGN_IN_FLIGHT).map((msgHash) => vaultSign({ username, msgHash })))));
  }
  return signatures;
}



function nonceLimit(address: string, chainId: string, highest: number, limit: number, next?: number): PlatformError {
  const needs = next === undefined ? `nonce ${highest}` : `nonces up to ${highest} (its next is ${next})`;
  return new PlatformError('NONCE_LIMIT', `account ${address}${chainText(chainId)} would use ${needs}, beyond the limit ${limit} (ACCOUNT_NONCE_LIMIT)`, {
    address,
    chainId,
    limit,
    ...(next === undefined ? {} : { nextNonce: next }),
  });
}

function chainText(chainId: string): string {
  return chainId === '' ? '' : ` on chain ${chainId}`;
}

function organization(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw invalid('organization', 'must be a string or null');
  return value;
}

function idempotencyKey(value: unknown): string | null {
  if (value === undefined || value === null || value === '') return null;
  if (typeof value !== 'string' || value.length > 255 || [...value].some((c) => c < ' ' || c === '\u007f')) {
    throw invalid('Idempotency-Key', 'must be text of at most 255 characters without control characters');
  }
  return value;
}

async function replay(pool: Db, username: string, key: string, digest: string): Promise<TxResult[] | null> {
  const earlier = await findIdempotent(pool, username, key);
  return earlier ? results(pool, sameRequest(earlier, digest)) : null;
}

/** A key names one request: reusing it for another is a client bug worth saying. */
function sameRequest(earlier: { digest: string; hashes: string[] }, digest: string): string[] {
  if (earlier.digest !== digest) throw new PlatformError('IDEMPOTENCY_KEY_REUSED', 'this Idempotency-Key was used for a different request; use a new key for a new request', { field: 'Idempotency-Key' });
  return earlier.hashes;
}
