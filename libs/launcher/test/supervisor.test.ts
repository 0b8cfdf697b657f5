// The supervisor restarts a process that exits, and a one-time argument
// (`firstArgs`, e.g. cirrus's `--reindex`) goes to the first start only; a
// one-time step (`runToEnd`, the block service's `--rebuild`) is run once and
// its exit status decides.
import { runToEnd, supervise } from '../src/supervisor.js';

test('firstArgs reach the first start only; a restart runs with the plain arguments', async () => {
  const lines: string[] = [];
  let twoRuns!: () => void;
  const done = new Promise<void>((resolve) => (twoRuns = resolve));
  const child = supervise({
    name: 'argv-echo',
    command: process.execPath,
    // prints its arguments, then exits as a crash would
    args: ['-e', 'console.log("argv " + JSON.stringify(process.argv.slice(1))); process.exit(3)', '--', 'plain'],
    firstArgs: ['--once'],
    env: process.env,
    cwd: process.cwd(),
    onLine: (_name, line) => {
      if (!line.startsWith('argv ')) return;
      lines.push(line.slice(5));
      if (lines.length === 2) twoRuns();
    },
  });
  try {
    await done;
  } finally {
    await child.stop();
  }
  expect(lines.map((l) => JSON.parse(l) as string[])).toEqual([
    ['plain', '--once'],
    ['plain'],
  ]);
  expect(child.restarts).toBeGreaterThanOrEqual(1);
}, 20_000);

test('runToEnd: a step\'s output is forwarded line by line; it resolves on exit 0, rejects on any other, and is never restarted', async () => {
  const lines: string[] = [];
  const step = (code: number) =>
    runToEnd({
      name: 'step',
      command: process.execPath,
      args: ['-e', `console.log("one\\ntwo"); console.error("three"); process.exit(${code})`, '--', '--rebuild'],
      env: process.env,
      cwd: process.cwd(),
      onLine: (name, line) => lines.push(`${name}: ${line}`),
    });
  await step(0);
  expect(lines.sort()).toEqual(['step: one', 'step: three', 'step: two']);
  lines.length = 0;
  await expect(step(4)).rejects.toThrow(/failed \(code 4\)/);
  expect(lines.filter((l) => l === 'step: one')).toHaveLength(1);
}, 20_000);
