// A block that a majority of the validators refused is replaced
// (docs/network.md): the replacement's header names the refused block, its
// hash and signature cover that, and its refusals must prove that more than
// half of the validators, each once, computed another state root for it.
import type { Block, BlockHeader } from '@platform/common';
import { generateKeyPair, type KeyPair } from '@platform/crypto';
import { signAttestation } from '../src/chain/attestations.js';
import { replacementError } from '../src/chain/replacement.js';
import { blockHash, blockIntegrityError, identitiesRoot, signBlock } from '../src/index.js';

const validators = [generateKeyPair(), generateKeyPair(), generateKeyPair()];
const addresses = validators.map((k) => k.address);
const proposer = validators[0]!;
const header: BlockHeader = { chainId: '', number: 7, parentHash: '11'.repeat(32), timestamp: 1_700_000_000, transactionsRoot: '22'.repeat(32), stateRoot: '33'.repeat(32), proposer: proposer.address };
const refused = signBlock(header, [], proposer);
const OTHER_ROOT = '44'.repeat(32);

const refusal = (key: KeyPair, node: string, fields: Partial<{ chainId: string; height: number; hash: string; stateRoot: string }> = {}) =>
  signAttestation({ chainId: '', height: 7, hash: refused.hash, stateRoot: OTHER_ROOT, node, ...fields }, key);

function replacement(refusals: Block['refusals'], fields: Partial<BlockHeader> = {}): Block {
  return signBlock({ ...header, stateRoot: '55'.repeat(32), proposer: validators[1]!.address, replaces: refused.hash, ...fields }, [], validators[1]!, undefined, refusals);
}

describe('the replacement block', () => {
  test('is covered by its header: `replaces` changes the hash; refusals come with it or not at all', () => {
    const r = replacement([refusal(validators[1]!, 'node2'), refusal(validators[2]!, 'node3')]);
    expect(blockIntegrityError(r)).toBeNull();
    expect(r.hash).not.toBe(blockHash({ ...r.header, replaces: undefined }));
    expect(blockIntegrityError({ ...r, refusals: undefined })).toMatch(/do not come together/);
    expect(blockIntegrityError({ ...refused, refusals: [] })).toMatch(/do not come together/);
    // a block without `replaces` hashes as it always did
    expect(refused.hash).toBe(blockHash(header));
  });

  test('with identities and `replaces`, or `replaces` alone, each field keeps its place', () => {
    const root = identitiesRoot({ ['a1'.repeat(20)]: 'pem' });
    const both = blockHash({ ...header, identitiesRoot: root, replaces: refused.hash });
    const replacesOnly = blockHash({ ...header, replaces: refused.hash });
    const identitiesOnly = blockHash({ ...header, identitiesRoot: root });
    expect(new Set([both, replacesOnly, identitiesOnly, blockHash(header)]).size).toBe(4);
    // a replaces hash cannot pass for an identities root
    expect(blockHash({ ...header, identitiesRoot: refused.hash })).not.toBe(replacesOnly);
  });
});

describe('replacementError', () => {
  test('two of three validators refusing with their signatures: it may replace', () => {
    expect(replacementError(replacement([refusal(validators[1]!, 'node2'), refusal(validators[2]!, 'node3')]), refused, addresses)).toBeNull();
    // their roots need not be the same: each computed something other than the header's
    expect(replacementError(replacement([refusal(validators[1]!, 'node2'), refusal(validators[2]!, 'node3', { stateRoot: '66'.repeat(32) })]), refused, addresses)).toBeNull();
  });

  test.each([
    ['one refusal of three validators', () => [refusal(validators[1]!, 'node2')], /1 validators refused the block, 2 of 3 are needed/],
    ['the same validator twice', () => [refusal(validators[1]!, 'node2'), refusal(validators[1]!, 'node2b')], /1 validators refused/],
    ['a signer who is no validator', () => [refusal(validators[1]!, 'node2'), refusal(generateKeyPair(), 'node9')], /node9 is not signed by a validator/],
    ['an attestation of the refused block\'s own root', () => [refusal(validators[1]!, 'node2'), refusal(validators[2]!, 'node3', { stateRoot: header.stateRoot })], /node3 computed the refused block's own state root/],
    ['an attestation of another block', () => [refusal(validators[1]!, 'node2'), refusal(validators[2]!, 'node3', { hash: '77'.repeat(32) })], /node3 is of another block/],
    ['an attestation of another height', () => [refusal(validators[1]!, 'node2'), refusal(validators[2]!, 'node3', { height: 8 })], /node3 is of another block/],
    ['a signature altered after signing', () => [refusal(validators[1]!, 'node2'), { ...refusal(validators[2]!, 'node3'), node: 'node3x' }], /node3x is not signed by a validator/],
    ['something that is not an attestation', () => [refusal(validators[1]!, 'node2'), null as never], /not an attestation/],
  ])('refused: %s', (_label, refusals, why) => {
    expect(replacementError(replacement(refusals()), refused, addresses)).toMatch(why);
  });

  test('refused: it names another block, or sits at another height or on another parent', () => {
    const enough = [refusal(validators[1]!, 'node2'), refusal(validators[2]!, 'node3')];
    expect(replacementError(replacement(enough, { replaces: '88'.repeat(32) }), refused, addresses)).toMatch(/it replaces 8888/);
    expect(replacementError(replacement(enough, { number: 8 }), refused, addresses)).toMatch(/refused block's height/);
    expect(replacementError(replacement(enough, { parentHash: '99'.repeat(32) }), refused, addresses)).toMatch(/refused block's parent/);
  });

  test('refused: a chain without validators has nobody to refuse a block', () => {
    expect(replacementError(replacement([refusal(validators[1]!, 'node2')]), refused, [])).toMatch(/no validators/);
  });
});
