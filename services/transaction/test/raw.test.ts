// Raw (self-signed) transactions signed by ethers with keys the vault never
// held: the signing forms, the recovery rules, the nonce rule, and a named
// field for every bad one.
import { refusal } from '@platform/common/testing';
import { Wallet, type BaseWallet } from 'ethers';
import { TX, batchingCaller, call, type RawTransactionBody, type SubmitRawRequest } from '@platform/bus';
import { PlatformError, type Transaction } from '@platform/common';
import { createPool } from '../src/db.js';
import { admitRaw } from '../src/store.js';
import { admittedByHash, ethersSigningHash, ethersTransactionHash, fixture, type Fields, type Fixture } from './helpers.js';

const SECP256K1_N = BigInt('0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141');

const SRC = 'contract Counter { uint n; function inc() public { n += 1; } }';
const utf8Hex = (text: string) => Buffer.from(text, 'utf8').toString('hex');

type Form = 'platform' | 'literal' | 'metadata';

function signed(wallet: BaseWallet, fields: Fields, options: { form?: Form; withAddress?: boolean; withV?: boolean } = {}): RawTransactionBody {
  const sig = wallet.signingKey.sign(ethersSigningHash(fields, options.form ?? 'platform'));
  return {
    nonce: Number(fields.nonce),
    gasPrice: Number(fields.gasPrice),
    gasLimit: Number(fields.gasLimit),
    to: fields.to === null ? null : `0x${fields.to}`,
    value: Number(fields.value),
    initOrData: `0x${fields.initOrData}`,
    ...(fields.chainId ? { chainId: fields.chainId } : {}),
    ...(fields.metadata ? { metadata: fields.metadata } : {}),
    r: sig.r,
    s: sig.s,
    ...(options.withV === false ? {} : { v: sig.v }),
    ...(options.withAddress ? { address: wallet.address } : {}),
  };
}

const creation = (nonce: number, metadata: Record<string, string> = { VM: 'SolidVM', name: 'Counter' }): Fields => ({ nonce, gasPrice: 1, gasLimit: 100000, to: null, value: 0, initOrData: utf8Hex(SRC), metadata });
const callInc = (nonce: number, metadata: Record<string, string> = { VM: 'SolidVM', funcName: 'inc', args: '()' }): Fields => ({ nonce, gasPrice: 1, gasLimit: 100000, to: 'c0'.repeat(20), value: 0, initOrData: '', metadata });
const request = (transaction: RawTransactionBody, extra: Partial<SubmitRawRequest> = {}): SubmitRawRequest => ({ username: 'raw-user', organization: 'Org', chainId: null, transaction, ...extra });
const addressOf = (wallet: BaseWallet) => wallet.address.toLowerCase().slice(2);

describe('transaction - raw transactions', () => {
  let f: Fixture;
  let databaseUrl: string;

  beforeAll(async () => {
    f = await fixture();
    ({ databaseUrl } = await f.start());
  });
  afterAll(async () => {
    await f?.stop();
  });

  test('a transaction signed by ethers with a key the vault never held is admitted from that key’s address', async () => {
    const wallet = Wallet.createRandom();
    const fields = creation(0);
    const body = signed(wallet, fields);
    const result = await call(f.nc, TX.submitRaw, request(body));
    expect(result).toEqual({ status: 'Pending', hash: ethersTransactionHash(fields, { r: body.r, s: body.s, v: Number(body.v) }), txResult: null, data: null });
    const [message] = (await admittedByHash(f, [result.hash])).get(result.hash)!;
    expect(message.msgId).toBe(result.hash);
    expect(message.tx).toMatchObject({
      from: addressOf(wallet),
      nonce: 0,
      to: null,
      origin: 'raw',
      signingForm: 'platform',
      submitter: { username: 'raw-user', organization: 'Org' },
      metadata: { VM: 'SolidVM', name: 'Counter' },
      initOrData: utf8Hex(SRC),
    });
    // the same signed transaction again: its result, not an error
    expect(await call(f.nc, TX.submitRaw, request(body))).toEqual(result);
    expect(await call(f.nc, TX.nonce, { username: 'tester', organization: null, address: wallet.address })).toMatchObject({ nextNonce: 1 });
  });

  test('the nonce must be the account’s next one, and the error says which', async () => {
    const wallet = Wallet.createRandom();
    await call(f.nc, TX.submitRaw, request(signed(wallet, creation(0))));
    const err = await refusal(call(f.nc, TX.submitRaw, request(signed(wallet, callInc(5)))));
    expect(err).toMatchObject({ code: 'NONCE_MISMATCH', status: 422, details: { field: 'nonce', expected: 1, got: 5 } });
    expect(err.message).toMatch(/expected 1/);
    expect(await refusal(call(f.nc, TX.submitRaw, request(signed(wallet, callInc(0)))))).toMatchObject({ details: { expected: 1 } });
    await call(f.nc, TX.submitRaw, request(signed(wallet, callInc(1))));
  });

  test('concurrent raw transactions with one nonce: exactly one is admitted', async () => {
    const wallet = Wallet.createRandom();
    const bodies = Array.from({ length: 10 }, (_, i) => signed(wallet, callInc(0, { VM: 'SolidVM', funcName: 'inc', args: `(${i})` })));
    const outcomes = await Promise.allSettled(bodies.map((body) => call(f.nc, TX.submitRaw, request(body))));
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    const refused = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected').map((o) => (o.reason as PlatformError).details);
    expect(refused).toEqual(Array(9).fill({ field: 'nonce', expected: 1, got: 0 }));
  });


  test('many accounts at once, each sending its nonces in order: batched admissions keep every account’s order', async () => {
    const wallets = Array.from({ length: 8 }, () => Wallet.createRandom());
    const PER_ACCOUNT = 12;
    // every account's nonces go out back to back without waiting, so batches hold several of one account
    const outcomes = await Promise.all(
      wallets.flatMap((wallet) => Array.from({ length: PER_ACCOUNT }, (_, n) => call(f.nc, TX.submitRaw, request(signed(wallet, n === 0 ? creation(0) : callInc(n)))))),
    );
    expect(outcomes.every((o) => o.status === 'Pending')).toBe(true);
    for (const wallet of wallets) expect(await call(f.nc, TX.nonce, { username: 'tester', organization: null, address: wallet.address })).toMatchObject({ nextNonce: PER_ACCOUNT });
  });
  test('one transaction of each of many accounts at once: each is admitted exactly when its nonce is its account’s next', async () => {
    const known = Array.from({ length: 6 }, () => Wallet.createRandom());
    const first = await Promise.all(known.map((wallet) => call(f.nc, TX.submitRaw, request(signed(wallet, creation(0))))));
    expect(first.every((r) => r.status === 'Pending')).toBe(true);
    const fresh = Array.from({ length: 6 }, () => Wallet.createRandom());
    // right next nonce, a nonce ahead, a fresh account's 0, a fresh account's 1
    const cases = [
      ...known.slice(0, 3).map((wallet) => ({ wallet, nonce: 1, admitted: true, expected: 1 })),
      ...known.slice(3).map((wallet) => ({ wallet, nonce: 5, admitted: false, expected: 1 })),
      ...fresh.slice(0, 3).map((wallet) => ({ wallet, nonce: 0, admitted: true, expected: 0 })),
      ...fresh.slice(3).map((wallet) => ({ wallet, nonce: 1, admitted: false, expected: 0 })),
    ];
    const outcomes = await Promise.allSettled(cases.map((c) => call(f.nc, TX.submitRaw, request(signed(c.wallet, callInc(c.nonce))))));
    cases.forEach((c, i) => {
      const outcome = outcomes[i];
      if (c.admitted) expect(outcome.status).toBe('fulfilled');
      else expect(outcome.status === 'rejected' && (outcome.reason as PlatformError).details).toEqual({ field: 'nonce', expected: c.expected, got: c.nonce });
    });
    for (const c of cases) expect(await call(f.nc, TX.nonce, { username: 'tester', organization: null, address: c.wallet.address })).toMatchObject({ nextNonce: c.admitted ? c.nonce + 1 : c.expected });
  });

  test('a batch of admissions of different accounts (one statement): each takes its nonce only if it is the account’s next, stored in batch order', async () => {
    const pool = createPool(databaseUrl);
    const tx = (from: string, nonce: number, hash: string) => ({ tx: { from, chainId: '', nonce, hash, origin: 'raw', submitter: null } as unknown as Transaction, body: JSON.stringify({ hash }) });
    const [a, b, c, d] = ['a1', 'b1', 'c1', 'd1'].map((p) => p.repeat(20));
    const h = (n: number) => n.toString(16).padStart(64, 'e');
    try {
      expect(await admitRaw(pool, [tx(a, 0, h(1)), tx(b, 0, h(2))])).toEqual([true, true]);
      // a's next, b ahead, c new, d new but not at 0, and a's 0 again from another account's batch later
      expect(await admitRaw(pool, [tx(a, 1, h(3)), tx(b, 3, h(4)), tx(c, 0, h(5)), tx(d, 2, h(6))])).toEqual([true, false, true, false]);
      expect(await admitRaw(pool, [tx(b, 0, h(7)), tx(c, 1, h(8))])).toEqual([false, true]);
      // by these hashes only: another test's random hash may begin with eee too
      const { rows } = await pool.query<{ hash: string }>('SELECT hash FROM tx.transactions WHERE hash = ANY($1) ORDER BY seq', [[1, 2, 3, 4, 5, 6, 7, 8].map(h)]);
      expect(rows.map((r) => r.hash)).toEqual([h(1), h(2), h(3), h(5), h(8)]);
      const next = await pool.query<{ address: string; next_nonce: string }>('SELECT address, next_nonce FROM tx.accounts WHERE address = ANY($1) ORDER BY address', [[a, b, c, d]]);
      expect(next.rows.map((r) => [r.address, Number(r.next_nonce)])).toEqual([[a, 2], [b, 1], [c, 2]]);
    } finally {
      await pool.end();
    }
  });

  test('without v, address decides the recovery id; the other forms count only with address', async () => {
    const wallet = Wallet.createRandom();
    const noV = await call(f.nc, TX.submitRaw, request(signed(wallet, creation(0), { withV: false, withAddress: true })));
    const literal = await call(f.nc, TX.submitRaw, request(signed(wallet, callInc(1), { form: 'literal', withAddress: true })));
    const covering = await call(f.nc, TX.submitRaw, request(signed(wallet, callInc(2), { form: 'metadata', withAddress: true })));
    const published = await admittedByHash(f, [noV.hash, literal.hash, covering.hash]);
    expect([noV, literal, covering].map((r) => published.get(r.hash)![0].tx.signingForm)).toEqual(['platform', 'literal', 'metadata']);
    expect([noV, literal, covering].map((r) => published.get(r.hash)![0].tx.from)).toEqual(Array(3).fill(addressOf(wallet)));

    // without address, a signature over another list is never attributed to its signer
    const guessed = await call(f.nc, TX.submitRaw, request(signed(Wallet.createRandom(), creation(0), { form: 'metadata' })));
    expect((await admittedByHash(f, [guessed.hash])).get(guessed.hash)![0].tx.signingForm).toBe('platform');

    const other = Wallet.createRandom();
    const err = await refusal(call(f.nc, TX.submitRaw, request({ ...signed(other, creation(0)), address: wallet.address })));
    expect(err).toMatchObject({ code: 'SIGNER_MISMATCH', details: { field: 'address' } });
  });

  test('a high-s signature is refused, naming s', async () => {
    const wallet = Wallet.createRandom();
    const body = signed(wallet, creation(0));
    const highS = `0x${(SECP256K1_N - BigInt(body.s)).toString(16).padStart(64, '0')}`;
    const err = await refusal(call(f.nc, TX.submitRaw, request({ ...body, s: highS, v: body.v === 27 ? 28 : 27 })));
    expect(err).toMatchObject({ code: 'VALIDATION_FAILED', status: 400, details: { field: 's' } });
    expect(err.message).toMatch(/high-s/);
  });

  test('every bad field is a 400 naming it', async () => {
    const wallet = Wallet.createRandom();
    const good = signed(wallet, callInc(0));
    const cases: Array<[Partial<Record<keyof RawTransactionBody, unknown>>, string, string]> = [
      [{ initOrData: '0xzz' }, 'BAD_HEX', 'initOrData'],
      [{ initOrData: '0xabc' }, 'BAD_HEX', 'initOrData'],
      [{ r: `0x${'11'.repeat(33)}` }, 'VALIDATION_FAILED', 'r'],
      [{ s: 'nothex' }, 'BAD_HEX', 's'],
      [{ v: 29 }, 'VALIDATION_FAILED', 'v'],
      [{ v: undefined }, 'VALIDATION_FAILED', 'v'],
      [{ gasLimit: undefined }, 'VALIDATION_FAILED', 'gasLimit'],
      [{ nonce: -1 }, 'VALIDATION_FAILED', 'nonce'],
      [{ value: 'ten' }, 'VALIDATION_FAILED', 'value'],
      [{ to: '0x1234' }, 'VALIDATION_FAILED', 'to'],
      [{ to: `0x${'g'.repeat(40)}` }, 'BAD_HEX', 'to'],
      [{ address: '0x12' }, 'VALIDATION_FAILED', 'address'],
      [{ chainId: 'main-chain' }, 'BAD_HEX', 'chainId'],
      [{ metadata: { VM: 'SolidVM', funcName: 'inc', args: { a: 1 } } }, 'VALIDATION_FAILED', 'metadata.args'],
    ];
    for (const [change, code, field] of cases) {
      const err = await refusal(call(f.nc, TX.submitRaw, request({ ...good, ...change } as RawTransactionBody)));
      expect({ field, code: err.code, named: err.details?.field }).toEqual({ field, code, named: field });
    }
    const creationWithoutName = signed(wallet, creation(0, { VM: 'SolidVM' }));
    expect(await refusal(call(f.nc, TX.submitRaw, request(creationWithoutName)))).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'metadata.name' } });
    const badArgs = signed(wallet, callInc(0, { VM: 'SolidVM', funcName: 'inc', args: '(1,' }));
    expect(await refusal(call(f.nc, TX.submitRaw, request(badArgs)))).toMatchObject({ code: 'ARGS_UNPARSABLE', details: { field: 'metadata.args' } });
    const chain = '77'.repeat(32);
    const onChain = signed(wallet, { ...callInc(0), chainId: chain });
    expect(await refusal(call(f.nc, TX.submitRaw, request(onChain, { chainId: '66'.repeat(32) })))).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'chainId' } });
    const admitted = await call(f.nc, TX.submitRaw, request(onChain, { chainId: chain }));
    expect((await admittedByHash(f, [admitted.hash])).get(admitted.hash)![0].subject).toBe(`tx.admitted.${chain}`);
  });

  test('a members-only chain: a non-member\'s raw transaction is refused exactly as to a chain that does not exist, alone or batched; a member\'s is admitted', async () => {
    const [strict, missing] = ['7c'.repeat(32), '7d'.repeat(32)];
    f.chains.membersOnly.add(strict);
    f.chains.missing.add(missing);
    f.chains.membersOf.set('raw-member', [strict]);
    const wallet = Wallet.createRandom();
    const refusedFor = async (chainId: string, send: (r: SubmitRawRequest) => Promise<unknown>) => {
      const err = await refusal(send(request(signed(wallet, { ...callInc(0), chainId }))));
      return { status: err.status, code: err.code, message: err.message.replace(chainId, '<chain>'), details: { ...err.details, chainId: '<chain>' } };
    };
    const alone = (r: SubmitRawRequest) => call(f.nc, TX.submitRaw, r);
    // the gateway's path: calls gathered into one message on the batch subject
    const batched = batchingCaller(f.nc, TX.submitRaw);
    const unknown = await refusedFor(missing, alone);
    expect(unknown.status).toBe(404);
    expect(await refusedFor(strict, alone)).toEqual(unknown);
    expect(await refusedFor(strict, batched)).toEqual(unknown);
    // the submitting user is who is asked about: a member's request is admitted
    const admitted = await call(f.nc, TX.submitRaw, request(signed(wallet, { ...callInc(0), chainId: strict }), { username: 'raw-member' }));
    expect(admitted.status).toBe('Pending');
  });

  test('RAW_TX_REQUIRE_SIGNED_METADATA refuses signatures that do not cover the metadata', async () => {
    await f.start({ env: { RAW_TX_REQUIRE_SIGNED_METADATA: 'true' } });
    try {
      const wallet = Wallet.createRandom();
      const err = await refusal(call(f.nc, TX.submitRaw, request(signed(wallet, creation(0), { withAddress: true }))));
      expect(err).toMatchObject({ code: 'METADATA_UNSIGNED', details: { field: 'metadata' } });
      expect(err.message).toMatch(/RAW_TX_REQUIRE_SIGNED_METADATA/);
      // with one accepted form, nothing is guessed: address is not needed
      const ok = await call(f.nc, TX.submitRaw, request(signed(wallet, creation(0), { form: 'metadata' })));
      expect((await admittedByHash(f, [ok.hash])).get(ok.hash)![0].tx).toMatchObject({ from: addressOf(wallet), signingForm: 'metadata' });
    } finally {
      await f.start();
    }
  });

  test('ACCOUNT_NONCE_LIMIT applies to raw transactions', async () => {
    await f.start({ env: { ACCOUNT_NONCE_LIMIT: '1' } });
    try {
      const wallet = Wallet.createRandom();
      await call(f.nc, TX.submitRaw, request(signed(wallet, creation(0))));
      await call(f.nc, TX.submitRaw, request(signed(wallet, callInc(1))));
      expect(await refusal(call(f.nc, TX.submitRaw, request(signed(wallet, callInc(2)))))).toMatchObject({ code: 'NONCE_LIMIT', status: 422 });
    } finally {
      await f.start();
    }
  });
});
