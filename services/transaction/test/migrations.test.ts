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

  test('migration 5: results become json with their values, seq keeps no index, and admit_raw still stores in arrival order only what took its nonce', async () => {
    const pool = createPool(await infra.postgres!.createDatabase('tx_migration_5'));
    try {
      await inTransaction(pool, (client) => migrateSchema(client, { schema: 'tx', lock: MIGRATION_LOCK, migrations: MIGRATIONS.slice(0, 4) }));
      const txResult = { blockHash: 'b'.repeat(64), message: 'Success!', gasUsed: '0'.repeat(60) + '6734' };
      await pool.query(`INSERT INTO tx.results (hash, chain_id, status, block_number, tx_result, data, exec_seq) VALUES ($1, '', 'Success', 1, $2::jsonb, $3::jsonb, 1)`, ['1'.repeat(64), JSON.stringify(txResult), JSON.stringify({ tag: 'Call', contents: ['2'] })]);
      await migrate(pool);
      const types = await pool.query<{ column_name: string; data_type: string }>(`SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = 'tx' AND table_name = 'results' AND column_name IN ('tx_result', 'data') ORDER BY column_name`);
      expect(types.rows).toEqual([{ column_name: 'data', data_type: 'json' }, { column_name: 'tx_result', data_type: 'json' }]);
      const stored = await pool.query('SELECT tx_result, data FROM tx.results');
      expect(stored.rows).toEqual([{ tx_result: txResult, data: { tag: 'Call', contents: ['2'] } }]);
      const indexes = await pool.query<{ indexdef: string }>(`SELECT indexdef FROM pg_indexes WHERE schemaname = 'tx' AND tablename = 'transactions'`);
      expect(indexes.rows.some((i) => /\(seq\)/.test(i.indexdef))).toBe(false);

      // account a at 0; b's nonce 5 is not its next (0): refused, the others stored in order
      const a = 'a'.repeat(40);
      const b = 'b'.repeat(40);
      const hash = (n: number) => n.toString(16).padStart(64, 'c');
      const batch = [[a, 0], [b, 5], [a, 1], [b, 0], [a, 3], [a, 2]] as const;
      const admitted = await pool.query<{ admitted: boolean[] }>('SELECT tx.admit_raw($1, $2, $3, $4, $5, $6, $7) AS admitted', [
        batch.map(([s]) => s),
        batch.map(() => ''),
        batch.map(([, n]) => n),
        batch.map((_, i) => hash(i)),
        batch.map(() => 'raw'),
        batch.map(() => null),
        batch.map((_, i) => JSON.stringify({ i })),
      ]);
      expect(admitted.rows[0].admitted).toEqual([true, false, true, true, false, true]);
      const outbox = await pool.query<{ hash: string }>('SELECT hash FROM tx.outbox ORDER BY seq');
      expect(outbox.rows.map((r) => r.hash)).toEqual([hash(0), hash(2), hash(3), hash(5)]);
      const nonces = await pool.query<{ sender: string; nonce: string }>('SELECT sender, nonce FROM tx.transactions ORDER BY seq');
      expect(nonces.rows.map((r) => [r.sender, Number(r.nonce)])).toEqual([[a, 0], [a, 1], [b, 0], [a, 2]]);
      const next = await pool.query<{ address: string; next_nonce: string }>('SELECT address, next_nonce FROM tx.accounts ORDER BY address');
      expect(next.rows.map((r) => [r.address, Number(r.next_nonce)])).toEqual([[a, 3], [b, 1]]);
    } finally {
      await pool.end();
    }
  });
});
