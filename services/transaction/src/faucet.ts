// The faucet's system account. Its key is the service's own (generated once,
// kept in the `tx` schema, shared by every instance), not a vault user's: no
// token's username can reach it. It is exempt from ACCOUNT_NONCE_LIMIT
// (docs/conventions.md "Transactions"), and its balance comes from the genesis.
import type pg from 'pg';
import { bytesToHex, generateKeyPair, hexToBytes, keyPairFromPrivateKey, sign, type KeyPair } from '@platform/crypto';
import type { Draft } from './drafts.js';
import { DEFAULT_TX_PARAMS } from './drafts.js';
import type { Signature } from './signed.js';
import { metaValue } from './store.js';

/** 2000 tokens of 18 decimals (docs/conventions.md "Transactions", amounts). */
export const FAUCET_AMOUNT = 2000n * 10n ** 18n;

export interface Faucet {
  address: string;
  sign(hash: string): Signature;
}

/** The faucet key: the given one, or the one stored at the first start (run under the migration lock). */
export async function loadFaucet(client: pg.PoolClient, given?: Uint8Array): Promise<Faucet> {
  const key: KeyPair = given ? keyPairFromPrivateKey(given) : keyPairFromPrivateKey(hexToBytes(await metaValue(client, 'faucet_private_key', () => bytesToHex(generateKeyPair().privateKey))));
  return {
    address: key.address,
    sign(hash) {
      const sig = sign(hexToBytes(hash), key.privateKey);
      return { r: bytesToHex(sig.r).padStart(64, '0'), s: bytesToHex(sig.s).padStart(64, '0'), v: sig.v };
    },
  };
}

export function faucetDraft(to: string): Draft {
  return {
    chainId: '',
    gasPrice: DEFAULT_TX_PARAMS.gasPrice,
    gasLimit: DEFAULT_TX_PARAMS.gasLimit,
    to,
    value: FAUCET_AMOUNT,
    initOrData: new Uint8Array(0),
    metadata: {},
  };
}
