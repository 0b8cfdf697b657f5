// The embedded PostgreSQL authenticates with SCRAM (a password is proven,
// never sent in clear), on a new cluster and on one initialised with the
// `password` method before.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startPostgres } from '../src/postgres.js';

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
