// Nothing is left behind when the launcher dies outright (kill -9): every
// part it supervises learns it from its IPC channel closing, and ends. Here
// each part's channel is closed as the launcher's death would close it; the
// part must end by itself (the supervisor then restarts it, as after any
// crash), and the node answers again once they are back.
import { api, devToken, eventually, startTestNode, type TestNode } from './harness.js';

let node: TestNode;
beforeAll(async () => {
  node = await startTestNode();
}, 180_000);
afterAll(() => node?.destroy());

test('every part ends when its channel to the launcher closes, and the node answers again once they are restarted', async () => {
  const parts = [...node.processes.values()];
  const before = new Map(parts.map((part) => [part.name, { pid: part.pid, restarts: part.restarts }]));
  for (const part of parts) part.closeChannel();
  // each part's stop has a deadline of 6 s (stopOnSignals); a part that ignored the closed channel would never restart: its name stays in the list
  const notRestarted = async () => parts.filter((part) => part.restarts === before.get(part.name)!.restarts || part.pid === null).map((part) => part.name);
  expect(await eventually(notRestarted, (names) => names.length === 0)).toEqual([]);
  for (const part of parts) expect(part.pid).not.toBe(before.get(part.name)!.pid);

  // refused connections and 503s until the identity provider, the gateway and the vault are back
  const token = (await eventually(() => devToken(node, 'alice', 'Acme').catch(() => undefined), (t) => t !== undefined, 60_000))!;
  const created = (await eventually(() => api(node, 'POST', '/platform/v2.3/key', token).catch(() => undefined), (answer) => answer?.status === 200, 60_000))!;
  expect((await api(node, 'GET', '/platform/v2.3/key', token)).body.address).toBe(created.body.address);
}, 150_000);
