// Transactions through the REST interface of a whole node: uploads and calls
// signed by the vault, in both VMs, results with resolve, and a raw
// transaction signed by ethers with a key the vault never held.
import { SigningKey, Wallet, encodeRlp, keccak256, toBeArray, hexlify, toUtf8Bytes, getCreateAddress } from 'ethers';
import { api, devToken, startTestNode, type TestNode } from './harness.js';

const NODE_START_MS = 180_000;

const COUNTER = `
contract Counter {
  uint public count;
  string public label;
  event Bumped(address by, uint to);
  constructor(uint start, string _label) { count = start; label = _label; }
  function bump(uint by) returns (uint) {
    require(by > 0, "by must be positive");
    count += by;
    emit Bumped(msg.sender, count);
    return count;
  }
}`;

const EVM_STORE = `
// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;
contract Store {
  uint256 public value;
  function set(uint256 v) public returns (uint256) { value = v; return v * 2; }
}`;

/** The platform's signing bytes (docs/conventions.md "Raw transactions: the signed bytes"), built with ethers only. */
function signRaw(key: SigningKey, fields: { nonce: number; to: string | null; initOrData: Uint8Array }) {
  const int = (n: number) => (n === 0 ? '0x' : hexlify(toBeArray(n)));
  const hash = keccak256(encodeRlp([int(fields.nonce), int(1), int(100_000_000), fields.to ? `0x${fields.to}` : '0x', int(0), hexlify(fields.initOrData)]));
  const sig = key.sign(hash);
  return { r: sig.r.slice(2), s: sig.s.slice(2), v: sig.v };
}

describe('transactions on a node', () => {
  let node: TestNode;
  let token: string;
  let counter: string;

  beforeAll(async () => {
    // the raw transaction below comes from a wallet without a certificate: identity is identity.e2e's subject
    node = await startTestNode({ IDENTITY_REQUIRED: 'false' });
    token = await devToken(node, 'trent', 'Acme');
    expect((await api(node, 'POST', '/platform/v2.3/key', token)).status).toBe(200);
  }, NODE_START_MS);
  afterAll(async () => node?.destroy(), NODE_START_MS);

  test('a SolidVM upload resolves to Success with the contract address and its xabi', async () => {
    const res = await api(node, 'POST', '/platform/v2.3/transaction?resolve=true', token, {
      txs: [{ type: 'CONTRACT', payload: { contract: 'Counter', src: COUNTER, args: { start: 5, _label: 'first' }, metadata: { VM: 'SolidVM' } } }],
    });
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(1);
    const [result] = res.body;
    expect(result.status).toBe('Success');
    expect(result.txResult.message).toBe('Success!');
    expect(result.data.tag).toBe('Upload');
    counter = result.data.contents.address;
    expect(counter).toMatch(/^[0-9a-f]{40}$/);
    expect(result.data.contents.name).toBe('Counter');
    expect(Object.keys(result.data.contents.xabi.funcs)).toContain('bump');
  });

  test('calls return their values as strings, in request order; a failing require is a Failure with its message', async () => {
    const res = await api(node, 'POST', '/platform/v2.3/transaction?resolve=true', token, {
      txs: [
        { type: 'FUNCTION', payload: { contractAddress: counter, method: 'bump', args: { by: 2 }, metadata: { VM: 'SolidVM' } } },
        { type: 'FUNCTION', payload: { contractAddress: counter, method: 'bump', args: { by: 0 }, metadata: { VM: 'SolidVM' } } },
        { type: 'FUNCTION', payload: { contractAddress: counter, method: 'bump', args: { by: 3 }, metadata: { VM: 'SolidVM' } } },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.map((r: any) => r.status)).toEqual(['Success', 'Failure', 'Success']);
    expect(res.body[0].data).toEqual({ tag: 'Call', contents: ['7'] });
    expect(res.body[1].txResult.message).toMatch(/by must be positive/);
    expect(res.body[2].data.contents).toEqual(['10']);
  });

  test('cirrus indexes the contract: its row, its history and its events, queried with PostgREST filters', async () => {
    // indexing follows execution asynchronously: poll until the index has caught up
    const search = async (path: string, caughtUp: (rows: any[]) => boolean) => {
      for (let i = 0; ; i++) {
        const res = await api(node, 'GET', path, token);
        if ((res.status === 200 && Array.isArray(res.body) && caughtUp(res.body)) || i === 100) return res;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    const row = await search(`/cirrus/search/Counter?address=eq.${counter}&select=address,count,label`, (rows) => rows[0]?.count === 10);
    expect(row.status).toBe(200);
    expect(row.body).toEqual([{ address: counter, count: 10, label: 'first' }]);
    const history = await search(`/cirrus/search/history@Counter?address=eq.${counter}&select=count&order=block_number.asc`, (rows) => rows.length >= 3);
    expect(history.body.map((h: { count: number }) => h.count)).toEqual([5, 7, 10]);
    const events = await search(`/cirrus/search/Counter.Bumped?address=eq.${counter}&select=to&order=id.asc`, (rows) => rows.length >= 2);
    expect(events.body).toEqual([{ to: '7' }, { to: '10' }]);
    const bad = await api(node, 'GET', '/cirrus/search/Counter?count=gt.abc', token);
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).not.toMatch(/select|from|where/i);
    expect((await api(node, 'GET', '/cirrus/search/NoSuchContract', token)).status).toBe(404);
  });

  test('without resolve the answer is Pending at once, and the results endpoints follow it to Success', async () => {
    const res = await api(node, 'POST', '/platform/v2.3/transaction', token, {
      txs: [{ type: 'FUNCTION', payload: { contractAddress: counter, method: 'bump', args: { by: 1 }, metadata: { VM: 'SolidVM' } } }],
    });
    expect(res.body[0]).toMatchObject({ status: 'Pending', txResult: null, data: null });
    const hash = res.body[0].hash;
    const resolved = await api(node, 'POST', '/bloc/v2.2/transactions/results?resolve=true', token, [hash]);
    expect(resolved.body[0].status).toBe('Success');
    const one = await api(node, 'GET', `/bloc/v2.2/transactions/${hash}/result`, token);
    expect(one.body).toEqual(resolved.body[0]);
    const unknown = await api(node, 'POST', '/bloc/v2.2/transactions/results', token, ['ab'.repeat(32)]);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.details.unknown).toEqual(['ab'.repeat(32)]);
  });

  test('an EVM contract compiles, deploys and answers a call', async () => {
    const up = await api(node, 'POST', '/platform/v2.3/transaction?resolve=true', token, { txs: [{ type: 'CONTRACT', payload: { contract: 'Store', src: EVM_STORE } }] });
    expect(up.body[0].status).toBe('Success');
    expect(up.body[0].data.contents.bin).toMatch(/^[0-9a-f]{20,}$/);
    expect(up.body[0].data.contents['bin-runtime']).toMatch(/^[0-9a-f]{20,}$/);
    expect(up.body[0].data.contents.bin).toContain(up.body[0].data.contents['bin-runtime']);
    const address = up.body[0].data.contents.address;
    const call = await api(node, 'POST', '/platform/v2.3/transaction?resolve=true', token, {
      txs: [{ type: 'FUNCTION', payload: { contractAddress: address, method: 'set', args: { v: 21 } } }],
    });
    expect(call.body[0].status).toBe('Success');
    expect(call.body[0].data.contents).toEqual(['42']);
  });

  test('a raw SolidVM upload signed by ethers with its own key is admitted and executed', async () => {
    const wallet = Wallet.createRandom();
    const src = 'contract Note { string public text; constructor() { text = "hi"; } }';
    const { r, s, v } = signRaw(wallet.signingKey, { nonce: 0, to: null, initOrData: toUtf8Bytes(src) });
    const res = await api(node, 'POST', '/bloc/v2.2/transaction/raw?resolve=true', token, {
      nonce: 0,
      gasPrice: 1,
      gasLimit: 100_000_000,
      value: 0,
      to: null,
      initOrData: hexlify(toUtf8Bytes(src)).slice(2),
      r,
      s,
      v,
      metadata: { VM: 'SolidVM', name: 'Note' },
    });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('Success');
    expect(res.body.data).toBeNull();
    expect(res.body.txResult.contractsCreated).toBe(getCreateAddress({ from: wallet.address, nonce: 0 }).slice(2).toLowerCase());
    const replay = await api(node, 'POST', '/platform/v2.3/transaction/raw', token, { nonce: 5, gasPrice: 1, gasLimit: 100_000_000, value: 0, initOrData: '', r, s, v });
    expect(replay.status).toBeGreaterThanOrEqual(400);
    expect(replay.status).toBeLessThan(500);
  });

  test('the faucet answers the zero-hash Success while gas is disabled', async () => {
    const { body } = await api(node, 'GET', '/platform/v2.3/key', token);
    const res = await api(node, 'POST', `/bloc/v2.2/users/user/${body.address}/fill?resolve=true`, token);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'Success', hash: '0'.repeat(64), txResult: null, data: null });
  });

  test('malformed transaction bodies are 400 naming the problem, never 500', async () => {
    for (const body of [{}, { txs: [] }, { txs: [{ type: 'NOPE', payload: {} }] }, { txs: [{ type: 'FUNCTION', payload: { method: 'x' } }] }, 'not json']) {
      const res = await api(node, 'POST', '/platform/v2.3/transaction', token, body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toEqual(expect.any(String));
    }
  });
});
