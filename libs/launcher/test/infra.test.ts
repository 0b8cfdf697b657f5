import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { connect } from '@nats-io/transport-node';
import { startNats, startPostgres, type RunningNats, type RunningPostgres } from '../src/index.js';

describe('launcher - embedded infrastructure', () => {
  const dir = mkdtempSync(join(tmpdir(), 'launcher-test-'));
  let nats: RunningNats;
  let postgres: RunningPostgres;

  beforeAll(async () => {
    // sequential, so that a failure of one does not leave the other running unowned
    postgres = await startPostgres({ dataDir: dir });
    nats = await startNats({ dataDir: dir, node: 'node1', accounts: 'accounts { A: { jetstream: enabled, users: [ { user: "launcher-test", password: "secret-of-the-test" } ] } }\n' });
  });
  afterAll(async () => {
    await Promise.all([nats?.stop(), postgres?.stop()]);
    rmSync(dir, { recursive: true, force: true });
  });

  test('PostgreSQL answers queries in a database it created', async () => {
    const url = await postgres.createDatabase('launcher_test');
    await postgres.createDatabase('launcher_test'); // idempotent
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const { rows } = await client.query('SELECT current_database() AS db, 6 * 7 AS answer');
    await client.end();
    expect(rows[0]).toEqual({ db: 'launcher_test', answer: 42 });
  });

  test('NATS refuses a connection without the credentials its authorization names', async () => {
    await expect(connect({ servers: nats.url, reconnect: false })).rejects.toThrow(/Authorization Violation/i);
    await expect(connect({ servers: nats.url, reconnect: false, user: 'launcher-test', pass: 'wrong' })).rejects.toThrow(/Authorization Violation/i);
  });

  test('NATS delivers a request and its reply, with JetStream enabled', async () => {
    const nc = await connect({ servers: nats.url, user: 'launcher-test', pass: 'secret-of-the-test' });
    const sub = nc.subscribe('echo');
    (async () => {
      for await (const m of sub) m.respond(m.data);
    })();
    const reply = await nc.request('echo', 'ping', { timeout: 2000 });
    expect(reply.string()).toBe('ping');
    const info = await nc.request('$JS.API.INFO', '', { timeout: 2000 });
    expect(info.json<{ type: string }>().type).toBe('io.nats.jetstream.api.v1.account_info_response');
    await nc.close();
  });
});
