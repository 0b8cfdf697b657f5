// Gas enabled (issue 17): an account the faucet never credited must not
// transact for free by sending `gasPrice: 0`. The genesis's protocol
// parameters name a minimum gas price (1 when absent), and a transaction
// below it is refused at admission exactly where an unfunded one is (422
// INSUFFICIENT_BALANCE): 422 GAS_PRICE_TOO_LOW, nothing admitted, no nonce used; vault-signed and raw alike.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Wallet, encodeRlp, hexlify, keccak256, toBeArray, toUtf8Bytes, type BaseWallet } from 'ethers';
import { api, devToken, startTestNode, type TestNode } from '../../test-e2e/test/harness.js';

const NODE_START_MS = 180_000;
const NOTE = 'contract Note { string public text; constructor(string _text) { text = _text; } }';
const upload = { type: 'CONTRACT', payload: { contract: 'Note', src: NOTE, args: { _text: 'free?' }, metadata: { VM: 'SolidVM' } } };

/** A raw creation in the platform's signing form, with ethers only. */
function rawCreation(wallet: BaseWallet, gasPrice: number) {
  const int = (n: number) => (n === 0 ? '0x' : hexlify(toBeArray(n)));
  const initOrData = hexlify(toUtf8Bytes(NOTE));
  const sig = wallet.signingKey.sign(keccak256(encodeRlp([int(0), int(gasPrice), int(1_000_000), '0x', int(0), initOrData])));
  return { nonce: 0, gasPrice, gasLimit: 1_000_000, value: 0, to: null, initOrData: initOrData.slice(2), r: sig.r.slice(2), s: sig.s.slice(2), v: sig.v, metadata: { VM: 'SolidVM', name: 'Note', args: '{"_text":"free?"}' } };
}

let node: TestNode;
let token: string;
let address: string;

const accountOf = async (a: string) => (await api(node, 'GET', `/platform-api/eth/v1.2/account?address=${a}`, token)).body;

beforeAll(async () => {
  // the raw transactions come from wallets without a certificate: identity is not what is under test
  node = await startTestNode({ GAS_ENABLED: 'true', IDENTITY_REQUIRED: 'false' });
  token = await devToken(node, 'freddie', 'Acme');
  address = (await api(node, 'POST', '/platform/v2.3/key', token)).body.address;
}, NODE_START_MS);
afterAll(async () => node?.destroy(), NODE_START_MS);

test('the genesis a new node writes names the minimum gas price', () => {
  const genesis = JSON.parse(readFileSync(join(node.dataDir, 'genesis.json'), 'utf8'));
  expect(genesis.protocol.minGasPrice).toBe('1');
});

test('an account never credited cannot upload or call for free with gasPrice 0: refused like an unfunded one, nothing admitted', async () => {
  const unfunded = await api(node, 'POST', '/platform/v2.3/transaction?resolve=true', token, { txs: [upload] });
  const free = await api(node, 'POST', '/platform/v2.3/transaction?resolve=true', token, { txParams: { gasPrice: 0 }, txs: [upload] });
  // refused as the unfunded account is (422, at admission), with the code of the reason that applies
  expect([unfunded.status, unfunded.body.error.code]).toEqual([422, 'INSUFFICIENT_BALANCE']);
  expect(free.status).toBe(422);
  expect(free.body.error).toMatchObject({ code: 'GAS_PRICE_TOO_LOW', details: { field: 'txs[0]', address, gasPrice: '0', minGasPrice: '1' } });
  // an item's own txParams, and a call, the same
  const call = { type: 'FUNCTION', payload: { contractAddress: 'ab'.repeat(20), method: 'f', args: {}, metadata: { VM: 'SolidVM' }, txParams: { gasPrice: 0 } } };
  expect((await api(node, 'POST', '/platform/v2.3/transaction', token, { txs: [call] })).body.error).toMatchObject({ code: 'GAS_PRICE_TOO_LOW' });
  // nothing was admitted: the account still does not exist in the state, its first nonce is free
  expect(await accountOf(address)).toEqual([]);
});

test('a raw transaction with gasPrice 0 is refused the same way, on both raw paths', async () => {
  const wallet = Wallet.createRandom();
  const signer = wallet.address.slice(2).toLowerCase();
  for (const path of ['/platform/v2.3/transaction/raw', '/bloc/v2.2/transaction/raw']) {
    const res = await api(node, 'POST', path, token, rawCreation(wallet, 0));
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'GAS_PRICE_TOO_LOW', details: { field: 'gasPrice', address: signer, gasPrice: '0', minGasPrice: '1' } });
  }
  // at the minimum it is an ordinary unfunded transaction
  expect((await api(node, 'POST', '/platform/v2.3/transaction/raw', token, rawCreation(wallet, 1))).body.error).toMatchObject({ code: 'INSUFFICIENT_BALANCE' });
  expect(await accountOf(signer)).toEqual([]);
});

test('once the faucet credited the account, a transaction at the minimum goes through and pays for its gas', async () => {
  expect((await api(node, 'POST', `/bloc/v2.2/users/user/${address}/fill?resolve=true`, token)).body.status).toBe('Success');
  const before = BigInt((await accountOf(address))[0].balance);
  // still not for free once funded
  expect((await api(node, 'POST', '/platform/v2.3/transaction', token, { txParams: { gasPrice: 0 }, txs: [upload] })).body.error).toMatchObject({ code: 'GAS_PRICE_TOO_LOW' });
  const res = await api(node, 'POST', '/platform/v2.3/transaction?resolve=true', token, { txParams: { gasLimit: 10_000_000, gasPrice: 1 }, txs: [upload] });
  expect(res.status).toBe(200);
  expect(res.body[0].status).toBe('Success');
  const [record] = await accountOf(address);
  expect(record.nonce).toBe(1);
  expect(BigInt(record.balance)).toBeLessThan(before);
});
