// The chains service against a real NATS, PostgreSQL and block service: the
// vault's key lookup is played by the test (users and their addresses), and
// users have no registered certificate, so membership matches the token's
// organization and the username. Creation and its refusals, the records and
// who sees them, and membership moved by governance events in block order.
import { refusal } from '@platform/common/testing';
import { jetstream } from '@nats-io/jetstream';
import { BLOCK, CHAINS, SUBJECTS, VAULT, call, connectBus, encodeJson, handle, serve, type NatsConnection } from '@platform/bus';
import { DEFAULT_NODE_NAME, DEFAULT_PROTOCOL, GOVERNANCE_ADDRESS, PlatformError, chainGenesisText, loadConfig, type Transaction } from '@platform/common';
import { hexToBytes, keccak256Hex, sealInEpoch } from '@platform/crypto';
import { startTestInfra, type TestInfra } from '@platform/launcher';
import { rebuildFromNetwork, startBlockService, type RunningBlockService } from '@platform/block';
import pg from 'pg';
import { Account, quietLogger, writeGenesis } from '../../block/test/helpers.js';
import { sealGenesisFor } from '../../block/src/chain/chain-keys.js';
import { loadNodeKey } from '../../block/src/node-key.js';
import { AUTO_APPROVE_SOURCE, startChainsService, type RunningChainsService } from '../src/index.js';
import { checkBody, genesisOf } from '../src/body.js';

const AUTO_APPROVE = AUTO_APPROVE_SOURCE;

/** the ID of the fixed genesis of the hashing test, as computed before genesis had `membersOnly` */
const FIXED_GENESIS_ID = '40196dd0e22bba3c9f030bf795a2f8dacb84d7d605a9acb3536e45faa08eaf17';

const IMPOSTOR = `contract Impostor { event OrgAdded(string orgName); constructor() {} function add(string o) public { emit OrgAdded(o); } }`;

const alice = { username: 'alice', organization: 'A' };
const bob = { username: 'bob', organization: 'B' };
const carol = { username: 'carol', organization: 'C' };
const dave = { username: 'dave', organization: 'D' };
const keyless = { username: 'keyless', organization: 'A' };

let infra: TestInfra;
let nc: NatsConnection;
let block: RunningBlockService;
let chains: RunningChainsService;
let databaseUrl: string;
let dataDir: string;
let config: ReturnType<typeof loadConfig>;
const accounts = new Map([alice, bob, carol, dave].map((u) => [u.username, new Account()]));

beforeAll(async () => {
  infra = await startTestInfra({ nats: true, postgres: true });
  databaseUrl = await infra.postgres!.createDatabase('chains');
  dataDir = `${infra.dataDir}/node`;
  writeGenesis(dataDir);
  nc = await connectBus({ url: infra.nats!.url, name: 'chains-test' });
  // the vault, played: the users' addresses
  await serve(nc, { name: 'vault', version: '0.0.0', logger: quietLogger() }, [
    handle(VAULT.keyGet, ({ username }) => {
      const account = accounts.get(username);
      if (!account) throw new PlatformError('USER_NOT_FOUND', `user ${username} has no key`);
      return { address: account.address, pubkey: '' };
    }),
  ]);
  config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', IDENTITY_REQUIRED: 'false' });
  block = await startBlockService({ config, logger: quietLogger(), natsUrl: infra.nats!.url, dataDir });
  chains = await startChainsService({ config, logger: quietLogger(), natsUrl: infra.nats!.url, databaseUrl });
}, 60_000);

afterAll(async () => {
  await chains?.stop();
  await block?.stop();
  await nc?.close();
  await infra?.stop();
});

const body = (extra: Record<string, unknown> = {}) => ({ label: 'ab', contract: 'AutoApprove', src: AUTO_APPROVE, args: {}, members: [{ orgName: 'B', access: true }], metadata: { VM: 'SolidVM' }, ...extra });

async function visible(user: { username: string; organization: string }): Promise<string[]> {
  return (await call(nc, CHAINS.visibleTo, user)).chainIds;
}

async function until(ok: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Sends a governance call from the user's account on the chain, nonces counted per chain by the test. */
const nonces = new Map<string, number>();
async function send(user: string, chainId: string, to: string, funcName: string, args: Record<string, string>): Promise<Transaction> {
  const account = accounts.get(user)!;
  const key = `${user}:${chainId}`;
  const nonce = nonces.get(key) ?? 0;
  nonces.set(key, nonce + 1);
  const tx = account.tx({ to, metadata: { VM: 'SolidVM', funcName, args: JSON.stringify(args) }, chainId, nonce });
  await publishSealed(tx);
  return tx;
}

/** Publishes a private chain's transaction as the transaction service does: sealed with the chain's key, which the block service gives. */
async function publishSealed(tx: Transaction): Promise<void> {
  const { key, epoch } = await call(nc, BLOCK.chainKey, { chainId: tx.chainId });
  const subject = SUBJECTS.tx.admitted(tx.chainId);
  await jetstream(nc).publish(subject, sealInEpoch(epoch, hexToBytes(key), encodeJson(tx), subject), { msgID: tx.hash });
}

describe('creation', () => {
  test('answers the chain ID; the creator and the listed members see the record, others see nothing', async () => {
    const [id] = await call(nc, CHAINS.create, { ...alice, chains: [body({ balances: [{ address: `0x${'ab'.repeat(20)}`, balance: 5 }] })] });
    expect(id).toMatch(/^[0-9a-f]{64}$/);
    const [record] = await call(nc, CHAINS.list, { ...alice, chainIds: [id] });
    expect(record).toMatchObject({
      id,
      info: {
        label: 'ab',
        parentChain: null,
        balances: [{ address: 'ab'.repeat(20), balance: '5' }],
        members: [
          { orgName: 'A', commonName: 'alice', access: true },
          { orgName: 'B', access: true },
        ],
        codeInfo: [{ name: 'AutoApprove', vm: 'SolidVM', src: AUTO_APPROVE, codeHash: expect.stringMatching(/^[0-9a-f]{64}$/) }],
        creator: accounts.get('alice')!.address,
      },
    });
    expect(record.info.nonce).toMatch(/^[0-9a-f]{64}$/);
    expect(record.info.accountInfo).toContainEqual(expect.objectContaining({ address: GOVERNANCE_ADDRESS, contractName: 'AutoApprove' }));
    expect(await call(nc, CHAINS.list, { ...bob, chainIds: [id] })).toHaveLength(1);
    expect(await call(nc, CHAINS.list, { ...carol, chainIds: [id] })).toEqual([]);
    expect(await call(nc, CHAINS.list, carol)).toEqual([]);
    // another user of A is not the creator: the creator's entry names alice
    expect(await visible({ username: 'alex', organization: 'A' })).toEqual(['']);
    expect(await visible(carol)).toEqual(['']);
    // a default chain exists for anyone (anyone may send to it), members or not
    for (const user of [alice, carol]) expect(await call(nc, CHAINS.exists, { ...user, chainId: id })).toEqual({ chainId: id, exists: true, membersOnly: false, protocol: DEFAULT_PROTOCOL });
    expect(await call(nc, CHAINS.exists, { ...carol, chainId: 'f'.repeat(64) })).toEqual({ chainId: 'f'.repeat(64), exists: false, membersOnly: false, protocol: null });
    expect(record.info.membersOnly).toBe(false);
  });

  test('metadata.membersOnly: recorded in the genesis; the chain exists for its members only, for others exactly as an unknown chain', async () => {
    const [id] = await call(nc, CHAINS.create, { ...alice, chains: [body({ metadata: { VM: 'SolidVM', membersOnly: true } })] });
    const [record] = await call(nc, CHAINS.list, { ...bob, chainIds: [id] });
    expect(record.info.membersOnly).toBe(true);
    for (const member of [alice, bob]) expect(await call(nc, CHAINS.exists, { ...member, chainId: id })).toEqual({ chainId: id, exists: true, membersOnly: true, protocol: DEFAULT_PROTOCOL });
    const unknown = await call(nc, CHAINS.exists, { ...carol, chainId: 'f'.repeat(64) });
    expect(await call(nc, CHAINS.exists, { ...carol, chainId: id })).toEqual({ ...unknown, chainId: id });
    // the text form is taken too (metadata values are often strings); anything else is named
    const [textual] = await call(nc, CHAINS.create, { ...alice, chains: [body({ metadata: { VM: 'SolidVM', membersOnly: 'true' } })] });
    expect((await call(nc, CHAINS.exists, { ...carol, chainId: textual })).exists).toBe(false);
    expect(await refusal(call(nc, CHAINS.create, { ...alice, chains: [body({ metadata: { membersOnly: 'yes' } })] }))).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'metadata.membersOnly' } });
    // the answer depends on who asks: none without a user
    expect(await refusal(call(nc, CHAINS.exists, { chainId: id } as never))).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'username' } });
  });

  test('a genesis without membersOnly keeps the text, and so the ID, it had before the option existed', () => {
    const protocol = { stepLimit: 10_000_000, gasTableVersion: 1 };
    const genesis = genesisOf(checkBody(body(), ''), { address: 'aa'.repeat(20), member: { orgName: 'A', commonName: 'alice', access: true } }, protocol, 1_700_000_000_000);
    expect(Object.keys(genesis)).not.toContain('membersOnly');
    // a fixed genesis written as before the option: its ID, computed then, stays
    const fixed = { ...genesis, nonce: '11'.repeat(32) };
    expect(keccak256Hex(chainGenesisText(fixed))).toBe(FIXED_GENESIS_ID);
    const strict = genesisOf(checkBody(body({ metadata: { membersOnly: true } }), ''), { address: 'aa'.repeat(20), member: null }, DEFAULT_PROTOCOL);
    expect(strict.membersOnly).toBe(true);
    expect(strict.chainId).toBe(keccak256Hex(chainGenesisText(strict)));
  });

  test('the same body twice gives two chains; a batch creates each; a child chain of a visible parent', async () => {
    const ids = await call(nc, CHAINS.create, { ...alice, chains: [body(), body()] });
    expect(new Set(ids).size).toBe(2);
    const [child] = await call(nc, CHAINS.create, { ...alice, chains: [body({ parentChain: `0x${ids[0]}` })] });
    expect((await call(nc, CHAINS.list, { ...alice, chainIds: [child] }))[0].info.parentChain).toBe(ids[0]);
    const page = await call(nc, CHAINS.list, { ...alice, limit: 2, offset: 1 });
    expect(page).toHaveLength(2);
  });

  test('refusals: the reason, and nothing created', async () => {
    const before = (await visible(alice)).length;
    expect(await refusal(call(nc, CHAINS.create, { ...keyless, chains: [body()] }))).toMatchObject({ code: 'FORBIDDEN', message: expect.stringContaining('POST /platform/v2.3/key') });
    expect(await refusal(call(nc, CHAINS.create, { ...alice, chains: [body({ src: 'contract AutoApprove { function f() public {} }' })] }))).toMatchObject({ code: 'GOVERNANCE_NO_CONSTRUCTOR', details: { field: 'src' } });
    expect(await refusal(call(nc, CHAINS.create, { ...alice, chains: [body({ src: 'contract AutoApprove { constructor() { require(false, "no"); } }' })] }))).toMatchObject({
      code: 'GOVERNANCE_CONSTRUCTOR_FAILED',
      details: { field: 'src' },
    });
    expect(await refusal(call(nc, CHAINS.create, { ...alice, chains: [body({ src: 'contract AutoApprove { constructor() { uint x = "s"; } }' })] }))).toMatchObject({ code: 'COMPILE_FAILED', details: { field: 'src' } });
    expect(await refusal(call(nc, CHAINS.create, { ...alice, chains: [body({ parentChain: 'e'.repeat(64) })] }))).toMatchObject({ code: 'CHAIN_NOT_FOUND', details: { field: 'parentChain' } });
    expect(await refusal(call(nc, CHAINS.create, { ...alice, chains: [body({ label: 7 })] }))).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'label' } });
    expect(await refusal(call(nc, CHAINS.create, { ...alice, chains: [body(), body({ members: [{ access: true }] })] }))).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: '[1].members[0].orgName' } });
    expect(await refusal(call(nc, CHAINS.create, { ...alice, chains: [body({ metadata: { VM: 'EVM' } })] }))).toMatchObject({ code: 'GOVERNANCE_VM_UNSUPPORTED', details: { field: 'metadata.VM' } });
    // a batch whose second chain cannot start creates neither
    expect(await refusal(call(nc, CHAINS.create, { ...alice, chains: [body(), body({ contract: 'Missing' })] }))).toMatchObject({ code: 'COMPILE_FAILED', details: { field: '[1].src' } });
    expect(await visible(alice)).toHaveLength(before);
  });
});

describe('chains created through another node', () => {
  test('a genesis on the GENESIS stream alone is stored, and its members see it; one whose ID is not its hash is not', async () => {
    const genesis = {
      format: 1 as const,
      chainId: '',
      label: 'from elsewhere',
      timestamp: Math.floor(Date.now() / 1000),
      parentChain: null,
      nonce: 'ee'.repeat(32),
      protocol: DEFAULT_PROTOCOL,
      trustedRoots: [],
      accounts: [],
      contracts: [{ address: GOVERNANCE_ADDRESS, name: 'AutoApprove', vm: 'SolidVM' as const, src: AUTO_APPROVE, args: {} }],
      members: [{ orgName: 'D', access: true }],
      creator: accounts.get('dave')!.address,
    };
    const id = keccak256Hex(chainGenesisText(genesis));
    const forged = { ...genesis, chainId: 'dd'.repeat(32) };
    // sealed for this node, as another node's chains service would
    const thisNode = [{ node: DEFAULT_NODE_NAME, publicKey: loadNodeKey(`${infra.dataDir}/node/block/node.key`).publicKey }];
    for (const g of [forged, { ...genesis, chainId: id }]) await jetstream(nc).publish(SUBJECTS.chains.genesis(g.chainId), encodeJson(sealGenesisFor(g, thisNode).sealed), { msgID: g.chainId });
    await until(async () => (await visible(dave)).includes(id));
    // block 0, applied by this node's block service, brings the governance code hash
    await until(async () => (await call(nc, CHAINS.list, { ...dave, chainIds: [id] }))[0]?.info.codeInfo[0].codeHash !== '');
    expect(await call(nc, CHAINS.exists, { ...dave, chainId: forged.chainId })).toMatchObject({ exists: false });
  });
});

describe('membership from governance events', () => {
  test('added organizations, units and users get in; removed ones are out; an impostor contract changes nothing', async () => {
    const [id] = await call(nc, CHAINS.create, { ...alice, chains: [body()] });
    expect(await visible(bob)).toContain(id);
    await send('bob', id, GOVERNANCE_ADDRESS, 'addOrg', { _orgName: 'C' });
    await until(async () => (await visible(carol)).includes(id));

    // anyone may send to the chain, but only the governance contract's events count
    const impostor = accounts.get('dave')!.tx({ to: null, initOrData: Buffer.from(IMPOSTOR).toString('hex'), metadata: { VM: 'SolidVM', name: 'Impostor', args: '{}' }, chainId: id, nonce: 0 });
    await publishSealed(impostor);
    nonces.set(`dave:${id}`, 1);
    const { contractAddress } = await import('@platform/crypto');
    await send('dave', id, contractAddress(accounts.get('dave')!.address, 0n), 'add', { o: 'D' });
    // without a certificate a user has no unit: erin's entry names none
    await send('alice', id, GOVERNANCE_ADDRESS, 'addCommonName', { _orgName: 'E', _orgUnit: '', _commonName: 'erin' });
    await until(async () => (await visible({ username: 'erin', organization: 'E' })).includes(id));
    expect(await visible({ username: 'eve', organization: 'E' })).not.toContain(id);
    expect(await visible(dave)).not.toContain(id);

    await send('alice', id, GOVERNANCE_ADDRESS, 'removeOrg', { _orgName: 'B' });
    await until(async () => !(await visible(bob)).includes(id));
    expect(await call(nc, CHAINS.list, { ...bob, chainIds: [id] })).toEqual([]);
    const [record] = await call(nc, CHAINS.list, { ...carol, chainIds: [id] });
    expect(record.info.members).toEqual([
      { orgName: 'A', commonName: 'alice', access: true },
      { orgName: 'C', access: true },
      { orgName: 'E', commonName: 'erin', access: true },
    ]);
  });

  test('rebuilt from the network (--rebuild): membership is what the governance events of the blocks say, and an entry no event made is gone', async () => {
    const [id] = await call(nc, CHAINS.create, { ...alice, chains: [body()] });
    await send('alice', id, GOVERNANCE_ADDRESS, 'addOrg', { _orgName: 'C' });
    await until(async () => (await visible(carol)).includes(id));
    // an entry as a governance event in a block the network replaced would leave it
    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      await db.query(`INSERT INTO chains.members (chain_id, org_name, access) VALUES ($1, 'Z', true)`, [id]);
    } finally {
      await db.end();
    }
    const zed = { username: 'zed', organization: 'Z' };
    expect(await visible(zed)).toContain(id);
    const before = await call(nc, CHAINS.list, { ...carol, chainIds: [id] });

    await chains.stop();
    await block.stop();
    await rebuildFromNetwork({ config, logger: quietLogger(), natsUrl: infra.nats!.url, dataDir });
    block = await startBlockService({ config, logger: quietLogger(), natsUrl: infra.nats!.url, dataDir });
    chains = await startChainsService({ config, logger: quietLogger(), natsUrl: infra.nats!.url, databaseUrl, rebuild: true });
    await until(async () => (await visible(carol)).includes(id) && !(await visible(zed)).includes(id));
    expect(await visible(bob)).toContain(id);
    const [record] = await call(nc, CHAINS.list, { ...carol, chainIds: [id] });
    expect(record.info.members).toEqual(before[0].info.members.filter((m: { orgName: string }) => m.orgName !== 'Z'));
    expect(record.info.members).toEqual([
      { orgName: 'A', commonName: 'alice', access: true },
      { orgName: 'B', access: true },
      { orgName: 'C', access: true },
    ]);
  }, 60_000);

  test('--rebuild given again at a restart, without the block service\'s step (a Kubernetes container restarted with its args): the events already applied are applied again, none lost', async () => {
    const [id] = await call(nc, CHAINS.create, { ...alice, chains: [body()] });
    await send('alice', id, GOVERNANCE_ADDRESS, 'addOrg', { _orgName: 'C' });
    await until(async () => (await visible(carol)).includes(id));

    await chains.stop();
    chains = await startChainsService({ config, logger: quietLogger(), natsUrl: infra.nats!.url, databaseUrl, rebuild: true });
    await until(async () => (await visible(carol)).includes(id));
    const [record] = await call(nc, CHAINS.list, { ...carol, chainIds: [id] });
    expect(record.info.members).toEqual([
      { orgName: 'A', commonName: 'alice', access: true },
      { orgName: 'B', access: true },
      { orgName: 'C', access: true },
    ]);
  }, 60_000);
});
