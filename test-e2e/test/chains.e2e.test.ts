// Private chains end to end (issue "Private chains", "Done when"): a user of
// org A creates a chain with members A and B under an AutoApprove governance
// contract; A and B upload and call contracts on it and query them in cirrus
// with chainId=eq.<id>; a user of org C sees none of it on any endpoint (404,
// as for a chain that does not exist) but may send to it and read its own
// result; adding C through governance lets C in; removing B shuts B out.
import { AUTO_APPROVE_SOURCE } from '@platform/chains';
import { api, devToken, startTestNode, type TestNode } from './harness.js';

const NODE_START_MS = 180_000;

const AUTO_APPROVE = AUTO_APPROVE_SOURCE;

const LEDGER = `
contract Ledger {
  string public note;
  uint public total;
  string public lastBy;
  event Noted(string note, uint amount);
  constructor(string _note) { note = _note; lastBy = tx.organization; }
  function add(string _note, uint amount) { note = _note; total += amount; lastBy = tx.organization + "/" + tx.username; emit Noted(_note, amount); }
}`;

const GOVERNANCE = '0000000000000000000000000000000000000100';

describe('private chains on a node', () => {
  let node: TestNode;
  const tokens: Record<string, string> = {};
  let chain: string;
  let ledger: string;
  let aliceUpload: string;
  let carolCall: string;

  beforeAll(async () => {
    node = await startTestNode();
    for (const [user, org] of [['alice', 'A'], ['bob', 'B'], ['carol', 'C']]) {
      tokens[user] = await devToken(node, user, org);
      expect((await api(node, 'POST', '/platform/v2.3/key', tokens[user])).status).toBe(200);
    }
  }, NODE_START_MS);
  afterAll(async () => {
    await node?.destroy();
  });

  const get = (user: string, path: string) => api(node, 'GET', path, tokens[user]);
  const send = async (user: string, txs: unknown[], query = '') => {
    const res = await api(node, 'POST', `/platform/v2.3/transaction?resolve=true${query}`, tokens[user], { txs });
    expect(res.status).toBe(200);
    return res.body as any[];
  };
  const fn = (contractAddress: string, method: string, args: unknown, extra: Record<string, unknown> = {}) => ({
    type: 'FUNCTION',
    payload: { contractAddress, method, args, metadata: { VM: 'SolidVM' }, ...extra },
  });
  /** polled: membership and indexing follow execution asynchronously */
  const eventually = async <T>(read: () => Promise<T>, ok: (v: T) => boolean): Promise<T> => {
    for (let i = 0; ; i++) {
      const v = await read();
      if (ok(v) || i === 150) return v;
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  /** every endpoint that could show the chain's data, as `user` sees it */
  const everything = async (user: string) => ({
    record: (await get(user, `/bloc/v2.2/chain/${chain}`)).status,
    listed: (await get(user, `/platform-api/eth/v1.2/chain?chainid=${chain}`)).body.length,
    paged: (await get(user, '/bloc/v2.2/chain?limit=100')).body.some((c: { id: string }) => c.id === chain),
    account: (await get(user, `/platform-api/eth/v1.2/account?address=${ledger}&chainid=${chain}`)).status,
    governance: (await get(user, `/platform-api/eth/v1.2/account?address=${GOVERNANCE}&chainid=${chain}`)).status,
    rows: (await get(user, `/cirrus/search/Ledger?chainId=eq.${chain}`)).status,
    history: (await get(user, `/cirrus/search/history@Ledger?chainId=eq.${chain}`)).status,
    events: (await get(user, `/cirrus/search/Ledger.Noted?chainId=eq.${chain}`)).status,
    result: (await get(user, `/bloc/v2.2/transactions/${aliceUpload}/result`)).status,
    results: (await api(node, 'POST', '/bloc/v2.2/transactions/results', tokens[user], [aliceUpload])).status,
  });
  const seesAll = { record: 200, listed: 1, paged: true, account: 200, governance: 200, rows: 200, history: 200, events: 200, result: 200, results: 200 };
  const seesNothing = { record: 404, listed: 0, paged: false, account: 404, governance: 404, rows: 404, history: 404, events: 404, result: 404, results: 404 };

  test('org A creates the chain with members A and B; its ID is a JSON string; creation errors are clear 4xx', async () => {
    const created = await api(node, 'POST', '/bloc/v2.2/chain', tokens.alice, {
      label: 'A and B',
      contract: 'AutoApprove',
      src: AUTO_APPROVE,
      args: {},
      members: [{ orgName: 'B', access: true }],
      balances: [],
      metadata: { VM: 'SolidVM' },
    });
    expect(created.status).toBe(200);
    expect(created.headers.get('content-type')).toContain('application/json');
    chain = created.body;
    expect(chain).toMatch(/^[0-9a-f]{64}$/);

    const noConstructor = await api(node, 'POST', '/bloc/v2.2/chain', tokens.alice, { label: 'x', contract: 'G', src: 'contract G { function f() {} }', args: {}, members: [], metadata: { VM: 'SolidVM' } });
    expect(noConstructor.status).toBe(422);
    expect(noConstructor.body.error).toMatchObject({ code: 'GOVERNANCE_NO_CONSTRUCTOR', requestId: expect.any(String) });
    const failing = await api(node, 'POST', '/bloc/v2.2/chain', tokens.alice, { label: 'x', contract: 'G', src: 'contract G { constructor() { require(1 == 2, "never"); } }', args: {}, metadata: { VM: 'SolidVM' } });
    expect(failing.status).toBe(422);
    expect(failing.body.error.message).toContain('never');
    const orphan = await api(node, 'POST', '/bloc/v2.2/chain', tokens.alice, { label: 'x', contract: 'AutoApprove', src: AUTO_APPROVE, args: {}, parentChain: 'ab'.repeat(32) });
    expect(orphan.status).toBe(404);
    const keyless = await api(node, 'POST', '/bloc/v2.2/chain', await devToken(node, 'nokey', 'A'), { label: 'x', contract: 'AutoApprove', src: AUTO_APPROVE, args: {} });
    expect(keyless.status).toBe(403);
    expect(keyless.body.error.message).toContain('vault');
  });

  test('A and B upload and call contracts on it and query them in cirrus with chainId=eq.<id>', async () => {
    const [upload] = await send('alice', [{ type: 'CONTRACT', payload: { contract: 'Ledger', src: LEDGER, args: { _note: 'opened' }, metadata: { VM: 'SolidVM' } } }], `&chainid=${chain}`);
    expect(upload).toMatchObject({ status: 'Success', txResult: { chainId: chain }, data: { tag: 'Upload', contents: { chainId: chain } } });
    aliceUpload = upload.hash;
    ledger = upload.data.contents.address;
    // the payload's chainid does as well as the query parameter; nonces are the chain's own
    const [call] = await send('bob', [fn(ledger, 'add', { _note: 'from B', amount: 5 }, { chainid: chain })]);
    expect(call).toMatchObject({ status: 'Success', txResult: { chainId: chain } });

    for (const user of ['alice', 'bob']) {
      const rows = await eventually(() => get(user, `/cirrus/search/Ledger?chainId=eq.${chain}&select=address,chainId,note,total`), (r) => r.status === 200 && r.body[0]?.total === 5);
      expect(rows.body).toEqual([{ address: ledger, chainId: chain, note: 'from B', total: 5 }]);
      expect((await get(user, `/cirrus/search/Ledger.Noted?chainId=eq.${chain}&select=note,amount`)).body).toEqual([{ note: 'from B', amount: '5' }]);
      // the senders' certificates (the main chain's registry) reach a private chain's contracts through its blocks,
      // and the uploader's organization names the table
      expect((await get(user, `/cirrus/search/A-Ledger?chainId=eq.${chain}&select=lastBy`)).body).toEqual([{ lastBy: 'B/bob' }]);
      expect((await get(user, `/cirrus/search/history@A-Ledger?chainId=eq.${chain}&select=lastBy&order=block_number.asc`)).body).toEqual([{ lastBy: 'A' }, { lastBy: 'B/bob' }]);
      expect(await everything(user)).toEqual(seesAll);
    }
    // the contract is on the chain, not on the main chain: the (address, chain) pair decides
    const [wrongChain] = await send('alice', [fn(ledger, 'add', { _note: 'x', amount: 1 })]);
    expect(wrongChain.status).toBe('Failure');
    expect(wrongChain.txResult.message).toBe(`no contract at address ${ledger} on the main chain`);
    const unknownChain = await api(node, 'POST', `/platform/v2.3/transaction?chainid=${'cd'.repeat(32)}`, tokens.alice, { txs: [fn(ledger, 'add', { _note: 'x', amount: 1 })] });
    expect(unknownChain.status).toBe(404);
    expect(unknownChain.body.error).toMatchObject({ code: 'CHAIN_NOT_FOUND', details: { field: 'chainid' } });
  });

  test('a user of org C sees none of it anywhere, but may send to the chain and read its own result', async () => {
    expect(await everything('carol')).toEqual(seesNothing);
    expect((await get('carol', '/platform-api/eth/v1.2/chain')).body).toEqual([]);
    const [mine] = await send('carol', [fn(ledger, 'add', { _note: 'from C', amount: 1 })], `&chainid=${chain}`);
    expect(mine.status).toBe('Success');
    carolCall = mine.hash;
    expect((await get('carol', `/bloc/v2.2/transactions/${carolCall}/result`)).status).toBe(200);
    // the chain's data is still not hers
    expect(await everything('carol')).toEqual(seesNothing);
  });

  test('adding C through governance lets C in; removing B shuts B out', async () => {
    const [added] = await send('bob', [fn(GOVERNANCE, 'addOrg', { _orgName: 'C' }, { chainid: chain })]);
    expect(added.status).toBe('Success');
    expect(await eventually(() => everything('carol'), (v) => v.record === 200)).toEqual(seesAll);
    const record = (await get('carol', `/bloc/v2.2/chain/${chain}`)).body;
    expect(record).toMatchObject({ id: chain, info: { label: 'A and B', parentChain: null, members: expect.arrayContaining([{ orgName: 'B', access: true }, { orgName: 'C', access: true }]) } });
    expect((await get('carol', `/cirrus/search/Ledger?chainId=eq.${chain}&select=total`)).body).toEqual([{ total: 6 }]);

    const [removed] = await send('alice', [fn(GOVERNANCE, 'removeOrg', { _orgName: 'B' }, { chainid: chain })]);
    expect(removed.status).toBe('Success');
    expect(await eventually(() => everything('bob'), (v) => v.record === 404)).toEqual(seesNothing);
    expect(await everything('alice')).toEqual(seesAll);
  });
});
