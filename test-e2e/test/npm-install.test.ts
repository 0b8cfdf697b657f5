// `npm install` at the root stops at once with one line saying what to run
// instead (scripts/bootstrap.mjs says how), while `npm run` — `npm start`,
// `npm test` — still works. Run against a copy of the root package.json in an
// empty folder, so that nothing of the checkout is touched; npm refuses it
// before fetching anything.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');
const npm = (dir: string, args: string[]) =>
  spawnSync('npm', args, { cwd: dir, encoding: 'utf8', timeout: 60_000, env: { ...process.env, npm_config_update_notifier: 'false', npm_config_audit: 'false', npm_config_fund: 'false' } });

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'npm-install-'));
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  pkg.scripts = { ...pkg.scripts, probe: 'node -e "console.log(\'the script ran\')"' };
  writeFileSync(join(dir, 'package.json'), JSON.stringify(pkg, null, 2));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('npm install fails with one line naming npm start and pnpm', () => {
  const result = npm(dir, ['install', '--ignore-scripts']);
  expect(result.status).not.toBe(0);
  const errors = result.stderr.split('\n').filter((line) => line.startsWith('npm error') && !line.includes('complete log'));
  expect(errors).toEqual([expect.stringMatching(/npm install cannot install this pnpm workspace, run npm start \(it installs with pnpm\) or pnpm install$/)]);
});

test('npm run still runs the scripts of the same package.json', () => {
  const result = npm(dir, ['run', '--silent', 'probe']);
  expect([result.status, result.stdout.trim()]).toEqual([0, 'the script ran']);
});
