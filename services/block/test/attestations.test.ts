// Attestations (docs/network.md "Agreement"): who signed one, and what a
// height's attestations say of this node's own: agreed, outvoted, or open.
import { generateKeyPair } from '@platform/crypto';
import { attestationSigner, signAttestation, verdict } from '../src/chain/attestations.js';

const A = { hash: 'aa'.repeat(32), stateRoot: '0a'.repeat(32) };
const B = { hash: 'aa'.repeat(32), stateRoot: '0b'.repeat(32) };
const C = { hash: 'cc'.repeat(32), stateRoot: '0c'.repeat(32) };

describe('verdict', () => {
  test.each([
    ['alone, of 3', A, [], 3, 'open'],
    ['one other agrees, of 3', A, [A], 3, 'agreed'],
    ['one other differs, of 3', A, [B], 3, 'open'],
    ['two others differ alike, of 3', A, [B, B], 3, 'outvoted'],
    ['two others differ each their way, of 3', A, [B, C], 3, 'open'],
    ['one other agrees and one differs, of 3', A, [A, B], 3, 'agreed'],
    ['one other agrees, of 4', A, [A], 4, 'open'],
    ['two others agree, of 4', A, [A, A], 4, 'agreed'],
    ['three others differ alike, of 4', A, [B, B, B], 4, 'outvoted'],
    ['alone, of 1', A, [], 1, 'agreed'],
  ] as const)('%s: %s', (_label, mine, theirs, validators, kind) => {
    expect(verdict(mine, theirs, validators).kind).toBe(kind);
  });

  test('an outvoted node is told what the majority computed, and how many said so', () => {
    expect(verdict(A, [C, C, B], 4)).toEqual({ kind: 'open' });
    expect(verdict(A, [C, C, C], 5)).toEqual({ kind: 'outvoted', majority: C, votes: 3 });
  });
});

describe('signatures', () => {
  test('an attestation is its signer\'s; any field changed after signing names someone else', () => {
    const key = generateKeyPair();
    const signed = signAttestation({ chainId: '', height: 7, ...A, node: 'node2' }, key);
    expect(attestationSigner(signed)).toBe(key.address);
    for (const changed of [{ height: 8 }, { stateRoot: B.stateRoot }, { hash: C.hash }, { node: 'node3' }, { chainId: 'ab'.repeat(32) }]) {
      expect(attestationSigner({ ...signed, ...changed })).not.toBe(key.address);
    }
    expect(attestationSigner({ ...signed, signature: { r: 'zz', s: '00', v: 27 } })).toBeNull();
  });
});
