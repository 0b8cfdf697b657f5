// The file application's contracts as SolidVM runs them: the FileManager
// rules of the spec (initialize, versions, share with its token grant,
// transfer, remove, attest, the 0 / 1 return codes) and the legacy
// ExternalStorage contract.
import type { ExecutionContext } from '@platform/common';
import { MemoryWorldState, createSolidVm } from '@platform/solidvm';
import { EXTERNAL_STORAGE_SOURCE, FILE_APP_SOURCE, MEMBER_GRANT } from '../src/contracts.js';

/** one SolidVM for the tests, as the block service keeps one */
const vm = createSolidVm();

const alice = 'a'.repeat(40);
const bob = 'b'.repeat(40);
const carol = 'c'.repeat(40);

function ctx(value = 0n, gasEnabled = false): ExecutionContext {
  return {
    chainId: '',
    block: { number: 1, timestamp: 1_700_000_000, coinbase: '00'.repeat(20) },
    tx: { hash: '00'.repeat(32), origin: alice, gasPrice: 1n, gasLimit: 10_000_000n, value },
    identity: null,
    protocol: { stepLimit: 1_000_000, gasTableVersion: 1 },
    gasEnabled,
  };
}

describe('the file application contracts', () => {
  let state: MemoryWorldState;
  let manager: string;
  const call = (caller: string, method: string, args: Record<string, unknown>, value = 0n) => {
    const out = vm.callContract(state, ctx(value), { caller, address: manager, method, args });
    return { ok: out.ok, message: out.message, returned: out.returnValues[0], events: out.events.map((e) => e.name), created: out.contractsCreated.map((c) => c.name) };
  };
  const field = (address: string, name: string) => (vm.readContractState(state, address) as Record<string, unknown>)[name];
  const memberships = () => (field(manager, 'memberships') as string[]).map((m) => ({ member: field(m, 'member'), action: field(m, 'action') }));

  beforeEach(() => {
    state = new MemoryWorldState();
    const created = vm.createContract(state, ctx(), {
      creator: alice,
      src: FILE_APP_SOURCE,
      contractName: 'FileManager',
      args: { _fileKey: '1700000000000_a.txt', _fileName: 'a.txt', _fileDescription: 'notes', _comments: 'first', _fileHash: 'ab'.repeat(32), _uri: 'files/1700000000000_a.txt_abab' },
      nonce: 0n,
    });
    expect(created).toMatchObject({ ok: true });
    manager = created.address!;
  });

  test('initialize (run by the constructor): owner, one version, the owner a member, once only', () => {
    expect(field(manager, 'owner')).toBe(alice);
    expect(field(manager, 'numVersions')).toBe('1');
    expect(field(manager, 'isInitialized')).toBe(true);
    expect(field(manager, 'createdAt')).toBe('1700000000');
    const [v1] = field(manager, 'fileVersions') as string[];
    expect({ version: field(v1!, 'version'), uploadedBy: field(v1!, 'uploadedBy'), fileHash: field(v1!, 'fileHash'), comments: field(v1!, 'comments') }).toEqual({ version: '1', uploadedBy: alice, fileHash: 'ab'.repeat(32), comments: 'first' });
    expect(memberships()).toEqual([{ member: alice, action: 'MEMBER_ADDED' }]);
    expect(call(alice, 'initialize', { _fileKey: 'k', _fileName: 'n', _fileDescription: '', _comments: '', _fileHash: '', _uri: '' })).toMatchObject({ ok: false, message: expect.stringContaining('initialized already') });
  });

  test('share, remove and transferOwnership: the owner only, 1 or 0', () => {
    expect(call(bob, 'share', { member: carol, enode: '' })).toMatchObject({ ok: true, returned: '0', events: [] });
    expect(call(alice, 'share', { member: bob, enode: 'enode://x' })).toMatchObject({ ok: true, returned: '1', events: ['MemberAdded'], created: ['Membership'] });
    expect(call(bob, 'addFileVersion', { _fileHash: 'cd'.repeat(32), _comments: 'second', _uri: 'u' })).toMatchObject({ ok: true, returned: '2' });
    expect(call(carol, 'addFileVersion', { _fileHash: 'cd'.repeat(32), _comments: 'x', _uri: 'u' })).toMatchObject({ ok: false, message: expect.stringContaining('only a member') });
    expect(call(bob, 'remove', { member: alice })).toMatchObject({ returned: '0' });
    expect(call(alice, 'remove', { member: alice })).toMatchObject({ returned: '0' });
    expect(call(bob, 'transferOwnership', { newOwner: bob, enode: '' })).toMatchObject({ returned: '0' });
    expect(call(alice, 'transferOwnership', { newOwner: bob, enode: '' })).toMatchObject({ returned: '1', events: ['MemberAdded'] });
    expect(field(manager, 'owner')).toBe(bob);
    // the previous owner stays a member until the new owner removes them
    expect(call(alice, 'attest', { version: 1 })).toMatchObject({ returned: '1', created: ['Attestation'] });
    expect(call(alice, 'share', { member: carol, enode: '' })).toMatchObject({ returned: '0' });
    expect(call(bob, 'remove', { member: alice })).toMatchObject({ returned: '1', events: ['MemberRemoved'] });
    expect(call(alice, 'attest', { version: 1 })).toMatchObject({ returned: '0', created: [] });
    expect(memberships().map((m) => m.action)).toEqual(['MEMBER_ADDED', 'MEMBER_ADDED', 'MEMBER_ADDED', 'MEMBER_REMOVED']);
  });

  test('attest: a member, an existing version; the version records who attested', () => {
    expect(call(alice, 'attest', { version: 2 })).toMatchObject({ returned: '0' });
    expect(call(alice, 'attest', { version: 0 })).toMatchObject({ returned: '0' });
    expect(call(carol, 'attest', { version: 1 })).toMatchObject({ returned: '0' });
    expect(call(alice, 'attest', { version: 1 })).toMatchObject({ returned: '1' });
    const [v1] = field(manager, 'fileVersions') as string[];
    const [attestation] = field(v1!, 'attestations') as string[];
    expect({ attestor: field(attestation!, 'attestor'), version: field(attestation!, 'version'), fileKey: field(attestation!, 'fileKey') }).toEqual({ attestor: alice, version: '1', fileKey: '1700000000000_a.txt' });
    // only its manager records an attestation on a version
    expect(vm.callContract(state, ctx(), { caller: carol, address: v1!, method: 'attest', args: { _attestor: alice } }).returnValues).toEqual(['0']);
  });

  test("share grants a token from the manager's balance to a member holding none", () => {
    state.putAccount(alice, { nonce: 1n, balance: 5n * MEMBER_GRANT, codeHash: null });
    state.putAccount(carol, { nonce: 0n, balance: 7n, codeHash: null });
    const shared = vm.callContract(state, ctx(MEMBER_GRANT, true), { caller: alice, address: manager, method: 'share', args: { member: bob, enode: '' } });
    expect(shared.message).toBe('Success!');
    expect(state.getAccount(bob)?.balance).toBe(MEMBER_GRANT);
    // a member with tokens gets none; what was sent stays with the manager
    vm.callContract(state, ctx(MEMBER_GRANT, true), { caller: alice, address: manager, method: 'share', args: { member: carol, enode: '' } });
    expect(state.getAccount(carol)?.balance).toBe(7n);
    expect(state.getAccount(manager)?.balance).toBe(MEMBER_GRANT);
  });

  test('ExtFileStorageDapp creates its user manager', () => {
    const dapp = vm.createContract(state, ctx(), { creator: bob, src: FILE_APP_SOURCE, contractName: 'ExtFileStorageDapp', args: {}, nonce: 0n });
    expect(dapp.ok).toBe(true);
    const userManager = field(dapp.address!, 'userManager') as string;
    expect(field(userManager, 'owner')).toBe(bob);
  });
});

describe('the legacy ExternalStorage contract', () => {
  test('the creator is the first signer; attest appends the caller and returns the signers', () => {
    const state = new MemoryWorldState();
    const created = vm.createContract(state, ctx(), { creator: alice, src: EXTERNAL_STORAGE_SOURCE, contractName: 'ExternalStorage', args: { _fileKey: 'k', _uri: 'u', _host: 'h', _hash: 'ff', _metadata: 'm' }, nonce: 0n });
    expect(created.ok).toBe(true);
    const attested = vm.callContract(state, ctx(), { caller: bob, address: created.address!, method: 'attest', args: {} });
    expect(attested.ok).toBe(true);
    expect(JSON.parse(attested.response)).toEqual([[alice, bob]]);
    expect((vm.readContractState(state, created.address!) as Record<string, unknown>).timeStamp).toBe('1700000000');
  });
});
