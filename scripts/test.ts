// `npm test`: type-check, lint, a check for import cycles, then every jest test
// (unit, integration against real NATS and PostgreSQL, end to end). Ends with
// the line `N passed, N failed`, where each of the three checks counts as one,
// and so does a status some test saw a route answer that /openapi.json leaves
// out (in any lane).
// `npm run test:unit` / `npm run test:e2e` (`--lane=unit|corpus|integration|e2e`): the
// jest tests of one lane only (scripts/test-lanes.ts says which file is in
// which), no type-check or lint. Arguments that are not options narrow a lane
// to the files whose path contains one of them; the others go to jest.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { LANES, laneFiles, type Lane } from './test-lanes.js';
import { STATUS_DIR_ENV, STATUS_VERDICT_ENV } from '../test-e2e/src/statuses.js';

const root = join(import.meta.dirname, '..');
const bin = (name: string) => join(root, 'node_modules', '.bin', name);
const laneArg = process.argv.slice(2).find((arg) => arg.startsWith('--lane='));
const lane = laneArg?.slice('--lane='.length) as Lane | undefined;
if (lane !== undefined && !LANES.includes(lane)) {
  console.error(`unknown lane ${lane}: one of ${LANES.join(', ')}`);
  process.exit(2);
}
let jestArgs = process.argv.slice(2).filter((arg) => arg !== laneArg);
if (lane) {
  const filters = jestArgs.filter((arg) => !arg.startsWith('-'));
  const files = laneFiles(root, lane).filter((file) => filters.length === 0 || filters.some((filter) => file.includes(filter)));
  console.log(`== lane ${lane}: ${files.length} test files`);
  if (files.length === 0) {
    console.log('\n0 passed, 0 failed');
    process.exit(0);
  }
  const options = jestArgs.filter((arg) => arg.startsWith('-'));
  // the unit lane is CPU-bound in the workers, the parent idle: a worker per core, not jest's cores - 1
  if (lane === 'unit' && !options.some((arg) => /^(--maxWorkers|-w|--runInBand|-i)\b/.test(arg))) options.push(`--maxWorkers=${availableParallelism()}`);
  jestArgs = [...options, '--runTestsByPath', ...files];
}
let passed = 0;
let failed = 0;

function check(label: string, command: string, args: string[]): void {
  console.log(`\n== ${label}`);
  const started = Date.now();
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
  const ok = result.status === 0;
  console.log(`== ${label}: ${ok ? 'ok' : 'FAILED'} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  if (ok) passed++;
  else failed++;
}

if (jestArgs.length === 0 && !lane) {
  check('type-check', bin('tsc'), ['-p', 'tsconfig.json', '--noEmit']);
  check('lint', bin('eslint'), ['.']);
  // every file the type-check covers, type-only imports included: modules in a
  // circle can be neither read nor changed one at a time
  const include: string[] = JSON.parse(readFileSync(join(root, 'tsconfig.json'), 'utf8')).include;
  const globs = include.map((entry) => (entry.endsWith('.ts') ? entry : `${entry}/**/*.ts`));
  check('import cycles', bin('dpdm'), ['--no-tree', '--no-warning', '--no-progress', '--circular', '--exit-code', 'circular:1', ...globs]);
}

console.log('\n== jest');
const out = mkdtempSync(join(tmpdir(), 'platform-jest-'));
const report = join(out, 'report.json');
// the statuses the tests see a gateway answer, checked against /openapi.json by jest's global teardown (test-e2e/src/statuses.ts)
const statuses = join(out, 'statuses');
mkdirSync(statuses);
const verdict = join(out, 'undocumented-statuses.txt');
const jest = spawnSync(
  process.execPath,
  ['--experimental-vm-modules', '--no-warnings', join(root, 'node_modules', 'jest', 'bin', 'jest.js'), '--json', `--outputFile=${report}`, ...jestArgs],
  { cwd: root, stdio: 'inherit', env: { ...process.env, FORCE_COLOR: process.env.CI ? '0' : process.env.FORCE_COLOR, [STATUS_DIR_ENV]: statuses, [STATUS_VERDICT_ENV]: verdict } },
);
try {
  const summary = JSON.parse(readFileSync(report, 'utf8'));
  passed += summary.numPassedTests;
  failed += summary.numFailedTests;
  // A test file that fails to load, or whose beforeAll/afterAll fails, may have no failed test of its own: count it.
  failed += summary.testResults.filter((r: any) => r.status === 'failed' && !r.assertionResults.some((a: any) => a.status === 'failed')).length;
} catch {
  console.error(`jest wrote no report (exit ${jest.status}): counting the run as one failure`);
  failed++;
}
if (existsSync(verdict)) {
  console.error(`\n== documented statuses: FAILED\n${readFileSync(verdict, 'utf8')}`);
  failed++;
}
rmSync(out, { recursive: true, force: true });
console.log(`\n${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
