// Nothing is left behind when the launcher dies outright (kill -9): every
// part it supervises learns it from its IPC channel closing, and ends. Here
// each part's channel is closed as the launcher's death would close it; the
// part must end by itself (the supervisor then restarts it, as after any
// crash), and the node answers again once they are back.
import { api, devToken, startTestNode, type TestNode } from './harness.js';

let node: TestNode;
beforeAll(async () => {
  node = await startTestNode();
}, 180_000);
afterAll(() => node?.destroy());

async function until<T>(what: string, timeoutMs: number, probe: () => T | undefined | Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

test('every part ends when its channel to the launcher closes, and the node answers again once they are restarted', async () => {
  const parts = [...node.processes.values()];
  const before = new Map(parts.map((part) => [part.name, { pid: part.pid, restarts: part.restarts }]));
  for (const part of parts) part.closeChannel();
  // each part's stop has a deadline of 6 s (stopOnSignals); a part that ignored the closed channel would never restart
  const lingering = await until('every part to end and be restarted', 30_000, () => {
    const waiting = parts.filter((part) => part.restarts === before.get(part.name)!.restarts || part.pid === null);
    return waiting.length === 0 ? [] : undefined;
  }).catch(() => parts.filter((part) => part.restarts === before.get(part.name)!.restarts).map((part) => part.name));
  expect(lingering).toEqual([]);
  for (const part of parts) expect(part.pid).not.toBe(before.get(part.name)!.pid);

  const token = await until('a token from the restarted identity provider', 60_000, () => devToken(node, 'alice', 'Acme').catch(() => undefined));
  // refused connections and 503s until the gateway and the services behind it are back
  const created = await until('the restarted gateway and vault to create a key', 60_000, async () => {
    const answer = await api(node, 'POST', '/platform/v2.3/key', token).catch(() => undefined);
    return answer?.status === 200 ? answer : undefined;
  });
  expect((await api(node, 'GET', '/platform/v2.3/key', token)).body.address).toBe(created.body.address);
}, 150_000);
