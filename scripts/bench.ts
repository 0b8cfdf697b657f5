// `npm run bench [-- <filter>]`: every benchmark of the workspace — the
// `run()` export of each `libs/*/bench/*.bench.ts`,
// `services/*/bench/*.bench.ts` and `test-e2e/bench/*.bench.ts` (a whole
// node) — one after the other, results as a table.
// Benchmarks, not tests: nothing here passes or fails on a number.
import { readdirSync, existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';

interface Row {
  name: string;
  value: number;
  unit: string;
}

const root = join(import.meta.dirname, '..');
const filter = process.argv[2];

function benchFiles(): string[] {
  const files: string[] = [];
  for (const group of ['libs', 'services']) {
    for (const pkg of readdirSync(join(root, group))) {
      const dir = join(root, group, pkg, 'bench');
      if (!existsSync(dir)) continue;
      for (const file of readdirSync(dir)) if (file.endsWith('.bench.ts')) files.push(join(dir, file));
    }
  }
  const e2e = join(root, 'test-e2e', 'bench');
  if (existsSync(e2e)) for (const file of readdirSync(e2e)) if (file.endsWith('.bench.ts')) files.push(join(e2e, file));
  return files.filter((file) => !filter || file.includes(filter)).sort();
}

function normalise(result: unknown): Row[] {
  if (Array.isArray(result)) return result as Row[];
  // a record of name → ops/s
  return Object.entries(result as Record<string, number>).map(([name, value]) => ({ name, value, unit: 'ops/s' }));
}

const all: Array<Row & { file: string }> = [];
for (const file of benchFiles()) {
  const label = relative(root, file);
  console.log(`\n== ${label}`);
  const mod = (await import(pathToFileURL(file).href)) as { run?: () => Promise<unknown> };
  if (typeof mod.run !== 'function') {
    console.log('   (no run() export, skipped)');
    continue;
  }
  for (const row of normalise(await mod.run())) {
    all.push({ ...row, file: label });
    // small figures (latencies in ms) keep a decimal
    const value = Number.isInteger(row.value) || Math.abs(row.value) >= 100 ? Math.round(row.value).toLocaleString('en-US') : row.value.toFixed(1);
    console.log(`   ${row.name.padEnd(48)} ${value.padStart(12)} ${row.unit}`);
  }
}
console.log(`\n${all.length} measurements from ${new Set(all.map((r) => r.file)).size} benchmark files`);
process.exit(0);
