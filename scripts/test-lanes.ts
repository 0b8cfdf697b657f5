// Which test files each lane of `npm test` runs (`npm test` runs them all).
// A test file is in the first lane that takes it:
//   e2e          test-e2e/test, test-security/test: whole nodes
//   integration  a file that calls something starting NATS, PostgreSQL or a
//                node: one of INFRA_CALLS (startTestInfra, startTestNode,
//                startNode, startPostgres, startNats), or a function of a
//                test helper it imports (a module under a test/ directory,
//                followed through relative imports, transitively) that calls one
//   corpus       a file named corpus, differential or generated (`*.test.ts`):
//                a conformance suite running hundreds of programs, minutes of CPU
//   unit         every other file: no NATS, no PostgreSQL, no process of its own
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

export type Lane = 'unit' | 'corpus' | 'integration' | 'e2e';
export const LANES: readonly Lane[] = ['unit', 'corpus', 'integration', 'e2e'];

const CORPUS = /(^|[/.])(corpus|differential|generated)\.test\.ts$/;

/** the launcher's functions that start NATS, PostgreSQL or a node */
const INFRA_CALLS = ['startTestInfra', 'startTestNode', 'startNode', 'startPostgres', 'startNats'];
const RELATIVE_IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"](\.{1,2}\/[^'"]+)['"]/g;
const TOP_LEVEL = /^(?:export\s+)?(?:default\s+)?(?:async\s+)?(?:function\*?|const|let|class)\s+([A-Za-z_$][\w$]*)/;

const calls = (text: string, names: Set<string>) => [...names].some((name) => new RegExp(`\\b${name.replace(/\$/g, '\\$')}\\s*\\(`).test(text));

function walk(dir: string, out: string[] = []): string[] {
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules') continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, out);
    else if (name.endsWith('.test.ts')) out.push(path);
  }
  return out;
}

/** Every test file jest.config.js matches, relative to the root, sorted. */
export function testFiles(root: string): string[] {
  const files: string[] = [];
  for (const group of ['libs', 'services']) {
    const base = join(root, group);
    if (!existsSync(base)) continue;
    for (const pkg of readdirSync(base)) walk(join(base, pkg, 'test'), files);
  }
  walk(join(root, 'test-e2e', 'test'), files);
  walk(join(root, 'test-security', 'test'), files);
  walk(join(root, 'deploy', 'test'), files);
  return files.map((file) => relative(root, file)).sort();
}

function resolveImport(from: string, specifier: string): string | null {
  const base = resolve(dirname(from), specifier);
  for (const candidate of [base.replace(/\.js$/, '.ts'), base, `${base}.ts`, join(base, 'index.ts')]) {
    if (candidate.endsWith('.ts') && existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return null;
}

/**
 * The names a module offers that start NATS, PostgreSQL or a node when
 * called: INFRA_CALLS, and its top-level functions, constants and classes
 * whose text calls one of them or one a test helper it imports offers.
 */
function infraNames(file: string, seen: Map<string, Set<string>>): Set<string> {
  const known = seen.get(file);
  if (known !== undefined) return known;
  const names = new Set(INFRA_CALLS);
  seen.set(file, names); // an import cycle adds nothing
  const text = readFileSync(file, 'utf8');
  for (const match of text.matchAll(RELATIVE_IMPORT)) {
    const target = resolveImport(file, match[1]);
    // test helpers only: a library module that defines a start (src/) starts nothing until a test calls it
    if (target && /\/test\//.test(target) && !target.includes('/node_modules/')) for (const name of infraNames(target, seen)) names.add(name);
  }
  // the module cut at its top-level declarations
  const chunks: Array<{ name: string; text: string }> = [];
  for (const line of text.split('\n')) {
    const declared = TOP_LEVEL.exec(line);
    if (declared) chunks.push({ name: declared[1], text: '' });
    if (chunks.length > 0) chunks[chunks.length - 1].text += `${line}\n`;
  }
  for (let grew = true; grew; ) {
    grew = false;
    for (const chunk of chunks) {
      if (!names.has(chunk.name) && calls(chunk.text, names)) {
        names.add(chunk.name);
        grew = true;
      }
    }
  }
  return names;
}

/** Whether a test file calls something that starts NATS, PostgreSQL or a node. */
export function startsInfrastructure(file: string, seen = new Map<string, Set<string>>()): boolean {
  return calls(readFileSync(file, 'utf8'), infraNames(file, seen));
}

export function laneOf(root: string, file: string, seen?: Map<string, Set<string>>): Lane {
  if (file.startsWith('test-e2e/') || file.startsWith('test-security/')) return 'e2e';
  if (startsInfrastructure(join(root, file), seen)) return 'integration';
  return CORPUS.test(file) ? 'corpus' : 'unit';
}

export function laneFiles(root: string, lane: Lane): string[] {
  const seen = new Map<string, Set<string>>();
  return testFiles(root).filter((file) => laneOf(root, file, seen) === lane);
}
