// The dashboard's bundle: its browser modules (src/) bundled by esbuild into
// one script (dist/app.js), built when the workspace installs (this file's
// `postinstall`) and again by the gateway when a source is newer than the
// bundle, so that a page edited in a clone is served as it is. Nothing is
// fetched at run time: the node works offline.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('.', import.meta.url));
const SOURCES = join(root, 'src');
const PAGE = join(root, 'index.html');
const BUNDLE = join(root, 'dist', 'app.js');

export interface DashboardFiles {
  /** the page (index.html) */
  html: string;
  /** the bundled script it loads (`/dashboard/app.js`) */
  script: string;
  /** why a stale bundle is served (it could not be rebuilt: a read-only file system, a syntax error) */
  warning?: string;
}

function newestSource(dir = SOURCES): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs);
  }
  return newest;
}

function isStale(): boolean {
  try {
    return statSync(BUNDLE).mtimeMs < newestSource();
  } catch {
    return true;
  }
}

/** Bundles src/main.js into dist/app.js; gateways started together may build at once: each writes its own file and renames it into place. */
export async function buildDashboard(): Promise<string> {
  // loaded only to build: a gateway whose bundle is current never loads esbuild
  const { build, stop } = await import('esbuild');
  mkdirSync(join(root, 'dist'), { recursive: true });
  const temporary = `${BUNDLE}.${process.pid}.${Date.now()}.tmp`;
  await build({
    entryPoints: [join(SOURCES, 'main.js')],
    outfile: temporary,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    legalComments: 'none',
    logLevel: 'warning',
  }).finally(() => {
    // esbuild's helper process would otherwise stay as long as the gateway runs (some MiB)
    void stop();
  });
  renameSync(temporary, BUNDLE);
  return BUNDLE;
}

/** The page and its bundle, the bundle rebuilt first when a source is newer. */
export async function dashboardFiles(): Promise<DashboardFiles> {
  let warning: string | undefined;
  if (isStale()) {
    try {
      await buildDashboard();
    } catch (err) {
      if (!existsSync(BUNDLE)) throw err;
      warning = `the dashboard's bundle is older than its sources and could not be rebuilt: ${(err as Error).message}`;
    }
  }
  return { html: readFileSync(PAGE, 'utf8'), script: readFileSync(BUNDLE, 'utf8'), ...(warning ? { warning } : {}) };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await buildDashboard();
}
