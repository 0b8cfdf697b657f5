// The node's block-signing key: `<DATA_DIR>/block/node.key`, 64 hex digits,
// created on first start (readable by this user only).
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { bytesToHex, hexToBytes, keyPairFromPrivateKey, type KeyPair } from '@platform/crypto';

export function loadNodeKey(path: string): KeyPair {
  mkdirSync(dirname(path), { recursive: true });
  try {
    writeFileSync(path, `${bytesToHex(randomBytes(32))}\n`, { flag: 'wx', mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const text = readFileSync(path, 'utf8').trim();
  if (!/^[0-9a-f]{64}$/i.test(text)) throw new Error(`${path} does not hold a private key (64 hex digits)`);
  return keyPairFromPrivateKey(hexToBytes(text));
}
