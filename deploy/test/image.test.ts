// The image's Containerfile, by the rules of deploy/README.md "Image": a base
// pinned by version, a production-only install from the lockfile, a non-root
// user, tini as PID 1, OCI labels, nothing fetched by ADD, no secret copied in.
// (No container engine runs on the build machines: the file is checked, not built.)
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEPLOY_DIR } from '../src/chart.js';

const text = readFileSync(join(DEPLOY_DIR, 'image', 'Containerfile'), 'utf8');
const instructions = text
  .replace(/\\\n/g, ' ')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith('#'))
  .map((l) => ({ op: l.split(/\s+/)[0].toUpperCase(), rest: l.slice(l.split(/\s+/)[0].length).trim() }));
const stages = instructions.filter((i) => i.op === 'FROM');
const last = instructions.slice(instructions.lastIndexOf(stages[stages.length - 1]));

test('multi-stage, every base pinned by a full version or a digest', () => {
  expect(stages.length).toBeGreaterThanOrEqual(2);
  for (const { rest } of stages) {
    const image = rest.split(/\s+/)[0];
    expect(image).toMatch(/(@sha256:[0-9a-f]{64}|:\d+\.\d+\.\d+[\w.-]*)$/);
  }
});

test('the dependencies are the lockfile production ones', () => {
  expect(instructions.some((i) => i.op === 'RUN' && /pnpm install --frozen-lockfile --prod\b/.test(i.rest))).toBe(true);
});

test('the patches of patched dependencies are copied in before the install that applies them', () => {
  const manifest = JSON.parse(readFileSync(join(DEPLOY_DIR, '..', 'package.json'), 'utf8')) as { pnpm?: { patchedDependencies?: Record<string, string> } };
  const patches = Object.values(manifest.pnpm?.patchedDependencies ?? {});
  expect(patches.length).toBeGreaterThan(0);
  const install = instructions.findIndex((i) => i.op === 'RUN' && /pnpm install/.test(i.rest));
  const copied = instructions.slice(0, install).filter((i) => i.op === 'COPY').map((i) => i.rest.split(/\s+/)[0]);
  for (const patch of patches) expect([patch, copied.some((source) => patch === source || patch.startsWith(`${source.replace(/\/$/, '')}/`))]).toEqual([patch, true]);
});

test('the final stage runs as a non-root user, under tini, with OCI labels and a health check', () => {
  const user = last.filter((i) => i.op === 'USER').pop();
  expect(user?.rest).toMatch(/^\d+/);
  expect(user!.rest.split(':')[0]).not.toBe('0');
  expect(last.find((i) => i.op === 'ENTRYPOINT')?.rest).toMatch(/tini/);
  const labels = last.filter((i) => i.op === 'LABEL').map((i) => i.rest).join(' ');
  for (const key of ['title', 'version', 'revision', 'source', 'licenses']) expect(labels).toContain(`org.opencontainers.image.${key}=`);
  expect(last.some((i) => i.op === 'HEALTHCHECK' && /\/health/.test(i.rest))).toBe(true);
});

test('nothing fetched by ADD, no secret or data dir copied in', () => {
  for (const i of instructions.filter((i) => i.op === 'ADD')) expect(i.rest).not.toMatch(/https?:\/\//);
  for (const i of instructions.filter((i) => i.op === 'COPY')) expect(i.rest).not.toMatch(/\.data|\.nk\b|\.key\b|\.pem\b|secrets?/);
  const ignore = readFileSync(join(DEPLOY_DIR, 'image', 'Containerfile.dockerignore'), 'utf8');
  for (const pattern of ['**/node_modules', '**/.data', '**/*.nk', '**/*.key', '.git']) expect(ignore.split('\n')).toContain(pattern);
});
