// With gas enabled, an account that cannot pay is refused at admission, with
// an error that says what to do, instead of being admitted to fail in a block
// with "insufficient balance" (which would still consume its nonce).
//
// The check reads the balance the block service's applied state holds
// (`block-svc.account.node`), and asks for what execution asks upfront of one
// transaction: gasLimit × gasPrice + value. It is a floor, not a promise:
// the account's pending transactions are not subtracted (admission cannot
// know their fees), so a request may still fail in its block for want of
// funds. Conversely, a transfer to the account that is still pending does not
// count yet: wait for it (the faucet with `resolve=true`) before transacting.
import type { NatsConnection } from '@nats-io/nats-core';
import { BLOCK, call } from '@platform/bus';
import { PlatformError } from '@platform/common';
import type { Draft } from './drafts.js';

/** What one transaction needs in the account before it can start. */
export function upfront(draft: Pick<Draft, 'gasLimit' | 'gasPrice' | 'value'>): bigint {
  return draft.gasLimit * draft.gasPrice + draft.value;
}

/**
 * Refuses (422 INSUFFICIENT_BALANCE) when
 * the account's balance on a chain is below what the costliest of `drafts`
 * on that chain needs upfront. `fields` name the drafts in the request
 * (`txs[0]`; null for a raw transaction, which is the whole body). Each
 * chain has its own balances: a private chain's come from its genesis's
 * `balances` and transfers on it, not from the faucet.
 */
export async function requireFunds(nc: NatsConnection, from: string, drafts: Draft[], fields: Array<string | null>): Promise<void> {
  const costliest = new Map<string, number>();
  drafts.forEach((d, i) => {
    const best = costliest.get(d.chainId);
    if (best === undefined || upfront(d) > upfront(drafts[best])) costliest.set(d.chainId, i);
  });
  for (const [chainId, i] of [...costliest].sort(([a], [b]) => a.localeCompare(b))) await requireChainFunds(nc, from, chainId, drafts[i], fields[i]);
}

async function requireChainFunds(nc: NatsConnection, from: string, chainId: string, draft: Draft, field: string | null): Promise<void> {
  const required = upfront(draft);
  // null: the state has no such account yet, so nothing to pay with
  // the node's own read (admission already checked the sender may send to the chain)
  const account = await call(nc, BLOCK.nodeAccount, { address: from, chainId });
  const balance = BigInt(account?.balance ?? '0');
  if (balance >= required) return;
  const fund =
    chainId === ''
      ? `fund the account with the faucet (POST /bloc/v2.2/users/user/${from}/fill?resolve=true) or a transfer`
      : `fund the account on chain ${chainId} with a transfer on that chain (the faucet funds the main chain only)`;
  throw new PlatformError(
    'INSUFFICIENT_BALANCE',
    `account ${from} cannot pay for ${field ?? 'the transaction'}${chainId === '' ? '' : ` on chain ${chainId}`}: its balance is ${balance}, and the transaction needs ${required} upfront (gasLimit × gasPrice + value). ` +
      `Gas is enabled on this node: ${fund}, then send it again`,
    { ...(field ? { field } : {}), address: from, ...(chainId === '' ? {} : { chainId }), balance: balance.toString(), required: required.toString() },
  );
}
