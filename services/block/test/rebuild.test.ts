// `--rebuild` (src/rebuild.ts): the chain stores and the node's results are
// emptied, the node's key stays, and the next start executes every block
// again from the blocks stream: the same head and state root, every result
// published again under its old message ID (not dropped as a duplicate).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { contractAddress } from '@platform/crypto';
import { loadConfig, type ExecResult } from '@platform/common';
import { STREAMS, decodeJson } from '@platform/bus';
import { chainStoreDirs, rebuildFromNetwork } from '../src/index.js';
import { Account, COUNTER, blockFixture, quietLogger, receiptFor, type BlockFixture } from './helpers.js';

let f: BlockFixture;
beforeEach(async () => {
  f = await blockFixture();
});
afterEach(async () => {
  await f.stop();
});

async function lastResult(): Promise<ExecResult> {
  const msg = await f.bus.node.jsm.streams.getMessage(STREAMS.exec.name, { last_by_subj: 'exec.main' });
  return decodeJson<ExecResult>(msg!.data);
}

test('rebuilt: stores and results emptied, the key kept; the next start executes every block again to the same head, and publishes every result again', async () => {
  const first = await f.start();
  const alice = new Account();
  const address = contractAddress(alice.address, 0n);
  const txs = [alice.create(COUNTER, 'Counter', { start: 1 }), alice.call(address, 'add', { n: 2 })];
  await f.publish(...txs);
  await f.execs.until((e) => receiptFor(e, txs[1].hash) !== undefined);
  const head = first.head();
  const results = (await f.bus.node.jsm.streams.info(STREAMS.exec.name)).state.messages;
  expect(results).toBe(head.header.number + 1); // block 0 included
  await first.stop();

  const dataDir = f.dataDir();
  const keyFile = join(dataDir, 'block', 'node.key');
  const key = readFileSync(keyFile, 'utf8');
  const stores = chainStoreDirs(dataDir);
  expect(stores.length).toBe(1);
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
  const report = await rebuildFromNetwork({ config, logger: quietLogger(), natsUrl: f.infra.nats!.url, dataDir });
  expect(report.stores).toEqual(stores);
  expect(report.purged[STREAMS.exec.name]).toBe(results);
  expect(stores.every((dir) => !existsSync(dir))).toBe(true);
  expect(readFileSync(keyFile, 'utf8')).toBe(key);
  const emptied = (await f.bus.node.jsm.streams.info(STREAMS.exec.name)).state;
  expect(emptied.messages).toBe(0);
  // run again (a rebuild stopped half way is run again): nothing left to remove, nothing fails
  expect(await rebuildFromNetwork({ config, logger: quietLogger(), natsUrl: f.infra.nats!.url, dataDir })).toEqual({ stores: [], purged: { EXEC: 0, EXEC_PARTS: 0 } });

  const second = await f.start();
  expect(second.proposer).toBe(first.proposer);
  // every block, from 0, applied again and its result published again
  for (let i = 0; (await f.bus.node.jsm.streams.info(STREAMS.exec.name)).state.messages < results; i++) {
    if (i > 200) throw new Error('the results were not published again');
    await new Promise((r) => setTimeout(r, 50));
  }
  expect(second.head()).toEqual(head);
  const last = await lastResult();
  expect(last.block).toMatchObject({ number: head.header.number, hash: head.hash, stateRoot: head.header.stateRoot });
  expect(receiptFor([last], txs[1].hash)!.returnValues).toEqual(['3']);
  // and the chain goes on
  const next = alice.call(address, 'add', { n: 4 });
  await f.publish(next);
  // (the collector's consumer went with the old stream: the new one is read directly)
  for (let i = 0; !receiptFor([await lastResult()], next.hash); i++) {
    if (i > 200) throw new Error('the chain did not go on');
    await new Promise((r) => setTimeout(r, 50));
  }
  expect(receiptFor([await lastResult()], next.hash)!.returnValues).toEqual(['7']);
});
