// Start, stop and restart: keys persist, the master key is checked at start,
// concurrent starts agree, secrets stay out of the log, and main.ts runs as a
// process.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { scryptSync } from 'node:crypto';
import pg from 'pg';
import { SigningKey } from 'ethers';
import { VAULT, call, connectBus, type NatsConnection } from '@platform/bus';
import { MasterKeyError } from '../src/index.js';
import { open } from '../src/envelope.js';
import { capturingLogger, vaultFixture, type VaultFixture } from './helpers.js';

const REPO = join(import.meta.dirname, '..', '..', '..');
const MAIN = join(import.meta.dirname, '..', 'src', 'main.ts');

async function sql(databaseUrl: string, text: string): Promise<Array<Record<string, Buffer>>> {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    return (await db.query(text)).rows;
  } finally {
    await db.end();
  }
}

describe('vault - lifecycle', () => {
  let fixture: VaultFixture;
  let nc: NatsConnection;

  beforeAll(async () => {
    fixture = await vaultFixture();
    nc = await connectBus({ url: fixture.natsUrl, name: 'vault-test' });
  });
  afterAll(async () => {
    await nc?.close();
    await fixture?.stop();
  });

  const recovers = (hash: string, sig: { r: string; s: string; v: number }, pubkey: string) =>
    SigningKey.recoverPublicKey(`0x${hash}`, { r: `0x${sig.r}`, s: `0x${sig.s}`, v: sig.v }) === `0x${pubkey}`;

  test('keys survive a restart on the same database and data dir (generated master key)', async () => {
    const databaseUrl = await fixture.database('vault_restart');
    const dataDir = join(fixture.infra.dataDir, 'restart');
    let vault = await fixture.start({ databaseUrl, dataDir });
    const key = await call(nc, VAULT.keyCreate, { username: 'alice' });
    await vault.stop();

    const keyFile = join(dataDir, 'vault', 'master.key');
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);

    vault = await fixture.start({ databaseUrl, dataDir });
    expect(await call(nc, VAULT.keyGet, { username: 'alice' })).toEqual(key);
    // a cold cache: the first signatures load and decrypt the key concurrently
    const hashes = Array.from({ length: 20 }, (_, i) => (i + 1).toString(16).padStart(64, '0'));
    const sigs = await Promise.all(hashes.map((msgHash) => call(nc, VAULT.sign, { username: 'alice', msgHash })));
    sigs.forEach((sig, i) => expect(recovers(hashes[i], sig, key.pubkey)).toBe(true));
    await vault.stop();

    // another data dir has no master key: refuse, and do not make a useless new one
    const elsewhere = join(fixture.infra.dataDir, 'elsewhere');
    await expect(fixture.start({ databaseUrl, dataDir: elsewhere })).rejects.toThrow(/master key .* is missing/);
    expect(existsSync(join(elsewhere, 'vault', 'master.key'))).toBe(false);
    await expect(fixture.start({ databaseUrl, dataDir, env: { VAULT_PASSWORD: 'now-a-password' } })).rejects.toThrow(/unset VAULT_PASSWORD/);
  });

  test('a vault with VAULT_PASSWORD restarts with it, and refuses a wrong or missing one', async () => {
    const databaseUrl = await fixture.database('vault_password');
    const env = { VAULT_PASSWORD: 'correct horse battery staple' };
    let vault = await fixture.start({ databaseUrl, env });
    const key = await call(nc, VAULT.keyCreate, { username: 'bob' });
    await vault.stop();

    const wrong = fixture.start({ databaseUrl, env: { VAULT_PASSWORD: 'Correct horse battery staple' } });
    await expect(wrong).rejects.toBeInstanceOf(MasterKeyError);
    await expect(wrong).rejects.toThrow('VAULT_PASSWORD is not the password this vault was created with: start with the right one');
    await expect(fixture.start({ databaseUrl })).rejects.toThrow(/set VAULT_PASSWORD/);

    vault = await fixture.start({ databaseUrl, env });
    const sig = await call(nc, VAULT.sign, { username: 'bob', msgHash: 'cd'.repeat(32) });
    expect(recovers('cd'.repeat(32), sig, key.pubkey)).toBe(true);
    await vault.stop();
  });

  test('VAULT_NEW_PASSWORD rotates the password at a start: every key then opens with the new one only; a start that finds it done goes on', async () => {
    const databaseUrl = await fixture.database('vault_rotate');
    let vault = await fixture.start({ databaseUrl, env: { VAULT_PASSWORD: 'old password' } });
    const keys = [await call(nc, VAULT.keyCreate, { username: 'rita' }), await call(nc, VAULT.keyCreate, { username: 'sam' })];
    await vault.stop();
    const sealedBefore = (await sql(databaseUrl, 'SELECT encrypted_key FROM vault.users ORDER BY username')).map((r) => r.encrypted_key);

    const logger = capturingLogger();
    vault = await fixture.start({ databaseUrl, env: { VAULT_PASSWORD: 'old password', VAULT_NEW_PASSWORD: 'new password' }, logger: logger.logger });
    expect(logger.lines.join('\n')).toContain('now encrypted with VAULT_NEW_PASSWORD');
    for (const [i, username] of ['rita', 'sam'].entries()) {
      const sig = await call(nc, VAULT.sign, { username, msgHash: 'ab'.repeat(32) });
      expect(recovers('ab'.repeat(32), sig, keys[i]!.pubkey)).toBe(true);
    }
    await vault.stop();
    const sealedAfter = (await sql(databaseUrl, 'SELECT encrypted_key FROM vault.users ORDER BY username')).map((r) => r.encrypted_key);
    expect(sealedAfter.map((b) => b.toString('hex'))).not.toEqual(sealedBefore.map((b) => b.toString('hex')));

    // the same settings again (the operator has not changed VAULT_PASSWORD yet): the rotation is found done
    vault = await fixture.start({ databaseUrl, env: { VAULT_PASSWORD: 'old password', VAULT_NEW_PASSWORD: 'new password' } });
    await vault.stop();
    await expect(fixture.start({ databaseUrl, env: { VAULT_PASSWORD: 'old password' } })).rejects.toThrow('VAULT_PASSWORD is not the password this vault was created with');
    vault = await fixture.start({ databaseUrl, env: { VAULT_PASSWORD: 'new password' } });
    const sig = await call(nc, VAULT.sign, { username: 'sam', msgHash: 'cd'.repeat(32) });
    expect(recovers('cd'.repeat(32), sig, keys[1]!.pubkey)).toBe(true);
    await vault.stop();
    expect(() => fixture.config({ VAULT_NEW_PASSWORD: 'x' })).toThrow(/VAULT_PASSWORD must name the current one/);
  });

  test('two instances starting at once on a fresh database and data dir agree on one master key', async () => {
    const databaseUrl = await fixture.database('vault_twice');
    const dataDir = join(fixture.infra.dataDir, 'twice');
    const [a, b] = await Promise.all([fixture.start({ databaseUrl, dataDir }), fixture.start({ databaseUrl, dataDir })]);
    const key = await call(nc, VAULT.keyCreate, { username: 'carol' });
    // requests are shared between the instances (queue group): both must sign with the key one of them created
    for (let i = 0; i < 20; i++) {
      const msgHash = (i + 100).toString(16).padStart(64, '0');
      expect(recovers(msgHash, await call(nc, VAULT.sign, { username: 'carol', msgHash }), key.pubkey)).toBe(true);
    }
    await Promise.all([a.stop(), b.stop()]);
  });

  test('neither the password nor a private key appears in the log', async () => {
    const databaseUrl = await fixture.database('vault_secrets');
    const password = 'pa55-word-that-must-not-leak';
    const { logger, lines } = capturingLogger('trace');
    const vault = await fixture.start({ databaseUrl, env: { VAULT_PASSWORD: password }, logger });
    await call(nc, VAULT.keyCreate, { username: 'dave' });
    await call(nc, VAULT.keyCreate, { username: 'dave' }).catch(() => undefined);
    await call(nc, VAULT.sign, { username: 'dave', msgHash: 'ef'.repeat(32) });
    await call(nc, VAULT.sign, { username: 'dave', msgHash: 'not hex' }).catch(() => undefined);
    await fetch(`${vault.httpUrl}/platform/v2.3/key`, { method: 'POST', headers: { authorization: `Bearer ${password}` } });
    await vault.stop();

    // the private key, decrypted here the way the vault does it
    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    const kdf = JSON.parse((await db.query("SELECT value FROM vault.meta WHERE key = 'kdf'")).rows[0].value);
    const row = (await db.query("SELECT address, encrypted_key FROM vault.users WHERE username = 'dave'")).rows[0];
    await db.end();
    const masterKey = scryptSync(password, Buffer.from(kdf.salt, 'hex'), 32, { N: kdf.N, r: kdf.r, p: kdf.p, maxmem: 256 * kdf.N * kdf.r });
    const privateKey = open(masterKey, row.encrypted_key, `vault:user-key:${row.address}`);
    expect(privateKey).not.toBeNull();

    const log = lines.join('');
    expect(log).toContain('key created');
    for (const secret of [password, privateKey!.toString('hex'), privateKey!.toString('base64'), masterKey.toString('hex')]) {
      expect(log).not.toContain(secret);
    }
  });

  describe('main.ts as a process', () => {
    const run = (env: Record<string, string>) =>
      spawnSync(process.execPath, ['--import', 'tsx', MAIN], { cwd: REPO, env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8', timeout: 30_000 });

    test('without NATS_URL, NATS_CREDENTIALS or DATABASE_URL it exits 1 naming the variable', () => {
      const seed = fixture.infra.busCredentials('vault').seed;
      const noNats = run({ DATABASE_URL: 'postgres://127.0.0.1:1/x' });
      expect(noNats.status).toBe(1);
      expect(noNats.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^vault: NATS_URL is required/)]);
      // the bus admits no connection without credentials: a vault without its own refuses to start
      const noCredentials = run({ NATS_URL: 'nats://127.0.0.1:1', DATABASE_URL: 'postgres://127.0.0.1:1/x' });
      expect(noCredentials.status).toBe(1);
      expect(noCredentials.stderr).toMatch(/^vault: NATS_CREDENTIALS is required/);
      const notASeed = run({ NATS_URL: 'nats://127.0.0.1:1', NATS_CREDENTIALS: join(fixture.infra.dataDir, 'no-such-file'), DATABASE_URL: 'postgres://127.0.0.1:1/x' });
      expect(notASeed.status).toBe(1);
      expect(notASeed.stderr).toMatch(/^vault: NATS_CREDENTIALS: cannot read the credentials file/);
      const noDb = run({ NATS_URL: 'nats://127.0.0.1:1', NATS_CREDENTIALS: seed });
      expect(noDb.status).toBe(1);
      expect(noDb.stderr).toMatch(/^vault: DATABASE_URL is required/);
      const bad = run({ NATS_URL: 'nats://127.0.0.1:1', NATS_CREDENTIALS: seed, DATABASE_URL: 'postgres://127.0.0.1:1/x', VAULT_PORT: 'many' });
      expect(bad.status).toBe(1);
      expect(bad.stderr).toMatch(/^vault: VAULT_PORT: /);
    });

    test('it starts, serves, and stops cleanly on SIGTERM', async () => {
      const databaseUrl = await fixture.database('vault_main');
      const child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
        cwd: REPO,
        env: { PATH: process.env.PATH ?? '', NATS_URL: fixture.natsUrl, NATS_CREDENTIALS: fixture.infra.busCredentials('vault').seed, DATABASE_URL: databaseUrl, VAULT_PORT: '0', DATA_DIR: join(fixture.infra.dataDir, 'main') },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      let output = '';
      const httpUrl = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => {
          output += chunk.toString();
          const started = /"httpUrl":"([^"]+)".*"msg":"vault started"/.exec(output);
          if (started) resolve(started[1]);
        });
        child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
        void exited.then(() => reject(new Error(`main exited early: ${output}`)));
      });
      expect((await fetch(`${httpUrl}/health`)).status).toBe(200);
      expect((await call(nc, VAULT.keyCreate, { username: 'erin' })).username).toBe('erin');
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    });
  });

  // last of the file: it stops the fixture's PostgreSQL
  test('with the database down: a cached key still signs, anything else is 503 UNAVAILABLE', async () => {
    const vault = await fixture.start({ databaseUrl: await fixture.database('vault_down') });
    const key = await call(nc, VAULT.keyCreate, { username: 'frank' });
    await fixture.infra.postgres!.stop();
    const msgHash = '77'.repeat(32);
    expect(recovers(msgHash, await call(nc, VAULT.sign, { username: 'frank', msgHash }), key.pubkey)).toBe(true);
    for (const attempt of [call(nc, VAULT.keyGet, { username: 'grace' }), call(nc, VAULT.keyCreate, { username: 'grace' }), call(nc, VAULT.users, {})]) {
      await expect(attempt).rejects.toMatchObject({ code: 'UNAVAILABLE', status: 503 });
    }
    const health = await fetch(`${vault.httpUrl}/health`);
    expect(health.status).toBe(503);
    await vault.stop();
  });
});
