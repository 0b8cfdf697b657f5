import { PlatformError, createLogger } from '@platform/common';
import { startTestInfra, type TestInfra } from '@platform/launcher';
import type { Service } from '@nats-io/services';
import { batchingCaller, call, connectBus, decodeJson, defineEndpoint, ensureDurableConsumer, ensureStream, handle, pingService, preEncoded, serve, streamManager, type NatsConnection } from '../src/index.js';

const logger = createLogger('bus-test', 'silent');
const echo = defineEndpoint<{ text: string }, { text: string; instance: number }>('vault', 'echo', 'test.echo');
const fail = defineEndpoint<{ kind: string }, never>('vault', 'fail', 'test.fail');
const slow = defineEndpoint<{ text: string }, { text: string }>('vault', 'slow', 'test.slow');
const encoded = defineEndpoint<{ n: number }, Array<{ n: number; big: string }>>('vault', 'encoded', 'test.encoded');
const huge = defineEndpoint<{ bytes: number }, { text: string }>('vault', 'huge', 'test.huge');
/** the slow endpoint answers once this gate opens: a test holds it shut while it queues calls, so no timer decides what shares a message */
let slowGate: Promise<void> = Promise.resolve();

describe('bus - request/reply over a real NATS server', () => {
  let infra: TestInfra;
  let nc: NatsConnection;
  const services: Service[] = [];
  const connections: NatsConnection[] = [];

  beforeAll(async () => {
    infra = await startTestInfra({ nats: true });
    nc = await connectBus({ url: infra.nats!.url, name: 'bus-test' });
    for (const instance of [1, 2]) {
      const conn = await connectBus({ url: infra.nats!.url, name: `instance-${instance}` });
      connections.push(conn);
      services.push(
        await serve(conn, { name: 'vault', version: '0.1.0', logger }, [
          handle(echo, ({ text }) => ({ text, instance })),
          // an answer larger than any message: fetched in parts from this instance
          handle(huge, ({ bytes }) => ({ text: '\u0000'.repeat(bytes) })),
          // JSON text already: sent as it is
          handle(encoded, ({ n }) => preEncoded(`[{"n":${n},"big":"${'9'.repeat(30)}"}]`)),
          handle(slow, async ({ text }) => {
            await slowGate;
            return { text };
          }),
          handle(fail, ({ kind }) => {
            if (kind === 'typed') throw new PlatformError('USER_EXISTS', 'User alice already exists', { username: 'alice' });
            if (kind === 'echoing') throw new PlatformError('BAD_QUERY', "failed to parse 'a\r\nb\nc'");
            throw new Error('SELECT secret FROM keys -- must not leak');
          }),
        ]),
      );
    }
  });
  afterAll(async () => {
    for (const s of services) await s.stop();
    for (const c of connections) await c.close();
    await nc?.close();
    await infra?.stop();
  });

  test('an answer larger than a message arrives whole, alone or in a batch', async () => {
    const limit = nc.info!.max_payload;
    // JSON escapes each NUL as six bytes: the answer is over three times the limit
    const bytes = Math.ceil(limit / 2);
    const reply = await call(nc, huge, { bytes });
    expect(reply.text.length).toBe(bytes);
    expect(reply.text).toBe('\u0000'.repeat(bytes));
    const batched = batchingCaller(nc, huge);
    const both = await Promise.all([batched({ bytes: 10 }), batched({ bytes })]);
    expect(both.map((r) => r.text.length)).toEqual([10, bytes]);
  });

  test('a typed call gets its typed answer', async () => {
    const reply = await call(nc, echo, { text: 'hello' });
    expect(reply.text).toBe('hello');
  });

  test('an answer that is JSON text already arrives as the value it encodes, alone and in a batch', async () => {
    const value = [{ n: 7, big: '9'.repeat(30) }];
    expect(await call(nc, encoded, { n: 7 })).toEqual(value);
    const batched = batchingCaller(nc, encoded);
    expect(await Promise.all([batched({ n: 1 }), batched({ n: 2 })])).toEqual([[{ ...value[0], n: 1 }], [{ ...value[0], n: 2 }]]);
  });

  test('two instances of a service share the requests (queue group)', async () => {
    const seen = new Set<number>();
    for (let i = 0; i < 40; i++) seen.add((await call(nc, echo, { text: String(i) })).instance);
    expect([...seen].sort()).toEqual([1, 2]);
  });

  test("a service's typed error arrives with the same code, message and details", async () => {
    const err = await call(nc, fail, { kind: 'typed' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PlatformError);
    expect(err).toMatchObject({ code: 'USER_EXISTS', message: 'User alice already exists', details: { username: 'alice' }, status: 409 });
  });

  test('an error whose message holds CR or LF (echoing a request) still arrives, whole, alone and in a batch', async () => {
    const err = await call(nc, fail, { kind: 'echoing' }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'BAD_QUERY', message: "failed to parse 'a\r\nb\nc'" });
    const batched = batchingCaller(nc, fail);
    const errs = await Promise.all([batched({ kind: 'echoing' }).catch((e: unknown) => e), batched({ kind: 'echoing' }).catch((e: unknown) => e)]);
    for (const e of errs) expect(e).toMatchObject({ code: 'BAD_QUERY', message: "failed to parse 'a\r\nb\nc'" });
  });

  test('an unexpected error becomes INTERNAL and says nothing of its cause', async () => {
    const err = (await call(nc, fail, { kind: 'bug' }).catch((e: unknown) => e)) as PlatformError;
    expect(err.code).toBe('INTERNAL');
    expect(err.message).not.toMatch(/SELECT|secret/);
  });

  test('a subject nobody serves is UNAVAILABLE (503), not a hang', async () => {
    const nobody = defineEndpoint<object, object>('cirrus', 'nobody', 'test.nobody');
    const started = Date.now();
    const err = (await call(nc, nobody, {}).catch((e: unknown) => e)) as PlatformError;
    expect(err.code).toBe('UNAVAILABLE');
    expect(err.status).toBe(503);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  describe('batched calls', () => {
    /** Counts the messages on an endpoint's plain and batch subjects while `run` runs (a plain subscription sees every message). */
    async function countMessages(subject: string, run: () => Promise<void>): Promise<{ plain: number; batches: number; calls: number }> {
      const counts = { plain: 0, batches: 0, calls: 0 };
      const plain = nc.subscribe(subject, { callback: () => void counts.plain++ });
      const batches = nc.subscribe(`${subject}.batch`, {
        callback: (_err, msg) => {
          counts.batches++;
          counts.calls += decodeJson<unknown[]>(msg.data).length;
        },
      });
      await nc.flush();
      await run();
      await nc.flush();
      plain.unsubscribe();
      batches.unsubscribe();
      return counts;
    }

    test('calls made in one turn travel as one message, each answered with its own response', async () => {
      const echoBatched = batchingCaller(nc, echo);
      let replies: Array<{ text: string }> = [];
      const counts = await countMessages('test.echo', async () => {
        replies = await Promise.all(Array.from({ length: 50 }, (_, i) => echoBatched({ text: `call ${i}` }, { requestId: `r${i}` })));
      });
      expect(replies.map((r) => r.text)).toEqual(Array.from({ length: 50 }, (_, i) => `call ${i}`));
      expect(counts).toEqual({ plain: 0, batches: 1, calls: 50 });
    });

    test('a batch is cut at maxCalls; a lone call and a call too big to share a message go plain', async () => {
      const echoBatched = batchingCaller(nc, echo, { maxCalls: 20, maxBytes: 3000 });
      let counts = await countMessages('test.echo', async () => {
        await Promise.all(Array.from({ length: 41 }, (_, i) => echoBatched({ text: String(i) })));
      });
      expect(counts).toEqual({ plain: 1, batches: 2, calls: 40 });
      const big = 'x'.repeat(2000);
      counts = await countMessages('test.echo', async () => {
        const replies = await Promise.all([echoBatched({ text: big }), echoBatched({ text: 'a' }), echoBatched({ text: 'b' })]);
        expect(replies.map((r) => r.text)).toEqual([big, 'a', 'b']);
      });
      expect(counts).toEqual({ plain: 1, batches: 1, calls: 2 });
    });

    test('with maxInFlight, calls made while a message awaits its answer wait for it, together', async () => {
      const slowBatched = batchingCaller(nc, slow, { maxInFlight: 1 });
      let open!: () => void;
      slowGate = new Promise((r) => (open = r));
      const counts = await countMessages('test.slow', async () => {
        const first = Array.from({ length: 5 }, (_, i) => slowBatched({ text: `a${i}` }));
        const later: Array<Promise<{ text: string }>> = [];
        for (let turn = 0; turn < 10; turn++) {
          await new Promise((r) => setTimeout(r, 5));
          later.push(slowBatched({ text: `b${turn}` }));
        }
        // the first message is still awaiting its answer; every later call has queued behind it
        open();
        const replies = await Promise.all([...first, ...later]);
        expect(replies.map((r) => r.text)).toEqual([...Array.from({ length: 5 }, (_, i) => `a${i}`), ...Array.from({ length: 10 }, (_, i) => `b${i}`)]);
      });
      expect(counts).toEqual({ plain: 0, batches: 2, calls: 15 });
    });

    test("each call of a batch gets its own error, typed or INTERNAL, and the others their responses", async () => {
      const failBatched = batchingCaller(nc, fail);
      const outcomes = await Promise.all(['typed', 'bug', 'typed'].map((kind) => failBatched({ kind }).catch((e: unknown) => e as PlatformError)));
      expect(outcomes[0]).toMatchObject({ code: 'USER_EXISTS', message: 'User alice already exists', details: { username: 'alice' } });
      expect(outcomes[1]).toMatchObject({ code: 'INTERNAL' });
      expect(outcomes[1].message).not.toMatch(/SELECT|secret/);
      expect(outcomes[2]).toBeInstanceOf(PlatformError);
    });

    test('a batch nobody serves: every call is UNAVAILABLE; a malformed batch is a BAD_REQUEST', async () => {
      const nobody = batchingCaller(nc, defineEndpoint<object, object>('cirrus', 'nobody', 'test.nobody'));
      const errors = (await Promise.all([nobody({}), nobody({})].map((p) => p.catch((e: unknown) => e)))) as PlatformError[];
      expect(errors.map((e) => e.code)).toEqual(['UNAVAILABLE', 'UNAVAILABLE']);
      const reply = await nc.request('test.echo.batch', new TextEncoder().encode('{"not":"a list"}'));
      expect(decodeJson(reply.data)).toMatchObject({ error: { code: 'BAD_REQUEST' } });
    });
  });

  test('ping counts the running instances of a service', async () => {
    expect(await pingService(nc, 'vault', 500)).toBe(2);
    expect(await pingService(nc, 'chains', 300)).toBe(0);
  });

  test('streams and durable consumers are declared idempotently; msgID deduplicates', async () => {
    const jsm = await streamManager(nc);
    await ensureStream(jsm, { name: 'TEST_TX', subjects: ['test.tx.>'] });
    const again = await ensureStream(jsm, { name: 'TEST_TX', subjects: ['test.tx.>'], max_msgs: 1000 });
    expect(again.config.max_msgs).toBe(1000);
    const consumer = await ensureDurableConsumer(jsm, { stream: 'TEST_TX', durable: 'indexer' });
    await ensureDurableConsumer(jsm, { stream: 'TEST_TX', durable: 'indexer', ackWaitMs: 5000 });
    expect(consumer.config.durable_name).toBe('indexer');
    const js = jsm.jetstream();
    const first = await js.publish('test.tx.main', 'a', { msgID: 'tx-1' });
    const dup = await js.publish('test.tx.main', 'a', { msgID: 'tx-1' });
    expect(dup.duplicate).toBe(true);
    expect(dup.seq).toBe(first.seq);
    const c = await js.consumers.get('TEST_TX', 'indexer');
    const msg = await c.next({ expires: 2000 });
    expect(msg?.string()).toBe('a');
    msg?.ack();
  });
});
