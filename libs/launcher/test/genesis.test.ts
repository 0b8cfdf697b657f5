// The main chain's genesis and the faucet key the launcher writes for a new
// network: written once, the faucet funded, the key private, nothing changed
// on a later start.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { keyPairFromPrivateKey, hexToBytes } from '@platform/crypto';
import { FAUCET_GENESIS_BALANCE, ensureMainGenesis, newMainGenesis } from '../src/index.js';

describe('launcher - the main chain genesis', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'launcher-genesis-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  test('a new data dir gets a faucet key (0600) and a genesis funding its account; a second start changes nothing', () => {
    const first = ensureMainGenesis(dir);
    expect(first).toMatchObject({ genesisPath: join(dir, 'genesis.json'), faucetKeyFile: join(dir, 'faucet.key'), faucetFunded: true, created: true });
    expect(statSync(join(dir, 'faucet.key')).mode & 0o777).toBe(0o600);
    const key = readFileSync(join(dir, 'faucet.key'), 'utf8').trim();
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(first.faucetAddress).toBe(keyPairFromPrivateKey(hexToBytes(key)).address);
    const genesis = JSON.parse(readFileSync(first.genesisPath, 'utf8'));
    expect(genesis).toMatchObject({ format: 1, chainId: '', label: 'main', parentChain: null, contracts: [], accounts: [{ address: first.faucetAddress, balance: FAUCET_GENESIS_BALANCE.toString() }] });
    expect(genesis.nonce).toMatch(/^[0-9a-f]{64}$/);

    const again = ensureMainGenesis(dir);
    expect(again).toEqual({ ...first, created: false });
    expect(readFileSync(first.genesisPath, 'utf8')).toBe(JSON.stringify(genesis, null, 2) + '\n');
    expect(readFileSync(join(dir, 'faucet.key'), 'utf8').trim()).toBe(key);
  });

  test('an existing genesis is kept as it is: without a key file the transaction service keeps its own faucet key', () => {
    writeFileSync(join(dir, 'genesis.json'), JSON.stringify(newMainGenesis()));
    expect(ensureMainGenesis(dir)).toMatchObject({ faucetKeyFile: null, faucetAddress: null, faucetFunded: false, created: false });
    expect(JSON.parse(readFileSync(join(dir, 'genesis.json'), 'utf8')).accounts).toEqual([]);
  });

  test('a key file that is not a key stops the start, naming the file', () => {
    writeFileSync(join(dir, 'faucet.key'), 'not a key');
    expect(() => ensureMainGenesis(dir)).toThrow(`${join(dir, 'faucet.key')} must hold the faucet's private key as 64 hex digits`);
  });
});
