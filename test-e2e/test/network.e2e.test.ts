// A network of three nodes on loopback, as `npm start -- --nodes 3` runs it
// (docs/network.md): one ordering, every node executing and agreeing, a
// proposer that stops is replaced and fenced, a node that was down catches up.
import type { ChainStatusRecord } from '@platform/bus';
import type { RunningNode } from '@platform/launcher';
import { api, devToken, startTestNetwork, type TestNetwork } from './harness.js';

const NETWORK_START_MS = 300_000;
const COUNTER = 'contract Counter { uint public n = 5; function bump(uint by) public returns (uint) { n += by; return n; } }';

let net: TestNetwork;
/** a user of each node, with a key: a token is its own node's */
const tokens = new Map<number, string>();
let counter = '';

const nodeAt = (index: number): RunningNode => net.running.get(index)!;

beforeAll(async () => {
  net = await startTestNetwork(3);
  for (const index of [1, 2, 3]) {
    tokens.set(index, await devToken(nodeAt(index), `user${index}`));
    expect((await api(nodeAt(index), 'POST', '/platform/v2.3/key', tokens.get(index))).status).toBe(200);
  }
}, NETWORK_START_MS);
afterAll(async () => net?.destroy(), NETWORK_START_MS);

async function send(index: number, txs: unknown[]): Promise<any[]> {
  const res = await api(nodeAt(index), 'POST', '/platform/v2.3/transaction?resolve=true', tokens.get(index), { txs });
  expect(res.status).toBe(200);
  expect(res.body.map((r: { status: string; txResult?: { message?: string } }) => `${r.status} ${r.status === 'Success' ? '' : r.txResult?.message}`.trim())).toEqual(txs.map(() => 'Success'));
  return res.body;
}

const bump = (by: number) => ({ type: 'FUNCTION', payload: { contractAddress: counter, method: 'bump', args: { by }, metadata: { VM: 'SolidVM' } } });

/** the main chain's entry of a node's metadata */
type MainChain = ChainStatusRecord;

async function mainChainOf(index: number): Promise<MainChain> {
  const res = await api(nodeAt(index), 'GET', '/platform-api/eth/v1.2/metadata', tokens.get(index));
  expect(res.status).toBe(200);
  return res.body.chains.find((c: { chainId: string }) => c.chainId === '');
}

/** Waits until every running node applied the same last block: same height, hash and state root, none halted. */
async function agreed(timeoutMs = 60_000): Promise<MainChain> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const chains = await Promise.all([...net.running.keys()].map((i) => mainChainOf(i)));
    for (const c of chains) expect(c.halted).toBeNull();
    const [first] = chains;
    if (chains.every((c) => c.height === first.height && c.hash === first.hash && c.stateRoot === first.stateRoot && c.height >= c.networkHeight)) return first;
    if (Date.now() > deadline) throw new Error(`the nodes did not agree within ${timeoutMs} ms: ${JSON.stringify(chains)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function proposerIndex(): Promise<number> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    for (const index of net.running.keys()) if ((await mainChainOf(index)).proposer) return index;
    if (Date.now() > deadline) throw new Error('no node holds the proposer lease');
    await new Promise((r) => setTimeout(r, 250));
  }
}

test('deployed on node1 and called on node3: the result, the cirrus row and the account read the same on every node, which all applied the same blocks', async () => {
  const [created] = await send(1, [{ type: 'CONTRACT', payload: { contract: 'Counter', src: COUNTER, args: {}, metadata: { VM: 'SolidVM' } } }]);
  counter = created.data.contents.address;
  const [called] = await send(3, [bump(3)]);
  expect(called.data.contents).toEqual(['8']);
  await agreed();
  for (const index of [1, 2, 3]) {
    const node = nodeAt(index);
    const token = tokens.get(index);
    const result = await api(node, 'GET', `/bloc/v2.2/transactions/${called.hash}/result`, token);
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({ status: 'Success', hash: called.hash });
    const rows = await api(node, 'GET', `/cirrus/search/Counter?address=eq.${counter}`, token);
    expect(rows.body).toEqual([expect.objectContaining({ address: counter, n: 8 })]);
    const account = await api(node, 'GET', `/platform-api/eth/v1.2/account?address=${counter}`, token);
    expect(account.body).toEqual([expect.objectContaining({ address: counter, codeHash: expect.any(String) })]);
  }
  const accounts = await Promise.all([1, 2, 3].map(async (i) => (await api(nodeAt(i), 'GET', `/platform-api/eth/v1.2/account?address=${counter}`, tokens.get(i))).body[0]));
  expect(new Set(accounts.map((a) => JSON.stringify(a))).size).toBe(1);

  // every node names the same validators, and sees the two others connected
  const metadata = await Promise.all([1, 2, 3].map(async (i) => (await api(nodeAt(i), 'GET', '/platform-api/eth/v1.2/metadata', tokens.get(i))).body));
  expect(new Set(metadata.map((m) => m.networkID)).size).toBe(1);
  expect(metadata.map((m) => m.validators.map((v: { node: string }) => v.node))).toEqual([1, 2, 3].map(() => ['node1', 'node2', 'node3']));
  expect(metadata.map((m) => m.node)).toEqual(['node1', 'node2', 'node3']);
  for (const [i, m] of metadata.entries()) expect(m.validators.find((v: { node: string }) => v.node === `node${i + 1}`).address).toBe(m.nodeAddress);
  const peers = (await api(nodeAt(1), 'GET', '/platform-api/eth/v1.2/peers', tokens.get(1))).body;
  expect(peers).toEqual([expect.objectContaining({ node: 'node2', connected: true }), expect.objectContaining({ node: 'node3', connected: true })]);
});

test('the proposer stops: another node proposes within 10 s, and the old one, back, is fenced and follows', async () => {
  const old = await proposerIndex();
  const other = old === 1 ? 2 : 1;
  const block = nodeAt(old).processes.get('block')!;
  // frozen, not dead: its lease lapses while it cannot renew it, and it wakes believing nothing happened
  block.signal('SIGSTOP');
  try {
    const started = Date.now();
    await send(other, [bump(1)]);
    const takeover = Date.now() - started;
    console.log(`proposer node${old} frozen: a transaction on node${other} was final after ${takeover} ms`);
    expect(takeover).toBeLessThan(10_000);
  } finally {
    block.signal('SIGCONT');
  }
  // back: it applies what the new proposer ordered, and proposes nothing of its own while another holds the lease
  const head = await agreed();
  expect((await mainChainOf(old)).proposer).toBe(false);
  await send(old, [bump(1)]);
  expect((await agreed()).height).toBeGreaterThan(head.height);
});

test('a node that was down catches up on what the others ordered meanwhile, and agrees', async () => {
  await net.stopNode(2);
  for (let i = 0; i < 5; i++) await send(i % 2 === 0 ? 1 : 3, [bump(1), bump(2)]);
  const ordered = await agreed();
  await net.startNode(2);
  const caughtUp = await agreed();
  expect(caughtUp.height).toBeGreaterThanOrEqual(ordered.height);
  const rows = await api(nodeAt(2), 'GET', `/cirrus/search/Counter?address=eq.${counter}`, tokens.get(2));
  expect(rows.body).toEqual([expect.objectContaining({ n: 8 + 1 + 1 + 5 * 3 })]);
});
