// Headless Chromium for the page tests: Debian's `chromium`, driven by
// playwright-core, installed with apt-get when missing and the test runs as
// root.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export const CHROMIUM = '/usr/bin/chromium';

export function ensureChromium(): void {
  if (existsSync(CHROMIUM)) return;
  if (process.getuid?.() !== 0) throw new Error('chromium is not installed: run `sudo apt-get install -y chromium`');
  let result = spawnSync('apt-get', ['install', '-y', '--no-install-recommends', 'chromium'], { stdio: 'ignore', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  if (result.status !== 0) {
    spawnSync('apt-get', ['update'], { stdio: 'ignore' });
    result = spawnSync('apt-get', ['install', '-y', '--no-install-recommends', 'chromium'], { stdio: 'ignore', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  }
  if (result.status !== 0 || !existsSync(CHROMIUM)) throw new Error('could not install chromium with apt-get: run `apt-get install -y chromium`');
}
