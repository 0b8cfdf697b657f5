// Gas enabled: an account that cannot pay is refused at admission with an
// error naming it and the faucet; the balance comes from the block service's
// `block-svc.account.node`, played here by the test (real NATS, real vault).
import { refusal } from '@platform/common/testing';
import { Wallet } from 'ethers';
import { BLOCK, TX, call, handle, serve, type AccountRecord, type SubmitItem } from '@platform/bus';
import { createLogger } from '@platform/common';
import { ethersSigningHash, fixture, type Fields, type Fixture } from './helpers.js';
const SRC = 'contract Note { string text; }';
const upload: SubmitItem = { type: 'CONTRACT', payload: { contract: 'Note', src: SRC, metadata: { VM: 'SolidVM' } } };
/** the platform client's defaults: gasLimit 32100000000 × gasPrice 1 */
const DEFAULT_UPFRONT = 32_100_000_000n;

describe('transaction - gas enabled: accounts that cannot pay', () => {
  let f: Fixture;
  /** the balances the played block service answers; absent: no such account */
  const balances = new Map<string, bigint>();
  let asked = 0;
  let block: { stop(): Promise<unknown> } | null = null;

  const playBlockService = async () => {
    block = await serve(f.nc, { name: 'block', version: '0.0.0', logger: createLogger('block', 'silent') }, [
      handle(BLOCK.nodeAccount, ({ address, chainId }): AccountRecord | null => {
        asked++;
        // a private chain's balances are its own: `<chain>:<address>`
        const balance = balances.get(chainId ? `${chainId}:${address}` : address);
        if (balance === undefined) return null;
        return { address, chainId: chainId ?? '', balance: balance.toString(), nonce: 0, codeHash: null, contractRoot: '', latestBlockNum: 0, blockNumber: 1 };
      }),
    ]);
    await f.nc.flush();
  };

  beforeAll(async () => {
    f = await fixture();
    await f.start({ env: { GAS_ENABLED: 'true' } });
    await playBlockService();
  });
  afterAll(async () => {
    await block?.stop();
    await f?.stop();
  });

  test('an unfunded user is refused (422) naming the account and the faucet; nothing is admitted, no nonce is used', async () => {
    const address = await f.user('poor');
    const err = await refusal(call(f.nc, TX.submit, { username: 'poor', organization: null, chainId: null, transactions: [upload] }));
    expect(err).toMatchObject({ code: 'INSUFFICIENT_BALANCE', status: 422, details: { field: 'txs[0]', address, balance: '0', required: DEFAULT_UPFRONT.toString() } });
    expect(err.message).toContain(`account ${address} cannot pay for txs[0]`);
    expect(err.message).toContain(`/bloc/v2.2/users/user/${address}/fill`);
    expect(await call(f.nc, TX.nonce, { username: 'tester', organization: null, address })).toMatchObject({ nextNonce: 0 });

    balances.set(address, DEFAULT_UPFRONT);
    const [admitted] = await call(f.nc, TX.submit, { username: 'poor', organization: null, chainId: null, transactions: [upload] });
    expect(admitted.status).toBe('Pending');
    expect(await call(f.nc, TX.nonce, { username: 'tester', organization: null, address })).toMatchObject({ nextNonce: 1 });
  });

  test('each chain\'s balance pays for the transactions on it: a private chain\'s is not the main chain\'s', async () => {
    const address = await f.user('twochains');
    const chain = '9c'.repeat(32);
    balances.set(address, DEFAULT_UPFRONT);
    const onChain = { ...upload, payload: { ...upload.payload, chainid: chain } } as SubmitItem;
    const err = await refusal(call(f.nc, TX.submit, { username: 'twochains', organization: null, chainId: null, transactions: [upload, onChain] }));
    expect(err).toMatchObject({ code: 'INSUFFICIENT_BALANCE', details: { field: 'txs[1]', chainId: chain, balance: '0' } });
    expect(err.message).toContain(`on chain ${chain}`);
    expect(err.message).toContain('the faucet funds the main chain only');
    balances.set(`${chain}:${address}`, DEFAULT_UPFRONT);
    expect(await call(f.nc, TX.submit, { username: 'twochains', organization: null, chainId: null, transactions: [upload, onChain] })).toHaveLength(2);
  });

  test('the costliest transaction of a request decides: gasLimit × gasPrice + value', async () => {
    const address = await f.user('some');
    balances.set(address, 10n ** 18n);
    const transfer = (value: string): SubmitItem => ({ type: 'TRANSFER', payload: { toAddress: 'ab'.repeat(20), value } });
    const err = await refusal(
      call(f.nc, TX.submit, { username: 'some', organization: null, chainId: null, txParams: { gasLimit: 21_000, gasPrice: 2 }, transactions: [transfer('1'), transfer((10n ** 18n).toString())] }),
    );
    expect(err).toMatchObject({ code: 'INSUFFICIENT_BALANCE', details: { field: 'txs[1]', required: (10n ** 18n + 42_000n).toString(), balance: (10n ** 18n).toString() } });
    const ok = await call(f.nc, TX.submit, { username: 'some', organization: null, chainId: null, txParams: { gasLimit: 21_000, gasPrice: 2 }, transactions: [transfer('1'), transfer((10n ** 18n - 42_000n).toString())] });
    expect(ok.map((r) => r.status)).toEqual(['Pending', 'Pending']);
  });

  test('raw transactions too; the same signed transaction again still answers its result', async () => {
    const wallet = Wallet.createRandom();
    const address = wallet.address.toLowerCase().slice(2);
    const fields: Fields = { nonce: 0, gasPrice: 1, gasLimit: 100_000, to: null, value: 0, initOrData: Buffer.from(SRC).toString('hex'), metadata: { VM: 'SolidVM', name: 'Note' } };
    const sig = wallet.signingKey.sign(ethersSigningHash(fields));
    const body = { nonce: 0, gasPrice: 1, gasLimit: 100_000, value: 0, to: null, initOrData: fields.initOrData, metadata: fields.metadata, r: sig.r, s: sig.s, v: sig.v };
    const raw = () => call(f.nc, TX.submitRaw, { username: 'raw-user', organization: null, chainId: null, transaction: body });
    const err = await refusal(raw());
    expect(err).toMatchObject({ code: 'INSUFFICIENT_BALANCE', details: { address, required: '100000' } });
    expect(err.message).toContain(`account ${address} cannot pay for the transaction`);

    balances.set(address, 100_000n);
    const admitted = await raw();
    expect(admitted.status).toBe('Pending');
    balances.set(address, 0n);
    expect(await raw()).toEqual(admitted);
  });

  test('a gas price below the chain\'s minimum is refused like an unfunded account (the default minimum 1; a private chain\'s from its genesis), vault-signed or raw, before anything is taken', async () => {
    const address = await f.user('free-rider');
    // funded or not, a free transaction is refused: its gas would be paid by nobody
    balances.set(address, 10n ** 24n);
    const free = { username: 'free-rider', organization: null, chainId: null, txParams: { gasPrice: 0 }, transactions: [upload] };
    const err = await refusal(call(f.nc, TX.submit, free));
    expect(err).toMatchObject({ code: 'GAS_PRICE_TOO_LOW', status: 422, details: { field: 'txs[0]', address, gasPrice: '0', minGasPrice: '1' } });
    expect(err.message).toContain('below the chain\'s minimum gas price 1');
    expect(await call(f.nc, TX.nonce, { username: 'tester', organization: null, address })).toMatchObject({ nextNonce: 0 });
    // an item's own txParams counts
    const itemFree = { ...upload, payload: { ...upload.payload, txParams: { gasPrice: 0 } } } as SubmitItem;
    expect(await refusal(call(f.nc, TX.submit, { ...free, txParams: undefined, transactions: [upload, itemFree] }))).toMatchObject({ code: 'GAS_PRICE_TOO_LOW', details: { field: 'txs[1]' } });

    // a private chain whose genesis sets a higher minimum
    const chain = '9d'.repeat(32);
    f.chains.protocols.set(chain, { stepLimit: 10_000_000, gasTableVersion: 1, minGasPrice: '5' });
    balances.set(`${chain}:${address}`, 10n ** 24n);
    expect(await refusal(call(f.nc, TX.submit, { ...free, chainId: chain, txParams: { gasPrice: 4 } }))).toMatchObject({ code: 'GAS_PRICE_TOO_LOW', details: { chainId: chain, gasPrice: '4', minGasPrice: '5' } });
    expect((await call(f.nc, TX.submit, { ...free, chainId: chain, txParams: { gasPrice: 5 } }))[0].status).toBe('Pending');
    // a genesis without the field (a chain created before it existed): the default
    const older = '9e'.repeat(32);
    f.chains.protocols.set(older, { stepLimit: 10_000_000, gasTableVersion: 1 });
    expect(await refusal(call(f.nc, TX.submit, { ...free, chainId: older }))).toMatchObject({ code: 'GAS_PRICE_TOO_LOW', details: { minGasPrice: '1' } });

    // raw: the signed gasPrice, field gasPrice
    const wallet = Wallet.createRandom();
    const fields: Fields = { nonce: 0, gasPrice: 0, gasLimit: 100_000, to: null, value: 0, initOrData: Buffer.from(SRC).toString('hex'), metadata: { VM: 'SolidVM', name: 'Note' } };
    const sig = wallet.signingKey.sign(ethersSigningHash(fields));
    const body = { nonce: 0, gasPrice: 0, gasLimit: 100_000, value: 0, to: null, initOrData: fields.initOrData, metadata: fields.metadata, r: sig.r, s: sig.s, v: sig.v };
    expect(await refusal(call(f.nc, TX.submitRaw, { username: 'raw-user', organization: null, chainId: null, transaction: body }))).toMatchObject({
      code: 'GAS_PRICE_TOO_LOW',
      details: { field: 'gasPrice', address: wallet.address.toLowerCase().slice(2), gasPrice: '0', minGasPrice: '1' },
    });
  });

  test('the faucet is not checked; without the block service admission is 503, never an admission on trust', async () => {
    const before = asked;
    expect((await call(f.nc, TX.fill, { username: 'x', address: 'cd'.repeat(20) })).status).toBe('Pending');
    expect(asked).toBe(before);

    await block?.stop();
    block = null;
    await f.user('later');
    expect(await refusal(call(f.nc, TX.submit, { username: 'later', organization: null, chainId: null, transactions: [upload] }))).toMatchObject({ code: 'UNAVAILABLE', status: 503, details: { service: 'block' } });
    await playBlockService();
  });
});
