// Admission of vault-signed transactions against real NATS, PostgreSQL and the
// real vault: signatures checked by ethers, nonces under concurrency and
// restarts, the nonce limit, idempotency keys.
import { refusal } from '@platform/common/testing';
import { recoverAddress } from 'ethers';
import { TX, call, type SubmitItem, type SubmitRequest } from '@platform/bus';
import { PlatformError } from '@platform/common';
import { admittedByHash, ethersSigningHash, ethersTransactionHash, fieldsOf, fixture, listMsgId, type Fixture } from './helpers.js';

const SRC = 'contract SimpleStorage { uint x; constructor(uint _x) { x = _x; } function set(uint _x) public { x = _x; } }';
const CONTRACT_ADDRESS = 'c0ffee'.padEnd(40, '0');

const upload = (metadata: Record<string, string> = { VM: 'SolidVM' }): SubmitItem => ({ type: 'CONTRACT', payload: { contract: 'SimpleStorage', src: SRC, args: { _x: 1 }, metadata } });
const callSet = (x: number, chainid?: string): SubmitItem => ({
  type: 'FUNCTION',
  payload: { contractName: 'SimpleStorage', contractAddress: CONTRACT_ADDRESS, method: 'set', args: { _x: x }, metadata: { VM: 'SolidVM' }, ...(chainid ? { chainid } : {}) },
});
const request = (username: string, transactions: SubmitItem[], extra: Partial<SubmitRequest> = {}): SubmitRequest => ({ username, organization: null, chainId: null, transactions, ...extra });

describe('transaction - admission of vault-signed transactions', () => {
  let f: Fixture;

  beforeAll(async () => {
    f = await fixture();
  });
  afterAll(async () => {
    await f?.stop();
  });

  test('a submission answers Pending hashes and publishes them together, in one message named by their hashes, signed by the user (ethers recovers)', async () => {
    await f.start();
    const address = await f.user('alice');
    const results = await call(f.nc, TX.submit, request('alice', [upload(), callSet(7), { type: 'TRANSFER', payload: { toAddress: `0x${'ab'.repeat(20)}`, value: '5000000000000000000000' } }]));
    expect(results).toHaveLength(3);
    for (const r of results) expect(r).toEqual({ status: 'Pending', hash: expect.stringMatching(/^[0-9a-f]{64}$/), txResult: null, data: null });

    const published = await admittedByHash(f, results.map((r) => r.hash));
    const txs = results.map((r) => {
      const messages = published.get(r.hash)!;
      expect(messages).toHaveLength(1);
      expect(messages[0].subject).toBe('tx.admitted.main');
      expect(messages[0].msgId).toBe(listMsgId(results.map((x) => x.hash)));
      return messages[0].tx;
    });
    expect(txs.map((t) => t.nonce)).toEqual([0, 1, 2]);
    for (const tx of txs) {
      expect(tx).toMatchObject({ from: address, chainId: '', signingForm: 'platform', origin: 'vault', submitter: { username: 'alice', organization: null } });
      const signer = recoverAddress(ethersSigningHash(fieldsOf(tx)), { r: `0x${tx.r}`, s: `0x${tx.s}`, v: tx.v });
      expect(signer.toLowerCase()).toBe(`0x${address}`);
      expect(ethersTransactionHash(fieldsOf(tx), tx)).toBe(tx.hash);
    }
    const [create, fn, transfer] = txs;
    expect(create).toMatchObject({ to: null, metadata: { VM: 'SolidVM', name: 'SimpleStorage', args: '{"_x":1}' } });
    expect(Buffer.from(create.initOrData, 'hex').toString('utf8')).toBe(SRC);
    expect(fn).toMatchObject({ to: CONTRACT_ADDRESS, initOrData: '', metadata: { VM: 'SolidVM', funcName: 'set', args: '{"_x":7}' } });
    expect(transfer).toMatchObject({ to: 'ab'.repeat(20), initOrData: '', value: '5000000000000000000000', metadata: {} });
  });

  test('EVM is the default VM; txParams apply per item over the body default; src may be {file: source}', async () => {
    await f.start();
    await f.user('bob');
    const [r] = await call(f.nc, TX.submit, request('bob', [{ type: 'CONTRACT', payload: { contract: 'A', src: { 'b.sol': 'contract B {}', 'a.sol': 'contract A {}' }, txParams: { gasPrice: 3 } } }], { txParams: { gasLimit: 1000, gasPrice: 2 } }));
    const tx = (await admittedByHash(f, [r.hash])).get(r.hash)![0].tx;
    expect(tx).toMatchObject({ gasLimit: '1000', gasPrice: '3', metadata: { VM: 'EVM', name: 'A', args: '{}' } });
    expect(Buffer.from(tx.initOrData, 'hex').toString('utf8')).toBe('{"a.sol":"contract A {}","b.sol":"contract B {}"}');
  });

  test('twenty concurrent submissions of one user take twenty distinct, consecutive nonces', async () => {
    await f.start();
    await f.user('carol');
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => call(f.nc, TX.submit, request('carol', [callSet(i)]))));
    const hashes = answers.map((a) => a[0].hash);
    const published = await admittedByHash(f, hashes);
    const nonces = hashes.map((h) => published.get(h)![0].tx.nonce).sort((a, b) => a - b);
    expect(nonces).toEqual(Array.from({ length: 20 }, (_, i) => i));
  });

  test('a restart never reuses a nonce', async () => {
    const first = await f.start();
    await f.user('dave');
    await call(f.nc, TX.submit, request('dave', [callSet(1), callSet(2), callSet(3)]));
    await f.start({ databaseUrl: first.databaseUrl });
    const [again] = await call(f.nc, TX.submit, request('dave', [callSet(4)]));
    expect((await admittedByHash(f, [again.hash])).get(again.hash)![0].tx.nonce).toBe(3);
    expect(await call(f.nc, TX.nonce, { username: 'tester', organization: null, address: await f.user('dave') })).toMatchObject({ nextNonce: 4, chainId: '' });
  });

  test('nonces taken by another writer meanwhile (another instance, a raw transaction): the request signs again with the next ones, and nothing of the refused attempt is stored', async () => {
    const running = await f.start();
    const address = await f.user('dina');
    await call(f.nc, TX.submit, request('dina', [callSet(1)]));
    // another instance of the service admits nonces 1 to 3 of the account; this one still expects 1
    await f.sql(running.databaseUrl, 'UPDATE tx.accounts SET next_nonce = 4 WHERE address = $1', [address]);
    const answers = await call(f.nc, TX.submit, request('dina', [callSet(2), callSet(3)]));
    const published = await admittedByHash(f, answers.map((a) => a.hash));
    expect(answers.map((a) => published.get(a.hash)![0].tx.nonce)).toEqual([4, 5]);
    const stored = await f.sql<{ nonce: string }>(running.databaseUrl, 'SELECT nonce FROM tx.transactions WHERE sender = $1 ORDER BY nonce', [address]);
    expect(stored.map((r) => Number(r.nonce))).toEqual([0, 4, 5]);
    expect(await call(f.nc, TX.nonce, { username: 'tester', organization: null, address })).toMatchObject({ nextNonce: 6 });
  });

  test('nonces are per (account, chain); a payload chainid must agree with the query parameter', async () => {
    await f.start();
    const address = await f.user('erin');
    const chain = '12'.repeat(32);
    const answers = await call(f.nc, TX.submit, request('erin', [callSet(1), callSet(2, chain), callSet(3)]));
    const published = await admittedByHash(f, answers.map((a) => a.hash));
    const txs = answers.map((a) => published.get(a.hash)![0]);
    expect(txs.map((m) => [m.subject, m.tx.nonce])).toEqual([['tx.admitted.main', 0], [`tx.admitted.${chain}`, 0], ['tx.admitted.main', 1]]);
    // on a private chain the signed list has the chain ID as its seventh item
    const signed = txs[1].tx;
    expect(recoverAddress(ethersSigningHash(fieldsOf(signed)), { r: `0x${signed.r}`, s: `0x${signed.s}`, v: signed.v }).toLowerCase()).toBe(`0x${address}`);
    const err = await refusal(call(f.nc, TX.submit, request('erin', [callSet(2, chain)], { chainId: '34'.repeat(32) })));
    expect(err).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'txs[0].payload.chainid' } });
  });

  test('a chain that does not exist is 404 naming the field; a private chain\'s results are its members\' and its sender\'s', async () => {
    await f.start();
    await f.user('gina');
    const missing = '5a'.repeat(32);
    f.chains.missing.add(missing);
    expect(await refusal(call(f.nc, TX.submit, request('gina', [callSet(1), callSet(2, missing)])))).toMatchObject({ code: 'CHAIN_NOT_FOUND', details: { field: 'txs[1].payload.chainid', chainId: missing } });
    expect(await refusal(call(f.nc, TX.submit, request('gina', [callSet(1)], { chainId: missing })))).toMatchObject({ code: 'CHAIN_NOT_FOUND', details: { field: 'chainid' } });

    const chain = '5b'.repeat(32);
    f.chains.membersOf.set('hal', [chain]);
    const [onChain, onMain] = await call(f.nc, TX.submit, request('gina', [callSet(1, chain), callSet(2)]));
    const ask = (username: string, hashes: string[]) => call(f.nc, TX.results, { hashes, username, organization: null });
    // the sender, a member and the node itself (its own subject) see it
    for (const who of ['gina', 'hal']) expect(await ask(who, [onChain.hash, onMain.hash])).toHaveLength(2);
    expect(await call(f.nc, TX.nodeResults, { hashes: [onChain.hash, onMain.hash] })).toHaveLength(2);
    // anyone else: as unknown as a hash that does not exist; the main chain's result stays visible
    expect(await refusal(ask('ivan', [onMain.hash, onChain.hash]))).toMatchObject({ code: 'TRANSACTION_NOT_FOUND', details: { unknown: [onChain.hash] } });
    expect(await ask('ivan', [onMain.hash])).toHaveLength(1);
    // no user is no answer, not an unfiltered one: tx.results names the missing field
    for (const anonymous of [{ hashes: [onChain.hash] }, { hashes: [onChain.hash], username: '' }]) {
      expect(await refusal(call(f.nc, TX.results, anonymous as never))).toMatchObject({ code: 'VALIDATION_FAILED', status: 400, details: { field: 'username' } });
    }
    // nonces of a private chain are its members' to see; to others, the chain is unknown
    const sender = await f.user('gina');
    expect(await call(f.nc, TX.nonce, { address: sender, chainId: chain, username: 'hal', organization: null })).toMatchObject({ nextNonce: 1 });
    expect(await refusal(call(f.nc, TX.nonce, { address: sender, chainId: chain, username: 'ivan', organization: null }))).toMatchObject({ code: 'CHAIN_NOT_FOUND', details: { field: 'chainid', chainId: chain } });
    expect(await refusal(call(f.nc, TX.nonce, { address: sender } as never))).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'username' } });
  });

  test('a members-only chain admits its members; anyone else is refused exactly as for a chain that does not exist, and nothing is stored', async () => {
    const svc = await f.start();
    const outsider = await f.user('olga');
    await f.user('mona');
    const [strict, missing] = ['5c'.repeat(32), '5d'.repeat(32)];
    f.chains.membersOnly.add(strict);
    f.chains.missing.add(missing);
    f.chains.membersOf.set('mona', [strict]);
    const refusedFor = async (chainId: string) => {
      const err = await refusal(call(f.nc, TX.submit, request('olga', [callSet(1)], { chainId })));
      return { status: err.status, code: err.code, message: err.message.replace(chainId, '<chain>'), details: { ...err.details, chainId: '<chain>' } };
    };
    expect(await refusedFor(strict)).toEqual(await refusedFor(missing));
    expect((await refusedFor(strict)).status).toBe(404);
    expect(await f.sql(svc.databaseUrl, 'SELECT count(*)::int AS n FROM tx.transactions WHERE sender = $1', [outsider])).toEqual([{ n: 0 }]);
    // a payload's chainid is the same gate
    expect(await refusal(call(f.nc, TX.submit, request('olga', [callSet(1), callSet(2, strict)])))).toMatchObject({ code: 'CHAIN_NOT_FOUND', details: { field: 'txs[1].payload.chainid', chainId: strict } });
    const [admitted] = await call(f.nc, TX.submit, request('mona', [callSet(1)], { chainId: strict }));
    expect(admitted.status).toBe('Pending');
    // a member's admission is remembered for that member only
    expect(await refusal(call(f.nc, TX.submit, request('olga', [callSet(1)], { chainId: strict })))).toMatchObject({ code: 'CHAIN_NOT_FOUND' });
  });

  test('ACCOUNT_NONCE_LIMIT: 422 NONCE_LIMIT, and a batch that would cross it admits nothing', async () => {
    const svc = await f.start({ env: { ACCOUNT_NONCE_LIMIT: '2' } });
    const address = await f.user('frank');
    await call(f.nc, TX.submit, request('frank', [callSet(0), callSet(1)]));
    const err = await refusal(call(f.nc, TX.submit, request('frank', [callSet(2), callSet(3)])));
    expect(err).toBeInstanceOf(PlatformError);
    expect(err).toMatchObject({ code: 'NONCE_LIMIT', status: 422, details: { address, limit: 2, nextNonce: 2 } });
    expect(await f.sql(svc.databaseUrl, 'SELECT count(*)::int AS n FROM tx.transactions WHERE sender = $1', [address])).toEqual([{ n: 2 }]);
    const [last] = await call(f.nc, TX.submit, request('frank', [callSet(2)]));
    expect((await admittedByHash(f, [last.hash])).get(last.hash)![0].tx.nonce).toBe(2);
    expect(await refusal(call(f.nc, TX.submit, request('frank', [callSet(3)])))).toMatchObject({ code: 'NONCE_LIMIT' });
  });

  test('an Idempotency-Key retry answers the first attempt’s hashes and admits nothing new; another body under it is 409', async () => {
    const svc = await f.start();
    const address = await f.user('grace');
    const body = request('grace', [callSet(1), callSet(2)], { idempotencyKey: 'retry-1' });
    const concurrent = await Promise.all([call(f.nc, TX.submit, body), call(f.nc, TX.submit, body)]);
    const later = await call(f.nc, TX.submit, body);
    expect(concurrent[1]).toEqual(concurrent[0]);
    expect(later.map((r) => r.hash)).toEqual(concurrent[0].map((r) => r.hash));
    expect(await f.sql(svc.databaseUrl, 'SELECT count(*)::int AS n FROM tx.transactions WHERE sender = $1', [address])).toEqual([{ n: 2 }]);
    expect(await refusal(call(f.nc, TX.submit, { ...body, transactions: [callSet(3)] }))).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED', status: 409 });
    // the same key of another user is another key
    await f.user('heidi');
    const other = await call(f.nc, TX.submit, { ...body, username: 'heidi' });
    expect(other[0].hash).not.toBe(later[0].hash);
  });

  test('a user without a key is USER_NOT_FOUND, and nothing is stored', async () => {
    const svc = await f.start();
    expect(await refusal(call(f.nc, TX.submit, request('nobody', [callSet(1)])))).toMatchObject({ code: 'USER_NOT_FOUND', status: 400 });
    expect(await f.sql(svc.databaseUrl, 'SELECT count(*)::int AS n FROM tx.transactions')).toEqual([{ n: 0 }]);
  });

  test('bad requests name the field', async () => {
    await f.start();
    await f.user('ivan');
    const cases: Array<[SubmitRequest, string, string]> = [
      [request('ivan', []), 'VALIDATION_FAILED', 'txs'],
      [request('ivan', [{ type: 'DEPLOY' } as never]), 'VALIDATION_FAILED', 'txs[0].payload'],
      [request('ivan', [{ type: 'DEPLOY', payload: {} } as never]), 'VALIDATION_FAILED', 'txs[0].type'],
      [request('ivan', [callSet(1), { type: 'FUNCTION', payload: { contractAddress: CONTRACT_ADDRESS, args: {} } } as never]), 'VALIDATION_FAILED', 'txs[1].payload.method'],
      [request('ivan', [{ type: 'FUNCTION', payload: { contractAddress: 'xyz', method: 'f' } }]), 'BAD_HEX', 'txs[0].payload.contractAddress'],
      [request('ivan', [{ type: 'FUNCTION', payload: { contractAddress: 'abcd', method: 'f' } }]), 'VALIDATION_FAILED', 'txs[0].payload.contractAddress'],
      [request('ivan', [{ type: 'CONTRACT', payload: { src: SRC } } as never]), 'VALIDATION_FAILED', 'txs[0].payload.contract'],
      [request('ivan', [{ type: 'CONTRACT', payload: { contract: 'A', src: SRC, metadata: { VM: 'JVM' } } }]), 'VALIDATION_FAILED', 'txs[0].payload.metadata.VM'],
      [request('ivan', [{ type: 'TRANSFER', payload: { toAddress: CONTRACT_ADDRESS, value: -1 } }]), 'VALIDATION_FAILED', 'txs[0].payload.value'],
      [request('ivan', [{ type: 'TRANSFER', payload: { toAddress: CONTRACT_ADDRESS, value: '1.5' } }]), 'VALIDATION_FAILED', 'txs[0].payload.value'],
      [request('ivan', [callSet(1)], { txParams: { gasLimit: 'lots' } }), 'VALIDATION_FAILED', 'txParams.gasLimit'],
    ];
    for (const [body, code, field] of cases) {
      const err = await refusal(call(f.nc, TX.submit, body));
      expect({ code: err.code, field: err.details?.field }).toEqual({ code, field });
      expect(err.message).toContain(field);
    }
  });
});
