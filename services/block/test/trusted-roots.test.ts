// Organizations joining and leaving a network by governance: the validators'
// organizations vote a new organization's CA in as a trusted root (its users
// can then register certificates and act under its name), and vote it out
// (every certificate it issued stops being anyone's identity). Executed by
// the block service as a network's main chain runs it: the certificate
// registry and the validator set created by the genesis, votes signed by
// users holding their organization's certificates.
import { createNodeCa, issueCertificate, type NodeCa } from '@platform/certs';
import { DEFAULT_PROTOCOL, type Genesis, type Receipt, type Transaction, type Validator } from '@platform/common';
import { bytesToHex, generateKeyPair } from '@platform/crypto';
import { REGISTRY_ADDRESS, VALIDATOR_SET_ADDRESS, identityOf, validCertificateOf, validatorSetGenesisContract } from '@platform/identity';
import { newMainGenesis } from '@platform/launcher';
import { MemoryWorldState } from '@platform/solidvm';
import { executeBlock, type BlockEnv } from '../src/exec/execute.js';
import { applyGenesisState } from '../src/genesis.js';
import { createBlockVms } from '../src/index.js';
import { Account } from './helpers.js';

/** one SolidVM and one EVM, as a block service process keeps */
const EXECUTORS = createBlockVms().executors;

const NOW = Math.floor(Date.now() / 1000);
const BACKDATED = { notBefore: new Date((NOW - 300) * 1000) };

const validator = (node: string, organization: string): Validator => {
  const key = generateKeyPair();
  return { node, organization, address: key.address, publicKey: bytesToHex(key.publicKey) };
};

/** A network of three organizations, each with its CA and one validator; `withValidators: false` is a lone node's main chain. */
class Network {
  readonly state = new MemoryWorldState('');
  readonly cas: Record<string, NodeCa> = {};
  private block = 1;

  constructor(organizations: string[], withValidators = true) {
    for (const o of organizations) this.cas[o] = createNodeCa({ organization: o, commonName: `${o} node CA` }, BACKDATED);
    const roots = organizations.map((o) => this.cas[o]!.certificatePem);
    const validators = organizations.map((o, i) => validator(`node${i + 1}`, o));
    const main = newMainGenesis([], roots);
    const genesis: Genesis = withValidators ? { ...main, contracts: [...main.contracts, validatorSetGenesisContract(validators)], validators } : main;
    applyGenesisState(this.state, genesis);
  }

  async run(tx: Transaction): Promise<Receipt> {
    const env: BlockEnv = { chainId: '', number: this.block, timestamp: NOW + this.block++, protocol: DEFAULT_PROTOCOL, gasEnabled: false, executors: EXECUTORS, isExecuted: () => false };
    return (await executeBlock(this.state, [tx], env)).receipts[0]!;
  }

  /** a user of `organization`, its certificate issued by `ca` and registered */
  async member(commonName: string, organization: string, ca = this.cas[organization]!): Promise<Account> {
    const account = new Account();
    const pem = issueCertificate({ commonName, organization, publicKey: account.key.publicKey }, ca, BACKDATED);
    const receipt = await this.run(account.call(REGISTRY_ADDRESS, 'registerCertificate', { newCertificateString: pem }));
    expect(receipt).toMatchObject({ status: 'Success' });
    return account;
  }

  async vote(voter: Account, method: 'voteAddTrustedRoot' | 'voteRemoveTrustedRoot', args: Record<string, string>) {
    const r = await this.run(voter.call(REGISTRY_ADDRESS, method, args));
    return { status: r.status, message: r.message, returnValues: r.returnValues, events: r.events.map((e) => e.name) };
  }
}

describe('trusted roots by governance', () => {
  test('a majority of the validators\' organizations adds an organization\'s CA; its users can then register and act under its name', async () => {
    const net = new Network(['Org1', 'Org2', 'Org3']);
    const [v1, v2, v3] = [await net.member('v1', 'Org1'), await net.member('v2', 'Org2'), await net.member('v3', 'Org3')];
    const org4 = createNodeCa({ organization: 'Org4', commonName: 'Org4 node CA' }, BACKDATED);
    const add = { rootCertificate: org4.certificatePem };

    // before the vote, Org4's users are refused by the registry
    const dave = new Account();
    const davePem = issueCertificate({ commonName: 'dave', organization: 'Org4', publicKey: dave.key.publicKey }, org4, BACKDATED);
    expect(await net.run(dave.call(REGISTRY_ADDRESS, 'registerCertificate', { newCertificateString: davePem }))).toMatchObject({ status: 'Failure', message: expect.stringMatching(/not issued by a trusted root/) });

    expect(await net.vote(v1, 'voteAddTrustedRoot', add)).toMatchObject({ status: 'Success', returnValues: ['false'], events: ['TrustedRootVote'] });
    expect(await net.vote(v1, 'voteAddTrustedRoot', add)).toMatchObject({ status: 'Failure', message: expect.stringContaining('voted for it already') });
    const outsider = new Account();
    expect(await net.vote(outsider, 'voteAddTrustedRoot', add)).toMatchObject({ status: 'Failure', message: expect.stringContaining("only the validators' organizations vote") });
    expect(await net.vote(v2, 'voteAddTrustedRoot', { rootCertificate: 'not a certificate' })).toMatchObject({ status: 'Failure', message: expect.stringContaining('not a valid certificate') });
    const leaf = issueCertificate({ commonName: 'leaf', organization: 'Org1', publicKey: new Account().key.publicKey }, net.cas.Org1!, BACKDATED);
    expect(await net.vote(v2, 'voteAddTrustedRoot', { rootCertificate: leaf })).toMatchObject({ status: 'Failure', message: expect.stringContaining('a trusted root is a CA certificate') });

    expect(await net.vote(v3, 'voteAddTrustedRoot', add)).toMatchObject({ status: 'Success', returnValues: ['true'], events: ['TrustedRootVote', 'CertificateRegistered', 'TrustedRootAdded'] });
    expect(validCertificateOf(net.state, org4.certificate.address, NOW + 100)).toMatchObject({ organization: 'Org4', parent: org4.certificate.address });
    // decided: another vote for it is refused, not counted again
    expect(await net.vote(v2, 'voteAddTrustedRoot', add)).toMatchObject({ status: 'Failure', message: expect.stringContaining('already has a valid certificate') });

    expect(await net.run(dave.call(REGISTRY_ADDRESS, 'registerCertificate', { newCertificateString: davePem }))).toMatchObject({ status: 'Success' });
    expect(identityOf(net.state, dave.address, NOW + 100)).toMatchObject({ username: 'dave', organization: 'Org4' });
    // Org4 is not a validator's organization: it does not vote
    expect(await net.vote(dave, 'voteAddTrustedRoot', { rootCertificate: createNodeCa({ organization: 'Org5', commonName: 'Org5 CA' }, BACKDATED).certificatePem })).toMatchObject({ status: 'Failure', message: expect.stringContaining("only the validators' organizations vote") });
  });

  test('voting a root out takes every certificate it issued with it; an organization with validators cannot be voted out', async () => {
    const net = new Network(['Org1', 'Org2', 'Org3']);
    const [v1, v2] = [await net.member('v1', 'Org1'), await net.member('v2', 'Org2')];
    const org4 = createNodeCa({ organization: 'Org4', commonName: 'Org4 node CA' }, BACKDATED);
    await net.vote(v1, 'voteAddTrustedRoot', { rootCertificate: org4.certificatePem });
    expect(await net.vote(v2, 'voteAddTrustedRoot', { rootCertificate: org4.certificatePem })).toMatchObject({ returnValues: ['true'] });
    const dave = await net.member('dave', 'Org4', org4);
    expect(identityOf(net.state, dave.address, NOW + 100)).toMatchObject({ organization: 'Org4' });

    expect(await net.vote(v1, 'voteRemoveTrustedRoot', { rootAddress: net.cas.Org3!.certificate.address })).toMatchObject({ status: 'Failure', message: expect.stringContaining('organization Org3 still has validators') });
    expect(await net.vote(v1, 'voteRemoveTrustedRoot', { rootAddress: dave.address })).toMatchObject({ status: 'Failure', message: expect.stringContaining('is not a trusted root') });
    const remove = { rootAddress: org4.certificate.address };
    expect(await net.vote(v1, 'voteRemoveTrustedRoot', remove)).toMatchObject({ status: 'Success', returnValues: ['false'] });
    expect(identityOf(net.state, dave.address, NOW + 100)).not.toBeNull();
    expect(await net.vote(v2, 'voteRemoveTrustedRoot', remove)).toMatchObject({ status: 'Success', returnValues: ['true'], events: ['TrustedRootVote', 'CertificateRevoked', 'TrustedRootRemoved'] });

    // the root is revoked: its users are nobody now, and no new user of it registers
    expect(validCertificateOf(net.state, org4.certificate.address, NOW + 100)).toBeNull();
    expect(identityOf(net.state, dave.address, NOW + 100)).toBeNull();
    const erin = new Account();
    const erinPem = issueCertificate({ commonName: 'erin', organization: 'Org4', publicKey: erin.key.publicKey }, org4, BACKDATED);
    expect(await net.run(erin.call(REGISTRY_ADDRESS, 'registerCertificate', { newCertificateString: erinPem }))).toMatchObject({ status: 'Failure', message: expect.stringMatching(/not issued by a trusted root/) });
    expect(await net.vote(v1, 'voteRemoveTrustedRoot', remove)).toMatchObject({ status: 'Failure', message: expect.stringContaining('already removed') });
    // nor does the same root come back by a new vote: it was registered before
    expect(await net.vote(v1, 'voteAddTrustedRoot', { rootCertificate: org4.certificatePem })).toMatchObject({ status: 'Failure', message: expect.stringContaining('registered before') });
  });

  test('a change of the validator set starts the votes anew', async () => {
    const net = new Network(['Org1', 'Org2', 'Org3']);
    const [v1, v2, v3] = [await net.member('v1', 'Org1'), await net.member('v2', 'Org2'), await net.member('v3', 'Org3')];
    const org4 = createNodeCa({ organization: 'Org4', commonName: 'Org4 node CA' }, BACKDATED);
    expect(await net.vote(v1, 'voteAddTrustedRoot', { rootCertificate: org4.certificatePem })).toMatchObject({ returnValues: ['false'] });
    // Org2 and Org3 take node1 (Org1) out: two organizations remain, both needed
    const node1 = (net.state.getStorage(VALIDATOR_SET_ADDRESS, '.addressAt<0>') ?? '');
    await net.run(v2.call(VALIDATOR_SET_ADDRESS, 'voteRemove', { validator: node1 }));
    expect(await net.run(v3.call(VALIDATOR_SET_ADDRESS, 'voteRemove', { validator: node1 }))).toMatchObject({ returnValues: ['true'] });
    expect(await net.vote(v2, 'voteAddTrustedRoot', { rootCertificate: org4.certificatePem })).toMatchObject({ returnValues: ['false'], events: ['TrustedRootVote'] });
    expect(await net.vote(v3, 'voteAddTrustedRoot', { rootCertificate: org4.certificatePem })).toMatchObject({ returnValues: ['true'] });
  });

  test('a lone node\'s main chain has no validator set: a vote on roots fails and says so', async () => {
    const net = new Network(['Org1'], false);
    const v1 = await net.member('v1', 'Org1');
    const org4 = createNodeCa({ organization: 'Org4', commonName: 'Org4 node CA' }, BACKDATED);
    const out = await net.vote(v1, 'voteAddTrustedRoot', { rootCertificate: org4.certificatePem });
    expect(out.status).toBe('Failure');
    expect(out.message).toBe('no SolidVM contract at address 0000000000000000000000000000000000000200');
  });
});
