// A node started as root from a directory others cannot search (a clone under
// /root or `mktemp -d`, both 0700, as in containers and CI images): the
// embedded PostgreSQL, which runs as the `postgres` user, gets a cluster in a
// folder of its own that it can reach, recorded in the data dir; the user's
// directories keep their modes, the secrets stay readable by root alone, and
// removing the data dir (as `npm start -- --reset` does) removes that folder.
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { LOCATION_FILE, RELOCATION_BASES } from '@platform/launcher';
import { api, devToken, startTestNode, type TestNode } from './harness.js';

const asRoot = process.getuid?.() === 0;

(asRoot ? describe : describe.skip)('a node as root under a 0700 parent', () => {
  const parent = mkdtempSync(join(tmpdir(), 'platform-0700-'));
  const dataDir = join(parent, 'clone', '.data');
  let node: TestNode | undefined;
  afterAll(async () => {
    await node?.destroy();
    rmSync(parent, { recursive: true, force: true });
  });

  test('starts, serves, keeps its secrets to root, and its data dir removal takes the cluster with it', async () => {
    expect(statSync(parent).mode & 0o777).toBe(0o700);
    node = await startTestNode({}, dataDir);
    const token = await devToken(node, 'alice', 'Acme');
    const created = await api(node, 'POST', '/platform/v2.3/key', token);
    expect(created.status).toBe(200);
    expect((await api(node, 'GET', '/platform/v2.3/key', token)).body.address).toBe(created.body.address);

    const folder = readFileSync(join(dataDir, LOCATION_FILE), 'utf8').trim();
    expect(RELOCATION_BASES).toContain(dirname(folder));
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    expect(statSync(folder).uid).not.toBe(0);
    expect(statSync(parent).mode & 0o777).toBe(0o700);
    const credentials = join(dataDir, 'nats-credentials');
    expect(statSync(credentials).mode & 0o077).toBe(0);
    for (const file of readdirSync(credentials)) expect([file, statSync(join(credentials, file)).mode & 0o077]).toEqual([file, 0]);
    for (const file of ['postgres.password', 'faucet.key', join('ca', 'node-ca.key')]) expect([file, statSync(join(dataDir, file)).mode & 0o077]).toEqual([file, 0]);
    expect(statSync(join(dataDir, 'vault')).mode & 0o077).toBe(0);

    await node.destroy();
    node = undefined;
    expect(existsSync(folder)).toBe(false);
    expect(existsSync(dataDir)).toBe(false);
  }, 180_000);
});
