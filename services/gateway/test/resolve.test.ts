// resolve=true's hub against a real NATS server, with a small stand-in of the
// transaction service's results endpoint (what it answers is the test's).
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
    service = await serve(nc, { name: 'tx', version: '0.0.0', logger }, [handle(TX.results, ({ hashes }) => hashes.map((h) => stored.get(h) ?? pending(h)))]);
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
    const waiting = hub.resolve([pending('h1'), pending('h2')], 5_000);
    await new Promise((r) => setTimeout(r, 50));
    announce({ results: [success('other'), success('h2', ['2'])] });
    announce({ results: [success('h1', ['1'])] });
    expect(await waiting).toEqual([success('h1', ['1']), success('h2', ['2'])]);
  });

  test('a result named in stored (too big for a notice) is read from the results endpoint', async () => {
    const waiting = hub.resolve([pending('big')], 5_000);
    await new Promise((r) => setTimeout(r, 50));
    stored.set('big', success('big', ['x'.repeat(100)]));
    announce({ results: [], stored: ['big'] });
    expect(await waiting).toEqual([success('big', ['x'.repeat(100)])]);
  });

  test('no notice in time: TIMEOUT naming the hashes, which stay trackable', async () => {
    const err = await hub.resolve([pending('never')], 300).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'TIMEOUT', details: { hashes: ['never'], unresolved: ['never'] } });
  });
});
