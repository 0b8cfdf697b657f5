#!/usr/bin/env node
// Entry point of every npm script: it needs nothing but Node.js. It installs the
// workspace's dependencies with the pinned pnpm when they are missing or stale,
// then runs the TypeScript script of the command through tsx.
//
// `npm install` cannot install a pnpm workspace (its `workspace:` versions),
// and fails only after fetching manifests, with `Unsupported URL Type`; no
// npm hook runs before that. The one entry of package.json's "overrides" is
// what npm reads first when it builds the tree (not for `npm run`, and pnpm
// does not read it): a key that names no package, which npm refuses at once,
// printing the key — the line saying to run `npm start` or pnpm instead.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const PNPM = 'pnpm@10.34.9';
// command: the script, and the arguments it is given before the caller's
const scripts = {
  start: ['start.ts'],
  test: ['test.ts'],
  'test:unit': ['test.ts', '--lane=unit'],
  'test:e2e': ['test.ts', '--lane=e2e'],
  token: ['token.ts'],
  bench: ['bench.ts'],
  deploy: ['../deploy/src/cli.ts'],
};

function mtime(path) {
  return existsSync(path) ? statSync(path).mtimeMs : 0;
}

function ensureDependencies() {
  const marker = join(root, 'node_modules', '.modules.yaml');
  const stale = mtime(marker) === 0 || mtime(join(root, 'pnpm-lock.yaml')) > mtime(marker);
  if (!stale) return;
  console.error(`installing dependencies with ${PNPM} …`);
  const args = ['--yes', PNPM, '--dir', root, 'install', '--frozen-lockfile', '--reporter=append-only'];
  // npx runs outside the workspace: inside, it would read the workspace's package.json as npm does, and stop at its "overrides"
  const result = spawnSync('npx', args, { cwd: tmpdir(), stdio: ['ignore', 'inherit', 'inherit'] });
  if (result.status !== 0) {
    console.error(`dependency installation failed (npx ${args.join(' ')}): fix the error above and run the command again`);
    process.exit(result.status ?? 1);
  }
}

const [command, ...rest] = process.argv.slice(2);
if (!scripts[command]) {
  console.error(`usage: node scripts/bootstrap.mjs <${Object.keys(scripts).join('|')}> [args]`);
  process.exit(2);
}
ensureDependencies();
// a child, not spawnSync: the launcher must receive the signals npm forwards
const [script, ...first] = scripts[command];
const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'scripts', script), ...first, ...rest], { cwd: root, stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
// `npm` may die of a SIGTERM without passing it on: then its child is orphaned,
// and stops the launcher as if it had received the signal itself
const parent = process.ppid;
const watch = setInterval(() => {
  if (process.ppid === parent) return;
  clearInterval(watch);
  child.kill('SIGTERM');
}, 500);
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
