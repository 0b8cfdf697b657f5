// Blocks applied together (consumer.ts): only those that follow the stored
// position without a gap are applied, in order, in one transaction; a message
// that is not an ExecResult still moves the position; two instances consuming
// one stream at once build the model one instance builds alone.
import { STREAMS, ensureDurableConsumer } from '@platform/bus';
import { createLogger, loadConfig, type ExecResult } from '@platform/common';
import { EXEC_ACK_WAIT_MS, EXEC_MAX_IN_FLIGHT, Indexer } from '../src/consumer.js';
import { createPool } from '../src/db.js';
import { startCirrus, type RunningCirrus } from '../src/index.js';
import { Chain, Harness, OTHER, SENDER, exec } from './helpers.js';

const SRC = `
contract Tally {
  uint count;
  string label;
  event Counted(uint n);
  constructor(string _label) { label = _label; }
  function add(uint n) { count += n; emit Counted(count); }
}`;

const h = new Harness();
const chain = new Chain();
const silent = createLogger('cirrus', 'silent');

beforeAll(() => h.start('cirrus_batches'), 60_000);
afterAll(() => h.stop());

const progress = async () => h.applied();
const rows = async (table: string) => (await h.db.query(`SELECT * FROM ${await h.sqlTable(table)} ORDER BY 1`)).rows;

describe('the indexer applies what follows its stored position', () => {
  let indexer: Indexer;
  let pool: ReturnType<typeof createPool>;
  const blocks: ExecResult[] = [];
  let tally: string;

  beforeAll(async () => {
    // nothing consumes the stream here: the indexer is driven by hand
    await h.stopCirrus();
    pool = createPool(h.databaseUrl);
    indexer = new Indexer(pool, silent, { indexEvm: false });
    const created = chain.create(1, SENDER, SRC, 'Tally', { _label: 'first' });
    tally = created.address;
    blocks.push(exec(1, [created.r]));
    for (let n = 2; n <= 5; n++) blocks.push(exec(n, [chain.invoke(n, SENDER, tally, 'add', { n })]));
  });
  afterAll(() => pool.end());

  test('messages after a gap wait: nothing is applied, the position stays', async () => {
    expect(await indexer.apply([{ seq: 2, exec: blocks[0] }, { seq: 3, exec: blocks[1] }])).toEqual([]);
    expect(await progress()).toBe(0);
  });

  test('a run without a gap is applied in one go, a non-ExecResult counting as applied', async () => {
    // seq 1: a message that was not an ExecResult (terminated once done with)
    expect(await indexer.apply([{ seq: 1, exec: null }, { seq: 2, exec: blocks[0] }, { seq: 3, exec: blocks[1] }, { seq: 4, exec: blocks[2] }])).toEqual([1, 2, 3, 4]);
    expect(await progress()).toBe(4);
    const [row] = await rows('Tally');
    expect(row).toMatchObject({ address: tally, block_number: '3' });
    // one history row per changing transaction, though written by one statement
    expect((await rows('history@Tally')).map((r) => r.block_number)).toEqual(['1', '2', '3']);
  });

  test('what was applied before is done with; only the next run is applied, up to a gap', async () => {
    expect(await indexer.apply([{ seq: 3, exec: blocks[1] }, { seq: 5, exec: blocks[3] }, { seq: 7, exec: blocks[4] }])).toEqual([3, 5]);
    expect(await progress()).toBe(5);
    expect((await rows('history@Tally')).map((r) => r.block_number)).toEqual(['1', '2', '3', '4']);
    expect(await indexer.apply([{ seq: 7, exec: blocks[4] }])).toEqual([]);
    expect(await progress()).toBe(5);
  });
});

describe('two instances on one stream', () => {
  test('build the model one instance rebuilds alone', async () => {
    // back to a model built from the stream by consumers
    await h.db.query('DROP SCHEMA cirrus CASCADE');
    await h.jsm.streams.purge(STREAMS.exec.name);
    h.published = 0;
    await h.jsm.consumers.delete(STREAMS.exec.name, 'cirrus');
    const applied = [0, 0];
    await h.startCirrus({ onApplied: () => applied[0]++ });
    const created = [chain.create(10, SENDER, SRC, 'Tally', { _label: 'a' }), chain.create(10, OTHER, SRC, 'Tally', { _label: 'b' })];
    // the first block applied before the second instance starts (one that starts on an empty model consumes from the start again)
    h.published = (await h.js.publish('exec.main', JSON.stringify(exec(10, created.map((c) => c.r))), { msgID: 'main:10' })).seq;
    await h.settled();
    const second: RunningCirrus = await startCirrus({ config: loadConfig({ LOG_LEVEL: 'silent' }), logger: silent, natsUrl: h.infra.nats!.url, databaseUrl: h.databaseUrl, onApplied: () => applied[1]++ });
    try {
      const publishing: Array<Promise<unknown>> = [];
      for (let n = 11; n < 60; n++) {
        const e = exec(n, [chain.invoke(n, SENDER, created[n % 2].address, 'add', { n }), chain.invoke(n, OTHER, created[(n + 1) % 2].address, 'add', { n: 1 })]);
        publishing.push(h.js.publish('exec.main', JSON.stringify(e), { msgID: `main:${n}` }));
      }
      h.published = Math.max(...(await Promise.all(publishing)).map((ack) => (ack as { seq: number }).seq));
      await h.settled();
    } finally {
      await second.stop();
    }
    // each instance applied some of the blocks (the server hands messages to both)
    expect(applied[0]).toBeGreaterThan(0);
    expect(applied[1]).toBeGreaterThan(0);
    const together = await h.dump();
    expect((together['history@Tally'] as { rows: unknown[] }).rows).toHaveLength(2 + 49 * 2);
    await h.stopCirrus();
    await h.startCirrus({ reindex: true });
    await h.settled();
    expect(await h.dump()).toEqual(together);
  }, 60_000);
});

describe('a consumer deleted under a running instance', () => {
  test('the instance consumes from the consumer declared next (as another instance starting on an empty model does)', async () => {
    const before = await progress();
    await h.jsm.consumers.delete(STREAMS.exec.name, 'cirrus');
    await ensureDurableConsumer(h.jsm, { stream: STREAMS.exec.name, durable: 'cirrus', filterSubject: 'exec.>', ackWaitMs: EXEC_ACK_WAIT_MS, maxAckPending: EXEC_MAX_IN_FLIGHT });
    const created = chain.create(70, SENDER, SRC, 'Tally', { _label: 'late' });
    h.published = (await h.js.publish('exec.main', JSON.stringify(exec(70, [created.r])), { msgID: 'main:70' })).seq;
    await h.settled();
    expect(await progress()).toBe(before + 1);
    expect((await rows('Tally')).map((r) => r.address)).toContain(created.address);
  }, 30_000);
});
