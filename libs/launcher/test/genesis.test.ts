// The main chain's genesis and the faucet key the launcher writes for a new
// network: written once, the faucet funded, the key private, nothing changed
// on a later start.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { X509Certificate } from 'node:crypto';
import { createNodeCa, privateKeyToPem } from '@platform/certs';
import { keyPairFromPrivateKey, hexToBytes } from '@platform/crypto';
import { REGISTRY_ADDRESS } from '@platform/identity';
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
    expect(genesis).toMatchObject({ format: 1, chainId: '', label: 'main', parentChain: null, accounts: [{ address: first.faucetAddress, balance: FAUCET_GENESIS_BALANCE.toString() }] });
    expect(genesis.nonce).toMatch(/^[0-9a-f]{64}$/);

    const again = ensureMainGenesis(dir);
    expect(again).toEqual({ ...first, created: false });
    expect(readFileSync(first.genesisPath, 'utf8')).toBe(JSON.stringify(genesis, null, 2) + '\n');
    expect(readFileSync(join(dir, 'faucet.key'), 'utf8').trim()).toBe(key);
  });

  test('a new network trusts the node CA created in the data dir (O = NODE_ORG) and creates the registry with it', () => {
    const first = ensureMainGenesis(dir, { organization: 'Acme' });
    expect(first.ca).toEqual({ cert: join(dir, 'ca', 'node-ca.pem'), key: join(dir, 'ca', 'node-ca.key') });
    expect(first.caTrusted).toBe(true);
    expect(statSync(first.ca.key).mode & 0o777).toBe(0o600);
    const pem = readFileSync(first.ca.cert, 'utf8');
    const x509 = new X509Certificate(pem);
    expect(x509.subject).toContain('O=Acme');
    expect(x509.ca).toBe(true);
    const genesis = JSON.parse(readFileSync(first.genesisPath, 'utf8'));
    expect(genesis.trustedRoots).toEqual([pem]);
    expect(genesis.contracts).toEqual([expect.objectContaining({ address: REGISTRY_ADDRESS, name: 'CertificateRegistry', vm: 'SolidVM', args: { roots: [pem] } })]);
    // the CA is created once
    expect(ensureMainGenesis(dir, { organization: 'Acme' }).ca).toEqual(first.ca);
    expect(readFileSync(first.ca.cert, 'utf8')).toBe(pem);
  });

  test('NODE_CA_CERT / NODE_CA_KEY give the CA (paths or PEM); a key of another certificate stops the start', () => {
    const ca = createNodeCa({ organization: 'Given', commonName: 'Given CA' });
    const files = ensureMainGenesis(dir, { ca: { cert: ca.certificatePem, key: privateKeyToPem(ca.privateKey) } });
    expect(JSON.parse(readFileSync(files.genesisPath, 'utf8')).trustedRoots).toEqual([ca.certificatePem]);
    const other = createNodeCa({ organization: 'Other', commonName: 'Other CA' });
    writeFileSync(join(dir, 'other.key'), privateKeyToPem(other.privateKey));
    expect(() => ensureMainGenesis(dir, { ca: { cert: ca.certificatePem, key: join(dir, 'other.key') } })).toThrow(/NODE_CA_KEY: the key is not the key of the certificate/);
    expect(() => ensureMainGenesis(dir, { ca: { cert: ca.certificatePem } })).toThrow(/must be given together/);
    // a node whose CA the existing genesis does not list is told so
    expect(ensureMainGenesis(dir, { ca: { cert: other.certificatePem, key: join(dir, 'other.key') } }).caTrusted).toBe(false);
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
