// The file application's transactions: sent through the transaction service
// with the caller's vault key (as `POST /platform/v2.3/transaction` sends
// them), then followed to their final result.
import { BLOCK, TX, VAULT, call, type NatsConnection, type SubmitItem } from '@platform/bus';
import { PlatformError, type TxResult } from '@platform/common';

/** The user a request is made for: the token's. */
export interface User {
  username: string;
  organization: string | null;
}

export interface Call {
  method: string;
  args: Record<string, unknown>;
  /** tokens sent with the call, in the smallest unit */
  value?: bigint;
}

/** A transaction's final result, when it succeeded. */
export interface Done {
  hash: string;
  /** the addresses of the contracts it created */
  created: string[];
  /** its return values, one string each */
  returned: string[];
}

const POLL_FIRST_MS = 20;
const POLL_MAX_MS = 250;

export class Ledger {
  private readonly codeHashes = new Map<string, Promise<string>>();

  constructor(
    private readonly nc: NatsConnection,
    private readonly resolveTimeoutMs: number,
  ) {}

  /** The user's address: their key in the vault (USER_NOT_FOUND, 400, when they have none yet). */
  async address(user: User, requestId: string): Promise<string> {
    return (await call(this.nc, VAULT.keyGet, { username: user.username }, { requestId })).address;
  }

  /** The code hash every contract of a SolidVM source has (one per source), compiled once. */
  codeHashOf(source: string, contractName: string, requestId: string): Promise<string> {
    let hash = this.codeHashes.get(source);
    if (!hash) {
      hash = call(this.nc, BLOCK.compile, [{ source, vm: 'SolidVM', contractName }], { requestId }).then(([compiled]) => compiled!.codeHash);
      this.codeHashes.set(source, hash);
      // a failure (the block service away) is not remembered
      hash.catch(() => this.codeHashes.delete(source));
    }
    return hash;
  }

  /** The code hash of the contract at `address` on `chainId` as `user` may see it; null for an account without code. */
  async codeHashAt(user: User, address: string, chainId: string, requestId: string): Promise<string | null> {
    const account = await call(this.nc, BLOCK.account, { address, chainId, username: user.username, organization: user.organization }, { requestId });
    return account?.codeHash ?? null;
  }

  /** An account's balance in the smallest unit; 0 for one the state does not hold. */
  async balance(user: User, address: string, chainId: string, requestId: string): Promise<bigint> {
    const account = await call(this.nc, BLOCK.account, { address, chainId, username: user.username, organization: user.organization }, { requestId });
    return BigInt(account?.balance ?? 0);
  }

  /** Creates `contract` of `source` (SolidVM) and waits for it. */
  create(user: User, chainId: string, contract: string, source: string, args: Record<string, unknown>, requestId: string): Promise<Done> {
    return this.send(user, chainId, { type: 'CONTRACT', payload: { contract, src: source, args, metadata: { VM: 'SolidVM' } } }, requestId);
  }

  /** Calls a function of the contract at `address` and waits for it. */
  invoke(user: User, chainId: string, address: string, fn: Call, requestId: string): Promise<Done> {
    return this.send(
      user,
      chainId,
      { type: 'FUNCTION', payload: { contractAddress: address, method: fn.method, args: fn.args, metadata: { VM: 'SolidVM' }, ...(fn.value ? { value: fn.value.toString() } : {}) } },
      requestId,
    );
  }

  private async send(user: User, chainId: string, item: SubmitItem, requestId: string): Promise<Done> {
    const [pending] = await call(this.nc, TX.submit, { username: user.username, organization: user.organization, chainId: chainId || null, transactions: [item] }, { requestId });
    const result = await this.follow(user, pending!, requestId);
    if (result.status !== 'Success') {
      throw new PlatformError('TRANSACTION_FAILED', `the transaction failed: ${result.txResult?.message ?? 'no reason given'}`, { hash: result.hash });
    }
    const created = (result.txResult?.contractsCreated ?? '').split(',').filter((a) => a !== '');
    const returned = result.data?.tag === 'Call' ? result.data.contents : [];
    return { hash: result.hash, created, returned };
  }

  /** Reads the result until it is final, polling more slowly as it waits; 504 TIMEOUT after RESOLVE_TIMEOUT_MS. */
  private async follow(user: User, pending: TxResult, requestId: string): Promise<TxResult> {
    const deadline = Date.now() + this.resolveTimeoutMs;
    let result = pending;
    let pause = POLL_FIRST_MS;
    while (result.status === 'Pending') {
      if (Date.now() > deadline) throw new PlatformError('TIMEOUT', `the transaction ${pending.hash} did not complete within ${this.resolveTimeoutMs} ms; it may still`, { hashes: [pending.hash] });
      await new Promise((r) => setTimeout(r, pause));
      pause = Math.min(POLL_MAX_MS, pause * 2);
      [result] = (await call(this.nc, TX.results, { hashes: [pending.hash], username: user.username, organization: user.organization }, { requestId })) as [TxResult];
    }
    return result;
  }
}
