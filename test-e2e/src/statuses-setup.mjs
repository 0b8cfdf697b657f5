// Jest's globalSetup: the directory where the run's workers record the
// statuses their tests observe (statuses.ts). Set in the environment before
// any worker starts, so every worker inherits it; `npm test` names one
// itself (scripts/test.ts). (JavaScript: jest loads its global setup without
// the tests' module mapping.)
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tsImport } from 'tsx/esm/api';

export default async function setup() {
  const { STATUS_DIR_ENV } = await tsImport('./statuses.ts', import.meta.url);
  process.env[STATUS_DIR_ENV] ||= mkdtempSync(join(tmpdir(), 'platform-statuses-'));
}
