// Invariants across failures: a restart re-executes nothing; a crash between
// the block append and the local apply leaves the block applied exactly once
// after restart; applied ⇒ published, across a crash before publication,
// and nothing published twice after a stop; a
// proposer that loses the race at a height drops its overlay and applies the
// winner.
import { contractAddress } from '@platform/crypto';
import type { Block } from '@platform/common';
import { Account, COUNTER, blockFixture, receiptFor, receiptsOf, type BlockFixture } from './helpers.js';

let f: BlockFixture;
beforeEach(async () => {
  f = await blockFixture();
});
afterEach(async () => {
  await f.stop();
});

/** A hook that crashes the chain at the first block holding `hash`; `reached` resolves then. */
function crashAt(hash: string): { hook: (b: Block) => Promise<void>; reached: Promise<Block> } {
  let reached!: (b: Block) => void;
  const promise = new Promise<Block>((r) => (reached = r));
  return {
    reached: promise,
    hook: async (block) => {
      if (!block.transactions.some((t) => t.hash === hash)) return;
      reached(block);
      throw new Error('simulated crash');
    },
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('a restart resumes from the store: same head and state root, no block executed twice', async () => {
  const first = await f.start();
  const alice = new Account();
  const address = contractAddress(alice.address, 0n);
  const txs = [alice.create(COUNTER, 'Counter', { start: 0 }), alice.call(address, 'add', { n: 2 })];
  await f.publish(...txs);
  await f.blocksOf(await f.execs.until((e) => receiptFor(e, txs[1].hash) !== undefined));
  const head = first.head();
  const blocksBefore = f.blocks.items.length;
  const execsBefore = f.execs.items.length;
  await first.stop();

  const second = await f.start();
  expect(second.head()).toEqual(head);
  const next = alice.call(address, 'add', { n: 3 });
  await f.publish(next);
  const execs = await f.execs.until((e) => receiptFor(e, next.hash) !== undefined);
  await f.blocksOf(execs);
  expect(receiptFor(execs, next.hash)!.returnValues).toEqual(['5']);
  // exactly one new block and one new result, on top of the old head
  expect(f.blocks.items.length).toBe(blocksBefore + 1);
  expect(f.execs.items.length).toBe(execsBefore + 1);
  expect(f.blocks.values[blocksBefore].header).toMatchObject({ number: head.header.number + 1, parentHash: head.hash });
});

test('a crash between the block append and the local apply: after restart the block is applied exactly once', async () => {
  const alice = new Account();
  const address = contractAddress(alice.address, 0n);
  const create = alice.create(COUNTER, 'Counter', { start: 0 });
  const call = alice.call(address, 'add', { n: 1 });
  const fault = crashAt(call.hash);
  const first = await f.start({ hooks: { afterAppend: fault.hook } });
  await f.publish(create, call);
  const block = await fault.reached;
  // appended, not applied: the block is on the stream, its result is not
  await f.blocks.until((bs) => bs.some((b) => b.hash === block.hash));
  await sleep(200);
  expect(f.execs.values.some((e) => e.block.number === block.header.number)).toBe(false);
  expect(first.head().header.number).toBe(block.header.number - 1);
  await first.stop();

  const second = await f.start();
  const execs = await f.execs.until((e) => receiptFor(e, call.hash) !== undefined);
  expect(second.head().hash).toBe(block.hash);
  expect(receiptFor(execs, call.hash)!.returnValues).toEqual(['1']);
  // the state holds the call once: the next call sees 1 + 10
  const marker = alice.call(address, 'add', { n: 10 });
  await f.publish(marker);
  const later = await f.execs.until((e) => receiptFor(e, marker.hash) !== undefined);
  expect(receiptFor(later, marker.hash)!.returnValues).toEqual(['11']);
  expect(receiptsOf(later).filter((r) => r.transactionHash === call.hash)).toHaveLength(1);
  expect((await f.blocksOf(later)).filter((b) => b.header.number === block.header.number)).toHaveLength(1);
});

test('applied ⇒ published: a crash after the apply and before publication publishes the result on restart, once', async () => {
  const alice = new Account();
  const create = alice.create(COUNTER, 'Counter', { start: 7 });
  const fault = crashAt(create.hash);
  const first = await f.start({ hooks: { afterApply: fault.hook } });
  await f.publish(create);
  const block = await fault.reached;
  await sleep(200);
  expect(first.head().hash).toBe(block.hash);
  expect(f.execs.values.some((e) => e.block.number === block.header.number)).toBe(false);
  await first.stop();

  const second = await f.start();
  const execs = await f.execs.until((e) => receiptFor(e, create.hash) !== undefined);
  expect(second.head().hash).toBe(block.hash);
  expect(execs.filter((e) => e.block.number === block.header.number)).toHaveLength(1);
  expect(receiptFor(execs, create.hash)!.status).toBe('Success');
  // a further restart publishes nothing again
  await second.stop();
  await f.start();
  await sleep(300);
  expect(f.execs.values.filter((e) => e.block.number === block.header.number)).toHaveLength(1);
});

test('a publication is marked with the next block\'s commit, and the last one at stop: a restart publishes nothing again', async () => {
  const alice = new Account();
  const address = contractAddress(alice.address, 0n);
  const first = await f.start();
  const txs = [alice.create(COUNTER, 'Counter', { start: 0 }), alice.call(address, 'add', { n: 1 }), alice.call(address, 'add', { n: 2 })];
  // one block each
  for (const tx of txs) {
    await f.publish(tx);
    await f.execs.until((e) => receiptFor(e, tx.hash) !== undefined);
  }
  const head = first.head();
  await first.stop();
  const { ChainStore } = await import('../src/state/store.js');
  const { join } = await import('node:path');
  const store = new ChainStore(join(f.dataDir(), 'block', 'main'));
  try {
    expect(store.unpublished()).toEqual([]);
    expect(store.publishedHeight()).toBe(head.header.number);
  } finally {
    await store.close();
  }
  const published = f.execs.items.length;
  await f.start();
  await sleep(300);
  expect(f.execs.items.length).toBe(published);
});

test('a proposer that loses the race at a height drops its overlay and applies the winning block', async () => {
  const { copyFileSync, mkdirSync } = await import('node:fs');
  const { join } = await import('node:path');
  // node A holds its first append until B has appended that height; B holds
  // its first until A holds one — else a quick B could append first, and A,
  // seeing itself behind the stream, would never propose at all
  const lost: Block[] = [];
  let bWaited = false;
  const b = await f.start({
    name: 'b',
    durable: 'block-main-b',
    hooks: {
      beforeAppend: async () => {
        if (bWaited) return;
        bWaited = true;
        for (const deadline = Date.now() + 10_000; lost.length === 0 && Date.now() < deadline; ) await sleep(10);
      },
    },
  });
  mkdirSync(f.dataDir('a'), { recursive: true });
  copyFileSync(join(f.dataDir('b'), 'genesis.json'), join(f.dataDir('a'), 'genesis.json'));
  const a = await f.start({
    name: 'a',
    durable: 'block-main-a',
    hooks: {
      beforeAppend: async (block) => {
        if (lost.length > 0) return;
        lost.push(block);
        await f.blocks.until((bs) => bs.some((x) => x.header.number === block.header.number));
      },
    },
  });
  expect(a.proposer).not.toBe(b.proposer);
  const alice = new Account();
  const address = contractAddress(alice.address, 0n);
  const create = alice.create(COUNTER, 'Counter', { start: 0 });
  const call = alice.call(address, 'add', { n: 5 });
  await f.publish(create, call);
  const execs = await f.execs.until((e) => receiptFor(e, call.hash) !== undefined);
  expect(receiptFor(execs, call.hash)!.returnValues).toEqual(['5']);
  // A's block at that height never reached the stream; B's did, and A applied it
  const height = lost[0].header.number;
  const blocks = await f.blocksOf(execs);
  const atHeight = blocks.filter((x) => x.header.number === height);
  expect(atHeight).toHaveLength(1);
  expect(atHeight[0].header.proposer).toBe(b.proposer);
  expect(atHeight[0].hash).not.toBe(lost[0].hash);
  const deadline = Date.now() + 10_000;
  while (a.head().hash !== b.head().hash && Date.now() < deadline) await sleep(50);
  expect(a.head()).toEqual(b.head());
  // every transaction is in exactly one block
  const hashes = blocks.flatMap((x) => x.transactions.map((t) => t.hash));
  expect(hashes.filter((h) => h === create.hash)).toHaveLength(1);
  expect(hashes.filter((h) => h === call.hash)).toHaveLength(1);
});
