// Error cases and the small helpers. The expected values are the definitions
// (secp256k1's n and p from SEC 2, section 2.4.1) and hand-made malformed input.
import {
  CryptoError,
  addressFromPublicKey,
  bigintToMinimalBytes,
  bytesToBigint,
  bytesToHex,
  contractAddress,
  hexToBytes,
  keccak256,
  keyPairFromPrivateKey,
  publicKeyFromPrivateKey,
  recoverAddress,
  recoverPublicKey,
  rlpDecode,
  rlpEncode,
  sign,
  signingHash,
  strip0x,
  transactionHash,
  verify,
  type CryptoErrorCode,
  type RlpInput,
  type UnsignedTxFields,
} from '../src/index.js';

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const P = 0xfffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2fn;

function fixed32(n: bigint): Uint8Array {
  return hexToBytes(n.toString(16).padStart(64, '0'));
}

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected an exception');
}

function expectCode(fn: () => unknown, code: CryptoErrorCode): CryptoError {
  const err = thrown(fn);
  expect(err).toBeInstanceOf(CryptoError);
  expect((err as CryptoError).code).toBe(code);
  return err as CryptoError;
}

function modPow(base: bigint, exp: bigint, mod: bigint): bigint {
  let result = 1n;
  let b = base % mod;
  let e = exp;
  while (e > 0n) {
    if (e & 1n) result = (result * b) % mod;
    b = (b * b) % mod;
    e >>= 1n;
  }
  return result;
}

/** The smallest x for which x³ + 7 has no square root mod p: no curve point has that x. */
function firstNonCurveX(): bigint {
  for (let x = 1n; ; x++) if (modPow((x * x * x + 7n) % P, (P - 1n) / 2n, P) === P - 1n) return x;
}

const PRIVATE_KEY = hexToBytes('4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318');
const HASH = keccak256(new TextEncoder().encode('message'));

describe('CryptoError', () => {
  it('is an Error with a name, a stable code and the cause', () => {
    const cause = new Error('inner');
    const err = new CryptoError('BAD_RLP', 'outer', { cause });
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe('CryptoError');
    expect(err.code).toBe('BAD_RLP');
    expect(err.message).toBe('outer');
    expect(err.cause).toBe(cause);
  });
});

describe('hex', () => {
  it('decodes either case, with or without 0x', () => {
    expect(hexToBytes('DEADbeef')).toEqual(Uint8Array.of(0xde, 0xad, 0xbe, 0xef));
    expect(hexToBytes('0xdeadBEEF')).toEqual(Uint8Array.of(0xde, 0xad, 0xbe, 0xef));
    expect(hexToBytes('0X00ff')).toEqual(Uint8Array.of(0, 0xff));
    expect(hexToBytes('')).toEqual(new Uint8Array(0));
    expect(hexToBytes('0x')).toEqual(new Uint8Array(0));
  });

  it('returns a plain Uint8Array of its own', () => {
    const b = hexToBytes('0102');
    expect(Object.getPrototypeOf(b)).toBe(Uint8Array.prototype);
    expect(b.byteOffset).toBe(0);
    expect(b.buffer.byteLength).toBe(2);
  });

  it('encodes lowercase without 0x, honouring subarray views', () => {
    expect(bytesToHex(Uint8Array.of(0xab, 0xcd, 0x01))).toBe('abcd01');
    expect(bytesToHex(Uint8Array.of(1, 2, 3, 4).subarray(1, 3))).toBe('0203');
    expect(bytesToHex(new Uint8Array(0))).toBe('');
  });

  it('strip0x removes one prefix only', () => {
    expect(strip0x('0xab')).toBe('ab');
    expect(strip0x('0Xab')).toBe('ab');
    expect(strip0x('ab')).toBe('ab');
    expect(strip0x('0x0xab')).toBe('0xab');
    expect(strip0x('0')).toBe('0');
  });

  it.each([['abc'], ['0x0'], ['zz'], ['0xg0'], [' 00'], ['00 '], ['0x-1'], ['é0'], ['0x0x00']])('rejects %j with BAD_HEX', (input) => {
    expectCode(() => hexToBytes(input), 'BAD_HEX');
  });

  it('names the offending character', () => {
    expect(expectCode(() => hexToBytes('0x12g4'), 'BAD_HEX').message).toMatch(/"g" at position 4/);
    expect(expectCode(() => hexToBytes('123'), 'BAD_HEX').message).toMatch(/odd/);
  });

  it('rejects a non-string', () => {
    expectCode(() => hexToBytes(12 as unknown as string), 'BAD_HEX');
  });
});

describe('malformed RLP', () => {
  it.each([
    ['empty input', ''],
    ['a truncated string', '83646f'],
    ['a truncated list', 'c38080'],
    ['trailing bytes after an item', '8000'],
    ['trailing bytes after a list', 'c0c0'],
    ['a single byte below 0x80 with a prefix', '8105'],
    ['a long-form string length below 56', 'b80100'],
    ['a long-form list length below 56', 'f80180'],
    ['a length with a leading zero', 'b9000100'],
    ['a length beyond the input', 'bbffffffff00'],
    ['a list whose items overrun it', 'c28300'],
  ])('%s (%s) throws BAD_RLP', (_label, hex) => {
    const err = expectCode(() => rlpDecode(hexToBytes(hex)), 'BAD_RLP');
    expect(err.message).toMatch(/malformed RLP/);
  });

  it('rejects input that is not bytes', () => {
    expectCode(() => rlpDecode('c0' as unknown as Uint8Array), 'BAD_RLP');
  });

  /** `depth` lists, each holding the next; the innermost holds `inner`. */
  function nested(depth: number, inner: number[]): Uint8Array {
    const headers: number[][] = [];
    let length = inner.length;
    for (let i = 0; i < depth; i++) {
      const lengthBytes = length < 56 ? [] : Array.from(bigintToMinimalBytes(BigInt(length)));
      const header = length < 56 ? [0xc0 + length] : [0xf7 + lengthBytes.length, ...lengthBytes];
      headers.push(header);
      length += header.length;
    }
    const out = new Uint8Array(length);
    let at = 0;
    for (let i = headers.length - 1; i >= 0; i--) {
      out.set(headers[i], at);
      at += headers[i].length;
    }
    out.set(inner, at);
    return out;
  }

  it('decodes deep nesting in linear time, without recursion', () => {
    const depth = 100_000;
    const data = nested(depth, [0x2a]);
    const started = performance.now();
    let node = rlpDecode(data);
    const elapsed = performance.now() - started;
    let seen = 0;
    let singletons = true;
    while (Array.isArray(node)) {
      singletons &&= node.length === 1;
      node = node[0];
      seen++;
    }
    expect(singletons).toBe(true);
    expect(seen).toBe(depth);
    expect(node).toEqual(Uint8Array.of(0x2a));
    expect(elapsed).toBeLessThan(1000);
  });

  it('rejects deep nesting with a malformed innermost item', () => {
    expectCode(() => rlpDecode(nested(100_000, [0x81, 0x05])), 'BAD_RLP');
  });

  it('returns byte strings independent of the input', () => {
    const data = hexToBytes('c483646f67');
    const decoded = rlpDecode(data) as Uint8Array[];
    data.fill(0);
    expect(decoded[0]).toEqual(new TextEncoder().encode('dog'));
  });

  it.each([
    ['a negative bigint', -1n],
    ['a negative number', -1],
    ['a fraction', 1.5],
    ['NaN', Number.NaN],
    ['an unsafe integer', 2 ** 53],
    ['text', 'dog'],
    ['null', null],
    ['a nested bad value', [Uint8Array.of(1), [undefined]]],
  ])('rlpEncode refuses %s with BAD_RLP', (_label, value) => {
    expectCode(() => rlpEncode(value as unknown as RlpInput), 'BAD_RLP');
  });

  it('bigintToMinimalBytes refuses negatives; bytesToBigint reads big-endian', () => {
    expectCode(() => bigintToMinimalBytes(-5n), 'BAD_RLP');
    expect(bigintToMinimalBytes(0n)).toEqual(new Uint8Array(0));
    expect(bigintToMinimalBytes(256n)).toEqual(Uint8Array.of(1, 0));
    expect(bytesToBigint(Uint8Array.of(0, 1, 0))).toBe(256n);
    expect(bytesToBigint(new Uint8Array(0))).toBe(0n);
  });
});

describe('signatures that do not recover', () => {
  const good = sign(HASH, PRIVATE_KEY);

  it.each([
    ['r = 0', () => recoverPublicKey(HASH, new Uint8Array(32), good.s, good.recovery)],
    ['s = 0', () => recoverPublicKey(HASH, good.r, new Uint8Array(32), good.recovery)],
    ['r = n', () => recoverPublicKey(HASH, fixed32(N), good.s, good.recovery)],
    ['s = n', () => recoverPublicKey(HASH, good.r, fixed32(N), good.recovery)],
    ['r all ones', () => recoverAddress(HASH, new Uint8Array(32).fill(0xff), good.s, 0)],
    ['r not the x of a curve point', () => recoverAddress(HASH, fixed32(firstNonCurveX()), good.s, 0)],
    ['recovery id 2', () => recoverPublicKey(HASH, good.r, good.s, 2 as 0 | 1)],
    ['r of 33 bytes', () => recoverPublicKey(HASH, Uint8Array.of(0, ...good.r), good.s, good.recovery)],
    ['a 31-byte hash', () => recoverPublicKey(HASH.subarray(1), good.r, good.s, good.recovery)],
  ])('%s throws BAD_SIGNATURE', (_label, fn) => {
    expectCode(fn, 'BAD_SIGNATURE');
  });

  it('the non-curve x is not one by accident: both recovery ids fail', () => {
    const r = fixed32(firstNonCurveX());
    expectCode(() => recoverPublicKey(HASH, r, good.s, 0), 'BAD_SIGNATURE');
    expectCode(() => recoverPublicKey(HASH, r, good.s, 1), 'BAD_SIGNATURE');
  });

  it('a tampered signature recovers to another address, and does not verify', () => {
    const signer = keyPairFromPrivateKey(PRIVATE_KEY);
    const s = good.s.slice();
    s[31] ^= 1;
    expect(recoverAddress(HASH, good.r, s, good.recovery)).not.toBe(signer.address);
    expect(verify(HASH, good.r, s, signer.publicKey)).toBe(false);
    expect(verify(HASH, good.r, good.s, signer.publicKey)).toBe(true);
  });

  it('verify is false, not an exception, for malformed keys and signatures', () => {
    const { publicKey } = keyPairFromPrivateKey(PRIVATE_KEY);
    expect(verify(HASH, good.r, good.s, publicKey.subarray(0, 20))).toBe(false);
    expect(verify(HASH, good.r, good.s, Uint8Array.of(5, ...publicKey.subarray(1)))).toBe(false);
    expect(verify(HASH, fixed32(N), good.s, publicKey)).toBe(false);
    expect(verify(HASH, new Uint8Array(33), good.s, publicKey)).toBe(false);
    expect(verify(HASH, good.r, good.s, publicKey.subarray(1))).toBe(true);
    expectCode(() => verify(HASH.subarray(1), good.r, good.s, publicKey), 'BAD_SIGNATURE');
  });
});

describe('bad keys', () => {
  it.each([
    ['zero', new Uint8Array(32)],
    ['n', fixed32(N)],
    ['n + 1', fixed32(N + 1n)],
    ['all ones', new Uint8Array(32).fill(0xff)],
    ['31 bytes', new Uint8Array(31).fill(1)],
    ['33 bytes', new Uint8Array(33).fill(1)],
  ])('private key %s throws BAD_KEY', (_label, key) => {
    expectCode(() => keyPairFromPrivateKey(key), 'BAD_KEY');
    expectCode(() => publicKeyFromPrivateKey(key), 'BAD_KEY');
    expectCode(() => sign(HASH, key), 'BAD_KEY');
  });

  it('sign rejects a hash that is not 32 bytes', () => {
    expectCode(() => sign(new Uint8Array(31), PRIVATE_KEY), 'BAD_SIGNATURE');
  });

  it.each([
    ['20 bytes', new Uint8Array(20)],
    ['65 bytes with prefix 05', Uint8Array.of(5, ...new Uint8Array(64).fill(1))],
    ['65 bytes off the curve', Uint8Array.of(4, ...new Uint8Array(64).fill(1))],
    ['64 bytes off the curve', new Uint8Array(64).fill(1)],
    ['33 bytes with prefix 04', Uint8Array.of(4, ...new Uint8Array(32).fill(1))],
    ['a compressed key whose x is off the curve', Uint8Array.of(2, ...fixed32(firstNonCurveX()))],
  ])('public key: %s throws BAD_KEY', (_label, key) => {
    expectCode(() => addressFromPublicKey(key), 'BAD_KEY');
  });
});

describe('bad transaction fields', () => {
  const tx: UnsignedTxFields = {
    nonce: 0n,
    gasPrice: 1n,
    gasLimit: 21_000n,
    to: '2222222222222222222222222222222222222222',
    value: 0n,
    initOrData: new Uint8Array(0),
    chainId: null,
  };
  const sig = { r: new Uint8Array(32).fill(1), s: new Uint8Array(32).fill(2), v: 27 };

  it.each([
    ['a chain id of 63 hex digits', 'BAD_HEX', { chainId: 'a'.repeat(63) }],
    ['a chain id of 31 bytes', 'BAD_HEX', { chainId: 'a'.repeat(62) }],
    ['a `to` of 19 bytes', 'BAD_HEX', { to: '22'.repeat(19) }],
    ['a `to` that is not hex', 'BAD_HEX', { to: 'zz'.repeat(20) }],
    ['a negative nonce', 'BAD_RLP', { nonce: -1n }],
    ['a negative value', 'BAD_RLP', { value: -10n }],
  ] as const)('%s throws %s', (_label, code, patch) => {
    const bad = { ...tx, ...patch } as UnsignedTxFields;
    expectCode(() => signingHash(bad), code);
    expectCode(() => transactionHash(bad, sig), code);
  });

  it('an unknown signing form is refused', () => {
    expect(() => signingHash(tx, 'other' as 'platform')).toThrow(TypeError);
  });

  it('transactionHash refuses r or s longer than 32 bytes', () => {
    expectCode(() => transactionHash(tx, { ...sig, r: new Uint8Array(33) }), 'BAD_SIGNATURE');
  });

  it('contractAddress refuses a creator that is not a 20-byte address', () => {
    expectCode(() => contractAddress('xyz', 0n), 'BAD_HEX');
    expectCode(() => contractAddress('11'.repeat(21), 0n), 'BAD_HEX');
    expectCode(() => contractAddress('11'.repeat(20), -1n), 'BAD_RLP');
  });
});
