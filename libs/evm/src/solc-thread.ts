// One worker thread that runs solc (solc-worker.mjs), started on first use.
// It holds the process open only while a compilation is pending; a worker that
// dies fails what it had pending and is started again by the next request.
// solc's WebAssembly heap is some 150 MiB, and uploads of new EVM sources are
// rare: a worker idle for IDLE_MS is ended, and the next compilation pays
// the half second of starting another.
import { Worker } from 'node:worker_threads';

const IDLE_MS = 10_000;

interface Pending {
  resolve(output: string): void;
  reject(err: Error): void;
}

let worker: Worker | null = null;
let idleTimer: NodeJS.Timeout | null = null;
const pending = new Map<number, Pending>();
let nextId = 0;

function endWhenIdle(w: Worker): void {
  idleTimer = setTimeout(() => {
    idleTimer = null;
    if (worker === w && pending.size === 0) {
      worker = null;
      void w.terminate();
    }
  }, IDLE_MS);
  idleTimer.unref();
}

function failAll(err: Error): void {
  for (const p of pending.values()) p.reject(err);
  pending.clear();
}

function start(): Worker {
  const w = new Worker(new URL('./solc-worker.mjs', import.meta.url));
  w.unref();
  w.on('message', (m: { id: number; output?: string; error?: string }) => {
    const p = pending.get(m.id);
    pending.delete(m.id);
    if (pending.size === 0) {
      w.unref();
      endWhenIdle(w);
    }
    if (!p) return;
    if (m.output !== undefined) p.resolve(m.output);
    else p.reject(new Error(`solc failed: ${m.error}`));
  });
  w.on('error', (err) => {
    if (worker === w) worker = null;
    failAll(err);
  });
  w.on('exit', (code) => {
    if (worker !== w) return; // ended when idle: nothing was pending
    worker = null;
    failAll(new Error(`the solc worker exited (code ${code})`));
  });
  return w;
}

/** solc's standard-JSON output for `input`, computed off this thread. */
export function compileOffThread(input: string): Promise<string> {
  if (idleTimer) clearTimeout(idleTimer);
  idleTimer = null;
  worker ??= start();
  const w = worker;
  const id = nextId++;
  return new Promise<string>((resolve, reject) => {
    pending.set(id, { resolve, reject });
    w.ref();
    w.postMessage({ id, input });
  });
}

/** Whether solc's worker is running now (it ends IDLE_MS after its last compilation). */
export function solcWorkerRunning(): boolean {
  return worker !== null;
}
