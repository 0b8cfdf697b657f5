// Vectors: ethers v6 as installed from npm, package `ethers` 6.17.0
// (https://github.com/ethers-io/ethers.js, gitHead b48bfe34b11e059c4418718f9cad4e6cbe4c0680):
// SigningKey#sign over our signing hash, Wallet#address, Transaction (a legacy
// transaction without a chain id signs the same six-item list as our main-chain
// form), encodeRlp/keccak256 to rebuild the lists of docs/conventions.md independently.
import { SigningKey, Transaction, Wallet, encodeRlp, getBytes, hexlify, keccak256 as ethersKeccak256, toBeArray, toUtf8Bytes } from 'ethers';
import {
  bytesToHex,
  hexToBytes,
  keccak256Hex,
  recoverAddress,
  rlpDecode,
  saltedContractAddress,
  sign,
  signingHash,
  signingPayload,
  strip0x,
  transactionHash,
  type RlpDecoded,
  type UnsignedTxFields,
} from '../src/index.js';

const PRIVATE_KEY = '0x8da4ef21b864d2cc526dbdb2a120bd2874c36c9d0a1fb7f8c63d7f7a8b41de8f';
const wallet = new Wallet(PRIVATE_KEY);
const signer = new SigningKey(PRIVATE_KEY);
const signerAddress = strip0x(wallet.address).toLowerCase();
const CHAIN_ID = 'a3f1c2b4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f80';
const utf8 = new TextEncoder();

const mainTx: UnsignedTxFields = {
  nonce: 7n,
  gasPrice: 1n,
  gasLimit: 100_000_000n,
  to: '0x1111111111111111111111111111111111111111',
  value: 0n,
  initOrData: utf8.encode('contract A { uint x; function set(uint v) { x = v; } }'),
  chainId: null,
  metadata: { VM: 'SolidVM', funcName: 'set', args: '(42)' },
};
const privateTx: UnsignedTxFields = { ...mainTx, chainId: CHAIN_ID };
const creationTx: UnsignedTxFields = { ...mainTx, to: null, nonce: 0n, value: 10n ** 18n };

function items(d: RlpDecoded): RlpDecoded[] {
  if (!Array.isArray(d)) throw new Error('expected a list');
  return d;
}

/** The platform's list, rebuilt with ethers' primitives. */
function ethersPlatformList(tx: UnsignedTxFields): Array<string | Uint8Array> {
  const list: Array<string | Uint8Array> = [
    toBeArray(tx.nonce),
    toBeArray(tx.gasPrice),
    toBeArray(tx.gasLimit),
    tx.to ? getBytes(tx.to.startsWith('0x') ? tx.to : `0x${tx.to}`) : '0x',
    toBeArray(tx.value),
    tx.initOrData,
  ];
  if (tx.chainId) list.push(getBytes(`0x${tx.chainId}`));
  return list;
}

function ethersMetadataList(metadata: Record<string, string> | null | undefined): Uint8Array[][] {
  return Object.keys(metadata ?? {})
    .sort()
    .map((k) => [toUtf8Bytes(k), toUtf8Bytes((metadata ?? {})[k])]);
}

describe('signingHash: the platform form', () => {
  it.each([
    ['main chain', mainTx],
    ['private chain', privateTx],
    ['creation', creationTx],
  ])('%s: a signature made by ethers over it recovers the ethers address', (_label, tx) => {
    const hash = signingHash(tx);
    const sig = signer.sign(hash);
    expect(recoverAddress(hash, getBytes(sig.r), getBytes(sig.s), sig.yParity)).toBe(signerAddress);
    const ours = sign(hash, getBytes(PRIVATE_KEY));
    expect(recoverAddress(hash, ours.r, ours.s, ours.recovery)).toBe(signerAddress);
  });

  it.each([
    ['main chain', mainTx],
    ['private chain', privateTx],
    ['creation', creationTx],
  ])('%s: the payload equals the list rebuilt with ethers', (_label, tx) => {
    expect(`0x${bytesToHex(signingPayload(tx, 'platform'))}`).toBe(encodeRlp(ethersPlatformList(tx)));
    expect(`0x${bytesToHex(signingHash(tx))}`).toBe(ethersKeccak256(encodeRlp(ethersPlatformList(tx))));
  });

  it('main chain: it is the hash of an ethers legacy transaction without a chain id, whose sender ethers recovers', () => {
    const legacy = Transaction.from({
      type: 0,
      chainId: 0n,
      nonce: Number(mainTx.nonce),
      gasPrice: mainTx.gasPrice,
      gasLimit: mainTx.gasLimit,
      to: mainTx.to,
      value: mainTx.value,
      data: hexlify(mainTx.initOrData),
    });
    expect(strip0x(legacy.unsignedHash)).toBe(bytesToHex(signingHash(mainTx)));
    const ours = sign(signingHash(mainTx), getBytes(PRIVATE_KEY));
    legacy.signature = { r: `0x${bytesToHex(ours.r)}`, s: `0x${bytesToHex(ours.s)}`, v: ours.v };
    expect(legacy.from).toBe(wallet.address);
  });

  it('has six items on the main chain', () => {
    const list = items(rlpDecode(signingPayload(mainTx, 'platform')));
    expect(list).toHaveLength(6);
    expect(list[0]).toEqual(Uint8Array.of(7));
    expect(list[3]).toEqual(hexToBytes(mainTx.to as string));
    expect(list[4]).toEqual(new Uint8Array(0));
    expect(list[5]).toEqual(mainTx.initOrData);
  });

  it('has seven on a private chain, the seventh the 32 chain id bytes', () => {
    const list = items(rlpDecode(signingPayload(privateTx, 'platform')));
    expect(list).toHaveLength(7);
    expect(list[6]).toEqual(hexToBytes(CHAIN_ID));
  });

  it('has the empty string as `to` for a creation', () => {
    const list = items(rlpDecode(signingPayload(creationTx, 'platform')));
    expect(list).toHaveLength(6);
    expect(list[3]).toEqual(new Uint8Array(0));
    expect(list[0]).toEqual(new Uint8Array(0));
  });

  it('is the default form; null, empty chain id and 0x-prefixed ids are handled alike', () => {
    expect(signingHash(mainTx)).toEqual(signingHash(mainTx, 'platform'));
    expect(signingHash({ ...mainTx, chainId: '' })).toEqual(signingHash(mainTx));
    expect(signingHash({ ...privateTx, chainId: `0x${CHAIN_ID.toUpperCase()}` })).toEqual(signingHash(privateTx));
    expect(signingHash({ ...creationTx, to: '' })).toEqual(signingHash(creationTx));
  });

  it('does not cover the metadata', () => {
    expect(signingHash({ ...mainTx, metadata: { VM: 'SolidVM', funcName: 'drain', args: '()' } })).toEqual(signingHash(mainTx));
  });
});

describe('signingHash: the literal and metadata forms', () => {
  it('literal: seven items on the main chain, the seventh empty', () => {
    const list = items(rlpDecode(signingPayload(mainTx, 'literal')));
    expect(list).toHaveLength(7);
    expect(list[6]).toEqual(new Uint8Array(0));
    expect(signingHash(mainTx, 'literal')).not.toEqual(signingHash(mainTx, 'platform'));
  });

  it('literal equals platform on a private chain', () => {
    expect(signingPayload(privateTx, 'literal')).toEqual(signingPayload(privateTx, 'platform'));
  });

  it.each([
    ['main chain', mainTx, 6],
    ['private chain', privateTx, 7],
  ])('metadata (%s): the platform list plus the sorted [key, value] pairs', (_label, tx, base) => {
    const payload = signingPayload(tx, 'metadata');
    const list = items(rlpDecode(payload));
    expect(list).toHaveLength(base + 1);
    const pairs = items(list[base]).map((p) => items(p).map((b) => new TextDecoder().decode(b as Uint8Array)));
    expect(pairs).toEqual([
      ['VM', 'SolidVM'],
      ['args', '(42)'],
      ['funcName', 'set'],
    ]);
    expect(`0x${bytesToHex(payload)}`).toBe(encodeRlp([...ethersPlatformList(tx), ethersMetadataList(tx.metadata)]));
    expect(signingHash(tx, 'metadata')).not.toEqual(signingHash(tx, 'platform'));
  });

  it('metadata: the order of the keys in the object does not matter; values do', () => {
    const reordered = { ...mainTx, metadata: { funcName: 'set', args: '(42)', VM: 'SolidVM' } };
    expect(signingHash(reordered, 'metadata')).toEqual(signingHash(mainTx, 'metadata'));
    const altered = { ...mainTx, metadata: { ...mainTx.metadata, args: '(43)' } };
    expect(signingHash(altered, 'metadata')).not.toEqual(signingHash(mainTx, 'metadata'));
  });

  it('metadata: no metadata appends an empty list, still distinct from the platform form', () => {
    for (const metadata of [null, undefined, {}]) {
      const list = items(rlpDecode(signingPayload({ ...mainTx, metadata }, 'metadata')));
      expect(list).toHaveLength(7);
      expect(list[6]).toEqual([]);
    }
    expect(signingHash({ ...mainTx, metadata: null }, 'metadata')).not.toEqual(signingHash(mainTx, 'platform'));
  });

  it('a signature over one form recovers to some other address under another form', () => {
    const sig = sign(signingHash(mainTx, 'platform'), getBytes(PRIVATE_KEY));
    for (const form of ['literal', 'metadata'] as const) {
      const other = recoverAddress(signingHash(mainTx, form), sig.r, sig.s, sig.recovery);
      expect(other).toMatch(/^[0-9a-f]{40}$/);
      expect(other).not.toBe(signerAddress);
    }
  });
});

describe('transactionHash', () => {
  const sig = sign(signingHash(mainTx), getBytes(PRIVATE_KEY));

  function expected(tx: UnsignedTxFields, s: { r: Uint8Array; s: Uint8Array; v: number }): string {
    const base = ethersPlatformList({ ...tx, chainId: null });
    const list = [
      ...base,
      tx.chainId ? getBytes(`0x${tx.chainId}`) : '0x',
      toBeArray(s.v),
      toBeArray(BigInt(`0x${bytesToHex(s.r)}`)),
      toBeArray(BigInt(`0x${bytesToHex(s.s)}`)),
      ethersMetadataList(tx.metadata),
    ];
    return strip0x(ethersKeccak256(encodeRlp(list)));
  }

  it.each([
    ['main chain', mainTx],
    ['private chain', privateTx],
    ['creation', creationTx],
  ])('%s: keccak of [fields, chainId or empty, v, r, s, sorted metadata], rebuilt with ethers', (_label, tx) => {
    const hash = transactionHash(tx, sig);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hash).toBe(expected(tx, sig));
  });

  it('differs when only the metadata differs', () => {
    const a = transactionHash(mainTx, sig);
    expect(transactionHash({ ...mainTx, metadata: { ...mainTx.metadata, args: '(43)' } }, sig)).not.toBe(a);
    expect(transactionHash({ ...mainTx, metadata: null }, sig)).not.toBe(a);
    expect(transactionHash({ ...mainTx, metadata: { ...mainTx.metadata, history: 'A' } }, sig)).not.toBe(a);
  });

  it('does not depend on the order of the metadata keys, nor on leading zeros of r and s', () => {
    const a = transactionHash(mainTx, sig);
    expect(transactionHash({ ...mainTx, metadata: { args: '(42)', funcName: 'set', VM: 'SolidVM' } }, sig)).toBe(a);
    const r32 = Uint8Array.from({ length: 32 }, (_, i) => i);
    const s32 = Uint8Array.from({ length: 32 }, (_, i) => (i < 2 ? 0 : 200 - i));
    const fixed = transactionHash(mainTx, { r: r32, s: s32, v: 27 });
    expect(transactionHash(mainTx, { r: r32.subarray(1), s: s32.subarray(2), v: 27 })).toBe(fixed);
    expect(fixed).toBe(expected(mainTx, { r: r32, s: s32, v: 27 }));
  });

  it('differs with the signature and with the chain', () => {
    const a = transactionHash(mainTx, sig);
    expect(transactionHash(mainTx, { ...sig, v: sig.v === 27 ? 28 : 27 })).not.toBe(a);
    expect(transactionHash(privateTx, sig)).not.toBe(a);
  });
});

describe('saltedContractAddress', () => {
  it('is the last 20 bytes of keccak(rlp([0xff, creator, salt, name, codeHash])), rebuilt with ethers', () => {
    const creator = 'e1fd0d4a52b75a694de8b55528ad48e2e2cf7859';
    const salt = getBytes(`0x${keccak256Hex('salt')}`);
    const codeHash = getBytes(`0x${keccak256Hex('contract C {}')}`);
    const want = ethersKeccak256(encodeRlp(['0xff', `0x${creator}`, salt, toUtf8Bytes('C'), codeHash])).slice(-40);
    expect(saltedContractAddress(creator, salt, 'C', codeHash)).toBe(want);
    expect(saltedContractAddress(`0x${creator}`, salt, 'D', codeHash)).not.toBe(want);
    expect(saltedContractAddress(creator, salt.slice(1), 'C', codeHash)).not.toBe(want);
  });
});
