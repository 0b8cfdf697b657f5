// The memory settings each of a node's processes starts with: V8 accepts
// them in NODE_OPTIONS (a flag it refuses there stops the process at once),
// and what the operator gives comes last, so that it wins.
import { spawnSync } from 'node:child_process';
import { memoryEnv } from '../src/memory.js';

const PARTS = ['gateway', 'transaction', 'block', 'cirrus', 'vault', 'chains', 'files', 'idp', 'object-store'];

test.each(PARTS)('%s: node starts with its settings, and they are in force', (part) => {
  const env = memoryEnv(part, {});
  const run = spawnSync(process.execPath, ['-e', 'console.log(JSON.stringify({ gc: typeof globalThis.gc, arenas: process.env.MALLOC_ARENA_MAX }))'], { env: { PATH: process.env.PATH, ...env }, encoding: 'utf8' });
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  expect(JSON.parse(run.stdout)).toEqual({ gc: 'function', arenas: '2' });
});

test('the parts on the transaction path keep a bigger young generation than the others', () => {
  const semiSpace = (part: string) => Number(/--max-semi-space-size=(\d+)/.exec(memoryEnv(part, {}).NODE_OPTIONS)![1]);
  for (const hot of ['gateway', 'transaction', 'block']) expect(semiSpace(hot)).toBeGreaterThan(semiSpace('vault'));
});

test("the operator's NODE_OPTIONS and MALLOC_ARENA_MAX come last and win", () => {
  const env = memoryEnv('block', { NODE_OPTIONS: '--max-semi-space-size=16', MALLOC_ARENA_MAX: '8' });
  expect(env.NODE_OPTIONS.endsWith('--max-semi-space-size=16')).toBe(true);
  expect(env.MALLOC_ARENA_MAX).toBe('8');
});
