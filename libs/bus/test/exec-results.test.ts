// Execution results of any size on a real JetStream: one that does not fit in
// a message goes in parts on EXEC_PARTS with a reference on `exec.<chain>`,
// and both consumers hand the whole result over, in stream order with the
// others; no message is ever larger than the limit given.
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { createLogger, type ExecResult } from '@platform/common';
import { STREAMS, consumeExecBatches, consumeExecResults, ensureDurableConsumer, ensureStream, publishExecResult, readExecResult } from '../src/index.js';
import { natsForTests } from './test-server.js';

const logger = createLogger('exec-results-test', 'silent');
/** a result of about `bytes` bytes */
const exec = (chainId: string, number: number, bytes: number): ExecResult => ({
  chainId,
  block: { number, hash: `${number}`.padStart(64, '0'), timestamp: number, parentHash: '0'.repeat(64), stateRoot: '0'.repeat(64) },
  receipts: [{ transactionHash: `${number}`.padStart(64, 'a'), from: 'f'.repeat(40), status: 'Success', message: 'Success!', kind: 'SolidVM', response: 'é'.repeat(bytes / 2), returnValues: [], contractsCreated: [], contractsDeleted: [], gasUsed: '0', etherUsed: '0', stateChanges: [], events: [], time: 0, trace: '' }],
});

describe('bus - execution results of any size', () => {
  const bus = natsForTests('exec-results-test');

  test('a result over the message limit travels in parts, and both consumers get every result whole and in order', async () => {
    const jsm = await jetstreamManager(bus.nc);
    for (const spec of [STREAMS.exec, STREAMS.execParts]) await ensureStream(jsm, spec);
    await jsm.streams.purge(STREAMS.exec.name);
    for (const durable of ['one', 'batches']) await ensureDurableConsumer(jsm, { stream: STREAMS.exec.name, durable, filterSubject: 'exec.>', maxAckPending: durable === 'one' ? 1 : 8 });
    const js = jetstream(bus.nc);
    // as if the server's limit were 256 KiB: a 1 MB result needs parts of (256 - 64) / 2 KiB
    const limit = 256 * 1024;
    const sent = [exec('', 1, 1_000), exec('', 2, 1_000_000), exec('', 3, 10), exec('', 4, limit)];
    const parts: number[] = [];
    for (const e of sent) parts.push(await publishExecResult(js, { chainId: '', height: e.block.number, json: JSON.stringify(e) }, limit));
    expect(parts[0]).toBe(0);
    expect(parts[1]).toBeGreaterThan(1);
    expect(parts[2]).toBe(0);
    expect(parts[3]).toBeGreaterThan(0);
    // every stored message is under the limit, and EXEC holds one per block
    expect((await jsm.streams.info(STREAMS.exec.name)).state.messages).toBe(4);
    const largest = async (stream: string) => {
      let max = 0;
      const info = await jsm.streams.info(stream);
      for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq++) max = Math.max(max, (await jsm.streams.getMessage(stream, { seq }))!.data.length);
      return max;
    };
    expect(await largest(STREAMS.exec.name)).toBeLessThan(limit);
    expect(await largest(STREAMS.execParts.name)).toBeLessThan(limit);
    const last = await jsm.streams.getMessage(STREAMS.exec.name, { last_by_subj: 'exec.main' });
    expect(await readExecResult(async () => jsm, last!.data)).toEqual(sent[3]);

    const one: ExecResult[] = [];
    const single = await consumeExecResults({ js, durable: 'one', logger, heartbeatMs: 1_000, work: 'testing', apply: async (_seq, e) => void one.push(e) });
    const batched: ExecResult[] = [];
    const batches = await consumeExecBatches({
      js,
      durable: 'batches',
      logger,
      heartbeatMs: 1_000,
      work: 'testing',
      maxBatch: 8,
      maxReceipts: 100,
      apply: async (items) => {
        for (const item of items) batched.push(item.exec!);
        return items.map((item) => item.seq);
      },
    });
    const deadline = Date.now() + 10_000;
    while ((one.length < 4 || batched.length < 4) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await single.stop();
    await batches.stop();
    expect(one).toEqual(sent);
    expect(batched).toEqual(sent);
  });
});
