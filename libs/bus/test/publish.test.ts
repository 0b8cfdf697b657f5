// publishUntilAnswered on a real NATS server. A stream whose leader steps
// down drops the answer of a publication in flight; here a responder on the
// subject plays that stream: it leaves the first send unanswered and answers
// the next as JetStream does, so the test sees what the client sends.
import { StorageType, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { STREAM_ANSWER_TIMEOUT_MS, publishUntilAnswered } from '../src/index.js';
import { natsForTests } from './test-server.js';

describe('bus - a publication sent again when its answer is lost', () => {
  const bus = natsForTests('publish-test');

  test('an unanswered send is sent again with the same msgID, and the answer that comes is the result', async () => {
    const sends: Array<{ at: number; msgID: string | undefined; data: string }> = [];
    const sub = bus.nc.subscribe('lost.answer');
    void (async () => {
      for await (const m of sub) {
        sends.push({ at: performance.now(), msgID: m.headers?.get('Nats-Msg-Id'), data: m.string() });
        if (sends.length >= 2) m.respond(JSON.stringify({ stream: 'LOST', seq: 7, duplicate: false }));
      }
    })();
    const started = performance.now();
    const ack = await publishUntilAnswered(jetstream(bus.nc), 'lost.answer', 'the block', { msgID: 'height-7' });
    sub.unsubscribe();
    expect(ack.seq).toBe(7);
    expect(sends.map((s) => [s.msgID, s.data])).toEqual([
      ['height-7', 'the block'],
      ['height-7', 'the block'],
    ]);
    // sent again after the answer's timeout, not nats.js's 5 s
    expect(sends[1]!.at - sends[0]!.at).toBeGreaterThanOrEqual(STREAM_ANSWER_TIMEOUT_MS - 50);
    expect(performance.now() - started).toBeLessThan(STREAM_ANSWER_TIMEOUT_MS * 2);
  });

  test('a stream answers a second send of a stored msgID as a duplicate: stored once', async () => {
    const jsm = await jetstreamManager(bus.nc);
    // the default duplicate window: two minutes
    await jsm.streams.add({ name: 'PUBLISH_TEST', subjects: ['publish.test'], storage: StorageType.Memory });
    const js = jetstream(bus.nc);
    const first = await publishUntilAnswered(js, 'publish.test', 'once', { msgID: 'm-1' });
    const again = await publishUntilAnswered(js, 'publish.test', 'once', { msgID: 'm-1' });
    expect(again).toMatchObject({ seq: first.seq, duplicate: true });
    expect((await jsm.streams.info('PUBLISH_TEST')).state.messages).toBe(1);
  });

  test('a failure that is not a timeout is thrown at once: no stream takes the subject', async () => {
    const started = performance.now();
    await expect(publishUntilAnswered(jetstream(bus.nc), 'nobody.listens', 'x', { msgID: 'n-1' })).rejects.toThrow();
    expect(performance.now() - started).toBeLessThan(STREAM_ANSWER_TIMEOUT_MS);
  });
});
