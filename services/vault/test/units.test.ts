// The pure parts: the LRU, the envelope, the master key file.
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Lru } from '../src/lru.js';
import { open, seal } from '../src/envelope.js';
import { masterKeyPath, resolveMasterKey, type MetaStore } from '../src/master-key.js';

describe('vault - units', () => {
  test('the LRU evicts the least recently used entry', () => {
    const lru = new Lru<string, number>(2);
    lru.set('a', 1);
    lru.set('b', 2);
    expect(lru.get('a')).toBe(1); // a is now the most recent
    lru.set('c', 3);
    expect(lru.get('b')).toBeUndefined();
    expect([lru.get('a'), lru.get('c'), lru.size]).toEqual([1, 3, 2]);
    expect(() => new Lru(0)).toThrow(RangeError);
  });

  test('a sealed value opens only with its key and associated data', () => {
    const key = randomBytes(32);
    const secret = randomBytes(32);
    const sealed = seal(key, secret, 'vault:user-key:aa');
    expect(sealed).toHaveLength(12 + 16 + 32);
    expect(open(key, sealed, 'vault:user-key:aa')).toEqual(secret);
    expect(open(key, sealed, 'vault:user-key:bb')).toBeNull();
    expect(open(randomBytes(32), sealed, 'vault:user-key:aa')).toBeNull();
    const tampered = Buffer.from(sealed);
    tampered[tampered.length - 1] ^= 1;
    expect(open(key, tampered, 'vault:user-key:aa')).toBeNull();
    expect(open(key, sealed.subarray(0, 20), 'vault:user-key:aa')).toBeNull();
  });

  test('the generated master key is created once, private, and reused', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'vault-unit-'));
    try {
      const values = new Map<string, string>();
      const meta: MetaStore = { get: async (k) => values.get(k) ?? null, set: async (k, v) => void values.set(k, v) };
      const first = await resolveMasterKey(meta, { password: null, dataDir });
      expect(statSync(masterKeyPath(dataDir)).mode & 0o777).toBe(0o600);
      expect(readFileSync(masterKeyPath(dataDir), 'utf8').trim()).toBe(first.toString('hex'));
      expect(await resolveMasterKey(meta, { password: null, dataDir })).toEqual(first);
      expect(values.get('key_source')).toBe('file');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
