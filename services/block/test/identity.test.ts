// The certificate registry as the block service runs it: created at genesis
// with the trusted roots, registrations and revocations executed by SolidVM
// with the node's identity built-ins, and every transaction's identity read
// from the registry's state.
import { createNodeCa, issueCertificate, type NodeCa } from '@platform/certs';
import { DEFAULT_PROTOCOL, type Genesis, type Receipt, type Transaction } from '@platform/common';
import { keyPairFromPrivateKey, sign } from '@platform/crypto';
import { REGISTRY_ADDRESS, registryGenesisContract, validCertificateOf } from '@platform/identity';
import { MemoryWorldState, readContractState } from '@platform/solidvm';
import { executeBlock, type BlockEnv } from '../src/exec/execute.js';
import { applyGenesisState } from '../src/genesis.js';
import { createBlockVms } from '../src/index.js';
import { Account } from './helpers.js';

/** one SolidVM and one EVM, as a block service process keeps */
const EXECUTORS = createBlockVms().executors;

const NOW = Math.floor(Date.now() / 1000);
/** every certificate and CA made here starts before the blocks' timestamps (NOW + a few), however late the test runs */
const BACKDATED = { notBefore: new Date((NOW - 300) * 1000) };

function genesisWith(roots: string[]): Genesis {
  return {
    format: 1,
    chainId: '',
    label: 'main',
    timestamp: NOW,
    parentChain: null,
    nonce: '00'.repeat(32),
    protocol: DEFAULT_PROTOCOL,
    trustedRoots: roots,
    accounts: [],
    contracts: [registryGenesisContract(roots)],
    members: [],
    creator: null,
  };
}

class Net {
  readonly state = new MemoryWorldState('');
  readonly genesis: Receipt[];
  private block = 1;
  constructor(readonly ca: NodeCa, extraRoots: string[] = []) {
    this.genesis = applyGenesisState(this.state, genesisWith([ca.certificatePem, ...extraRoots]));
  }

  async run(tx: Transaction, timestamp = NOW + this.block): Promise<Receipt> {
    const env: BlockEnv = { chainId: '', number: this.block++, timestamp, protocol: DEFAULT_PROTOCOL, gasEnabled: false, executors: EXECUTORS, isExecuted: () => false };
    return (await executeBlock(this.state, [tx], env)).receipts[0];
  }

  register(account: Account, pem: string, timestamp?: number): Promise<Receipt> {
    return this.run(account.call(REGISTRY_ADDRESS, 'registerCertificate', { newCertificateString: pem }), timestamp);
  }

  issue(account: Account, subject: { commonName: string; organization?: string; organizationalUnit?: string }, opts = {}): string {
    // backdated, as the vault issues them, so a block of the same second accepts it
    return issueCertificate({ ...subject, publicKey: account.key.publicKey }, this.ca, { ...BACKDATED, ...opts });
  }
}

const WHO = `contract Who {
  string public name; string public org; string public unit;
  constructor() { name = tx.username; org = tx.organization; unit = tx.organizationalUnit; }
  function certOf(address a) public returns (string) { return getUserCert(a)["commonName"] + "/" + getUserCert(a)["organization"]; }
}`;

describe('the certificate registry', () => {
  const ca = createNodeCa({ organization: 'Acme', commonName: 'Acme node CA' }, BACKDATED);

  test('genesis registers the trusted roots as root Certificate contracts', () => {
    const net = new Net(ca);
    const created = net.genesis[0].contractsCreated;
    expect(created.map((c) => c.name)).toEqual(['CertificateRegistry', 'Certificate']);
    expect(created[0].address).toBe(REGISTRY_ADDRESS);
    const root = validCertificateOf(net.state, ca.certificate.address, NOW);
    expect(root).toMatchObject({ commonName: 'Acme node CA', organization: 'Acme', parent: ca.certificate.address });
    expect(readContractState(net.state, root!.certificate)).toMatchObject({ isRoot: true, isCa: true, isValid: true, userAddress: ca.certificate.address });
  });

  test('a registered certificate is the sender identity of its later transactions, tx.* and getUserCert', async () => {
    const net = new Net(ca);
    const alice = new Account();
    const before = await net.run(alice.create(WHO, 'Who'));
    expect(before.status).toBe('Success');
    expect(before.contractsCreated[0].creatorOrg).toBeNull();
    const reg = await net.register(alice, net.issue(alice, { commonName: 'alice', organization: 'Acme', organizationalUnit: 'Sales' }));
    expect(reg).toMatchObject({ status: 'Success' });
    const cert = reg.contractsCreated.find((c) => c.name === 'Certificate')!;
    // the registry's Certificate contracts belong to no organization (one cirrus table)
    expect(cert).toMatchObject({ creatorOrg: null, appName: 'CertificateRegistry' });
    expect(reg.stateChanges.find((s) => s.address === cert.address)?.state).toMatchObject({ commonName: 'alice', organization: 'Acme', organizationalUnit: 'Sales', isValid: true, userAddress: alice.address, parent: ca.certificate.address });
    const after = await net.run(alice.create(WHO, 'Who'));
    expect(after.contractsCreated[0].creatorOrg).toBe('Acme');
    expect(after.stateChanges[0].state).toMatchObject({ name: 'alice', org: 'Acme', unit: 'Sales' });
    const call = await net.run(alice.call(after.contractsCreated[0].address, 'certOf', { a: alice.address }));
    expect(call.returnValues).toEqual(['alice/Acme']);
  });

  test('refusals: malformed, another key, untrusted self-signed, wrong signature, expired, duplicate, revoked', async () => {
    const net = new Net(ca);
    const alice = new Account();
    const bob = new Account();
    const expectFailure = async (r: Promise<Receipt>, message: RegExp) => {
      const receipt = await r;
      expect(receipt.status).toBe('Failure');
      expect(receipt.message).toMatch(message);
      expect(receipt.contractsCreated).toEqual([]);
    };
    await expectFailure(net.register(alice, 'not a certificate'), /not a valid certificate: BAD_PEM/);
    await expectFailure(net.register(alice, net.issue(bob, { commonName: 'bob' })), /not the sender's/);
    const rogue = createNodeCa({ organization: 'Rogue', commonName: 'Acme node CA' }, BACKDATED);
    await expectFailure(net.register(alice, issueCertificate({ commonName: 'alice', publicKey: alice.key.publicKey }, rogue, BACKDATED)), /unknown|does not verify/);
    const rogueSameName = createNodeCa({ organization: 'Acme', commonName: 'Acme node CA' }, BACKDATED);
    await expectFailure(net.register(alice, issueCertificate({ commonName: 'alice', publicKey: alice.key.publicKey }, rogueSameName, BACKDATED)), /signature does not verify/);
    const self = createNodeCa({ organization: 'Acme', commonName: 'alice' }, { ...BACKDATED, privateKey: alice.key.privateKey });
    await expectFailure(net.register(alice, self.certificatePem), /not issued by a trusted root/);
    const expired = net.issue(alice, { commonName: 'alice' }, { notBefore: new Date((NOW - 7200) * 1000), notAfter: new Date((NOW - 3600) * 1000) });
    await expectFailure(net.register(alice, expired), /expired/);

    const pem = net.issue(alice, { commonName: 'alice', organization: 'Acme' });
    expect((await net.register(alice, pem)).status).toBe('Success');
    await expectFailure(net.register(alice, pem), /registered before/);
    await expectFailure(net.register(alice, net.issue(alice, { commonName: 'alice2' })), /already has a valid certificate/);
    expect(validCertificateOf(net.state, alice.address, NOW + 100)).not.toBeNull();

    // only the owner or the issuer revokes; a revoked certificate never comes back
    await expectFailure(net.run(bob.call(REGISTRY_ADDRESS, 'revokeCertificate', { userAddress: alice.address })), /only the certificate's owner or its issuer/);
    expect((await net.run(alice.call(REGISTRY_ADDRESS, 'revokeCertificate', { userAddress: alice.address }))).status).toBe('Success');
    expect(validCertificateOf(net.state, alice.address, NOW + 100)).toBeNull();
    await expectFailure(net.register(alice, pem), /registered before/);
    // a new certificate after revocation is accepted
    expect((await net.register(alice, net.issue(alice, { commonName: 'alice', organization: 'Acme' }))).status).toBe('Success');
  });

  test('contracts call the X.509 built-ins through the block service', async () => {
    const net = new Net(ca);
    const alice = new Account();
    const pem = net.issue(alice, { commonName: 'alice', organization: 'Acme' });
    const caKey = Buffer.from(keyPairFromPrivateKey(ca.privateKey).publicKey).toString('hex');
    const src = `contract X509 {
      function f(string pem, string caPem, string caKey, string h, string sig, string key) public returns (string, bool, bool, bool) {
        return (parseCert(pem)["commonName"], verifyCertSignedBy(pem, caPem), verifyCert(pem, caKey), verifySignature(h, sig, key));
      }
    }`;
    const made = await net.run(alice.create(src, 'X509'));
    const hash = new Uint8Array(32).fill(9);
    const sig = sign(hash, alice.key.privateKey);
    const args = { pem, caPem: ca.certificatePem, caKey, h: Buffer.from(hash).toString('hex'), sig: Buffer.from([...sig.r, ...sig.s]).toString('hex'), key: Buffer.from(alice.key.publicKey).toString('hex') };
    const call = await net.run(alice.call(made.contractsCreated[0].address, 'f', args));
    expect(call.returnValues).toEqual(['alice', 'true', 'true', 'true']);
  });

  test("the certificate's issuer may register it for its account (a node enrolling its users)", async () => {
    const net = new Net(ca);
    const alice = new Account();
    const issuer = Object.assign(new Account(), { key: keyPairFromPrivateKey(ca.privateKey) });
    const reg = await net.register(issuer, net.issue(alice, { commonName: 'alice', organization: 'Acme' }));
    expect(reg).toMatchObject({ status: 'Success', message: 'Success!' });
    expect(validCertificateOf(net.state, alice.address, NOW + 100)).toMatchObject({ commonName: 'alice', parent: ca.certificate.address });
    // the issuer's own nonce moved, alice's did not
    expect(net.state.getAccount(alice.address)).toBeUndefined();
    // another CA's account may not
    const other = new Account();
    const bob = new Account();
    const refused = await net.register(other, net.issue(bob, { commonName: 'bob' }));
    expect(refused.message).toMatch(/only that account or the certificate's issuer/);
  });

  test('within one block, a registration and a revocation count from the next transaction on', async () => {
    const net = new Net(ca);
    const alice = new Account();
    const pem = net.issue(alice, { commonName: 'alice', organization: 'Acme' });
    const txs = [
      alice.create(WHO, 'Who'),
      alice.call(REGISTRY_ADDRESS, 'registerCertificate', { newCertificateString: pem }),
      alice.create(WHO, 'Who'),
      alice.call(REGISTRY_ADDRESS, 'revokeCertificate', { userAddress: alice.address }),
      alice.create(WHO, 'Who'),
    ];
    const env: BlockEnv = { chainId: '', number: 1, timestamp: NOW + 1, protocol: DEFAULT_PROTOCOL, gasEnabled: false, executors: EXECUTORS, isExecuted: () => false };
    const { receipts } = await executeBlock(net.state, txs, env);
    expect(receipts.map((r) => r.status)).toEqual(['Success', 'Success', 'Success', 'Success', 'Success']);
    expect([0, 2, 4].map((i) => receipts[i].contractsCreated[0].creatorOrg)).toEqual([null, 'Acme', null]);
  });

  test('a certificate stops counting once it expires', async () => {
    const net = new Net(ca);
    const alice = new Account();
    const pem = net.issue(alice, { commonName: 'alice' }, { notBefore: new Date((NOW - 10) * 1000), notAfter: new Date((NOW + 50) * 1000) });
    expect((await net.register(alice, pem)).status).toBe('Success');
    expect(validCertificateOf(net.state, alice.address, NOW + 10)).not.toBeNull();
    expect(validCertificateOf(net.state, alice.address, NOW + 51)).toBeNull();
  });

  test('the system contract names are reserved, directly and through new', async () => {
    const net = new Net(ca);
    const alice = new Account();
    const direct = await net.run(alice.create('contract Certificate { uint x; }', 'Certificate'));
    expect(direct).toMatchObject({ status: 'Failure' });
    expect(direct.message).toMatch(/reserved/);
    const nested = await net.run(alice.create('contract CertificateRegistry { } contract Maker { constructor() { new CertificateRegistry(); } }', 'Maker'));
    expect(nested).toMatchObject({ status: 'Failure', contractsCreated: [] });
    expect(nested.message).toMatch(/CertificateRegistry is reserved/);
  });

  test('a genesis whose registry roots differ from trustedRoots is refused', async () => {
    const { loadGenesis } = await import('../src/genesis.js');
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(join(tmpdir(), 'genesis-'));
    const g = genesisWith([ca.certificatePem]);
    g.trustedRoots = [];
    writeFileSync(join(dir, 'genesis.json'), JSON.stringify(g));
    expect(() => loadGenesis(join(dir, 'genesis.json'))).toThrow(/must be created with args/);
  });
});
