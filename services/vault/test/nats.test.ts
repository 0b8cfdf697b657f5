// The vault's NATS endpoints against a real NATS server and PostgreSQL.
import { refusal } from '@platform/common/testing';
import { computeAddress, SigningKey } from 'ethers';
import { PlatformError } from '@platform/common';
import { VAULT, call, connectBus, type NatsConnection } from '@platform/bus';
import { vaultFixture, type VaultFixture } from './helpers.js';

describe('vault - NATS endpoints', () => {
  let fixture: VaultFixture;
  let nc: NatsConnection;

  beforeAll(async () => {
    fixture = await vaultFixture();
    await fixture.start({ databaseUrl: await fixture.database('vault_nats') });
    nc = await connectBus({ url: fixture.natsUrl, name: 'vault-test' });
  });
  afterAll(async () => {
    await nc?.close();
    await fixture?.stop();
  });

  test('a created key has the address of its public key', async () => {
    const key = await call(nc, VAULT.keyCreate, { username: 'alice' });
    expect(key.username).toBe('alice');
    expect(key.pubkey).toMatch(/^04[0-9a-f]{128}$/);
    expect(key.address).toBe(computeAddress(`0x${key.pubkey}`).toLowerCase().slice(2));
    expect(await call(nc, VAULT.keyGet, { username: 'alice' })).toEqual(key);
  });

  test('a second creation is USER_EXISTS with the platform message', async () => {
    await call(nc, VAULT.keyCreate, { username: 'bob' });
    const err = await refusal(call(nc, VAULT.keyCreate, { username: 'bob' }));
    expect(err).toBeInstanceOf(PlatformError);
    expect(err).toMatchObject({ code: 'USER_EXISTS', status: 409, message: 'User bob already exists' });
  });

  test('ten concurrent creations for one user make exactly one key', async () => {
    const results = await Promise.allSettled(Array.from({ length: 10 }, () => call(nc, VAULT.keyCreate, { username: 'carol' })));
    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost.map((r) => (r.reason as PlatformError).message)).toEqual(Array(9).fill('User carol already exists'));
    expect(await call(nc, VAULT.keyGet, { username: 'carol' })).toEqual((won[0] as PromiseFulfilledResult<unknown>).value);
  });

  test('looking up a user without a key is USER_NOT_FOUND (400)', async () => {
    const err = await refusal(call(nc, VAULT.keyGet, { username: 'nobody' }));
    expect(err).toMatchObject({ code: 'USER_NOT_FOUND', status: 400 });
    expect(await refusal(call(nc, VAULT.sign, { username: 'nobody', msgHash: 'ab'.repeat(32) }))).toMatchObject({ code: 'USER_NOT_FOUND' });
  });

  test('a signature recovers to the user’s public key, with v = 27 + recovery id', async () => {
    const key = await call(nc, VAULT.keyCreate, { username: 'dave' });
    for (const hash of ['11'.repeat(32), `0x${'a7'.repeat(32)}`, `0X${'C3'.repeat(32)}`]) {
      const sig = await call(nc, VAULT.sign, { username: 'dave', msgHash: hash });
      expect(sig.r).toMatch(/^[0-9a-f]{64}$/);
      expect(sig.s).toMatch(/^[0-9a-f]{64}$/);
      expect([27, 28]).toContain(sig.v);
      const digest = `0x${hash.replace(/^0x/i, '').toLowerCase()}`;
      const recovered = SigningKey.recoverPublicKey(digest, { r: `0x${sig.r}`, s: `0x${sig.s}`, v: sig.v });
      expect(recovered).toBe(`0x${key.pubkey}`);
    }
  });

  test('fifty concurrent signatures all recover to the key', async () => {
    const key = await call(nc, VAULT.keyCreate, { username: 'erin' });
    const hashes = Array.from({ length: 50 }, (_, i) => i.toString(16).padStart(64, '0'));
    const sigs = await Promise.all(hashes.map((msgHash) => call(nc, VAULT.sign, { username: 'erin', msgHash })));
    sigs.forEach((sig, i) => expect(SigningKey.recoverPublicKey(`0x${hashes[i]}`, { r: `0x${sig.r}`, s: `0x${sig.s}`, v: sig.v })).toBe(`0x${key.pubkey}`));
  });

  test('bad requests are 400 with a code naming the problem', async () => {
    const cases: Array<[Promise<unknown>, string]> = [
      [call(nc, VAULT.keyCreate, { username: '' }), 'VALIDATION_FAILED'],
      [call(nc, VAULT.keyCreate, { username: '   ' }), 'VALIDATION_FAILED'],
      [call(nc, VAULT.keyCreate, { username: 'x'.repeat(256) }), 'VALIDATION_FAILED'],
      [call(nc, VAULT.keyCreate, { username: 7 } as never), 'VALIDATION_FAILED'],
      [call(nc, VAULT.keyCreate, { username: 'a\u0000b' }), 'VALIDATION_FAILED'],
      [call(nc, VAULT.keyGet, null as never), 'VALIDATION_FAILED'],
      [call(nc, VAULT.sign, { username: 'dave', msgHash: 'ab'.repeat(31) }), 'BAD_HEX'],
      [call(nc, VAULT.sign, { username: 'dave', msgHash: 'zz'.repeat(32) }), 'BAD_HEX'],
      [call(nc, VAULT.sign, { username: 'dave', msgHash: 12 } as never), 'VALIDATION_FAILED'],
      [call(nc, VAULT.users, { limit: 0 }), 'VALIDATION_FAILED'],
      [call(nc, VAULT.users, { limit: 1001 }), 'VALIDATION_FAILED'],
      [call(nc, VAULT.users, { offset: -1 }), 'VALIDATION_FAILED'],
      [call(nc, VAULT.users, { limit: 1.5 }), 'VALIDATION_FAILED'],
      [call(nc, VAULT.users, { address: 'abc' }), 'BAD_HEX'],
    ];
    for (const [promise, code] of cases) expect(await refusal(promise)).toMatchObject({ code, status: 400 });
    const longest = 'y'.repeat(255);
    expect((await call(nc, VAULT.keyCreate, { username: longest })).username).toBe(longest);
  });

  test('users: by address, and paged in creation order', async () => {
    const created = [];
    for (let i = 0; i < 5; i++) created.push(await call(nc, VAULT.keyCreate, { username: `page-${i}` }));
    const all = await call(nc, VAULT.users, {});
    const names = all.map((u) => u.username);
    expect(names.filter((n) => n.startsWith('page-'))).toEqual(['page-0', 'page-1', 'page-2', 'page-3', 'page-4']);
    expect(all.every((u) => Object.keys(u).sort().join() === 'address,username')).toBe(true);

    const target = created[2];
    expect(await call(nc, VAULT.users, { address: target.address })).toEqual([{ username: 'page-2', address: target.address }]);
    expect(await call(nc, VAULT.users, { address: `0x${target.address.toUpperCase()}` })).toEqual([{ username: 'page-2', address: target.address }]);
    expect(await call(nc, VAULT.users, { address: '00'.repeat(20) })).toEqual([]);

    const start = names.indexOf('page-0');
    const page = await call(nc, VAULT.users, { offset: start + 1, limit: 2 });
    expect(page.map((u) => u.username)).toEqual(['page-1', 'page-2']);
    expect(await call(nc, VAULT.users, { offset: all.length })).toEqual([]);
  });
});
