// Migrations of a database that already holds data: applied on top of the
// schema as an earlier release left it, with rows in it.
import { migrateSchema } from '@platform/pg';
import { startTestInfra, type TestInfra } from '@platform/launcher';
import { MIGRATIONS, MIGRATION_LOCK, createPool, inTransaction, migrate } from '../src/db.js';

describe('transaction - schema migrations over existing data', () => {
  let infra: TestInfra;

  beforeAll(async () => {
    infra = await startTestInfra({ postgres: true });
  });
  afterAll(async () => {
    await infra?.stop();
  });

  test('the outbox table (migration 3) takes over the unpublished transactions, oldest first, and publishing no longer touches the transactions', async () => {
    const pool = createPool(await infra.postgres!.createDatabase('tx_migrations'));
    try {
      await inTransaction(pool, (client) => migrateSchema(client, { schema: 'tx', lock: MIGRATION_LOCK, migrations: MIGRATIONS.slice(0, 2) }));
      const row = (n: number, published: boolean) => [n.toString(16).padStart(64, '0'), 'a'.repeat(40), n, JSON.stringify({ n }), published];
      for (const values of [row(1, true), row(2, false), row(3, true), row(4, false)]) {
        await pool.query(`INSERT INTO tx.transactions (hash, chain_id, sender, nonce, origin, body, published) VALUES ($1, '', $2, $3, 'raw', $4, $5)`, values);
      }
      await migrate(pool);
      const outbox = await pool.query<{ hash: string }>('SELECT hash FROM tx.outbox ORDER BY seq');
      expect(outbox.rows.map((r) => r.hash)).toEqual([row(2, false)[0], row(4, false)[0]]);
      const columns = await pool.query<{ column_name: string }>(`SELECT column_name FROM information_schema.columns WHERE table_schema = 'tx' AND table_name = 'transactions'`);
      expect(columns.rows.map((c) => c.column_name)).not.toContain('published');
      // admissions write their outbox row with them
      const admitted = await pool.query<{ admitted: boolean[] }>('SELECT tx.admit_raw($1, $2, $3, $4, $5, $6, $7) AS admitted', [['b'.repeat(40)], [''], [0], ['f'.repeat(64)], ['raw'], [null], ['{}']]);
      expect(admitted.rows[0].admitted).toEqual([true]);
      expect((await pool.query('SELECT hash FROM tx.outbox ORDER BY seq')).rows.map((r) => r.hash)).toEqual([row(2, false)[0], row(4, false)[0], 'f'.repeat(64)]);
    } finally {
      await pool.end();
    }
  });
});
