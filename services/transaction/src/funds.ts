// With gas enabled, an account that cannot pay is refused at admission, with
// an error that says what to do, instead of being admitted to fail in a block
// with "insufficient balance" (which would still consume its nonce).
//
// The check reads the balance the block service's applied state holds
// (`block.account`), and asks for what execution asks upfront of one
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
 * Refuses (422 UNPROCESSABLE, `details.reason` INSUFFICIENT_BALANCE) when
 * the account's balance is below what the costliest of `drafts` needs
 * upfront. `fields` name the drafts in the request (`txs[0]`; null for a
 * raw transaction, which is the whole body).
 * Only the main chain is checked: this node's block service holds only it
 * (private chains carry their own balances, with their issue).
 */
export async function requireFunds(nc: NatsConnection, from: string, drafts: Draft[], fields: Array<string | null>): Promise<void> {
  let costliest = -1;
  for (let i = 0; i < drafts.length; i++) {
    if (drafts[i].chainId !== '') continue;
    if (costliest < 0 || upfront(drafts[i]) > upfront(drafts[costliest])) costliest = i;
  }
  if (costliest < 0) return;
  const required = upfront(drafts[costliest]);
  // null: the state has no such account yet, so nothing to pay with
  const account = await call(nc, BLOCK.account, { address: from, chainId: '' });
  const balance = BigInt(account?.balance ?? '0');
  if (balance >= required) return;
  const field = fields[costliest];
  throw new PlatformError(
    'UNPROCESSABLE',
    `account ${from} cannot pay for ${field ?? 'the transaction'}: its balance is ${balance}, and the transaction needs ${required} upfront (gasLimit × gasPrice + value). ` +
      `Gas is enabled on this node: fund the account with the faucet (POST /bloc/v2.2/users/user/${from}/fill?resolve=true) or a transfer, then send it again`,
    { reason: 'INSUFFICIENT_BALANCE', ...(field ? { field } : {}), address: from, balance: balance.toString(), required: required.toString() },
  );
}
