// The block service's transaction leaf writer (src/tx-leaf.ts) gives the
// bytes of the generic RLP encoder (@platform/crypto, itself checked against
// Ethereum's RLP vectors) on the leaf's fields, for any transaction: lengths
// across RLP's one-byte, short and long forms, text in any script and
// surrogates that are not pairs, single bytes on both sides of 0x80.
import fc from 'fast-check';
import type { Transaction } from '@platform/common';
import { bytesToHex, rlpEncode } from '@platform/crypto';
import { transactionLeaf, transactionLeafFields } from '../src/tx-leaf.js';
import { Account } from './helpers.js';

const hexOf = (bytes: fc.Arbitrary<Uint8Array>) => bytes.map((b) => Buffer.from(b).toString('hex'));
const anyHex = hexOf(fc.oneof(fc.uint8Array({ maxLength: 2 }), fc.uint8Array({ maxLength: 80 }), fc.uint8Array({ minLength: 250, maxLength: 300 })));
const text = fc.oneof(fc.string({ maxLength: 3 }), fc.string({ unit: 'grapheme', maxLength: 70 }), fc.string({ unit: 'binary', maxLength: 20 }), fc.string({ minLength: 56, maxLength: 400 }));
const decimal = fc.oneof(fc.constantFrom(0n, 1n, 127n, 128n, 255n, 256n), fc.bigInt({ min: 0n, max: 2n ** 256n - 1n })).map(String);

const transaction: fc.Arbitrary<Transaction> = fc.record({
  hash: hexOf(fc.uint8Array({ minLength: 32, maxLength: 32 })),
  chainId: fc.oneof(fc.constant(''), hexOf(fc.uint8Array({ minLength: 32, maxLength: 32 }))),
  from: hexOf(fc.uint8Array({ minLength: 20, maxLength: 20 })),
  nonce: fc.oneof(fc.constantFrom(0, 1, 127, 128), fc.nat()),
  gasPrice: decimal,
  gasLimit: decimal,
  value: decimal,
  to: fc.option(hexOf(fc.uint8Array({ minLength: 20, maxLength: 20 }))),
  initOrData: anyHex,
  metadata: fc.dictionary(text, text, { maxKeys: 6 }),
  r: anyHex,
  s: anyHex,
  v: fc.constantFrom(0, 1, 27, 28, 127, 128, 300),
  signingForm: fc.constantFrom('platform', 'ethereum'),
  origin: fc.constantFrom('vault', 'raw', ''),
  submitter: fc.option(fc.record({ username: text, organization: fc.option(text, { nil: undefined }) }), { nil: undefined }),
  admittedAt: fc.nat(),
}) as fc.Arbitrary<Transaction>;

test('the leaf written in one buffer is the generic RLP of its fields, for any transaction', () => {
  fc.assert(
    fc.property(transaction, (tx) => {
      expect(bytesToHex(transactionLeaf(tx))).toBe(bytesToHex(rlpEncode(transactionLeafFields(tx))));
    }),
    { numRuns: 2_000 },
  );
});

test('a transaction as the service signs it: the same bytes; admittedAt is not part of it', () => {
  const alice = new Account();
  const tx = alice.call('00000000000000000000000000000000000000aa', 'add', { n: 1 });
  expect(bytesToHex(transactionLeaf(tx))).toBe(bytesToHex(rlpEncode(transactionLeafFields(tx))));
  expect(bytesToHex(transactionLeaf({ ...tx, admittedAt: tx.admittedAt + 1 }))).toBe(bytesToHex(transactionLeaf(tx)));
});

test('hex the generic path refuses is refused; 0x is taken as it takes it', () => {
  const alice = new Account();
  const tx = alice.call('00000000000000000000000000000000000000aa', 'add', { n: 1 });
  expect(() => transactionLeaf({ ...tx, initOrData: 'abc' })).toThrow(/odd number of hex digits/);
  expect(() => transactionLeaf({ ...tx, initOrData: 'zz' })).toThrow(/not hexadecimal/);
  expect(bytesToHex(transactionLeaf({ ...tx, initOrData: '0xab' }))).toBe(bytesToHex(transactionLeaf({ ...tx, initOrData: 'ab' })));
});
