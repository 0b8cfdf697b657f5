// Vectors: ethers v6 as installed from npm, package `ethers` 6.17.0
// (https://github.com/ethers-io/ethers.js, gitHead b48bfe34b11e059c4418718f9cad4e6cbe4c0680),
// compared on fixed and random inputs: Wallet#address, computeAddress,
// SigningKey#sign, SigningKey.recoverPublicKey, keccak256, id, encodeRlp,
// decodeRlp, toBeArray, getCreateAddress.
import { createRequire } from 'node:module';
import {
  SigningKey,
  Wallet,
  computeAddress,
  decodeRlp,
  encodeRlp,
  getBytes,
  getCreateAddress,
  hexlify,
  id,
  keccak256 as ethersKeccak256,
  toBeArray,
} from 'ethers';
import {
  addressFromPublicKey,
  bigintToMinimalBytes,
  bytesToBigint,
  bytesToHex,
  contractAddress,
  generateKeyPair,
  hexToBytes,
  isHighS,
  keccak256,
  keccak256Hex,
  keyPairFromPrivateKey,
  publicKeyFromPrivateKey,
  recoverAddress,
  recoverPublicKey,
  rlpDecode,
  rlpEncode,
  sign,
  strip0x,
  verify,
  type RlpDecoded,
  type RlpInput,
} from '../src/index.js';

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const SEED = 0x5eed_c0de;

/** mulberry32: a small seeded generator, so failures reproduce. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const rand = prng(SEED);
const randInt = (lo: number, hi: number): number => lo + Math.floor(rand() * (hi - lo + 1));
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
function randomBytes(n: number): Uint8Array {
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = randInt(0, 255);
  return b;
}
function randomPrivateKey(): Uint8Array {
  for (;;) {
    const k = randomBytes(32);
    const n = bytesToBigint(k);
    if (n > 0n && n < N) return k;
  }
}
const hex0x = (b: Uint8Array): string => `0x${bytesToHex(b)}`;
const lowerAddress = (a: string): string => strip0x(a).toLowerCase();

const FIXED_KEYS = [
  '0000000000000000000000000000000000000000000000000000000000000001',
  'fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364140',
  '4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318',
  'abababababababababababababababababababababababababababababababab',
  '0000000000000000000000000000000000000000000000000000000000c0ffee',
].map(hexToBytes);
const KEYS = [...FIXED_KEYS, ...Array.from({ length: 20 }, randomPrivateKey), generateKeyPair().privateKey];

describe('the native secp256k1 binding', () => {
  it('is the one loaded (no silent fallback to JavaScript)', () => {
    const require = createRequire(import.meta.url);
    expect(() => require('secp256k1/bindings')).not.toThrow();
  });
});

describe('keys and addresses, against ethers', () => {
  it('private key 1 has the well-known address', () => {
    expect(keyPairFromPrivateKey(FIXED_KEYS[0]).address).toBe('7e5f4552091a69125d5dfcb7b8c2659029395bdf');
  });

  it.each(KEYS.map((k) => [bytesToHex(k)]))('key %s: public key and address equal ethers', (pkHex) => {
    const pk = hexToBytes(pkHex);
    const ours = keyPairFromPrivateKey(pk);
    const theirs = new SigningKey(hex0x(pk));
    expect(hex0x(ours.publicKey)).toBe(theirs.publicKey);
    expect(hex0x(publicKeyFromPrivateKey(pk))).toBe(theirs.publicKey);
    expect(ours.address).toMatch(/^[0-9a-f]{40}$/);
    expect(ours.address).toBe(lowerAddress(new Wallet(hex0x(pk)).address));
    expect(ours.address).toBe(lowerAddress(computeAddress(theirs.publicKey)));
    expect(addressFromPublicKey(getBytes(theirs.compressedPublicKey))).toBe(ours.address);
    expect(addressFromPublicKey(ours.publicKey.subarray(1))).toBe(ours.address);
    expect(addressFromPublicKey(ours.publicKey)).toBe(ours.address);
  });

  it('generateKeyPair gives distinct, consistent pairs', () => {
    const a = generateKeyPair();
    const b = generateKeyPair();
    expect(a.privateKey).toHaveLength(32);
    expect(a.publicKey).toHaveLength(65);
    expect(a.publicKey[0]).toBe(4);
    expect(a.address).not.toBe(b.address);
    expect(a.address).toBe(lowerAddress(new Wallet(hex0x(a.privateKey)).address));
  });
});

describe('signatures, against ethers SigningKey', () => {
  const hashes = [
    new Uint8Array(32),
    hexToBytes(bytesToHex(bigintToMinimalBytes(N - 1n))),
    keccak256(new TextEncoder().encode('hello')),
    ...Array.from({ length: 3 }, () => randomBytes(32)),
  ];
  const cases = KEYS.flatMap((k, i) => hashes.map((h, j) => [`key ${i} hash ${j}`, k, h] as const));

  it.each(cases)('%s: r, s, v equal; recovery gives the same key and address', (_label, pk, hash) => {
    const ours = sign(hash, pk);
    const signer = new SigningKey(hex0x(pk));
    const theirs = signer.sign(hex0x(hash));
    expect(hex0x(ours.r)).toBe(theirs.r);
    expect(hex0x(ours.s)).toBe(theirs.s);
    expect(ours.v).toBe(theirs.v);
    expect(ours.recovery).toBe(theirs.yParity);
    expect(isHighS(ours.s)).toBe(false);

    const recovered = recoverPublicKey(hash, ours.r, ours.s, ours.recovery);
    expect(hex0x(recovered)).toBe(SigningKey.recoverPublicKey(hex0x(hash), theirs));
    expect(hex0x(recovered)).toBe(signer.publicKey);
    expect(recoverAddress(hash, getBytes(theirs.r), getBytes(theirs.s), theirs.yParity)).toBe(lowerAddress(computeAddress(signer.publicKey)));
    expect(verify(hash, ours.r, ours.s, recovered)).toBe(true);
    expect(verify(hash, ours.r, ours.s, getBytes(signer.compressedPublicKey))).toBe(true);
  });

  it('a high-s twin recovers the same key with the other recovery id, is flagged, and does not verify', () => {
    const pk = KEYS[7];
    const hash = randomBytes(32);
    const sig = sign(hash, pk);
    const highS = bigintToMinimalBytes(N - bytesToBigint(sig.s));
    expect(isHighS(highS)).toBe(true);
    const flipped = (sig.recovery ^ 1) as 0 | 1;
    expect(recoverPublicKey(hash, sig.r, highS, flipped)).toEqual(publicKeyFromPrivateKey(pk));
    expect(verify(hash, sig.r, highS, publicKeyFromPrivateKey(pk))).toBe(false);
  });

  it('a hash at or above n still signs and recovers (the nonce then differs from ethers: libsecp256k1 feeds the unreduced hash to RFC 6979)', () => {
    const hash = new Uint8Array(32).fill(0xff);
    for (const pk of KEYS.slice(0, 6)) {
      const ours = sign(hash, pk);
      const theirs = new SigningKey(hex0x(pk)).sign(hex0x(hash));
      expect(isHighS(ours.s)).toBe(false);
      expect(hex0x(recoverPublicKey(hash, ours.r, ours.s, ours.recovery))).toBe(SigningKey.recoverPublicKey(hex0x(hash), theirs));
      expect(SigningKey.recoverPublicKey(hex0x(hash), { r: hex0x(ours.r), s: hex0x(ours.s), v: ours.v })).toBe(hex0x(publicKeyFromPrivateKey(pk)));
    }
  });

  it('isHighS is exact at n/2', () => {
    const half = N >> 1n;
    expect(isHighS(bigintToMinimalBytes(half))).toBe(false);
    expect(isHighS(bigintToMinimalBytes(half + 1n))).toBe(true);
    expect(isHighS(new Uint8Array(0))).toBe(false);
  });
});

describe('keccak256, against ethers', () => {
  const lengths = [0, 1, 31, 32, 33, 135, 136, 137, 271, 272, 273, 1000, ...Array.from({ length: 30 }, () => randInt(0, 600))];
  it.each(lengths.map((n) => [n]))('%i random bytes', (n) => {
    const data = randomBytes(n);
    expect(keccak256Hex(data)).toBe(strip0x(ethersKeccak256(data)));
    expect(hex0x(keccak256(data))).toBe(ethersKeccak256(data));
  });

  it.each([[''], ['hello'], ['Transfer(address,address,uint256)'], ['naïve ☃ 𝄞']])('text %j as UTF-8', (text) => {
    expect(keccak256Hex(text)).toBe(strip0x(id(text)));
  });

  it('empty input has the known digest', () => {
    expect(keccak256Hex(new Uint8Array(0))).toBe('c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470');
  });
});

describe('RLP, against ethers encodeRlp/decodeRlp on random nested inputs', () => {
  type EthersRlp = string | Uint8Array | EthersRlp[];
  const LENGTHS = [0, 1, 1, 1, 2, 55, 56, 57, 255, 256, 1024, 3000];

  let budget = 0;
  function randomInput(depth: number): RlpInput {
    budget--;
    const r = rand();
    if (depth < 4 && r < 0.3 && budget > 0) {
      const len = rand() < 0.15 ? randInt(20, 70) : randInt(0, 5);
      return Array.from({ length: len }, () => randomInput(depth + 1));
    }
    if (r < 0.45) return bytesToBigint(randomBytes(pick([0, 1, 2, 8, 16, 32, 40])));
    if (r < 0.55) return pick([0, 1, 0x7f, 0x80, 0xff, 0x100, 0xffff, 2 ** 32, Number.MAX_SAFE_INTEGER, randInt(0, 2 ** 31)]);
    const len = rand() < 0.5 ? pick(LENGTHS.slice(0, -1)) : rand() < 0.02 ? LENGTHS[LENGTHS.length - 1] : randInt(0, 120);
    const b = randomBytes(len);
    if (len === 1 && rand() < 0.5) b[0] = randInt(0, 0x7f);
    return b;
  }

  function toEthers(input: RlpInput): EthersRlp {
    if (Array.isArray(input)) return input.map(toEthers);
    if (input instanceof Uint8Array) return input;
    return toBeArray(input);
  }

  function decodedToHex(d: RlpDecoded): EthersRlp {
    return Array.isArray(d) ? d.map(decodedToHex) : hex0x(d);
  }

  const inputs = Array.from({ length: 300 }, (_, i) => {
    budget = 200;
    return [i, randomInput(i % 5 === 0 ? 4 : 0)] as const;
  });

  it.each(inputs)(`seed ${SEED.toString(16)} case %i`, (_i, input) => {
    const ours = rlpEncode(input);
    const theirs = encodeRlp(toEthers(input));
    expect(hex0x(ours)).toBe(theirs);
    const decoded = rlpDecode(getBytes(theirs));
    expect(decodedToHex(decoded)).toEqual(decodeRlp(ours));
    expect(rlpEncode(decoded)).toEqual(ours);
  });

  it('lengths that need three length bytes (a 70 000-byte string, a list of 70 000 bytes)', () => {
    const big = randomBytes(70_000);
    const list = Array.from({ length: 700 }, () => randomBytes(98));
    for (const input of [big, list]) {
      const ours = rlpEncode(input);
      expect(hex0x(ours)).toBe(encodeRlp(input));
      expect(bytesToHex(rlpEncode(rlpDecode(ours)))).toBe(bytesToHex(ours));
    }
    expect(bytesToHex(rlpEncode(big).subarray(0, 4))).toBe('ba011170');
    expect(bytesToHex(rlpEncode(list).subarray(0, 4))).toBe('fa011170');
  });

  it('integers are minimal big-endian, 0 the empty string', () => {
    for (const n of [0n, 1n, 127n, 128n, 255n, 256n, 2n ** 64n - 1n, 2n ** 256n - 1n, 2n ** 256n]) {
      expect(hexlify(bigintToMinimalBytes(n))).toBe(hexlify(toBeArray(n)));
      expect(bytesToBigint(bigintToMinimalBytes(n))).toBe(n);
    }
    expect(rlpEncode(0)).toEqual(Uint8Array.of(0x80));
    expect(rlpEncode(0n)).toEqual(Uint8Array.of(0x80));
  });

  it('a single-byte input is returned as a new array, not the caller’s', () => {
    const input = Uint8Array.of(5);
    const out = rlpEncode(input);
    expect(out).toEqual(input);
    expect(out).not.toBe(input);
  });
});

describe('contract addresses, against ethers getCreateAddress', () => {
  const creators = [
    '6ac7ea33f8831ea9dcc53393aaa88b25a785dbf0',
    '0000000000000000000000000000000000000000',
    ...Array.from({ length: 5 }, () => bytesToHex(randomBytes(20))),
  ];
  const nonces = [0n, 1n, 2n, 127n, 128n, 255n, 256n, 65_535n, 2n ** 32n, 2n ** 64n - 1n, BigInt(randInt(0, 2 ** 31))];
  const cases = creators.flatMap((c) => nonces.map((n) => [c, n] as const));

  it.each(cases)('creator %s nonce %p', (creator, nonce) => {
    const expected = lowerAddress(getCreateAddress({ from: `0x${creator}`, nonce }));
    expect(contractAddress(creator, nonce)).toBe(expected);
    expect(contractAddress(`0x${creator.toUpperCase()}`, nonce)).toBe(expected);
  });

  it('the well-known first contract of 0x6ac7…dbf0', () => {
    expect(contractAddress('0x6ac7ea33f8831ea9dcc53393aaa88b25a785dbf0', 0n)).toBe('cd234a471b72ba2f1ccf0a70fcaba648a5eecd8d');
  });
});
