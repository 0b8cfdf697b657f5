// What a launcher killed outright (kill -9, the out-of-memory killer) leaves
// running. Its services end by themselves: each one's IPC channel to the
// launcher closes (stopOnSignals in @platform/common). nats-server and
// PostgreSQL cannot watch that channel, and go on holding the data dir: the
// next start's PostgreSQL refused the cluster ("lock file postmaster.pid
// already exists") and the node could not start until someone killed them
// by hand, while a second nats-server would have opened the same JetStream
// store as the first. So before starting either one, the launcher stops what
// a previous launcher left on the same data dir, and says so.
//
// Only a process whose command line names this data dir's store or cluster is
// touched: a server of another data dir, or another program, never is. And
// only once the data dir is claimed (`claimDataDir`): a launcher still running
// it makes the next one refuse to start, instead of stopping its servers.
import { linkSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';

/** a leftover given this long to stop cleanly before it is killed */
const STOP_GRACE_MS = 20_000;
const POLL_MS = 100;

/** The process's arguments, or null when it is gone (or cannot be read). */
function argvOf(pid: number): string[] | null {
  try {
    const raw = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return raw === '' ? null : raw.replace(/\0$/, '').split('\0');
  } catch {
    return null;
  }
}

/** The fields of `/proc/<pid>/stat` after the command name (which is in parentheses and may hold anything); null when gone. */
function statFields(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** Running, and not a zombie waiting for a parent that does not reap it. */
function isRunning(pid: number): boolean {
  const fields = statFields(pid);
  return fields !== null && fields[0] !== 'Z';
}

/** When the process started (clock ticks since boot): with the pid, it names one process, whatever pids are reused. */
function startTimeOf(pid: number): string | null {
  return statFields(pid)?.[19] ?? null;
}

/** `<DATA_DIR>/launcher.pid`: the pid and start time of the launcher running the data dir. */
const CLAIM_FILE = 'launcher.pid';

/** The pid and start time a claim file names, or null when there is none (or it cannot be read). */
function readClaim(file: string): { pid: number; started: string; text: string } | null {
  try {
    const text = readFileSync(file, 'utf8').trim();
    const [pid, started = ''] = text.split(' ');
    return { pid: Number(pid), started, text };
  } catch {
    return null;
  }
}

/** Whether a claim names a launcher other than this one that still runs (the same pid and start time). */
const heldByAnother = (claim: { pid: number; started: string }): boolean =>
  Number.isInteger(claim.pid) && claim.pid > 0 && claim.pid !== process.pid && isRunning(claim.pid) && startTimeOf(claim.pid) === claim.started;

const isCode = (err: unknown, code: string): boolean => (err as NodeJS.ErrnoException | null)?.code === code;

/**
 * Claims the data dir for this process: refused (an Error saying which pid)
 * while another launcher that claimed it still runs. Answers the release,
 * which removes the claim if it is still this process's. A claim left by a
 * process that is gone (a launcher killed outright), or by this one, is taken.
 *
 * Two launchers started at once cannot both win. The claim is written to a
 * file of this process's own and then hard-linked to `launcher.pid`, which
 * fails when that name exists. A stale claim is first renamed away, under a
 * name of this process's own, and only removed if what was moved is the
 * claim judged stale. If it is not (another launcher replaced the stale
 * claim in between), it is linked back and the claim tried again.
 * The gap left: three or more launchers at the same instant over a stale
 * claim. While one has the new winner's claim set aside, a third may link
 * its own into the empty name, and two then run. Two launchers at once are
 * safe, and any number where no claim was left.
 */
export function claimDataDir(dataDir: string): () => void {
  const file = join(dataDir, CLAIM_FILE);
  const mine = `${process.pid} ${startTimeOf(process.pid) ?? ''}`;
  const draft = `${file}.${process.pid}`;
  writeFileSync(draft, `${mine}\n`, { mode: 0o600 });
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        linkSync(draft, file);
        break;
      } catch (err) {
        if (!isCode(err, 'EEXIST') || attempt >= 20) throw err;
      }
      const claim = readClaim(file);
      if (claim === null) continue; // removed meanwhile: try again
      if (claim.text === mine) break; // this process's own, from an earlier claim
      if (heldByAnother(claim)) {
        throw new Error(`the data dir ${dataDir} is in use by another launcher (pid ${claim.pid}): stop it first, or give this one another DATA_DIR`);
      }
      takeStale(file, claim.text, `${file}.stale.${process.pid}`);
    }
  } finally {
    rmSync(draft, { force: true });
  }
  return () => {
    if (readClaim(file)?.text === mine) rmSync(file, { force: true });
  };
}

/** Removes the claim file if it still holds `staleText`; a claim that replaced it meanwhile is put back. */
function takeStale(file: string, staleText: string, aside: string): void {
  try {
    renameSync(file, aside);
  } catch (err) {
    if (isCode(err, 'ENOENT')) return; // another launcher took it away first
    throw err;
  }
  if (readClaim(aside)?.text !== staleText) {
    try {
      linkSync(aside, file);
    } catch (err) {
      if (!isCode(err, 'EEXIST')) throw err;
    }
  }
  rmSync(aside, { force: true });
}

/** `flag value` among the arguments (e.g. `-sd <store>`). */
const hasOption = (argv: readonly string[], flag: string, value: string): boolean => argv.some((arg, i) => arg === flag && argv[i + 1] === value);

/** The nats-servers running on `storeDir` (`-sd <storeDir>`, as startNats runs them). */
export function natsServersOn(storeDir: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    const argv = argvOf(Number(entry));
    if (argv && basename(argv[0]!) === 'nats-server' && hasOption(argv, '-sd', storeDir)) found.push(Number(entry));
  }
  return found;
}

/** The postmaster running on `clusterDir`, from its `postmaster.pid`; null when none runs there. */
export function postmasterOn(clusterDir: string): number | null {
  let pid: number;
  try {
    pid = Number(readFileSync(join(clusterDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return null;
  }
  if (!Number.isInteger(pid) || pid <= 0) return null;
  const argv = argvOf(pid);
  // a stale file's pid may belong to anything by now: only a postgres of this very cluster is ours to stop
  return argv && basename(argv[0]!) === 'postgres' && hasOption(argv, '-D', clusterDir) && isRunning(pid) ? pid : null;
}

/**
 * Stops the given leftover processes: `signal` first (nats-server's SIGTERM,
 * PostgreSQL's SIGINT, a fast shutdown), SIGKILL after a grace period; resolves
 * once each is gone.
 */
export async function stopLeftovers(pids: readonly number[], signal: NodeJS.Signals, what: string, log: (line: string) => void): Promise<void> {
  for (const pid of pids) {
    log(`a ${what} (pid ${pid}) left running on this data dir by a launcher that did not stop it: stopping it first`);
    try {
      process.kill(pid, signal);
    } catch {
      continue; // gone meanwhile
    }
    if (await gone(pid, STOP_GRACE_MS)) continue;
    log(`the ${what} (pid ${pid}) did not stop within ${STOP_GRACE_MS / 1000} s: killing it`);
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
    await gone(pid, Infinity);
  }
}

/** Waits until the process is gone (not our child: polled); false when it still runs after `ms`. */
async function gone(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (isRunning(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  return true;
}
