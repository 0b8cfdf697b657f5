// One transaction must not stop a chain (issue 17, section 2). A contract
// whose execution would produce results larger than the bus carries fails
// on the chain's execution limits, cleanly (`Failure`, its message naming the
// limit, the nonce consumed) and the next transaction goes through; results
// near each limit travel (in parts when a block's result exceeds a message)
// and read back whole; the same doubling loop fails with the same message in
// both VMs; random large-effect contracts never stop the chain, and /ready
// says the chain progresses.
import fc from 'fast-check';
import { DEFAULT_LIMITS, limitMessage } from '@platform/common';
import { api, devToken, startTestNode, type TestNode } from '../../test-e2e/test/harness.js';

const NODE_START_MS = 180_000;
const TX_MS = 60_000;

const PUSHER = 'contract Pusher { uint[] public items; constructor(uint n) { for (uint i = 0; i < n; i++) items.push(i); } }';
const NOTE = 'contract Note { string public text; constructor(string _text) { text = _text; } }';

let node: TestNode;
let token: string;
let address: string;

beforeAll(async () => {
  node = await startTestNode({ IDENTITY_REQUIRED: 'false' });
  token = await devToken(node, 'lena', 'Acme');
  address = (await api(node, 'POST', '/platform/v2.3/key', token)).body.address;
}, NODE_START_MS);
afterAll(async () => node?.destroy(), NODE_START_MS);

type Tx = { type: 'CONTRACT' | 'FUNCTION'; payload: Record<string, unknown> };
const solid = (contract: string, src: string, args: Record<string, unknown> = {}): Tx => ({ type: 'CONTRACT', payload: { contract, src, args, metadata: { VM: 'SolidVM' } } });
const call = (contractAddress: string, method: string, args: Record<string, unknown> = {}, vm = 'SolidVM'): Tx => ({ type: 'FUNCTION', payload: { contractAddress, method, args, metadata: { VM: vm } } });

async function run(...txs: Tx[]): Promise<any[]> {
  const res = await api(node, 'POST', '/platform/v2.3/transaction?resolve=true', token, { txs });
  if (res.status !== 200) throw new Error(`${res.status} ${JSON.stringify(res.body).slice(0, 500)}`);
  return res.body;
}

/** the result as the results endpoint reads it back, after the fact */
async function readBack(hash: string): Promise<any> {
  const res = await api(node, 'GET', `/bloc/v2.2/transactions/${hash}/result`, token);
  if (res.status !== 200) throw new Error(`reading ${hash}: ${res.status} ${JSON.stringify(res.body).slice(0, 500)}`);
  return res.body;
}

async function nonce(): Promise<number> {
  const res = await api(node, 'GET', `/platform-api/eth/v1.2/account?address=${address}`, token);
  return res.body[0]?.nonce ?? 0;
}

async function expectReady(): Promise<void> {
  const ready = await api(node, 'GET', '/ready');
  expect(ready.body).toMatchObject({ status: 'ready', checks: { chains: true, chainsProgressing: true }, chains: { main: { progressing: true } } });
  const metrics = await api(node, 'GET', '/metrics');
  expect(metrics.body).toMatch(/^block_chain_stuck\{chain="main"\} 0$/m);
  expect(metrics.body).toMatch(/^block_chain_retries_total\{chain="main"\} \d+$/m);
}

/** the next ordinary transaction on the chain goes through */
async function expectChainMoves(): Promise<void> {
  const [r] = await run(solid('Note', NOTE, { _text: 'still here' }));
  expect(r.status).toBe('Success');
}

test(
  'a constructor pushing a million (and 2^18) elements fails cleanly, its nonce consumed, and the next transaction succeeds',
  async () => {
    const before = await nonce();
    const started = Date.now();
    const [r] = await run(solid('Pusher', PUSHER, { n: 1_000_000 }));
    expect(r.status).toBe('Failure');
    expect(r.txResult.message).toBe(limitMessage('maxStateBytes', DEFAULT_LIMITS));
    expect(await readBack(r.hash)).toEqual(r);
    expect(await nonce()).toBe(before + 1);
    expect(Date.now() - started).toBeLessThan(30_000);
    // 2^18 elements: over the limit too, as cleanly
    const [quarter] = await run(solid('Pusher', PUSHER, { n: 2 ** 18 }));
    expect([quarter.status, quarter.txResult.message]).toEqual(['Failure', limitMessage('maxStateBytes', DEFAULT_LIMITS)]);
    await expectChainMoves();
    await expectReady();
  },
  TX_MS,
);

test(
  'a constructor pushing 2^14 elements succeeds and its result and its contract read back whole',
  async () => {
    const [r] = await run(solid('Pusher', PUSHER, { n: 16384 }));
    expect(r.status).toBe('Success');
    const back = await readBack(r.hash);
    expect(back).toEqual(r);
    const diff = JSON.parse(back.txResult.stateDiff) as Record<string, Record<string, unknown>>;
    const paths = Object.values(diff)[0];
    expect(paths['.items.length']).toBe('16384');
    expect(paths['.items[16383]']).toBe('16383');
    const contract = r.data.contents.address;
    // indexing follows asynchronously; an array's elements are rows of its side table
    for (let i = 0; ; i++) {
      const row = await api(node, 'GET', `/cirrus/search/Acme-Pusher-items?address=eq.${contract}&select=index,value&order=index.desc&limit=1`, token);
      if (row.status === 200 && row.body.length === 1) {
        expect(row.body).toEqual([{ index: 16383, value: 16383 }]);
        break;
      }
      if (i > 200) throw new Error(`cirrus did not index the Pusher: ${JSON.stringify(row.body).slice(0, 300)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  },
  TX_MS,
);

const NEAR = `
contract Near {
  event Hit(uint i);
  event Blob(string s);
  string public text;
  constructor() {}
  function grow(uint n) internal pure returns (string memory s) { s = "0123456789abcdef"; while (bytes(s).length * 2 <= n) s = string.concat(s, s); }
  function store(uint n, string tag) public { text = string.concat(tag, grow(n)); }
  function hits(uint n) public { for (uint i = 0; i < n; i++) emit Hit(i); }
  function blob(uint n) public { emit Blob(grow(n)); }
  function give(uint n) public returns (string memory) { return grow(n); }
  function escaped(uint n, string unit) public returns (string memory s) { s = unit; while (bytes(s).length * 2 <= n) s = string.concat(s, s); text = s; }
  function nulls(uint n) public { text = new string(n); }
  function fill(uint n, string unit) public { string memory s = unit; while (bytes(s).length * 2 <= n) s = string.concat(s, s); text = s; }
}`;

test(
  'results near each limit read back whole, and a block whose results exceed a bus message travels in parts',
  async () => {
    const [made] = await run(solid('Near', NEAR));
    expect(made.status).toBe('Success');
    const near = made.data.contents.address;
    const half = DEFAULT_LIMITS.maxStateBytes / 2;
    // one block (one request): eight transactions each writing half a megabyte (a result of 1 MB each, the
    // value in the diff and in the contract's state), the events and return data near their limits
    const results = await run(
      // (each a different text: writing the value already there changes nothing)
      ...Array.from({ length: 8 }, (_, i) => call(near, 'store', { n: half, tag: `#${i}` })),
      call(near, 'hits', { n: DEFAULT_LIMITS.maxEvents }),
      call(near, 'blob', { n: DEFAULT_LIMITS.maxEventBytes / 2 }),
      call(near, 'give', { n: DEFAULT_LIMITS.maxReturnBytes / 2 }),
    );
    expect(results.map((r) => [r.status, r.txResult.message])).toEqual(results.map(() => ['Success', 'Success!']));
    for (const r of results) expect(await readBack(r.hash)).toEqual(r);
    // the block's results were larger than a bus message: they went in parts
    // (the service's log reaches the launcher a moment later than its results reach the client)
    expect(new Set(results.map((r) => r.txResult.blockHash)).size).toBe(1);
    for (let i = 0; !node.logs.some((line) => line.startsWith('block |') && line.includes('published in parts')); i++) {
      if (i > 50) throw new Error('the block service did not say it published a result in parts');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(results[10].data.contents[0]).toHaveLength(DEFAULT_LIMITS.maxReturnBytes / 2);
    // the largest results a transaction can make: state and return value near their limits, of characters
    // JSON escapes (2 and 6 bytes; the response counts escaped), each several times in the result
    for (const [unit, n] of [['"', 2 ** 18], ['\u0001', 2 ** 17]] as const) {
      const [big] = await run(call(near, 'escaped', { n, unit }));
      expect([unit, big.status, big.txResult.message]).toEqual([unit, 'Success', 'Success!']);
      expect(big.data.contents[0]).toHaveLength(n);
      expect(await readBack(big.hash)).toEqual(big);
    }
    {
      const [big] = await run(call(near, 'nulls', { n: DEFAULT_LIMITS.maxStateBytes - 100 }));
      expect([big.status, big.txResult.message]).toEqual(['Success', 'Success!']);
      expect(await readBack(big.hash)).toEqual(big);
    }
    // just past them: clean failures
    const past = await run(call(near, 'hits', { n: DEFAULT_LIMITS.maxEvents + 1 }), call(near, 'store', { n: 2 * DEFAULT_LIMITS.maxStateBytes, tag: '' }), call(near, 'give', { n: 2 * DEFAULT_LIMITS.maxReturnBytes }));
    expect(past.map((r) => r.txResult.message)).toEqual([
      limitMessage('maxEvents', DEFAULT_LIMITS),
      limitMessage('maxStateBytes', DEFAULT_LIMITS),
      limitMessage('maxReturnBytes', DEFAULT_LIMITS),
    ]);
    await expectChainMoves();
    await expectReady();
  },
  TX_MS,
);

const DOUBLING_SOLIDVM = 'contract Doubling { function strings() public returns (uint) { string memory s = "ab"; while (true) s = string.concat(s, s); return 0; } }';
const DOUBLING_EVM = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;
${DOUBLING_SOLIDVM.replace('public returns', 'public pure returns')}`;

test(
  'a string doubling loop fails at the VM memory limit with the same message on the EVM and SolidVM',
  async () => {
    const [onSolid] = await run(solid('Doubling', DOUBLING_SOLIDVM));
    const [onEvm] = await run({ type: 'CONTRACT', payload: { contract: 'Doubling', src: DOUBLING_EVM } });
    expect([onSolid.status, onEvm.status]).toEqual(['Success', 'Success']);
    const [a, b] = await run(call(onSolid.data.contents.address, 'strings'), call(onEvm.data.contents.address, 'strings', {}, 'EVM'));
    expect(a.status).toBe('Failure');
    expect(b.status).toBe('Failure');
    expect(a.txResult.message).toBe(limitMessage('maxMemoryBytes', DEFAULT_LIMITS));
    expect(b.txResult.message).toBe(a.txResult.message);
  },
  TX_MS,
);

/** A contract with a random large effect: array pushes, a doubled string stored or returned, events. */
const effect = fc.record({
  pushes: fc.integer({ min: 0, max: 20 }).map((e) => (e === 0 ? 0 : 2 ** e)),
  doublings: fc.integer({ min: 0, max: 24 }),
  events: fc.integer({ min: 0, max: 1500 }),
  store: fc.boolean(),
  give: fc.boolean(),
  vm: fc.constantFrom('SolidVM', 'EVM'),
});
type Effect = typeof effect extends fc.Arbitrary<infer T> ? T : never;

function contractOf(e: Effect, i: number): string {
  return `${e.vm === 'EVM' ? '// SPDX-License-Identifier: MIT\npragma solidity ^0.8.0;\n' : ''}contract Effect${i} {
  uint[] public items;
  string public text;
  event Hit(uint i);
  constructor() {
    for (uint i = 0; i < ${e.pushes}; i++) items.push(i);
    for (uint i = 0; i < ${e.events}; i++) emit Hit(i);
  }
  function run() public returns (string memory s) {
    s = "0123456789abcdef";
    for (uint i = 0; i < ${e.doublings}; i++) s = string.concat(s, s);
    ${e.store ? 'text = s;' : ''}
    ${e.give ? '' : 's = "";'}
  }
}`;
}

test(
  'random large-effect contracts on both VMs never stop the chain: each resolves, Success or a limit, and the chain moves on',
  async () => {
    const limits = new Set(['Success!', ...(['maxStateBytes', 'maxEvents', 'maxEventBytes', 'maxReturnBytes', 'maxMemoryBytes'] as const).map((l) => limitMessage(l, DEFAULT_LIMITS))]);
    // with gas disabled the EVM runs 30,000,000 gas: a large effect may run out of it first, as cleanly
    const allowed = { has: (message: string) => limits.has(message) || message.startsWith('out of gas') };
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(effect, { minLength: 1, maxLength: 3 }), async (effects) => {
        const ids = effects.map(() => n++);
        const created = await run(
          ...effects.map((e, i) => (e.vm === 'SolidVM' ? solid(`Effect${ids[i]}`, contractOf(e, ids[i])) : ({ type: 'CONTRACT', payload: { contract: `Effect${ids[i]}`, src: contractOf(e, ids[i]) } } as Tx))),
        );
        for (const r of created) expect([r.txResult.message, allowed.has(r.txResult.message)]).toEqual([r.txResult.message, true]);
        const calls = created.flatMap((r, i) => (r.status === 'Success' ? [call(r.data.contents.address, 'run', {}, effects[i].vm)] : []));
        const ran = calls.length > 0 ? await run(...calls) : [];
        for (const r of ran) {
          expect([r.txResult.message, allowed.has(r.txResult.message)]).toEqual([r.txResult.message, true]);
          expect(await readBack(r.hash)).toEqual(r);
        }
        await expectChainMoves();
      }),
      { numRuns: 12, seed: 17 },
    );
    await expectReady();
  },
  4 * TX_MS,
);
