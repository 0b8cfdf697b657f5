// The validator set as SolidVM runs it: created from a genesis's validators,
// changed only when a majority of the validators' organizations vote (each
// by its own certificate's organization, once), and read back from storage by
// readValidatorSet exactly as the contract holds it.
import type { ExecutionContext, Validator } from '@platform/common';
import { bytesToHex, generateKeyPair } from '@platform/crypto';
import { MemoryWorldState, createSolidVm } from '@platform/solidvm';
import { VALIDATOR_SET_ADDRESS, readValidatorSet, validatorSetGenesisContract } from '../src/index.js';

/** one SolidVM for the tests, as the block service keeps one */
const vm = createSolidVm();

const validator = (node: string, organization: string): Validator => {
  const key = generateKeyPair();
  return { node, organization, address: key.address, publicKey: bytesToHex(key.publicKey) };
};

function ctx(organization: string): ExecutionContext {
  return {
    chainId: '',
    block: { number: 1, timestamp: 1_700_000_000, coinbase: '00'.repeat(20) },
    tx: { hash: '00'.repeat(32), origin: 'a'.repeat(40), gasPrice: 1n, gasLimit: 10_000_000n, value: 0n },
    identity: organization ? { username: 'voter', organization, organizationalUnit: '', certificate: '-----BEGIN CERTIFICATE-----' } : null,
    protocol: { stepLimit: 1_000_000, gasTableVersion: 1 },
    gasEnabled: false,
  };
}

describe('the validator set', () => {
  const genesis = [validator('node1', 'Org1'), validator('node2', 'Org2'), validator('node3', 'Org3')];
  let state: MemoryWorldState;
  /** where the contract is here (a genesis moves it to VALIDATOR_SET_ADDRESS) */
  let at: string;
  const read = () => readValidatorSet(state, at);
  const vote = (organization: string, method: string, args: Record<string, string>) => {
    const out = vm.callContract(state, ctx(organization), { caller: 'a'.repeat(40), address: at, method, args });
    return { ok: out.ok, message: out.message, returnValues: out.returnValues, events: out.events.map((e) => e.name) };
  };

  beforeEach(() => {
    state = new MemoryWorldState();
    const contract = validatorSetGenesisContract(genesis);
    expect(contract.address).toBe(VALIDATOR_SET_ADDRESS);
    const created = vm.createContract(state, ctx(''), { creator: '00'.repeat(20), src: contract.src, contractName: contract.name, args: contract.args, nonce: 0n });
    expect(created).toMatchObject({ ok: true });
    at = created.address!;
  });

  test('holds the genesis\'s validators, read back from storage', () => {
    expect(read()).toEqual(genesis);
    expect(readValidatorSet(new MemoryWorldState(), at)).toEqual([]);
  });

  test('a majority of the organizations adds a validator; one vote, a repeated vote, an outsider\'s vote do not', () => {
    const node4 = validator('node4', 'Org4');
    const add = { node: node4.node, organization: node4.organization, validator: node4.address, publicKey: node4.publicKey };
    expect(vote('Org1', 'voteAdd', add)).toMatchObject({ ok: true, returnValues: ['false'] });
    expect(vote('Org1', 'voteAdd', add)).toMatchObject({ ok: false, message: expect.stringContaining('voted for it already') });
    expect(vote('Org4', 'voteAdd', add)).toMatchObject({ ok: false, message: expect.stringContaining('only the validators\' organizations vote') });
    expect(vote('', 'voteAdd', add)).toMatchObject({ ok: false });
    expect(read()).toEqual(genesis);
    expect(vote('Org3', 'voteAdd', add)).toEqual({ ok: true, message: expect.any(String), returnValues: ['true'], events: ['VoteCast', 'ValidatorAdded'] });
    expect(read()).toEqual([...genesis, node4]);
    // four organizations now: three decide
    expect(vote('Org2', 'voteAdd', add)).toMatchObject({ ok: false, message: expect.stringContaining('already a validator') });
  });

  test('a majority removes a validator; the others keep their places; votes of before a change do not count after it', () => {
    const [, node2, node3] = genesis;
    expect(vote('Org1', 'voteRemove', { validator: node2!.address })).toMatchObject({ returnValues: ['false'] });
    expect(vote('Org3', 'voteRemove', { validator: node2!.address })).toMatchObject({ returnValues: ['true'] });
    expect(read().map((v) => v.node)).toEqual(['node1', 'node3']);
    expect(vote('Org2', 'voteRemove', { validator: node3!.address })).toMatchObject({ ok: false, message: expect.stringContaining('only the validators\' organizations vote') });
    // Org1's earlier vote to remove node3 would have been of the last epoch: two of two are needed now
    expect(vote('Org1', 'voteRemove', { validator: node3!.address })).toMatchObject({ returnValues: ['false'] });
    expect(vote('Org3', 'voteRemove', { validator: node3!.address })).toMatchObject({ returnValues: ['true'] });
    expect(read().map((v) => v.node)).toEqual(['node1']);
    expect(vote('Org1', 'voteRemove', { validator: genesis[0]!.address })).toMatchObject({ ok: false, message: expect.stringContaining('the last validator stays') });
  });
});
