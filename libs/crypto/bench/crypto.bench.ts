import { pathToFileURL } from 'node:url';
import { generateKeyPair, keccak256, recoverAddress, rlpEncode, sign, type RlpInput, type Signature } from '../src/index.js';

export interface BenchResult {
  name: string;
  value: number;
  unit: string;
}

const BATCH = 256;
const SECONDS = 1;

/** Calls `op(i)` in batches until about a second has passed; operations per second. */
function opsPerSecond(op: (i: number) => void): number {
  for (let i = 0; i < BATCH; i++) op(i);
  let count = 0;
  const started = performance.now();
  let elapsed = 0;
  while (elapsed < SECONDS * 1000) {
    for (let i = 0; i < BATCH; i++) op(count + i);
    count += BATCH;
    elapsed = performance.now() - started;
  }
  return Math.round((count * 1000) / elapsed);
}

export async function run(): Promise<BenchResult[]> {
  const { privateKey } = generateKeyPair();
  const hashes = Array.from({ length: 1024 }, (_, i) => keccak256(Uint8Array.of(i & 0xff, i >> 8)));
  const signatures: Signature[] = hashes.map((h) => sign(h, privateKey));
  const mask = hashes.length - 1;
  const payload = new Uint8Array(200).map((_, i) => i);
  let sink = 0;

  const signRate = opsPerSecond((i) => {
    sink ^= sign(hashes[i & mask], privateKey).r[0];
  });
  const recoverRate = opsPerSecond((i) => {
    const s = signatures[i & mask];
    sink ^= recoverAddress(hashes[i & mask], s.r, s.s, s.recovery).charCodeAt(0);
  });
  const keccakRate = opsPerSecond((i) => {
    payload[0] = i;
    sink ^= keccak256(payload)[0];
  });
  // the shape of a block's transaction leaf: hashes, addresses, integers, metadata pairs
  const utf8 = new TextEncoder();
  const leaf = (i: number): RlpInput => [
    hashes[i & mask], new Uint8Array(0), hashes[(i + 1) & mask].subarray(0, 20), i, 1n, 100_000_000n, 0n, hashes[(i + 2) & mask].subarray(0, 20), new Uint8Array(0),
    [[utf8.encode('VM'), utf8.encode('SolidVM')], [utf8.encode('args'), utf8.encode('(1)')], [utf8.encode('funcName'), utf8.encode('bump')]],
    signatures[i & mask].r, signatures[i & mask].s, 27, utf8.encode('platform'), utf8.encode('raw'), [],
  ];
  const leaves = Array.from({ length: 1024 }, (_, i) => leaf(i));
  const rlpRate = opsPerSecond((i) => {
    sink ^= rlpEncode(leaves[i & mask])[3];
  });
  if (sink === -1) throw new Error('unreachable');

  return [
    { name: 'crypto: sign (secp256k1, native)', value: signRate, unit: 'ops/s' },
    { name: 'crypto: recoverAddress (secp256k1 recover + keccak)', value: recoverRate, unit: 'ops/s' },
    { name: 'crypto: keccak256 of 200 bytes', value: keccakRate, unit: 'ops/s' },
    { name: 'crypto: rlpEncode of a transaction leaf', value: rlpRate, unit: 'ops/s' },
  ];
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const r of await run()) console.log(`${r.name}: ${r.value} ${r.unit}`);
}
