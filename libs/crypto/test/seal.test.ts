// Sealing private chains' data: round trips, and every way a ciphertext can
// be wrong refused with BAD_SEAL. The ECDH secret the key wrapping derives
// from is checked against ethers v6 (`SigningKey#computeSharedSecret`, npm
// `ethers` 6.17.0), an implementation nobody here wrote.
import { SigningKey, getBytes } from 'ethers';
import { CryptoError, ecdhSecret, epochOf, generateChainKey, generateKeyPair, open, openInEpoch, seal, sealInEpoch, unwrapKey, wrapKey } from '../src/index.js';

const text = (s: string) => new TextEncoder().encode(s);

function expectSealError(fn: () => unknown): void {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(CryptoError);
    expect((err as CryptoError).code).toBe('BAD_SEAL');
    return;
  }
  throw new Error('expected BAD_SEAL');
}

describe('seal / open', () => {
  const key = generateChainKey();

  it('opens what it sealed, and seals the same plaintext differently each time', () => {
    const a = seal(key, text('hello chain'), 'block.abc');
    const b = seal(key, text('hello chain'), 'block.abc');
    expect(Buffer.from(a).equals(Buffer.from(b))).toBe(false);
    expect(new TextDecoder().decode(open(key, a, 'block.abc'))).toBe('hello chain');
    expect(open(key, seal(key, new Uint8Array(0), 'x'), 'x')).toHaveLength(0);
  });

  it('leaves no plaintext in the ciphertext', () => {
    const marker = 'marker-7f3a9c1e';
    const sealed = Buffer.from(seal(key, text(`{"src":"${marker}"}`), 'tx.admitted.abc'));
    expect(sealed.includes(Buffer.from(marker))).toBe(false);
  });

  it('refuses another key, another context, a flipped bit, a truncation', () => {
    const sealed = seal(key, text('payload'), 'block.abc');
    expectSealError(() => open(generateChainKey(), sealed, 'block.abc'));
    expectSealError(() => open(key, sealed, 'tx.admitted.abc'));
    for (const at of [0, 1, 13, sealed.length - 1]) {
      const flipped = Uint8Array.from(sealed);
      flipped[at]! ^= 1;
      expectSealError(() => open(key, flipped, 'block.abc'));
    }
    expectSealError(() => open(key, sealed.subarray(0, 20), 'block.abc'));
    expectSealError(() => open(key, text('{"plain":"json"}'), 'block.abc'));
  });

  it('refuses a key of the wrong length', () => {
    expect(() => seal(new Uint8Array(16), text('x'), 'c')).toThrow(/32 bytes/);
  });
});

describe('wrapKey / unwrapKey', () => {
  it('unwraps with the recipient private key only, for the same context', () => {
    const node = generateKeyPair();
    const other = generateKeyPair();
    const key = generateChainKey();
    const wrapped = wrapKey(node.publicKey, key, 'chain-key:abc:node2');
    expect(Buffer.from(unwrapKey(node.privateKey, wrapped, 'chain-key:abc:node2')).equals(Buffer.from(key))).toBe(true);
    expectSealError(() => unwrapKey(other.privateKey, wrapped, 'chain-key:abc:node2'));
    expectSealError(() => unwrapKey(node.privateKey, wrapped, 'chain-key:abc:node3'));
    expectSealError(() => unwrapKey(node.privateKey, wrapped.slice(0, -2), 'chain-key:abc:node2'));
    expectSealError(() => unwrapKey(node.privateKey, 'zz', 'chain-key:abc:node2'));
  });

  it('refuses a recipient key that is not an uncompressed secp256k1 point', () => {
    const key = generateChainKey();
    expect(() => wrapKey(new Uint8Array(33), key, 'c')).toThrow(/uncompressed/);
    const notOnCurve = new Uint8Array(65);
    notOnCurve[0] = 4;
    expect(() => wrapKey(notOnCurve, key, 'c')).toThrow(/not a point/);
  });

  it('derives from the ECDH secret ethers computes for the same keys', () => {
    for (let i = 0; i < 8; i++) {
      const a = generateKeyPair();
      const b = generateKeyPair();
      const shared = getBytes(new SigningKey(a.privateKey).computeSharedSecret(b.publicKey));
      // ethers answers the shared point uncompressed: 04 ‖ x ‖ y; ECDH's secret is x
      expect(Buffer.from(ecdhSecret(a.privateKey, b.publicKey)).equals(Buffer.from(shared.subarray(1, 33)))).toBe(true);
      expect(Buffer.from(ecdhSecret(b.privateKey, a.publicKey)).equals(Buffer.from(shared.subarray(1, 33)))).toBe(true);
    }
  });
});

describe('sealInEpoch / openInEpoch', () => {
  it('carries its epoch, opens with that epoch\'s key, and cannot be relabelled', () => {
    const key = generateChainKey();
    const sealed = sealInEpoch(4_242, key, text('block'), 'block.abc');
    expect(epochOf(sealed)).toBe(4_242);
    expect(new TextDecoder().decode(openInEpoch(key, sealed, 'block.abc'))).toBe('block');
    const relabelled = Uint8Array.from(sealed);
    relabelled[7] = 0x01;
    expect(epochOf(relabelled)).not.toBe(4_242);
    expectSealError(() => openInEpoch(key, relabelled, 'block.abc'));
    expectSealError(() => openInEpoch(generateChainKey(), sealed, 'block.abc'));
    expectSealError(() => epochOf(new Uint8Array(3)));
  });
});
