// Live events end to end (issue "Dashboard and live events"): a contract call
// arrives as its block, its transaction and its event, in id order; the
// filters choose; a resume with Last-Event-ID replays exactly the later ids;
// a browser's ticket stands for the token; a user who is not a member of a
// private chain gets none of its messages; a client that stops reading is told
// so and cut off, while the others go on.
import fc from 'fast-check';
import { AUTO_APPROVE_SOURCE } from '@platform/chains';
import { api, devToken, startTestNode, type TestNode } from './harness.js';
import { openEvents, type EventStream, type SseMessage } from './event-stream.js';

const NODE_START_MS = 180_000;
/** what a connection may hold unsent here: small, so that a slow client is cut off after a few blocks */
const BUFFER_BYTES = 65_536;

const BELL = `
contract Bell {
  uint public rings;
  event Rang(string by, uint count, bool loud);
  event Noise(string blob, uint i);
  function ring(string by, bool loud) { rings += 1; emit Rang(by, rings, loud); }
  function noise(string blob, uint n) { for (uint i = 0; i < n; i++) { emit Noise(blob, i); } }
}`;

describe('live events on a node', () => {
  let node: TestNode;
  const tokens: Record<string, string> = {};
  let bell: string;
  const streams: EventStream[] = [];

  const open = async (user: string, query = '', headers: Record<string, string> = {}) => {
    const stream = await openEvents(node.gatewayUrl, query, { authorization: `Bearer ${tokens[user]}`, ...headers });
    streams.push(stream);
    return stream;
  };
  const send = async (user: string, txs: unknown[], query = '') => {
    const res = await api(node, 'POST', `/platform/v2.3/transaction?resolve=true${query}`, tokens[user], { txs });
    expect(res.status).toBe(200);
    for (const r of res.body) expect(r.status).toBe('Success');
    return res.body as any[];
  };
  const ring = (by: string, loud = false, contractAddress = bell) => ({ type: 'FUNCTION', payload: { contractAddress, method: 'ring', args: { by, loud }, metadata: { VM: 'SolidVM' } } });
  const upload = (args = {}) => ({ type: 'CONTRACT', payload: { contract: 'Bell', src: BELL, args, metadata: { VM: 'SolidVM' } } });
  const ids = (messages: SseMessage[]) => messages.map((m) => m.id);

  beforeAll(async () => {
    node = await startTestNode({ EVENTS_HEARTBEAT_MS: '300', EVENTS_BUFFER_BYTES: String(BUFFER_BYTES) });
    for (const [user, org] of [['alice', 'A'], ['bob', 'B'], ['carol', 'C']]) {
      tokens[user] = await devToken(node, user, org);
      expect((await api(node, 'POST', '/platform/v2.3/key', tokens[user])).status).toBe(200);
    }
    const [up] = await send('alice', [upload()]);
    bell = up.data.contents.address;
  }, NODE_START_MS);
  afterAll(async () => {
    for (const s of streams) s.close();
    await node?.destroy();
  }, NODE_START_MS);

  test('a contract call arrives as its block, its transaction and its event, with increasing ids; headers at once; heartbeats', async () => {
    const stream = await open('alice');
    expect(stream.status).toBe(200);
    expect(stream.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    const [call] = await send('alice', [ring('alice', true)]);
    const event = await stream.next((m) => m.event === 'event' && m.data.transactionHash === call.hash);
    const tx = await stream.next((m) => m.event === 'tx' && m.data.hash === call.hash);
    const block = await stream.next((m) => m.event === 'block' && m.data.hash === call.txResult.blockHash);
    expect(event.data).toEqual({ name: 'Rang', args: { by: 'alice', count: '1', loud: 'True' }, address: bell, contractName: 'Bell', transactionHash: call.hash, blockHash: block.data.hash, blockNumber: block.data.number, chainId: null });
    expect(tx.data).toMatchObject({ hash: call.hash, status: 'Success', blockHash: call.txResult.blockHash, blockNumber: block.data.number, chainId: null });
    expect(block.data).toMatchObject({ number: expect.any(Number), transactions: 1, chainId: null });
    // one block: its message, then the transaction, then its event
    expect([Number(block.id) < Number(tx.id), Number(tx.id) < Number(event.id)]).toEqual([true, true]);
    const all = stream.messages.map((m) => Number(m.id));
    expect(all).toEqual([...all].sort((a, b) => a - b));
    expect(new Set(all).size).toBe(all.length);
    await stream.next(() => true);
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(stream.comments).toContain('heartbeat');
  });

  test('filters: contract by name or address, event, kinds, chainid', async () => {
    const [other] = await send('alice', [upload()]);
    const second = other.data.contents.address;
    const byName = await open('alice', '?contract=Bell&kinds=event');
    const byAddress = await open('alice', `?contract=${bell}`);
    const byEvent = await open('alice', '?event=Rang&kinds=tx,event');
    const blocks = await open('alice', '?kinds=block&chainid=main');
    const [mine, theirs] = await send('alice', [ring('one'), ring('two', false, second)]);

    await byName.next((m) => m.data.transactionHash === theirs.hash);
    expect(byName.messages.map((m) => [m.event, m.data.address])).toEqual([['event', bell], ['event', second]]);

    // blocks are chosen by chain and kind only: the calls' blocks come, and of the rest only what concerns the contract
    await byAddress.next((m) => m.event === 'event' && m.data.transactionHash === mine.hash);
    await byAddress.next((m) => m.event === 'block' && m.data.hash === theirs.txResult.blockHash);
    expect(byAddress.messages.filter((m) => m.event !== 'block').map((m) => [m.event, m.data.hash ?? m.data.transactionHash])).toEqual([['tx', mine.hash], ['event', mine.hash]]);

    await byEvent.next((m) => m.event === 'event' && m.data.transactionHash === theirs.hash);
    expect(byEvent.messages.map((m) => m.event)).toEqual(['tx', 'event', 'tx', 'event']);

    await blocks.next((m) => m.data.hash === theirs.txResult.blockHash);
    expect(new Set(blocks.messages.map((m) => m.event))).toEqual(new Set(['block']));
  });

  test('bad input is a clear 4xx with the error body', async () => {
    for (const [query, headers, status, code] of [
      ['?kinds=blocks', {}, 400, 'VALIDATION_FAILED'],
      ['?chainid=zz', {}, 400, 'BAD_HEX'],
      ['', { 'last-event-id': 'yesterday' }, 400, 'VALIDATION_FAILED'],
      [`?chainid=${'ab'.repeat(32)}`, {}, 404, 'CHAIN_NOT_FOUND'],
    ] as const) {
      const stream = await open('alice', query, headers);
      await stream.ended;
      expect([query, stream.status, JSON.parse(stream.body).error.code]).toEqual([query, status, code]);
    }
    // any query string and Last-Event-ID: a stream or a 4xx with the error body, never a 5xx or a hang
    const param = fc.constantFrom('chainid', 'contract', 'event', 'kinds', 'lastEventId', 'ticket', 'x');
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(param, fc.string({ maxLength: 80 })), { maxLength: 4 }), fc.option(fc.string({ maxLength: 40 })), async (pairs, lastId) => {
        const query = `?${new URLSearchParams(pairs.filter(([name]) => name !== 'ticket')).toString()}`;
        const stream = await open('alice', query, lastId === null ? {} : { 'last-event-id': lastId.replace(/[^\x20-\x7e]/g, '') });
        if (stream.status === 200) stream.close();
        else {
          await stream.ended;
          expect([stream.status, JSON.parse(stream.body).error.code]).toEqual([expect.any(Number), expect.any(String)]);
        }
        expect([200, 400, 404]).toContain(stream.status);
      }),
      { numRuns: 60 },
    );
    const doc = await api(node, 'GET', '/openapi.json');
    expect(doc.body.paths['/platform/v2.3/events'].get.responses).toHaveProperty(['200', 'content', 'text/event-stream']);
    expect(doc.body.paths['/platform/v2.3/events/ticket']).toHaveProperty('post');
    const anonymous = await openEvents(node.gatewayUrl);
    await anonymous.ended;
    expect([anonymous.status, JSON.parse(anonymous.body).error.code]).toEqual([401, 'TOKEN_MISSING']);
  });

  test('a resume with Last-Event-ID replays exactly the later ids, then goes on live', async () => {
    const first = await open('alice', `?contract=${bell}`);
    const sent = await send('alice', [ring('r1')]);
    await send('alice', [ring('r2')]);
    await send('alice', [ring('r3')]);
    const seen = await first.until((m) => m.event === 'event' && m.data.args.by === 'r3');
    const firstOfR1 = seen.findIndex((m) => m.data.hash === sent[0].txResult.blockHash);
    // resumed from the r1 block's id: its tx, its event, and everything of r2 and r3
    const resumeAt = seen[firstOfR1].id!;
    const later = seen.slice(firstOfR1 + 1);
    const resumed = await open('alice', `?contract=${bell}`, { 'last-event-id': resumeAt });
    await resumed.next((m) => m.id === later[later.length - 1].id);
    expect(ids(resumed.messages)).toEqual(ids(later));
    // and the query's lastEventId (a new EventSource's way) does the same
    const byQuery = await open('alice', `?contract=${bell}&lastEventId=${resumeAt}`);
    await byQuery.next((m) => m.id === later[later.length - 1].id);
    expect(ids(byQuery.messages)).toEqual(ids(later));
    // the replay's end is marked: what follows is live
    for (let i = 0; i < 100 && !byQuery.comments.includes('live'); i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(byQuery.comments.filter((c) => c !== 'heartbeat')).toEqual(['connected', 'live']);
    const [live] = await send('alice', [ring('r4')]);
    await resumed.next((m) => m.data.transactionHash === live.hash);
    expect(ids(resumed.messages)).toEqual(ids((await first.until((m) => m.data.transactionHash === live.hash)).slice(firstOfR1 + 1)));
  });

  test("a browser's ticket stands for the token; an unknown ticket is 401", async () => {
    const issued = await api(node, 'POST', '/platform/v2.3/events/ticket', tokens.bob);
    expect(issued.status).toBe(200);
    expect(issued.body).toEqual({ ticket: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), expiresIn: 60 });
    const stream = await openEvents(node.gatewayUrl, `?ticket=${issued.body.ticket}&kinds=tx`);
    streams.push(stream);
    expect(stream.status).toBe(200);
    const [call] = await send('bob', [ring('bob')]);
    await stream.next((m) => m.data.hash === call.hash);
    const unknown = await openEvents(node.gatewayUrl, '?ticket=nope');
    await unknown.ended;
    expect([unknown.status, JSON.parse(unknown.body).error.code]).toEqual([401, 'TOKEN_INVALID']);
    // a ticket is not a bearer token elsewhere, nor does it mint tickets
    expect((await api(node, 'POST', `/platform/v2.3/events/ticket?ticket=${issued.body.ticket}`)).status).toBe(401);
    expect(node.logs.some((line) => line.includes(issued.body.ticket))).toBe(false);
  });

  test("a private chain's messages reach its members only", async () => {
    const created = await api(node, 'POST', '/bloc/v2.2/chain', tokens.alice, { label: 'A and B', contract: 'AutoApprove', src: AUTO_APPROVE_SOURCE, args: {}, members: [{ orgName: 'B', access: true }], balances: [], metadata: { VM: 'SolidVM' } });
    expect(created.status).toBe(200);
    const chain: string = created.body;
    const member = await open('bob');
    const outsider = await open('carol');
    expect((await open('bob', `?chainid=${chain}&kinds=tx,event`)).status).toBe(200);
    const refused = await open('carol', `?chainid=${chain}`);
    await refused.ended;
    expect(refused.status).toBe(404);

    const [onChain] = await send('alice', [upload()], `&chainid=${chain}`);
    const privateBell = onChain.data.contents.address;
    const [privateCall] = await send('alice', [ring('secret', true, privateBell)], `&chainid=${chain}`);
    const seen = await member.next((m) => m.event === 'event' && m.data.transactionHash === privateCall.hash);
    expect(seen.data).toMatchObject({ name: 'Rang', args: { by: 'secret' }, address: privateBell, chainId: chain });
    expect(member.messages.some((m) => m.event === 'block' && m.data.chainId === chain)).toBe(true);
    // the outsider's stream is past those blocks (a later main-chain call reached it), and holds none of them
    const [after] = await send('carol', [ring('carol')]);
    await outsider.next((m) => m.data.transactionHash === after.hash);
    expect(outsider.messages.filter((m) => m.data.chainId !== null)).toEqual([]);
  });

  test('a client that stops reading is told so and cut off; the others go on', async () => {
    const slow = await open('alice', '?kinds=event');
    const steady = await open('alice', '?kinds=tx');
    slow.pause();
    const blob = 'x'.repeat(2_000);
    const cutOff = () => node.logs.some((line) => line.includes('slow consumer'));
    // each call is about 200 KB of events; the kernel's socket buffers take some before the response's own
    let calls = 0;
    while (!cutOff() && calls < 60) {
      const [call] = await send('alice', [{ type: 'FUNCTION', payload: { contractAddress: bell, method: 'noise', args: { blob, n: 100 }, metadata: { VM: 'SolidVM' } } }]);
      await steady.next((m) => m.data.hash === call.hash);
      calls++;
    }
    expect([cutOff(), calls > 0]).toEqual([true, true]);
    slow.resume();
    await slow.ended;
    const lastMessage = slow.messages[slow.messages.length - 1];
    expect(lastMessage).toMatchObject({ id: null, event: 'lagged', data: { code: 'SLOW_CONSUMER' } });
    // resumable from the last message it read
    const read = slow.messages.filter((m) => m.id !== null);
    const resumed = await open('alice', '?kinds=event', { 'last-event-id': read[read.length - 1].id! });
    const [call] = await send('alice', [ring('after')]);
    await resumed.next((m) => m.data.transactionHash === call.hash, 60_000);
    expect(Number(resumed.messages[0].id)).toBeGreaterThan(Number(read[read.length - 1].id));
  }, 180_000);

  /** Waits until the supervisor has run the gateway again and it is ready. */
  const gatewayBack = async (pid: number | null, restarts: number) => {
    const gateway = node.processes.get('gateway')!;
    for (const deadline = Date.now() + 60_000; !(gateway.restarts > restarts && gateway.pid !== pid && (await fetch(`${node.gatewayUrl}/ready`).then((r) => r.ok, () => false))); ) {
      if (Date.now() > deadline) throw new Error('the gateway did not come back within 60 s');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  test('a gateway that stops ends its streams at once, saying why', async () => {
    const stream = await open('alice');
    const gateway = node.processes.get('gateway')!;
    const [pid, restarts] = [gateway.pid, gateway.restarts];
    const stopped = Date.now();
    gateway.signal('SIGTERM');
    await stream.ended;
    expect(Date.now() - stopped).toBeLessThan(5_000);
    expect(stream.comments).toContain('the gateway is stopping');
    await gatewayBack(pid, restarts);
  }, 90_000);

  test('nothing is lost across a gateway restart: the resume reads what the node applied meanwhile', async () => {
    const before = await open('alice', `?contract=${bell}&kinds=tx`);
    const [seen] = await send('alice', [ring('before')]);
    // the resume starts after this one: whether the next arrives before the kill or not, it is replayed
    const last = await before.next((m) => m.data.hash === seen.hash);
    const gateway = node.processes.get('gateway')!;
    const [pid, restarts] = [gateway.pid, gateway.restarts];
    // admitted, and executed while the gateway is away
    const sent = await api(node, 'POST', '/platform/v2.3/transaction', tokens.alice, { txs: [ring('during')] });
    expect(sent.status).toBe(200);
    gateway.signal('SIGKILL');
    await before.ended;
    await gatewayBack(pid, restarts);
    const resumed = await open('alice', `?contract=${bell}&kinds=tx`, { 'last-event-id': last.id! });
    const during = await resumed.next((m) => m.data.hash === sent.body[0].hash);
    expect(resumed.messages.indexOf(during)).toBe(0);
    expect(Number(during.id)).toBeGreaterThan(Number(last.id));
  }, 120_000);
});
