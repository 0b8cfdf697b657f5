// The node's processes run bundles built from the sources (src/build.ts):
// built once, rebuilt when a source changes, and `import.meta.url` still
// naming the source file, so that a file found next to a source is found.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { builtEntry } from '../src/build.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'platform-build-'));
  mkdirSync(join(root, 'app', 'src'), { recursive: true });
  writeFileSync(join(root, 'app', 'src', 'greeting.ts'), "export const greeting: string = 'hello';\n");
  writeFileSync(
    join(root, 'app', 'src', 'main.ts'),
    "import { readFileSync } from 'node:fs';\nimport { greeting } from './greeting.js';\nconst beside = readFileSync(new URL('./note.txt', import.meta.url), 'utf8');\nconsole.log(JSON.stringify({ greeting, beside, url: import.meta.url }));\n",
  );
  writeFileSync(join(root, 'app', 'src', 'note.txt'), 'found beside the source');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const run = (file: string) => JSON.parse(execFileSync(process.execPath, [file], { encoding: 'utf8' })) as { greeting: string; beside: string; url: string };

test('an entry runs as plain JavaScript, its import.meta.url the source file\'s', async () => {
  const out = await builtEntry(root, 'app/src/main.ts');
  expect(out).toBe(join(root, '.build', 'app', 'src', 'main.mjs'));
  expect(run(out)).toEqual({ greeting: 'hello', beside: 'found beside the source', url: pathToFileURL(join(root, 'app', 'src', 'main.ts')).href });
});

test('a bundle is reused while its sources stay as they were, and rebuilt when one changes', async () => {
  const out = await builtEntry(root, 'app/src/main.ts');
  const built = statSync(out).mtimeMs;
  await builtEntry(root, 'app/src/main.ts');
  expect(statSync(out).mtimeMs).toBe(built);
  writeFileSync(join(root, 'app', 'src', 'greeting.ts'), "export const greeting: string = 'hello again';\n");
  // a later modification time, whatever the file system's clock resolution
  utimesSync(join(root, 'app', 'src', 'greeting.ts'), new Date(), new Date(Date.now() + 5_000));
  expect(run(await builtEntry(root, 'app/src/main.ts')).greeting).toBe('hello again');
});

test('an install of packages rebuilds a bundle: it names the packages by their resolved paths', async () => {
  const out = await builtEntry(root, 'app/src/main.ts');
  const built = statSync(out).mtimeMs;
  mkdirSync(join(root, 'node_modules'));
  writeFileSync(join(root, 'node_modules', '.modules.yaml'), 'pnpm records its install here\n');
  await builtEntry(root, 'app/src/main.ts');
  expect(statSync(out).mtimeMs).toBeGreaterThan(built);
});
