// The compile endpoint and the account lookup on a whole node with gas
// disabled (the default): code hashes that match what uploads get, the
// compiler's messages on errors, and accounts as the platform's client reads
// them.
import { api, devToken, startTestNode, type TestNode } from './harness.js';

const NODE_START_MS = 180_000;
/** Keccak-256 of no bytes: the code hash of an account without code */
const EMPTY_CODE_HASH = 'c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470';
const EMPTY_TRIE_ROOT = '56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421';

const COUNTER = `
contract Counter {
  uint public count;
  function bump() returns (uint) { count += 1; return count; }
}
contract Helper { uint x; }`;

const EVM_STORE = `
// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;
interface IStore { function set(uint256 v) external returns (uint256); }
contract Store is IStore {
  uint256 public value;
  function set(uint256 v) public returns (uint256) { value = v; return v; }
}`;

describe('chain information on a node without gas', () => {
  let node: TestNode;
  let token: string;
  let user: string;

  beforeAll(async () => {
    node = await startTestNode();
    token = await devToken(node, 'carla', 'Acme');
    user = (await api(node, 'POST', '/platform/v2.3/key', token)).body.address;
  }, NODE_START_MS);
  afterAll(async () => node?.destroy(), NODE_START_MS);

  const compile = (body: unknown) => api(node, 'POST', '/bloc/v2.2/contracts/compile', token, body);
  const account = (query: string) => api(node, 'GET', `/platform-api/eth/v1.2/account?${query}`, token);

  test('SolidVM: compile answers the code hash the upload then carries', async () => {
    const compiled = await compile([{ source: COUNTER, vm: 'SolidVM' }]);
    expect(compiled.status).toBe(200);
    expect(compiled.body).toEqual([
      { contractName: 'Counter', codeHash: expect.stringMatching(/^[0-9a-f]{64}$/) },
      { contractName: 'Helper', codeHash: compiled.body[0].codeHash },
    ]);
    const named = await compile([{ contractName: 'Counter', source: COUNTER, vm: 'SolidVM' }]);
    expect(named.body).toEqual([compiled.body[0]]);

    const up = await api(node, 'POST', '/platform/v2.3/transaction?resolve=true', token, {
      txs: [{ type: 'CONTRACT', payload: { contract: 'Counter', src: COUNTER, metadata: { VM: 'SolidVM' } } }],
    });
    expect(up.body[0].status).toBe('Success');
    expect(up.body[0].data.contents.codeHash).toEqual({ kind: 'SolidVM', digest: compiled.body[0].codeHash });

    const [contract] = (await account(`address=${up.body[0].data.contents.address}`)).body;
    expect(contract).toMatchObject({ kind: 'AddressStateRef', codeHash: compiled.body[0].codeHash, chainId: null, balance: '0', contractRoot: EMPTY_TRIE_ROOT });
    // its first write gives it storage: the root and the height move
    const bump = await api(node, 'POST', '/platform/v2.3/transaction?resolve=true', token, {
      txs: [{ type: 'FUNCTION', payload: { contractAddress: contract.address, method: 'bump', metadata: { VM: 'SolidVM' } } }],
    });
    expect(bump.body[0].status).toBe('Success');
    const [bumped] = (await account(`address=${contract.address}`)).body;
    expect(bumped.contractRoot).not.toBe(EMPTY_TRIE_ROOT);
    expect(bumped.latestBlockNum).toBeGreaterThan(contract.latestBlockNum);
  });

  test('EVM (the default VM of compile): the code hash equals the deployed contract’s', async () => {
    const compiled = await compile([{ source: EVM_STORE }]);
    expect(compiled.status).toBe(200);
    // the interface has no code of its own
    expect(compiled.body).toEqual([{ contractName: 'Store', codeHash: expect.stringMatching(/^[0-9a-f]{64}$/) }]);
    const up = await api(node, 'POST', '/platform/v2.3/transaction?resolve=true', token, { txs: [{ type: 'CONTRACT', payload: { contract: 'Store', src: EVM_STORE } }] });
    expect(up.body[0].status).toBe('Success');
    const [deployed] = (await account(`address=${up.body[0].data.contents.address}`)).body;
    expect(deployed.codeHash).toBe(compiled.body[0].codeHash);
  }, 60_000);

  test("compile errors: 422 with the compiler's messages, 400 for a malformed body", async () => {
    const solid = await compile([{ source: 'contract Broken { uint x = ; }', vm: 'SolidVM' }]);
    expect(solid.status).toBe(422);
    expect(solid.body.error).toMatchObject({ code: 'COMPILE_FAILED', details: { field: '[0].source', vm: 'SolidVM', errors: [expect.objectContaining({ severity: 'error' })] } });

    const evm = await compile([{ source: 'pragma solidity ^0.8.0; contract Broken { function f() public { nope(); } }' }]);
    expect(evm.status).toBe(422);
    expect(evm.body.error.details.errors[0]).toMatchObject({ severity: 'error', type: 'DeclarationError' });
    expect(evm.body.error.details.errors[0].formatted).toContain('nope()');
    expect(evm.body.error.message).toMatch(/^\[0\]\.source: the source does not compile: DeclarationError: .* \(contract\.sol:1:\d+\)$/);

    const missing = await compile([{ source: COUNTER, contractName: 'Absent', vm: 'SolidVM' }]);
    expect(missing.status).toBe(422);
    expect(missing.body.error.details.field).toBe('[0].contractName');

    for (const body of [[], {}, [{ contractName: 'X' }], [{ source: 'contract A {}', vm: 'LLVM' }], 'not json']) {
      const res = await compile(body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toEqual(expect.any(String));
    }
  });

  test('the account lookup: a user after a transaction, an unknown address, bad input', async () => {
    const res = await account(`address=0x${user.toUpperCase()}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      { kind: 'AddressStateRef', address: user, balance: '0', nonce: 3, codeHash: EMPTY_CODE_HASH, contractRoot: EMPTY_TRIE_ROOT, chainId: null, latestBlockNum: expect.any(Number) },
    ]);
    expect((await account(`address=${'ab'.repeat(20)}`)).body).toEqual([]);
    expect((await account(`address=${user}&chainid=`)).body).toHaveLength(1);

    for (const query of ['', 'address=xyz', `address=${user}&chainid=12`]) {
      const bad = await account(query);
      expect(bad.status).toBe(400);
      expect(bad.body.error.code).toBe('VALIDATION_FAILED');
    }
    expect((await account(`address=${user}&chainid=${'ab'.repeat(32)}`)).status).toBe(404);
    expect((await api(node, 'GET', `/platform-api/eth/v1.2/account?address=${user}`)).status).toBe(401);
  });
});
