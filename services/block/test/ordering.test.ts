// Invariants of ordering: a hash executes once per chain whatever the
// redeliveries; an account's transactions run in nonce order however they
// arrive; a nonce gap is held for a bounded time and then fails clearly.
import { STREAMS, encodeJson } from '@platform/bus';
import { contractAddress } from '@platform/crypto';
import { Account, COUNTER, blockFixture, receiptFor, receiptsOf, type BlockFixture } from './helpers.js';

let f: BlockFixture;
beforeEach(async () => {
  f = await blockFixture();
});
afterEach(async () => {
  await f.stop();
});

test('a transaction published again past the duplicate window is executed once', async () => {
  await f.start();
  const alice = new Account();
  const create = alice.create(COUNTER, 'Counter', { start: 0 });
  const address = contractAddress(alice.address, 0n);
  const call = alice.call(address, 'add', { n: 1 });
  await f.publish(create, call);
  await f.execs.until((e) => receiptFor(e, call.hash) !== undefined);
  // the same transaction as new messages (JetStream would not see them as duplicates)
  await f.publishAgain(call);
  await f.publishAgain(create);
  const marker = alice.call(address, 'add', { n: 10 });
  await f.publish(marker);
  const execs = await f.execs.until((e) => receiptFor(e, marker.hash) !== undefined);
  expect(receiptsOf(execs).filter((r) => r.transactionHash === call.hash)).toHaveLength(1);
  expect(receiptsOf(execs).filter((r) => r.transactionHash === create.hash)).toHaveLength(1);
  expect(receiptFor(execs, marker.hash)!.returnValues).toEqual(['11']);
  // and the block stream holds each transaction once
  const inBlocks = (await f.blocksOf(execs)).flatMap((b) => b.transactions.map((t) => t.hash));
  expect(inBlocks.filter((h) => h === call.hash)).toHaveLength(1);
});

test('a message may hold a list of transactions: each executes once, and the message is acknowledged when all are applied', async () => {
  await f.start();
  const alice = new Account();
  const create = alice.create(COUNTER, 'Counter', { start: 0 });
  const address = contractAddress(alice.address, 0n);
  const calls = [1, 2, 3].map((n) => alice.call(address, 'add', { n }, n));
  await f.publish(create);
  await f.execs.until((e) => receiptFor(e, create.hash) !== undefined);
  // out of nonce order, the creation again (executed already), something that is no transaction
  const list = [calls[1], create, calls[0], { hash: 'not a transaction' }];
  await f.js.publish('tx.admitted.main', encodeJson(list), { msgID: 'list-1' });
  // a later list repeats a waiting one (an outbox republish) and brings the last
  await f.js.publish('tx.admitted.main', encodeJson([calls[1], calls[2]]), { msgID: 'list-2' });
  const execs = await f.execs.until((e) => calls.every((c) => receiptFor(e, c.hash) !== undefined));
  expect(calls.map((c) => receiptFor(execs, c.hash)!.returnValues[0])).toEqual(['1', '3', '6']);
  expect(receiptsOf(execs).filter((r) => r.transactionHash === create.hash)).toHaveLength(1);
  expect(receiptsOf(execs).filter((r) => r.transactionHash === calls[1].hash)).toHaveLength(1);
  const jsm = f.bus.network.jsm;
  const deadline = Date.now() + 5_000;
  let info = await jsm.consumers.info(STREAMS.tx.name, 'block-main-node1');
  while (info.num_ack_pending > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    info = await jsm.consumers.info(STREAMS.tx.name, 'block-main-node1');
  }
  expect([info.num_ack_pending, info.num_pending]).toEqual([0, 0]);
});

test("an account's transactions submitted out of nonce order run in nonce order", async () => {
  await f.start();
  const alice = new Account();
  const create = alice.tx({ to: null, initOrData: Buffer.from(COUNTER).toString('hex'), metadata: { VM: 'SolidVM', name: 'Counter', args: '{"start":0}' }, nonce: 0 });
  const address = contractAddress(alice.address, 0n);
  const calls = [1, 2, 3, 4].map((n) => alice.call(address, 'add', { n }, n));
  // nonces 4, 2, 3, 1, then the creation (0)
  await f.publish(calls[3], calls[1], calls[2], calls[0], create);
  const execs = await f.execs.until((e) => calls.every((c) => receiptFor(e, c.hash) !== undefined));
  // running totals prove the order: 0+1, +2, +3, +4
  expect(calls.map((c) => receiptFor(execs, c.hash)!.returnValues[0])).toEqual(['1', '3', '6', '10']);
  expect(receiptFor(execs, create.hash)!.status).toBe('Success');
});

test('a nonce gap is held for BLOCK_NONCE_GAP_MS, then the waiting transaction fails and consumes its nonce', async () => {
  await f.start({ settings: { maxTxs: 500, maxWaitMs: 10, nonceGapMs: 500 } });
  const alice = new Account();
  const create = alice.create(COUNTER, 'Counter', { start: 0 });
  const address = contractAddress(alice.address, 0n);
  const lost = alice.call(address, 'add', { n: 1 }); // nonce 1: never published
  const waiting = alice.call(address, 'add', { n: 2 }); // nonce 2
  const next = alice.call(address, 'add', { n: 3 }); // nonce 3
  const started = Date.now();
  await f.publish(create, waiting, next);
  const execs = await f.execs.until((e) => receiptFor(e, next.hash) !== undefined);
  expect(Date.now() - started).toBeGreaterThanOrEqual(450);
  expect(receiptFor(execs, waiting.hash)).toMatchObject({
    status: 'Failure',
    message: `nonce 2 of account ${alice.address} is out of order: the transactions with nonce 1 did not arrive in time`,
  });
  expect(receiptFor(execs, next.hash)).toMatchObject({ status: 'Success', returnValues: ['3'] });
  // the late one finds its nonce used
  await f.publish(lost);
  const later = await f.execs.until((e) => receiptFor(e, lost.hash) !== undefined);
  expect(receiptFor(later, lost.hash)).toMatchObject({ status: 'Failure', message: `nonce 1 of account ${alice.address} was already used: its next nonce is 4` });
});

test('blocks hold at most BLOCK_MAX_TXS transactions', async () => {
  await f.start({ settings: { maxTxs: 3, maxWaitMs: 10, nonceGapMs: 30_000 } });
  const accounts = Array.from({ length: 10 }, () => new Account());
  const txs = accounts.map((a) => a.tx({ to: new Account().address }));
  await f.publish(...txs);
  const blocks = await f.blocksOf(await f.execs.until((e) => receiptsOf(e).length >= 10));
  expect(blocks.every((b) => b.transactions.length <= 3)).toBe(true);
  expect(blocks.flatMap((b) => b.transactions)).toHaveLength(10);
});
