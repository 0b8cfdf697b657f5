// `npm test`: type-check, lint, then every jest test (unit, integration against
// real NATS and PostgreSQL, end to end). Ends with the line `N passed, N failed`,
// where type-checking and linting count as one check each.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const bin = (name: string) => join(root, 'node_modules', '.bin', name);
const jestArgs = process.argv.slice(2);
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

if (jestArgs.length === 0) {
  check('type-check', bin('tsc'), ['-p', 'tsconfig.json', '--noEmit']);
  check('lint', bin('eslint'), ['.']);
}

console.log('\n== jest');
const out = mkdtempSync(join(tmpdir(), 'platform-jest-'));
const report = join(out, 'report.json');
const jest = spawnSync(
  process.execPath,
  ['--experimental-vm-modules', '--no-warnings', join(root, 'node_modules', 'jest', 'bin', 'jest.js'), '--json', `--outputFile=${report}`, ...jestArgs],
  { cwd: root, stdio: 'inherit', env: { ...process.env, FORCE_COLOR: process.env.CI ? '0' : process.env.FORCE_COLOR } },
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
rmSync(out, { recursive: true, force: true });
console.log(`\n${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
