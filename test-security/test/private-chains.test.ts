// Private chains against a non-member who knows a chain's ID (issue 17;
// docs/private-chains.md). On a default chain the spec lets anyone send
// transactions, and the non-member's own results are its own; nothing else of
// the chain reaches it on any read endpoint, nor over the bus's read subjects
// when a caller leaves out the user. On a members-only chain the non-member's
// transactions are refused exactly as those to a chain that does not exist,
// on every submit path, so the chain's existence does not leak either.
import { Wallet, hexlify, type BaseWallet } from 'ethers';
import { BLOCK, CHAINS, CIRRUS, TX, call, connectBus, type NatsConnection } from '@platform/bus';
import { refusal } from '@platform/common/testing';
import { signingHash } from '@platform/crypto';
import { api, devToken, startTestNode, type TestNode } from '../../test-e2e/test/harness.js';

const NODE_START_MS = 180_000;

const AUTO_APPROVE = `contract AutoApprove {
  event OrgAdded(string orgName);
  constructor() {}
  function addOrg(string _orgName) public { emit OrgAdded(_orgName); }
}`;
const LEDGER = `contract Ledger {
  uint public total;
  event Added(uint amount);
  constructor() {}
  function add(uint amount) returns (uint) { total += amount; emit Added(amount); return total; }
}`;
const GOVERNANCE = '0000000000000000000000000000000000000100';
const UNKNOWN_CHAIN = 'cd'.repeat(32);

let node: TestNode;
let bus: NatsConnection;
const tokens: Record<string, string> = {};
/** a default chain and a members-only one, both of A (alice) with member B (bob); carol (C) is of neither */
let open: string;
let strict: string;
let ledger: string;
let aliceUpload: string;

const get = (user: string, path: string) => api(node, 'GET', path, tokens[user]);
const upload = { type: 'CONTRACT', payload: { contract: 'Ledger', src: LEDGER, args: {}, metadata: { VM: 'SolidVM' } } };
const add = (contractAddress: string, amount: number) => ({ type: 'FUNCTION', payload: { contractAddress, method: 'add', args: { amount }, metadata: { VM: 'SolidVM' } } });

async function send(user: string, txs: unknown[], chainId: string): Promise<any[]> {
  const res = await api(node, 'POST', `/platform/v2.3/transaction?resolve=true&chainid=${chainId}`, tokens[user], { txs });
  if (res.status !== 200) throw new Error(`${res.status} ${JSON.stringify(res.body).slice(0, 500)}`);
  return res.body;
}

async function createChain(membersOnly: boolean): Promise<string> {
  const res = await api(node, 'POST', '/bloc/v2.2/chain', tokens.alice, {
    label: membersOnly ? 'members only' : 'default',
    contract: 'AutoApprove',
    src: AUTO_APPROVE,
    args: {},
    members: [{ orgName: 'B', access: true }],
    metadata: { VM: 'SolidVM', ...(membersOnly ? { membersOnly: true } : {}) },
  });
  if (res.status !== 200) throw new Error(`${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** A raw transaction on `chainId` signed by `wallet` (the platform form: the chain ID is the seventh item). */
function raw(wallet: BaseWallet, chainId: string, nonce = 0): Record<string, unknown> {
  const fields = { nonce: BigInt(nonce), gasPrice: 1n, gasLimit: 1_000_000n, to: GOVERNANCE, value: 0n, initOrData: new Uint8Array(), chainId };
  const sig = wallet.signingKey.sign(hexlify(signingHash(fields)));
  // adds B, a member already: a call that changes nothing
  return { nonce, gasPrice: 1, gasLimit: 1_000_000, to: GOVERNANCE, value: 0, initOrData: '', chainId, metadata: { VM: 'SolidVM', funcName: 'addOrg', args: '{"_orgName":"B"}' }, r: sig.r, s: sig.s, v: sig.v };
}

/** A refusal with what names the chain taken out, so that two chains' refusals can be compared whole. */
function shape(res: { status: number; body: any }, chainId: string): unknown {
  const { requestId, ...error } = res.body?.error ?? {};
  return { status: res.status, error: JSON.parse(JSON.stringify(error).replaceAll(chainId, '<chain>')), requestId: typeof requestId };
}

beforeAll(async () => {
  // raw transactions from keys without a certificate: the chain check, not the identity check, is under test
  node = await startTestNode({ IDENTITY_REQUIRED: 'false' });
  for (const [user, org] of [['alice', 'A'], ['bob', 'B'], ['carol', 'C']]) {
    tokens[user] = await devToken(node, user, org);
    expect((await api(node, 'POST', '/platform/v2.3/key', tokens[user])).status).toBe(200);
  }
  [open, strict] = [await createChain(false), await createChain(true)];
  const [uploaded] = await send('alice', [upload], open);
  expect(uploaded.status).toBe('Success');
  aliceUpload = uploaded.hash;
  ledger = uploaded.data.contents.address;
  expect((await send('bob', [add(ledger, 5)], open))[0].status).toBe('Success');
  // the bus as the gateway's user sees it: the subjects the gateway may call
  bus = await connectBus({ url: node.natsUrl, name: 'security-probe', credentials: node.busCredentials('gateway') });
}, NODE_START_MS);
afterAll(async () => {
  await bus?.close();
  await node?.destroy();
}, NODE_START_MS);

describe('a members-only chain', () => {
  test('the option is recorded: the chain record says so, a default chain\'s says not', async () => {
    expect((await get('bob', `/bloc/v2.2/chain/${strict}`)).body.info).toMatchObject({ membersOnly: true });
    expect((await get('bob', `/bloc/v2.2/chain/${open}`)).body.info).toMatchObject({ membersOnly: false });
  });

  test('a non-member\'s vault-signed transactions are refused exactly like a transaction to a chain that does not exist', async () => {
    const attempt = async (chainId: string, where: 'query' | 'payload') => {
      const item = { ...add(GOVERNANCE, 1), payload: { ...add(GOVERNANCE, 1).payload, ...(where === 'payload' ? { chainid: chainId } : {}) } };
      return shape(await api(node, 'POST', `/platform/v2.3/transaction${where === 'query' ? `?chainid=${chainId}` : ''}`, tokens.carol, { txs: [item] }), chainId);
    };
    for (const where of ['query', 'payload'] as const) {
      const unknown = await attempt(UNKNOWN_CHAIN, where);
      expect(unknown).toMatchObject({ status: 404, error: { code: 'CHAIN_NOT_FOUND' } });
      expect(await attempt(strict, where)).toEqual(unknown);
    }
  });

  test('a non-member\'s raw transactions are refused exactly like a transaction to a chain that does not exist, on both raw paths and when batched', async () => {
    const wallet = Wallet.createRandom();
    const attempt = async (chainId: string, path: string, inQuery: boolean) =>
      shape(await api(node, 'POST', `${path}${inQuery ? `?chainid=${chainId}` : ''}`, tokens.carol, raw(wallet, chainId)), chainId);
    for (const path of ['/platform/v2.3/transaction/raw', '/bloc/v2.2/transaction/raw']) {
      for (const inQuery of [true, false]) {
        const unknown = await attempt(UNKNOWN_CHAIN, path, inQuery);
        expect(unknown).toMatchObject({ status: 404, error: { code: 'CHAIN_NOT_FOUND', details: { field: 'chainId' } } });
        expect(await attempt(strict, path, inQuery)).toEqual(unknown);
      }
    }
    // many at once: the gateway sends them to the transaction service together, on the batch subject
    const wallets = Array.from({ length: 8 }, () => Wallet.createRandom());
    const answers = await Promise.all(wallets.map((w, i) => api(node, 'POST', '/platform/v2.3/transaction/raw', tokens.carol, raw(w, i % 2 ? strict : UNKNOWN_CHAIN))));
    const shapes = answers.map((res, i) => shape(res, i % 2 ? strict : UNKNOWN_CHAIN));
    for (const s of shapes) expect(s).toEqual(shapes[0]);
    expect(shapes[0]).toMatchObject({ status: 404 });
  });

  test('a member still transacts, vault-signed and raw; to the non-member the chain stays unseen', async () => {
    const [deployed] = await send('bob', [upload], strict);
    expect(deployed).toMatchObject({ status: 'Success', txResult: { chainId: strict } });
    const res = await api(node, 'POST', `/platform/v2.3/transaction/raw?resolve=true&chainid=${strict}`, tokens.bob, raw(Wallet.createRandom(), strict));
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('Success');
    expect((await get('carol', `/bloc/v2.2/chain/${strict}`)).status).toBe(404);
    expect((await get('carol', `/bloc/v2.2/transactions/${deployed.hash}/result`)).status).toBe(404);
  });
});

describe('a default chain', () => {
  test('a non-member who knows its ID may still transact (the spec\'s default) and reads its own result', async () => {
    const [mine] = await send('carol', [add(ledger, 1)], open);
    // what a contract answers its caller is the caller's: contracts must guard their functions
    expect(mine).toMatchObject({ status: 'Success', data: { tag: 'Call', contents: ['6'] } });
    expect((await get('carol', `/bloc/v2.2/transactions/${mine.hash}/result`)).status).toBe(200);
  });

  test('a non-member reads nothing else of it through any read endpoint, given the chain\'s ID, addresses and hashes', async () => {
    // rows of the chain a user gets: a table the user has no rows of at all is a 404 (as one that does not exist)
    const rowsOf = async (user: string, path: string) => {
      const res = await get(user, path);
      if (res.status === 404) return 0;
      if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
      return (res.body as Array<{ chainId?: string }>).filter((r) => r.chainId === undefined || r.chainId === open).length;
    };
    const everything = async (user: string) => ({
      record: (await get(user, `/bloc/v2.2/chain/${open}`)).status,
      listedById: (await get(user, `/platform-api/eth/v1.2/chain?chainid=${open}`)).body.length,
      listed: (await get(user, '/platform-api/eth/v1.2/chain')).body.some((c: { id: string }) => c.id === open),
      paged: (await get(user, '/bloc/v2.2/chain?limit=1000')).body.some((c: { id: string }) => c.id === open),
      account: (await get(user, `/platform-api/eth/v1.2/account?address=${ledger}&chainid=${open}`)).status,
      governance: (await get(user, `/platform-api/eth/v1.2/account?address=${GOVERNANCE}&chainid=0x${open.toUpperCase()}`)).status,
      rows: await rowsOf(user, `/cirrus/search/A-Ledger?chainId=eq.${open}`),
      rowsUnfiltered: await rowsOf(user, '/cirrus/search/A-Ledger?select=chainId'),
      history: await rowsOf(user, `/cirrus/search/history@A-Ledger?chainId=eq.${open}`),
      events: await rowsOf(user, `/cirrus/search/A-Ledger.Added?chainId=eq.${open}`),
      result: (await get(user, `/bloc/v2.2/transactions/${aliceUpload}/result`)).status,
      results: (await api(node, 'POST', '/bloc/v2.2/transactions/results', tokens[user], [aliceUpload])).status,
      resolved: (await api(node, 'POST', '/bloc/v2.2/transactions/results?resolve=true', tokens[user], [aliceUpload])).status,
    });
    // cirrus indexes after execution: wait until the member sees the rows
    for (let i = 0; i < 150 && (await rowsOf('bob', `/cirrus/search/A-Ledger.Added?chainId=eq.${open}`)) < 2; i++) await new Promise((r) => setTimeout(r, 100));
    const member = await everything('bob');
    expect(member).toMatchObject({ record: 200, listedById: 1, listed: true, paged: true, account: 200, governance: 200, rows: 1, events: 2, result: 200, results: 200, resolved: 200 });
    expect(member.history).toBeGreaterThan(0);
    const outsider = await everything('carol');
    expect(outsider).toEqual({ record: 404, listedById: 0, listed: false, paged: false, account: 404, governance: 404, rows: 0, rowsUnfiltered: 0, history: 0, events: 0, result: 404, results: 404, resolved: 404 });
    // the 404s are those of a chain and a hash that do not exist
    expect(shape(await get('carol', `/platform-api/eth/v1.2/account?address=${ledger}&chainid=${open}`), open)).toEqual(
      shape(await get('carol', `/platform-api/eth/v1.2/account?address=${ledger}&chainid=${UNKNOWN_CHAIN}`), UNKNOWN_CHAIN),
    );
    expect(shape(await get('carol', `/bloc/v2.2/chain/${open}`), open)).toEqual(shape(await get('carol', `/bloc/v2.2/chain/${UNKNOWN_CHAIN}`), UNKNOWN_CHAIN));
  });
});

describe('the bus\'s read subjects', () => {

  test('tx.results without a user is refused, not answered unfiltered; with a non-member it hides the chain\'s results', async () => {
    expect(await refusal(call(bus, TX.results, { hashes: [aliceUpload] } as never))).toMatchObject({ code: 'VALIDATION_FAILED', status: 400, details: { field: 'username' } });
    expect(await refusal(call(bus, TX.results, { hashes: [aliceUpload], username: 'carol', organization: 'C' }))).toMatchObject({ code: 'TRANSACTION_NOT_FOUND', details: { unknown: [aliceUpload] } });
    expect(await call(bus, TX.results, { hashes: [aliceUpload], username: 'bob', organization: 'B' })).toHaveLength(1);
    // the node's own path, which the gateway's resolve=true uses, is a subject of its own
    expect(await call(bus, TX.nodeResults, { hashes: [aliceUpload] })).toHaveLength(1);
  });

  test('the other read subjects that could show the chain need the user too, and hide it from a non-member', async () => {
    const anonymous = [
      call(bus, BLOCK.account, { address: ledger, chainId: open } as never),
      call(bus, CIRRUS.search, { table: 'A-Ledger', query: `chainId=eq.${open}` } as never),
      call(bus, CHAINS.list, { chainIds: [open] } as never),
      call(bus, CHAINS.visibleTo, {} as never),
    ];
    for (const attempt of anonymous) expect(await refusal(attempt)).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'username' } });
    const carol = { username: 'carol', organization: 'C' };
    expect(await refusal(call(bus, BLOCK.account, { address: ledger, chainId: open, ...carol }))).toMatchObject({ code: 'CHAIN_NOT_FOUND' });
    // carol has no rows of the table anywhere: it is as unknown to her as a table that does not exist
    expect(await refusal(call(bus, CIRRUS.search, { table: 'A-Ledger', query: `chainId=eq.${open}`, ...carol }))).toMatchObject({ code: 'TABLE_NOT_FOUND' });
    expect(JSON.parse((await call(bus, CIRRUS.search, { table: 'A-Ledger', query: `chainId=eq.${open}&select=total`, username: 'bob', organization: 'B' })).rows)).toEqual([{ total: 6 }]);
    expect(await call(bus, CHAINS.list, { chainIds: [open], ...carol })).toEqual([]);
    expect((await call(bus, CHAINS.visibleTo, carol)).chainIds).not.toContain(open);
  });
});
