// Vectors: the Ethereum test suite, https://github.com/ethereum/tests
//   RLPTests/rlptest.json         at commit 0d2c026ffe66d441cd357dd8beb8908c6dd74420
//   RLPTests/invalidRLPTest.json  at commit 16806bfc9de0b34da007b84e5a32723c6af2e3b8
// copied unchanged into ./fixtures (see fixtures/SOURCE.md).
import { readFileSync } from 'node:fs';
import { encodeRlp } from 'ethers';
import { CryptoError, bytesToHex, hexToBytes, rlpDecode, rlpEncode, strip0x, type RlpDecoded, type RlpInput } from '../src/index.js';

type VectorValue = string | number | VectorValue[];
interface Vector {
  in: VectorValue;
  out: string;
}

function fixture(name: string): Record<string, Vector> {
  return JSON.parse(readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8')) as Record<string, Vector>;
}

const utf8 = new TextEncoder();

/** The suite's notation: `#` big integer, `0x` hex bytes, otherwise UTF-8 text; numbers are integers. */
function toInput(v: VectorValue): RlpInput {
  if (Array.isArray(v)) return v.map(toInput);
  if (typeof v === 'number') return v;
  if (v.startsWith('#')) return BigInt(v.slice(1));
  if (v.startsWith('0x')) return hexToBytes(v);
  return utf8.encode(v);
}

/** What decoding must give back, as a tree of hex strings (integers minimal big-endian). */
type HexTree = string | HexTree[];
function expectedTree(v: VectorValue): HexTree {
  if (Array.isArray(v)) return v.map(expectedTree);
  if (typeof v === 'number' || v.startsWith('#')) {
    const n = typeof v === 'number' ? BigInt(v) : BigInt(v.slice(1));
    if (n === 0n) return '';
    const hex = n.toString(16);
    return hex.length % 2 ? `0${hex}` : hex;
  }
  if (v.startsWith('0x')) return v.slice(2).toLowerCase();
  return Buffer.from(v, 'utf8').toString('hex');
}

function toTree(d: RlpDecoded): HexTree {
  return Array.isArray(d) ? d.map(toTree) : bytesToHex(d);
}

const valid = fixture('rlptest.json');
const invalid = fixture('invalidRLPTest.json');
const PADDED = 'listofbinaries';

describe('ethereum/tests RLPTests/rlptest.json', () => {
  const cases = Object.entries(valid).filter(([name]) => name !== PADDED);

  it('has the vectors of the recorded commit', () => {
    expect(Object.keys(valid)).toHaveLength(29);
  });

  it.each(cases)('%s encodes to the expected bytes', (_name, vector) => {
    expect(bytesToHex(rlpEncode(toInput(vector.in)))).toBe(strip0x(vector.out).toLowerCase());
  });

  it.each(cases)('%s decodes back', (_name, vector) => {
    const bytes = hexToBytes(vector.out);
    const decoded = rlpDecode(bytes);
    expect(toTree(decoded)).toEqual(expectedTree(vector.in));
    expect(bytesToHex(rlpEncode(decoded))).toBe(bytesToHex(bytes));
  });

  describe(`${PADDED}: an RLP list followed by zero padding`, () => {
    const vector = valid[PADDED];
    const items = vector.in as string[];
    const out = hexToBytes(vector.out);

    it('encodes its input as ethers does (the stored output is not an encoding of it)', () => {
      const ours = bytesToHex(rlpEncode(toInput(vector.in)));
      expect(ours).toBe(strip0x(encodeRlp(items)));
      expect(ours.startsWith('f90140')).toBe(true);
      expect(ours).not.toBe(strip0x(vector.out));
    });

    it('rejects the stored output for its trailing bytes', () => {
      expect(() => rlpDecode(out)).toThrow(expect.objectContaining({ code: 'BAD_RLP' }));
    });

    it('decodes the declared list (0xa7 bytes) to the first four items; the rest is 153 zero bytes', () => {
      const listLength = 2 + 0xa7;
      expect(toTree(rlpDecode(out.subarray(0, listLength)))).toEqual(items.slice(0, 4).map((h) => h.slice(2)));
      const padding = out.subarray(listLength);
      expect(padding.length).toBe(153);
      expect(padding.every((b) => b === 0)).toBe(true);
      expect(items.slice(4)).toEqual(Array(153).fill('0x00'));
    });
  });
});

describe('ethereum/tests RLPTests/invalidRLPTest.json', () => {
  it('has the vectors of the recorded commit', () => {
    expect(Object.keys(invalid)).toHaveLength(17);
  });

  it.each(Object.entries(invalid))('%s is rejected with BAD_RLP', (_name, vector) => {
    expect(vector.in).toBe('INVALID');
    const bytes = hexToBytes(vector.out);
    let caught: unknown;
    try {
      rlpDecode(bytes);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(CryptoError);
    expect((caught as CryptoError).code).toBe('BAD_RLP');
  });
});
