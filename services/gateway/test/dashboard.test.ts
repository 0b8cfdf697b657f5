// The dashboard's bundle (@platform/dashboard): built from its sources by
// esbuild into one self-contained script — no module fetched at run time,
// from a CDN or anywhere — and rebuilt when a source is newer than it.
import { statSync, utimesSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildDashboard, dashboardFiles } from '@platform/dashboard';

const SOURCE = fileURLToPath(new URL('../dashboard/src/chart.js', import.meta.url));

describe('the dashboard bundle', () => {
  test('is one script that imports nothing and names no other origin than the SVG namespace', async () => {
    await buildDashboard();
    const { html, script } = await dashboardFiles();
    expect(html).toContain('<script type="module" src="/dashboard/app.js"></script>');
    expect(script.length).toBeGreaterThan(1000);
    // esbuild leaves an import statement only for what it could not bundle
    expect(script).not.toMatch(/(^|[;}\s])import\s*["{*\w]/);
    expect(script.match(/https?:\/\/[^"'`\s]+/g) ?? []).toEqual(['http://www.w3.org/2000/svg']);
  });

  test('is rebuilt when a source is newer than it', async () => {
    const bundle = await buildDashboard();
    const built = statSync(bundle).mtimeMs;
    const was = statSync(SOURCE);
    const later = new Date(built + 5_000);
    utimesSync(SOURCE, later, later);
    try {
      await dashboardFiles();
      expect(statSync(bundle).mtimeMs).toBeGreaterThan(built);
    } finally {
      utimesSync(SOURCE, was.atime, was.mtime);
    }
  });
});
