// With gas enabled, every transaction's gas is paid from its sender's balance
// (the spec: a new account cannot be used until the faucet credited it). A
// transaction with `gasPrice` 0 would cost nothing, so an account nobody
// funded could upload and call freely: admission refuses a gas price below
// the chain's minimum (`protocol.minGasPrice` of its genesis;
// DEFAULT_MIN_GAS_PRICE for a genesis older than the field), before any
// nonce is taken, as it refuses an account that cannot pay.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_MIN_GAS_PRICE, DEFAULT_PROTOCOL, PlatformError, type Genesis, type ProtocolParams } from '@platform/common';
import type { Draft } from './drafts.js';

/** The main chain's protocol parameters, from the node's genesis; the defaults when the node has none (the service alone, in tests). */
export function mainProtocol(dataDir: string): ProtocolParams {
  const path = join(dataDir, 'genesis.json');
  if (!existsSync(path)) return DEFAULT_PROTOCOL;
  const protocol = (JSON.parse(readFileSync(path, 'utf8')) as Partial<Genesis>).protocol ?? DEFAULT_PROTOCOL;
  minGasPriceOf(protocol, path);
  return protocol;
}

/** The chain's minimum gas price; a genesis without one has the default. */
export function minGasPriceOf(protocol: ProtocolParams, where = 'the genesis'): bigint {
  const text = String(protocol.minGasPrice ?? DEFAULT_MIN_GAS_PRICE);
  if (!/^\d{1,78}$/.test(text)) throw new Error(`${where}: protocol.minGasPrice must be a non-negative integer (decimal text), got ${JSON.stringify(protocol.minGasPrice)}`);
  return BigInt(text);
}

/**
 * Refuses (422 GAS_PRICE_TOO_LOW) the first
 * draft whose gas price is below its chain's minimum. `rules` are the chains'
 * protocol parameters (admission's chain check), `fields` name the drafts in
 * the request (`txs[0]`; null for a raw transaction, which is the whole body).
 */
export function requireGasPrice(from: string, drafts: Draft[], rules: ReadonlyMap<string, ProtocolParams>, fields: Array<string | null>): void {
  for (const [i, draft] of drafts.entries()) {
    const protocol = rules.get(draft.chainId);
    if (!protocol) continue;
    const minimum = minGasPriceOf(protocol);
    if (draft.gasPrice >= minimum) continue;
    const field = fields[i];
    const chain = draft.chainId === '' ? '' : ` on chain ${draft.chainId}`;
    throw new PlatformError(
      'GAS_PRICE_TOO_LOW',
      `${field ?? 'the transaction'} from ${from}${chain} has gasPrice ${draft.gasPrice}, below the chain's minimum gas price ${minimum}. ` +
        `Gas is enabled on this node: every transaction pays for its gas, so send it with gasPrice ${minimum} or more (txParams.gasPrice; the default is 1), from an account funded to pay for it`,
      {
        field: field ?? 'gasPrice',
        address: from,
        ...(draft.chainId === '' ? {} : { chainId: draft.chainId }),
        gasPrice: draft.gasPrice.toString(),
        minGasPrice: minimum.toString(),
      },
    );
  }
}
