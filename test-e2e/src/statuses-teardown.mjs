// Jest's globalTeardown: fails the run when a test saw a route answer a
// status that /openapi.json does not list for it, naming each (statuses.ts).
import { rmSync, writeFileSync } from 'node:fs';
import { tsImport } from 'tsx/esm/api';

export default async function teardown() {
  const { STATUS_DIR_ENV, STATUS_VERDICT_ENV, describeUndocumented, readRun, undocumentedStatuses } = await tsImport('./statuses.ts', import.meta.url);
  const dir = process.env[STATUS_DIR_ENV];
  if (!dir) return;
  try {
    const { document, observations } = readRun(dir);
    if (document === null) return; // no test reached a gateway
    const undocumented = undocumentedStatuses(document, observations);
    if (undocumented.length > 0) {
      const verdict = process.env[STATUS_VERDICT_ENV];
      if (verdict) return writeFileSync(verdict, describeUndocumented(undocumented));
      // jest prints the reason and the stack of a failed teardown: the stack says nothing here
      const error = new Error(describeUndocumented(undocumented));
      error.stack = '';
      throw error;
    }
    console.log(`\n/openapi.json documents all ${observations.length} statuses the tests observed from a gateway`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
