// resolve=true's hub against a real NATS server, with a small stand-in of the
// transaction service's results endpoint (what it answers is the test's): the
// hub reads it only for results named in a notice's `stored`.
import { createLogger, type TxResult } from '@platform/common';
import { SUBJECTS, TX, connectBus, encodeJson, handle, serve, type NatsConnection, type TxDoneNotice } from '@platform/bus';
import { startTestInfra, type TestInfra } from '@platform/launcher';
import { ResolveHub } from '../src/resolve.js';

const logger = createLogger('resolve-test', 'silent');
const pending = (hash: string): TxResult => ({ status: 'Pending', hash, txResult: null, data: null });
const success = (hash: string, contents: string[] = []): TxResult => ({ status: 'Success', hash, txResult: null, data: { tag: 'Call', contents } });

describe('gateway - resolve=true', () => {
  let infra: TestInfra;
  let nc: NatsConnection;
  let service: Awaited<ReturnType<typeof serve>>;
  let hub: ResolveHub;
  /** what the results endpoint answers, by hash */
  const stored = new Map<string, TxResult>();

  beforeAll(async () => {
    infra = await startTestInfra({ nats: true });
    nc = await connectBus({ url: infra.nats!.url, name: 'resolve-test' });
    service = await serve(nc, { name: 'tx', version: '0.0.0', logger }, [handle(TX.nodeResults, ({ hashes }) => hashes.map((h) => stored.get(h) ?? pending(h)))]);
    hub = new ResolveHub(nc, logger);
    await nc.flush();
  });
  afterAll(async () => {
    hub?.close();
    await service?.stop();
    await nc?.close();
    await infra?.stop();
  });

  const announce = (notice: TxDoneNotice) => nc.publish(SUBJECTS.tx.done, encodeJson(notice));

  test("a block's notice wakes each waiting request with its own result; others' results are ignored", async () => {
    const waiting = hub.settle(async () => [pending('h1'), pending('h2')], 5_000);
    await new Promise((r) => setTimeout(r, 50));
    announce({ results: [success('other'), success('h2', ['2'])] });
    announce({ results: [success('h1', ['1'])] });
    expect(await waiting).toEqual([success('h1', ['1']), success('h2', ['2'])]);
  });

  test('a result named in stored (too big for a notice) is read from the results endpoint', async () => {
    const waiting = hub.settle(async () => [pending('big')], 5_000);
    await new Promise((r) => setTimeout(r, 50));
    stored.set('big', success('big', ['x'.repeat(100)]));
    announce({ results: [], stored: ['big'] });
    expect(await waiting).toEqual([success('big', ['x'.repeat(100)])]);
  });

  test('no notice in time: TIMEOUT naming the hashes, which stay trackable', async () => {
    const err = await hub.settle(async () => [pending('never')], 300).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'TIMEOUT', details: { hashes: ['never'], unresolved: ['never'] } });
  });

  /** A fetch (a submission) that answers only when let go, as a slow answer would. */
  function heldFetch(results: TxResult[]): { fetch: () => Promise<TxResult[]>; letGo: () => void } {
    let letGo: () => void = () => {};
    const answered = new Promise<void>((resolve) => (letGo = resolve));
    return { fetch: async () => (await answered, results), letGo };
  }

  test('a notice that comes before the submission answers (a race) still resolves it, without reading the results', async () => {
    const held = heldFetch([pending('early')]);
    const waiting = hub.settle(held.fetch, 5_000);
    announce({ results: [success('early', ['e'])] });
    await nc.flush();
    await new Promise((r) => setTimeout(r, 20));
    // the results endpoint would still say Pending: only the remembered notice can resolve it
    held.letGo();
    expect(await waiting).toEqual([success('early', ['e'])]);
  });

  test('one named in stored before the submission answers is read once it does', async () => {
    const held = heldFetch([pending('early-big')]);
    const waiting = hub.settle(held.fetch, 5_000);
    stored.set('early-big', success('early-big', ['y'.repeat(100)]));
    announce({ results: [], stored: ['early-big'] });
    await nc.flush();
    await new Promise((r) => setTimeout(r, 20));
    held.letGo();
    expect(await waiting).toEqual([success('early-big', ['y'.repeat(100)])]);
  });

  test('notices seen while no request was open are not remembered: a later Pending waits for its own notice', async () => {
    announce({ results: [success('gone', ['old'])] });
    await nc.flush();
    await new Promise((r) => setTimeout(r, 20));
    const waiting = hub.settle(async () => [pending('gone')], 5_000);
    await new Promise((r) => setTimeout(r, 50));
    announce({ results: [success('gone', ['new'])] });
    expect(await waiting).toEqual([success('gone', ['new'])]);
  });

  test('what an open request remembers is forgotten once no request that began before it is open', async () => {
    const first = heldFetch([pending('x1')]);
    const waitingFirst = hub.settle(first.fetch, 5_000);
    announce({ results: [success('x1'), success('x2', ['stale'])] });
    await nc.flush();
    await new Promise((r) => setTimeout(r, 20));
    first.letGo();
    expect(await waitingFirst).toEqual([success('x1')]);
    // x2's notice came while only the first request was open: a request begun now must not take it
    const waitingSecond = hub.settle(async () => [pending('x2')], 5_000);
    await new Promise((r) => setTimeout(r, 50));
    announce({ results: [success('x2', ['fresh'])] });
    expect(await waitingSecond).toEqual([success('x2', ['fresh'])]);
  });

  test('with requests open all the time, a notice is forgotten once every request open at its arrival has closed', async () => {
    const a = heldFetch([pending('a1')]);
    const waitingA = hub.settle(a.fetch, 5_000);
    announce({ results: [success('a1'), success('x3', ['stale'])] });
    await nc.flush();
    await new Promise((r) => setTimeout(r, 20));
    const b = heldFetch([pending('x3')]);
    const waitingB = hub.settle(b.fetch, 5_000);
    a.letGo();
    await waitingA;
    // B began after x3's notice: it must not take it
    b.letGo();
    await new Promise((r) => setTimeout(r, 50));
    announce({ results: [success('x3', ['fresh'])] });
    expect(await waitingB).toEqual([success('x3', ['fresh'])]);
  });

  test('a request open while more notices came than are remembered reads its results after registering', async () => {
    const small = new ResolveHub(nc, logger, 2);
    try {
      const held = heldFetch([pending('crowded')]);
      const waiting = small.settle(held.fetch, 5_000);
      stored.set('crowded', success('crowded', ['c']));
      announce({ results: [success('crowded', ['c']), success('n1'), success('n2')] });
      await nc.flush();
      await new Promise((r) => setTimeout(r, 20));
      // its notice was forgotten for want of room: only the read can resolve it
      held.letGo();
      expect(await waiting).toEqual([success('crowded', ['c'])]);
    } finally {
      small.close();
    }
  });

  test('results already final are answered at once', async () => {
    expect(await hub.settle(async () => [success('done')], 5_000)).toEqual([success('done')]);
  });
});
