// Private chains in the block service over a real NATS: the genesis check the
// chains service asks before creating a chain (explicit constructor, a
// constructor that succeeds, an ID that is the genesis's hash), and chains
// started from the GENESIS stream — at start and while running, again after
// a restart — each with its own blocks, results and account lookup.
import { refusal } from '@platform/common/testing';
import { join } from 'node:path';
import { BLOCK, CHAINS, SUBJECTS, STREAMS, call, decodeJson, encodeJson, handle, serve, type ChainKeyEpoch, type ChainKeyGrant } from '@platform/bus';
import { DEFAULT_NODE_NAME, DEFAULT_PROTOCOL, GOVERNANCE_ADDRESS, PlatformError, type ExecResult, type Genesis } from '@platform/common';
import { bytesToHex, contractAddress, epochOf, hexToBytes, openInEpoch, sealInEpoch, unwrapKey } from '@platform/crypto';
import { keyGrant, sealGenesisFor } from '../src/chain/chain-keys.js';
import { privateChainId } from '../src/chain/private-genesis.js';
import { loadNodeKey } from '../src/node-key.js';
import { Account, COUNTER, Collector, blockFixture, quietLogger, receiptFor, writeGenesis, type BlockFixture } from './helpers.js';

export const AUTO_APPROVE = `
contract AutoApprove {
  address public creator;
  event OrgAdded(string orgName);
  constructor(string _note) { creator = msg.sender; require(_note != "fail", "asked to fail"); }
  function addOrg(string _orgName) public { emit OrgAdded(_orgName); }
}`;

const WHERE = 'contract Where { constructor() {} function chains() public returns (uint, uint) { return (account(msg.sender, "parent").chainId, account(msg.sender, "self").chainId); } }';

const hex = (s: string) => Buffer.from(s, 'utf8').toString('hex');

function privateGenesis(creator: string, src = AUTO_APPROVE, args: Record<string, unknown> = { _note: 'hi' }, name = 'AutoApprove'): Genesis {
  const g: Genesis = {
    format: 1,
    chainId: '',
    label: 'test chain',
    timestamp: Math.floor(Date.now() / 1000),
    parentChain: null,
    nonce: Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('hex'),
    protocol: DEFAULT_PROTOCOL,
    trustedRoots: [],
    accounts: [],
    contracts: [{ address: GOVERNANCE_ADDRESS, name, vm: 'SolidVM', src, args }],
    members: [{ orgName: 'A', access: true }],
    creator,
  };
  return { ...g, chainId: privateChainId(g) };
}

let f: BlockFixture;
beforeEach(async () => {
  f = await blockFixture();
  await f.bus.ensure(STREAMS.geneses);
});
afterEach(async () => {
  await f.stop();
});

async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out; last ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('block-svc.genesis-check', () => {
  test('answers the governance code hash, or why the chain could not start', async () => {
    await f.start();
    const creator = new Account().address;
    expect((await call(f.nc, BLOCK.checkGenesis, privateGenesis(creator))).codeHash).toMatch(/^[0-9a-f]{64}$/);
    expect(await refusal(call(f.nc, BLOCK.checkGenesis, privateGenesis(creator, AUTO_APPROVE, { _note: 'fail' })))).toMatchObject({ code: 'GOVERNANCE_CONSTRUCTOR_FAILED' });
    const noConstructor = 'contract Gov { event OrgAdded(string orgName); function addOrg(string o) public { emit OrgAdded(o); } }';
    expect(await refusal(call(f.nc, BLOCK.checkGenesis, privateGenesis(creator, noConstructor, {}, 'Gov')))).toMatchObject({ code: 'GOVERNANCE_NO_CONSTRUCTOR' });
    const typeError = 'contract Gov { uint x; constructor() { x = "text"; } }';
    expect(await refusal(call(f.nc, BLOCK.checkGenesis, privateGenesis(creator, typeError, {}, 'Gov')))).toMatchObject({ code: 'COMPILE_FAILED' });
    expect(await refusal(call(f.nc, BLOCK.checkGenesis, privateGenesis(creator, AUTO_APPROVE, {}, 'Missing')))).toMatchObject({ code: 'COMPILE_FAILED' });
    const forged = { ...privateGenesis(creator), label: 'changed after hashing' };
    expect(await refusal(call(f.nc, BLOCK.checkGenesis, forged))).toMatchObject({ code: 'GENESIS_INVALID' });
  });
});

describe('chains from the GENESIS stream', () => {
  test('a chain published before the start and one published while running: own blocks, results, lookups; both again after a restart', async () => {
    const alice = new Account();
    const early = privateGenesis(alice.address);
    const earlyKey = await f.publishGenesis(early);
    const service = await f.start();

    // the governance contract was created at block 0 with the creator as msg.sender
    const governance = await call(f.nc, BLOCK.nodeAccount, { address: GOVERNANCE_ADDRESS, chainId: early.chainId });
    expect(governance).toMatchObject({ chainId: early.chainId, contractName: 'AutoApprove', kind: 'SolidVM' });
    expect(await call(f.nc, BLOCK.nodeAccount, { address: GOVERNANCE_ADDRESS })).toBeNull();

    const late = privateGenesis(alice.address);
    await f.publishGenesis(late);
    await until(
      () => call(f.nc, BLOCK.nodeAccount, { address: GOVERNANCE_ADDRESS, chainId: late.chainId }).catch(() => null),
      (a) => a !== null,
    );

    // each chain has its own nonces: the same account starts at 0 on both
    const execs = await Collector.start<ExecResult>(f.bus.node.js, STREAMS.exec.name, SUBJECTS.exec.results(early.chainId));
    const create = alice.tx({ to: null, initOrData: hex(COUNTER), metadata: { VM: 'SolidVM', name: 'Counter', args: '{"start":5}' }, chainId: early.chainId, nonce: 0 });
    const call0 = alice.tx({ to: GOVERNANCE_ADDRESS, metadata: { VM: 'SolidVM', funcName: 'addOrg', args: '{"_orgName":"C"}' }, chainId: early.chainId, nonce: 1 });
    await f.publishPrivate(earlyKey, create);
    await f.publishPrivate(earlyKey, call0);
    const results = await execs.until((e) => receiptFor(e, call0.hash) !== undefined);
    expect(receiptFor(results, create.hash)).toMatchObject({ status: 'Success' });
    expect(receiptFor(results, call0.hash)).toMatchObject({ status: 'Success', events: [expect.objectContaining({ name: 'OrgAdded', address: GOVERNANCE_ADDRESS, chainId: early.chainId, args: [['orgName', 'C']] })] });
    // block 0's receipt: the constructor, sent by the creator
    expect(results[0].block.number).toBe(0);
    expect(results[0].receipts[0]).toMatchObject({ from: alice.address, status: 'Success' });
    execs.stop();
    // SolidVM's account(a, "parent") and "self" on a child of the main chain
    const where = alice.tx({ to: null, initOrData: hex(WHERE), metadata: { VM: 'SolidVM', name: 'Where', args: '{}' }, chainId: early.chainId, nonce: 2 });
    const ask = alice.tx({ to: contractAddress(alice.address, 2n), metadata: { VM: 'SolidVM', funcName: 'chains', args: '{}' }, chainId: early.chainId, nonce: 3 });
    const whereExecs = await Collector.start<ExecResult>(f.bus.node.js, STREAMS.exec.name, SUBJECTS.exec.results(early.chainId));
    for (const tx of [where, ask]) await f.publishPrivate(earlyKey, tx);
    const answered = await whereExecs.until((e) => receiptFor(e, ask.hash) !== undefined);
    whereExecs.stop();
    expect(receiptFor(answered, ask.hash)).toMatchObject({ status: 'Success', returnValues: ['0', BigInt(`0x${early.chainId}`).toString()] });
    const counter = contractAddress(alice.address, 0n);
    expect(await call(f.nc, BLOCK.nodeAccount, { address: counter, chainId: early.chainId })).toMatchObject({ contractName: 'Counter' });
    expect(await call(f.nc, BLOCK.nodeAccount, { address: counter })).toBeNull();
    expect(await call(f.nc, BLOCK.nodeAccount, { address: alice.address, chainId: late.chainId })).toBeNull();

    await service.stop();
    await f.start();
    for (const g of [early, late]) expect(await call(f.nc, BLOCK.nodeAccount, { address: GOVERNANCE_ADDRESS, chainId: g.chainId })).toMatchObject({ contractName: 'AutoApprove' });
    expect(await call(f.nc, BLOCK.nodeAccount, { address: counter, chainId: early.chainId })).toMatchObject({ contractName: 'Counter' });
  });

  test('block-svc.account: a private chain\'s accounts to its members only (others: the 404 of a chain not held), the main chain\'s to any user; no answer without a user', async () => {
    const alice = new Account();
    const chain = privateGenesis(alice.address);
    await f.publishGenesis(chain);
    await f.start();
    // the chains service, played: 'member' sees the chain
    const chains = await serve(f.nc, { name: 'chains', version: '0.0.0', logger: quietLogger() }, [
      handle(CHAINS.visibleTo, ({ username }) => ({ chainIds: username === 'member' ? ['', chain.chainId] : [''] })),
    ]);
    try {
      await until(() => call(f.nc, BLOCK.nodeAccount, { address: GOVERNANCE_ADDRESS, chainId: chain.chainId }).catch(() => null), (a) => a !== null);
      const ask = (username: string, chainId: string) => call(f.nc, BLOCK.account, { address: GOVERNANCE_ADDRESS, chainId, username, organization: null });
      expect(await ask('member', chain.chainId)).toMatchObject({ contractName: 'AutoApprove' });
      const notHeld = 'cd'.repeat(32);
      const shape = (err: PlatformError, id: string) => ({ code: err.code, status: err.status, message: err.message.replace(id, '<chain>'), details: { ...err.details, chainId: '<chain>' } });
      expect(shape(await refusal(ask('other', chain.chainId)), chain.chainId)).toEqual(shape(await refusal(ask('member', notHeld)), notHeld));
      expect(await call(f.nc, BLOCK.account, { address: alice.address, username: 'other', organization: null })).toBeNull();
      expect(await refusal(call(f.nc, BLOCK.account, { address: alice.address } as never))).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'username' } });
    } finally {
      await chains.stop();
    }
  });

  test('a chain sealed for other nodes only is not run here; granted its key later, it starts from block 0; an organization admitted gets the keys for its node, one that leaves leaves a new key behind for the others', async () => {
    const alice = new Account();
    const own = loadNodeKey(join(f.dataDir(), 'block', 'node.key'));
    const node2 = new Account();
    const node3 = new Account();
    const validator = (node: string, organization: string, key: { address: string; publicKey: Uint8Array }) => ({ node, organization, address: key.address, publicKey: bytesToHex(key.publicKey) });
    writeGenesis(f.dataDir(), [], [validator(DEFAULT_NODE_NAME, 'A', own), validator('node2', 'B', node2.key), validator('node3', 'C', node3.key)]);
    const governance = 'contract Gov { event OrgAdded(string orgName); event OrgRemoved(string orgName); constructor() {} function addOrg(string o) public { emit OrgAdded(o); } function removeOrg(string o) public { emit OrgRemoved(o); } }';
    const chain = privateGenesis(alice.address, governance, {}, 'Gov');
    const { sealed, key } = sealGenesisFor(chain, [{ node: 'node2', publicKey: node2.key.publicKey }]);
    await f.js.publish(SUBJECTS.chains.genesis(chain.chainId), encodeJson(sealed), { msgID: chain.chainId });
    await f.start();
    // not this node's: nothing of it is run or answered here
    await new Promise((r) => setTimeout(r, 500));
    expect(await refusal(call(f.nc, BLOCK.nodeAccount, { address: GOVERNANCE_ADDRESS, chainId: chain.chainId }))).toMatchObject({ code: 'CHAIN_NOT_FOUND' });
    expect(await refusal(call(f.nc, BLOCK.chainKey, { chainId: chain.chainId }))).toMatchObject({ code: 'CHAIN_NOT_FOUND' });
    expect(await refusal(call(f.nc, BLOCK.chainGenesis, { chainId: chain.chainId }))).toMatchObject({ code: 'CHAIN_NOT_FOUND' });

    // node2 grants this node the key (its organization joined the chain)
    await f.js.publish(SUBJECTS.chains.genesisKey(chain.chainId, DEFAULT_NODE_NAME), encodeJson(keyGrant(chain.chainId, DEFAULT_NODE_NAME, own.publicKey, new Map([[0, key]]))));
    await until(() => call(f.nc, BLOCK.nodeAccount, { address: GOVERNANCE_ADDRESS, chainId: chain.chainId }).catch(() => null), (a) => a !== null);
    expect(await call(f.nc, BLOCK.chainGenesis, { chainId: chain.chainId })).toEqual(chain);
    const current = await call(f.nc, BLOCK.chainKey, { chainId: chain.chainId });
    expect(current.epoch).toBe(0);
    expect(Buffer.from(hexToBytes(current.key)).equals(Buffer.from(key))).toBe(true);

    // the governance contract admits organization C: its node, node3, gets the key from this node
    const addC = alice.tx({ to: GOVERNANCE_ADDRESS, metadata: { VM: 'SolidVM', funcName: 'addOrg', args: '{"o":"C"}' }, chainId: chain.chainId, nonce: 0 });
    await f.publishPrivate(key, addC);
    const grant = await until(
      () => f.bus.network.jsm.streams.getMessage(STREAMS.geneses.name, { last_by_subj: SUBJECTS.chains.genesisKey(chain.chainId, 'node3') }),
      (m) => m !== null,
    );
    const granted = grant!.json<ChainKeyGrant>();
    expect(granted).toMatchObject({ chainId: chain.chainId, node: 'node3' });
    expect(Buffer.from(unwrapKey(node3.key.privateKey, granted.keys['0']!, `chain-key:${chain.chainId}:node3:0`)).equals(Buffer.from(key))).toBe(true);
    // what this node published of the chain is sealed: its blocks do not parse as JSON without the key
    const lastBlock = () => f.bus.network.jsm.streams.getMessage(STREAMS.blocks.name, { last_by_subj: SUBJECTS.block.ordered(chain.chainId) });
    const block = await lastBlock();
    expect(() => block!.json()).toThrow();
    expect(epochOf(block!.data)).toBe(0);
    expect(decodeJson<{ transactions: Array<{ hash: string }> }>(openInEpoch(key, block!.data, block!.subject)).transactions.map((t) => t.hash)).toEqual([addC.hash]);

    // organization B leaves: from its block on, a new key for node1 and node3 only
    const removeB = alice.tx({ to: GOVERNANCE_ADDRESS, metadata: { VM: 'SolidVM', funcName: 'removeOrg', args: '{"o":"B"}' }, chainId: chain.chainId, nonce: 1 });
    await f.publishPrivate(key, removeB);
    const removedAt = (await until(lastBlock, (m) => m !== null && decodeJson<{ header: { number: number } }>(openInEpoch(key, m.data, m.subject)).header.number >= 2))!;
    const height = decodeJson<{ header: { number: number } }>(openInEpoch(key, removedAt.data, removedAt.subject)).header.number;
    const epochMessage = (await until(() => f.bus.network.jsm.streams.getMessage(STREAMS.geneses.name, { last_by_subj: SUBJECTS.chains.genesisEpoch(chain.chainId, height) }), (m) => m !== null))!.json<ChainKeyEpoch>();
    expect(Object.keys(epochMessage.keys).sort()).toEqual([DEFAULT_NODE_NAME, 'node3']);
    const newKey = unwrapKey(node3.key.privateKey, epochMessage.keys.node3!, `chain-key:${chain.chainId}:node3:${height}`);
    expect(await until(() => call(f.nc, BLOCK.chainKey, { chainId: chain.chainId }), (k) => k.epoch === height)).toMatchObject({ epoch: height, key: bytesToHex(newKey) });
    // what is sealed from then on opens with the new key only: node2's old one no longer reads it
    const after = alice.tx({ to: GOVERNANCE_ADDRESS, metadata: { VM: 'SolidVM', funcName: 'addOrg', args: '{"o":"D"}' }, chainId: chain.chainId, nonce: 2 });
    await f.js.publish(SUBJECTS.tx.admitted(chain.chainId), sealInEpoch(height, newKey, encodeJson(after), SUBJECTS.tx.admitted(chain.chainId)), { msgID: after.hash });
    const next = (await until(lastBlock, (m) => m !== null && epochOf(m.data) === height))!;
    expect(decodeJson<{ transactions: Array<{ hash: string }> }>(openInEpoch(newKey, next.data, next.subject)).transactions.map((t) => t.hash)).toEqual([after.hash]);
    expect(() => openInEpoch(key, next.data, next.subject)).toThrow();
  });

  test('a genesis whose ID is not its hash is skipped; the node runs on', async () => {
    const forged = { ...privateGenesis(new Account().address), label: 'tampered' };
    await f.publishGenesis(forged);
    await f.start();
    await expect(call(f.nc, BLOCK.nodeAccount, { address: GOVERNANCE_ADDRESS, chainId: forged.chainId })).rejects.toMatchObject({ code: 'CHAIN_NOT_FOUND' });
  });
});
