// The embedded PostgreSQL authenticates with SCRAM (a password is proven,
// never sent in clear), on a new cluster and on one initialised with the
// `password` method before.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createReadRole, scramVerifier, startPostgres } from '../src/postgres.js';

async function authMethods(url: string): Promise<{ methods: string[]; verifier: string }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const rules = await client.query<{ auth_method: string }>('SELECT DISTINCT auth_method FROM pg_hba_file_rules');
    const role = await client.query<{ p: string }>("SELECT left(rolpassword, 14) AS p FROM pg_authid WHERE rolname = 'postgres'");
    return { methods: rules.rows.map((r) => r.auth_method).sort(), verifier: role.rows[0].p };
  } finally {
    await client.end();
  }
}

describe('embedded PostgreSQL authentication', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'platform-pg-auth-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  test('a new cluster has scram-sha-256 rules only; a wrong password is refused', async () => {
    const postgres = await startPostgres({ dataDir });
    try {
      expect(await authMethods(postgres.url)).toEqual({ methods: ['scram-sha-256'], verifier: 'SCRAM-SHA-256$' });
      const url = new URL(postgres.url);
      url.password = 'wrong';
      const wrong = new pg.Client({ connectionString: url.toString() });
      await expect(wrong.connect()).rejects.toThrow(/password authentication failed/);
    } finally {
      await postgres.stop();
    }
  }, 120_000);

  test("a cluster whose pg_hba.conf says `password` is moved to scram-sha-256 at the next start, with the same password", async () => {
    const hba = join(dataDir, 'postgres', 'pg_hba.conf');
    writeFileSync(hba, readFileSync(hba, 'utf8').replace(/scram-sha-256/g, 'password'));
    const postgres = await startPostgres({ dataDir });
    try {
      expect((await authMethods(postgres.url)).methods).toEqual(['scram-sha-256']);
    } finally {
      await postgres.stop();
    }
  }, 120_000);
});

describe('the read role', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'platform-pg-read-role-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  test('its password is set as a SCRAM verifier: PostgreSQL computes the same one from the password, the role logs in with it, and the statement logged carries no password', async () => {
    const logLines: string[] = [];
    const postgres = await startPostgres({ dataDir, onLog: (line) => logLines.push(line) });
    const admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
    try {
      // PostgreSQL itself as the oracle: a password it hashes, and ours with its salt and iterations
      const password = 'Oracle_password-1';
      await admin.query(`CREATE ROLE scram_oracle LOGIN PASSWORD '${password}'`);
      const stored = (await admin.query<{ p: string }>("SELECT rolpassword AS p FROM pg_authid WHERE rolname = 'scram_oracle'")).rows[0].p;
      const [, iterations, salt] = /^SCRAM-SHA-256\$(\d+):([^$]+)\$/.exec(stored)!;
      expect(scramVerifier(password, Buffer.from(salt!, 'base64'), Number(iterations))).toBe(stored);

      // every statement of the next sessions logged: the read role's password must not be among them
      await admin.query("ALTER SYSTEM SET log_statement = 'all'");
      await admin.query('SELECT pg_reload_conf()');
      const secret = 'Read_role_secret-42';
      await createReadRole(postgres.url, 'reader_test', secret);
      const url = new URL(postgres.url);
      url.username = 'reader_test';
      url.password = secret;
      const reader = new pg.Client({ connectionString: url.toString() });
      await reader.connect();
      expect((await reader.query<{ ok: number }>('SELECT 1 AS ok')).rows[0].ok).toBe(1);
      await reader.end();
      await admin.query('ALTER SYSTEM RESET log_statement');
      await admin.query('SELECT pg_reload_conf()');
      const logged = logLines.join('\n');
      expect(logged).toMatch(/ALTER ROLE reader_test/);
      expect(logged).not.toContain(secret);
    } finally {
      await admin.end();
      await postgres.stop();
    }
  }, 120_000);
});
