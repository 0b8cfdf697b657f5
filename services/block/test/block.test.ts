// The happy path through a real NATS: admitted transactions become a linked,
// signed block on block.main and an ExecResult on exec.main.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { contractAddress } from '@platform/crypto';
import { codeHashOf } from '@platform/solidvm';
import { loadConfig, type ExecResult } from '@platform/common';
import { blockHash, blockIntegrityError, startBlockService } from '../src/index.js';
import { Account, COUNTER, blockFixture, quietLogger, receiptFor, type BlockFixture } from './helpers.js';

let f: BlockFixture;
beforeEach(async () => {
  f = await blockFixture();
});
afterEach(async () => {
  await f.stop();
});

test('a SolidVM creation, a call, a failing require and a transfer: linked blocks and receipts', async () => {
  const service = await f.start();
  const alice = new Account();
  const create = alice.create(COUNTER, 'Counter', { start: 5 });
  await f.publish(create);
  const [genesisExec] = await f.execs.until((e) => e.length >= 2);
  expect(genesisExec.block.number).toBe(0);

  const address = contractAddress(alice.address, 0n);
  const created = receiptFor(f.execs.values, create.hash)!;
  expect(created).toMatchObject({ status: 'Success', message: 'Success!', kind: 'SolidVM', from: alice.address });
  expect(created.contractsCreated).toHaveLength(1);
  expect(created.contractsCreated[0]).toMatchObject({ address, name: 'Counter', codeHash: codeHashOf(COUNTER), vm: 'SolidVM', creatorOrg: null }); // the organization is the sender's registered certificate's: alice has none
  expect(Object.keys(created.contractsCreated[0].xabi.funcs)).toContain('add');

  const call = alice.call(address, 'add', { n: 1 });
  const bad = alice.call(address, 'add', { n: 0 });
  const transfer = alice.tx({ to: new Account().address, value: 10n });
  await f.publish(call, bad, transfer);
  const execs = await f.execs.until((e) => receiptFor(e, transfer.hash) !== undefined);

  const called = receiptFor(execs, call.hash)!;
  expect(called.status).toBe('Success');
  expect(called.returnValues).toEqual(['6']);
  expect(called.stateChanges).toEqual([expect.objectContaining({ address, contractName: 'Counter', diff: { '.count': '6' }, state: { count: '6' } })]);
  expect(receiptFor(execs, bad.hash)).toMatchObject({ status: 'Failure', message: 'n must be positive' });
  // gas disabled: a transfer moves nothing and succeeds
  expect(receiptFor(execs, transfer.hash)).toMatchObject({ status: 'Success', message: 'Success!' });

  // the blocks: numbered from 1, each the child of the one before, hashed and signed
  const blocks = await f.blocksOf(execs);
  expect(blocks[0].header.number).toBe(1);
  expect(blocks[0].header.parentHash).toBe(genesisExec.block.hash);
  blocks.forEach((b, i) => {
    expect(b.hash).toBe(blockHash(b.header));
    expect(blockIntegrityError(b)).toBeNull();
    expect(b.header.proposer).toBe(service.proposer);
    if (i > 0) {
      expect(b.header.number).toBe(blocks[i - 1].header.number + 1);
      expect(b.header.parentHash).toBe(blocks[i - 1].hash);
    }
  });
  // every block's execution result carries its hash and state root
  const byHeight = new Map<number, ExecResult>(execs.map((e) => [e.block.number, e]));
  for (const b of blocks) expect(byHeight.get(b.header.number)?.block).toMatchObject({ hash: b.hash, stateRoot: b.header.stateRoot });
  expect(service.head().hash).toBe(blocks[blocks.length - 1].hash);
});

test('the service reads the genesis it is given, and refuses to start without one', async () => {
  const funded = new Account();
  const service = await f.start({ accounts: [{ address: funded.address, balance: 5n * 10n ** 18n }] });
  const path = join(f.dataDir(), 'genesis.json');
  const genesis = JSON.parse(readFileSync(path, 'utf8'));
  expect(genesis).toMatchObject({ format: 1, chainId: '', protocol: { stepLimit: 10_000_000, gasTableVersion: 1 }, accounts: [{ address: funded.address, balance: '5000000000000000000' }] });
  expect(service.head().header.number).toBe(0);
  await service.stop();
  const again = await f.start();
  expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual(genesis);
  expect(again.head().header.number).toBe(0);
  await again.stop();
  // which genesis a node runs is never guessed: the launcher writes it, the service only reads it
  const dataDir = f.dataDir('bare');
  await expect(startBlockService({ config: loadConfig({ DATA_DIR: dataDir }), logger: quietLogger(), natsUrl: f.infra.nats!.url, dataDir })).rejects.toThrow(
    `${join(dataDir, 'genesis.json')} is missing`,
  );
});
