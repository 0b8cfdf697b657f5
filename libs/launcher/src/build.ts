// The node's processes run JavaScript built from the TypeScript sources, not
// the sources through a loader: a TypeScript loader's hooks run on a thread
// of their own, a second V8 heap in every process (about 45 MiB each,
// measured here; docs/benchmarks.md), and transpile every module at every
// start.
//
// Each entry is bundled with the workspace's packages (`@platform/*`, whose
// exports are TypeScript sources) and leaves every other package to Node,
// imported by its resolved path, since a bundle's own folder has no
// node_modules of its packages. `import.meta.url` keeps meaning the source
// file's URL, so that files found next to a source (a page, a worker) are
// found. A bundle is rebuilt when one of its inputs, or the installed
// packages, changed since it was built; processes started at once (tests in
// parallel) may build it together: each writes its own file and renames it
// into place.
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, stop, type Plugin } from 'esbuild';

/** where built entries go, under the repository's root */
export const BUILD_DIR = '.build';

/** pnpm's record of the installed packages, rewritten by every install */
const INSTALLED_PACKAGES = 'node_modules/.modules.yaml';

/** builds in flight in this process */
let building = 0;

interface Stamp {
  /** each input file and what it was when the bundle was built */
  inputs: Record<string, { mtimeMs: number; size: number }>;
}

/**
 * The built JavaScript of `entry` (a TypeScript file under `root`), built or
 * rebuilt now if any of its sources changed since; its absolute path.
 */
export async function builtEntry(root: string, entry: string): Promise<string> {
  const source = resolve(root, entry);
  const out = join(root, BUILD_DIR, relative(root, source).replace(/\.ts$/, '.mjs'));
  if (isFresh(out)) return out;
  mkdirSync(dirname(out), { recursive: true });
  const temporary = `${out}.${process.pid}.${Date.now()}.tmp`;
  building++;
  const result = await build({
    entryPoints: [source],
    outfile: temporary,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // no source map: Node would keep every bundle's map in memory (--enable-source-maps); the bundle
    // is readable as it is, each module under a comment naming its source file
    metafile: true,
    logLevel: 'silent',
    absWorkingDir: root,
    plugins: [workspaceOnly, sourceFileUrls],
  }).finally(() => {
    // esbuild's helper process would stay for the launcher's lifetime (a node's process tree, some MiB); the next build starts another
    if (--building === 0) void stop();
  });
  const inputs: Stamp['inputs'] = {};
  // the installed packages too: a bundle names their resolved paths, which an install changes (a version, a patch)
  for (const input of [...Object.keys(result.metafile.inputs), INSTALLED_PACKAGES]) {
    const path = resolve(root, input);
    inputs[path] = stampOf(path);
  }
  writeFileSync(`${temporary}.stamp`, JSON.stringify({ inputs } satisfies Stamp));
  renameSync(temporary, out);
  renameSync(`${temporary}.stamp`, `${out}.stamp`);
  return out;
}

function isFresh(out: string): boolean {
  let stamp: Stamp;
  try {
    statSync(out);
    stamp = JSON.parse(readFileSync(`${out}.stamp`, 'utf8')) as Stamp;
  } catch {
    return false;
  }
  for (const [path, was] of Object.entries(stamp.inputs)) {
    const now = stampOf(path);
    if (now.mtimeMs !== was.mtimeMs || now.size !== was.size) return false;
  }
  return Object.keys(stamp.inputs).length > 0;
}

/** what a file is now; a missing file (no packages installed under this root) is size -1 */
function stampOf(path: string): Stamp['inputs'][string] {
  try {
    const s = statSync(path);
    return { mtimeMs: s.mtimeMs, size: s.size };
  } catch {
    return { mtimeMs: 0, size: -1 };
  }
}

/** `@platform/*` and relative imports are bundled; every other package stays Node's, imported by the path esbuild resolves it to */
const workspaceOnly: Plugin = {
  name: 'workspace-only',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.path.startsWith('@platform/') || args.path.startsWith('node:') || args.pluginData === 'resolving') return undefined;
      const resolved = await b.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: 'resolving' });
      if (resolved.errors.length > 0) return { errors: resolved.errors };
      // a Node built-in (esbuild marks it external without a path) stays a bare specifier
      if (resolved.external && !resolved.path.startsWith('/')) return { path: args.path, external: true };
      return { path: pathToFileURL(resolved.path).href, external: true };
    });
  },
};

/** `import.meta.url` (and `.dirname`, `.filename`) in a source mean that source file, as they did unbuilt */
const sourceFileUrls: Plugin = {
  name: 'source-file-urls',
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      if (!text.includes('import.meta.')) return undefined;
      const contents = text
        .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href))
        .replaceAll('import.meta.dirname', JSON.stringify(dirname(args.path)))
        .replaceAll('import.meta.filename', JSON.stringify(args.path));
      return { contents, loader: 'ts' };
    });
  },
};
