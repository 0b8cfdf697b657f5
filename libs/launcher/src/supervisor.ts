// A supervised child process: its output forwarded line by line, restarted
// with a growing pause when it exits unexpectedly, stopped with SIGTERM and,
// if it lingers, SIGKILL.
import { spawn, type ChildProcess } from 'node:child_process';

export interface SupervisedOptions {
  name: string;
  command: string;
  args: string[];
  /** appended to `args` on the first start only, not on restarts (a one-time request such as `--reindex`) */
  firstArgs?: readonly string[];
  env: Record<string, string | undefined>;
  cwd: string;
  /** every output line, and the supervisor's own notices */
  onLine: (name: string, line: string) => void;
}

export interface Supervised {
  readonly name: string;
  /** restarts so far */
  readonly restarts: number;
  /** pid of the running process, null between a crash and its restart */
  readonly pid: number | null;
  /** sends a signal to the running process (a test's `kill -9`); the supervisor restarts it as after any crash */
  signal(signal: NodeJS.Signals): void;
  /** closes the running process's IPC channel, as the launcher's death would (a test's): the process must end, and is restarted as after any crash */
  closeChannel(): void;
  stop(): Promise<void>;
}

const FIRST_PAUSE_MS = 500;
const LONGEST_PAUSE_MS = 10_000;
/** a process that ran this long is considered healthy again: its next crash restarts it at once */
const STABLE_AFTER_MS = 30_000;
const STOP_GRACE_MS = 8_000;

/** A child's output, line by line, to `onLine` under the part's name. */
function forwardLines(stream: NodeJS.ReadableStream | null, options: Pick<SupervisedOptions, 'name' | 'onLine'>): void {
  let rest = '';
  stream?.setEncoding('utf8');
  stream?.on('data', (chunk: string) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) if (line.trim() !== '') options.onLine(options.name, line);
  });
  stream?.on('end', () => rest.trim() !== '' && options.onLine(options.name, rest));
}

/**
 * Runs a one-time step as a child process (a service's `--rebuild`), its
 * output forwarded like a supervised part's; resolves when it exits with 0,
 * rejects otherwise. Not restarted: a step that failed is the operator's to
 * run again.
 */
export function runToEnd(options: Omit<SupervisedOptions, 'firstArgs'>): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(options.command, options.args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    forwardLines(child.stdout, options);
    forwardLines(child.stderr, options);
    child.on('error', reject);
    child.on('exit', (code, signal) => (code === 0 ? resolve() : reject(new Error(`${options.name} ${options.args.slice(1).join(' ')} failed (${signal ?? `code ${code}`})`))));
  });
}

export function supervise(options: SupervisedOptions): Supervised {
  let child: ChildProcess | null = null;
  let stopping = false;
  let restarts = 0;
  let pause = FIRST_PAUSE_MS;
  let timer: NodeJS.Timeout | null = null;

  const forward = (stream: NodeJS.ReadableStream | null) => forwardLines(stream, options);

  const launch = () => {
    const startedAt = Date.now();
    // its own process group, so that a terminal's Ctrl-C reaches only the
    // launcher, which stops the parts in order; the IPC channel tells the child
    // when the launcher is gone, so nothing is left behind even after a kill -9
    const args = restarts === 0 && options.firstArgs ? [...options.args, ...options.firstArgs] : options.args;
    const current = spawn(options.command, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      detached: true,
    });
    child = current;
    forward(current.stdout);
    forward(current.stderr);
    current.on('error', (err) => options.onLine(options.name, `could not start: ${err.message}`));
    current.on('exit', (code, signal) => {
      if (stopping) return;
      if (Date.now() - startedAt > STABLE_AFTER_MS) pause = FIRST_PAUSE_MS;
      restarts++;
      options.onLine(options.name, `exited (${signal ?? `code ${code}`}); restart ${restarts} in ${pause} ms`);
      timer = setTimeout(launch, pause);
      pause = Math.min(pause * 2, LONGEST_PAUSE_MS);
    });
  };
  launch();

  return {
    name: options.name,
    get restarts() {
      return restarts;
    },
    get pid() {
      return child && child.exitCode === null && child.signalCode === null ? (child.pid ?? null) : null;
    },
    signal(signal) {
      child?.kill(signal);
    },
    closeChannel() {
      if (child?.connected) child.disconnect();
    },
    async stop() {
      stopping = true;
      if (timer) clearTimeout(timer);
      const current = child;
      if (!current || current.exitCode !== null || current.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => current.once('exit', () => resolve()));
      current.kill('SIGTERM');
      const killer = setTimeout(() => current.kill('SIGKILL'), STOP_GRACE_MS);
      await exited;
      clearTimeout(killer);
    },
  };
}
