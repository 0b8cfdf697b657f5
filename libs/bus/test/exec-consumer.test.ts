// consumeExecResults on a real JetStream: a message whose subject the caller
// does not want is acknowledged unread, the others are applied in order.
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { createLogger, type ExecResult } from '@platform/common';
import { STREAMS, consumeExecResults, ensureDurableConsumer, ensureStream } from '../src/index.js';
import { natsForTests } from './test-server.js';

const logger = createLogger('exec-consumer-test', 'silent');
const exec = (chainId: string, number: number): ExecResult => ({
  chainId,
  block: { number, hash: `${number}`.padStart(64, '0'), timestamp: number, parentHash: '0'.repeat(64), stateRoot: '0'.repeat(64) },
  receipts: [],
});

describe('bus - the exec consumer', () => {
  const bus = natsForTests('exec-consumer-test');

  test('a message of an unwanted subject is acknowledged without being read; the others are applied in order', async () => {
    const jsm = await jetstreamManager(bus.nc);
    await ensureStream(jsm, STREAMS.exec);
    await ensureDurableConsumer(jsm, { stream: STREAMS.exec.name, durable: 'wanted-test', filterSubject: 'exec.>', maxAckPending: 1 });
    const js = jetstream(bus.nc);
    const chain = 'c'.repeat(64);
    // not even JSON: reading it would terminate it with an error
    await js.publish('exec.main', 'not an execution result');
    await js.publish(`exec.${chain}`, JSON.stringify(exec(chain, 1)));
    await js.publish('exec.main', JSON.stringify(exec('', 7)));
    const last = (await js.publish(`exec.${chain}`, JSON.stringify(exec(chain, 2)))).seq;

    const applied: number[] = [];
    const acked: number[] = [];
    const consumer = await consumeExecResults({
      js,
      durable: 'wanted-test',
      logger,
      heartbeatMs: 1_000,
      work: 'testing',
      wanted: (subject) => subject !== 'exec.main',
      apply: async (_seq, e) => void applied.push(e.block.number),
      afterAck: (seq) => void acked.push(seq),
    });
    const deadline = Date.now() + 10_000;
    while (!acked.includes(last) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await consumer.stop();
    await bus.nc.flush();
    expect(applied).toEqual([1, 2]);
    expect(acked).toEqual([1, 2, 3, 4]);
    const info = await jsm.consumers.info(STREAMS.exec.name, 'wanted-test');
    expect(info.ack_floor.stream_seq).toBe(last);
  });
});
