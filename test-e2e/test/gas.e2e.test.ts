// Gas enabled on a whole node (GAS_ENABLED=true): the launcher's genesis funds
// the faucet, an unfunded user is refused until the faucet pays, fees are
// charged as gasUsed × gasPrice, and transfers move value — all read back
// through the account lookup.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { SigningKey, Wallet, encodeRlp, hexlify, keccak256, toBeArray, toUtf8Bytes } from 'ethers';
import { api, devToken, startTestNode, type TestNode } from './harness.js';

const NODE_START_MS = 180_000;
const TOKENS = 10n ** 18n;
const FAUCET_AMOUNT = 2000n * TOKENS;

const NOTE = 'contract Note { string public text; constructor(string _text) { text = _text; } }';

/** A raw creation signed in the platform's form (docs/conventions.md "Raw transactions: the signed bytes"), with ethers only. */
function rawCreation(key: SigningKey, fields: { nonce: number; gasLimit: number; gasPrice: number; src: string; name: string }) {
  const int = (n: number) => (n === 0 ? '0x' : hexlify(toBeArray(n)));
  const initOrData = hexlify(toUtf8Bytes(fields.src));
  const sig = key.sign(keccak256(encodeRlp([int(fields.nonce), int(fields.gasPrice), int(fields.gasLimit), '0x', int(0), initOrData])));
  return { nonce: fields.nonce, gasPrice: fields.gasPrice, gasLimit: fields.gasLimit, value: 0, to: null, initOrData: initOrData.slice(2), r: sig.r.slice(2), s: sig.s.slice(2), v: sig.v, metadata: { VM: 'SolidVM', name: fields.name } };
}

describe('gas enabled', () => {
  let node: TestNode;
  let token: string;
  let address: string;

  const account = async (a: string) => {
    const res = await api(node, 'GET', `/platform-api/eth/v1.2/account?address=${a}`, token);
    expect(res.status).toBe(200);
    return res.body as Array<{ balance: string; nonce: number; address: string; kind: string }>;
  };
  const balanceOf = async (a: string) => BigInt((await account(a))[0]?.balance ?? '0');

  beforeAll(async () => {
    // the raw creation below comes from a wallet without a certificate: identity is identity.e2e's subject
    node = await startTestNode({ GAS_ENABLED: 'true', IDENTITY_REQUIRED: 'false' });
    token = await devToken(node, 'gina', 'Acme');
    address = (await api(node, 'POST', '/platform/v2.3/key', token)).body.address;
  }, NODE_START_MS);
  afterAll(async () => node?.destroy(), NODE_START_MS);

  test("the launcher's genesis funds the faucet, whose key only the node's data dir holds", () => {
    const keyFile = join(node.dataDir, 'faucet.key');
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    const faucet = new Wallet(`0x${readFileSync(keyFile, 'utf8').trim()}`).address.slice(2).toLowerCase();
    const genesis = JSON.parse(readFileSync(join(node.dataDir, 'genesis.json'), 'utf8'));
    expect(genesis.accounts).toEqual([{ address: faucet, balance: expect.stringMatching(/^[0-9]+$/) }]);
    expect(BigInt(genesis.accounts[0].balance)).toBeGreaterThan(1_000_000n * FAUCET_AMOUNT);
  });

  test('a new user cannot transact before funding: 422 naming the account and the faucet', async () => {
    expect(await account(address)).toEqual([]);
    const res = await api(node, 'POST', '/platform/v2.3/transaction?resolve=true', token, {
      txs: [{ type: 'CONTRACT', payload: { contract: 'Note', src: NOTE, args: { _text: 'hi' }, metadata: { VM: 'SolidVM' } } }],
    });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'INSUFFICIENT_BALANCE', details: { address, balance: '0' } });
    expect(res.body.error.message).toContain(address);
    expect(res.body.error.message).toContain(`/bloc/v2.2/users/user/${address}/fill`);
    // nothing was admitted: the user's first nonce is still free
    expect(await account(address)).toEqual([]);
  });

  test('the faucet with resolve=true: Success, and the account holds 2000 tokens', async () => {
    const res = await api(node, 'POST', `/bloc/v2.2/users/user/${address}/fill?resolve=true`, token);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('Success');
    expect(res.body.hash).not.toBe('0'.repeat(64));
    expect(res.body.txResult.message).toBe('Success!');
    const [record] = await account(address);
    expect(record).toMatchObject({ kind: 'AddressStateRef', address, balance: FAUCET_AMOUNT.toString(), nonce: 0, chainId: null });
  });

  test('a SolidVM upload succeeds and costs gasUsed × gasPrice', async () => {
    const before = await balanceOf(address);
    const res = await api(node, 'POST', '/platform/v2.3/transaction?resolve=true', token, {
      txs: [{ type: 'CONTRACT', payload: { contract: 'Note', src: NOTE, args: { _text: 'hi' }, metadata: { VM: 'SolidVM' } } }],
      txParams: { gasLimit: 10_000_000, gasPrice: 3 },
    });
    expect(res.status).toBe(200);
    const [result] = res.body;
    expect(result.status).toBe('Success');
    const gasUsed = BigInt(`0x${result.txResult.gasUsed}`);
    expect(gasUsed).toBeGreaterThan(0n);
    expect(await balanceOf(address)).toBe(before - gasUsed * 3n);
    expect((await account(address))[0].nonce).toBe(1);
  });

  test('a TRANSFER moves its value and pays 21000 gas', async () => {
    const to = Wallet.createRandom().address.slice(2).toLowerCase();
    const before = await balanceOf(address);
    const value = 5n * TOKENS;
    const res = await api(node, 'POST', '/platform/v2.3/transaction?resolve=true', token, {
      txs: [{ type: 'TRANSFER', payload: { toAddress: to, value: value.toString() } }],
      txParams: { gasLimit: 100_000, gasPrice: 2 },
    });
    expect(res.status).toBe(200);
    expect(res.body[0].status).toBe('Success');
    expect(res.body[0].data).toMatchObject({ tag: 'Send', contents: { from: address, to, value: value.toString() } });
    expect(BigInt(`0x${res.body[0].txResult.gasUsed}`)).toBe(21_000n);
    expect(await balanceOf(address)).toBe(before - value - 21_000n * 2n);
    expect(await account(to)).toEqual([expect.objectContaining({ balance: value.toString(), nonce: 0 })]);
  });

  test('a self-signed key is refused until funded, then transacts', async () => {
    const wallet = Wallet.createRandom();
    const from = wallet.address.slice(2).toLowerCase();
    const body = rawCreation(wallet.signingKey, { nonce: 0, gasLimit: 1_000_000, gasPrice: 1, src: 'contract Tiny { uint x; }', name: 'Tiny' });
    const refused = await api(node, 'POST', '/bloc/v2.2/transaction/raw', token, body);
    expect(refused.status).toBe(422);
    expect(refused.body.error).toMatchObject({ code: 'INSUFFICIENT_BALANCE', details: { address: from, required: '1000000' } });

    expect((await api(node, 'POST', `/bloc/v2.2/users/user/${from}/fill?resolve=true`, token)).body.status).toBe('Success');
    const admitted = await api(node, 'POST', '/bloc/v2.2/transaction/raw?resolve=true', token, body);
    expect(admitted.status).toBe(200);
    expect(admitted.body.status).toBe('Success');
    expect(await balanceOf(from)).toBe(FAUCET_AMOUNT - BigInt(`0x${admitted.body.txResult.gasUsed}`));
  });
});
