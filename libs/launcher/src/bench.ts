// What the benchmarks measure the same way: several loops calling an
// asynchronous operation for a while, as clients in flight would; and the
// machine's own speed, to read the figures of a shared host by.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { connect } from 'node:net';

export interface ConcurrentRun {
  /** completed calls per second */
  perSecond: number;
  /** latency of a call, ms */
  p50: number;
  p99: number;
}

/**
 * `concurrency` loops call `op` for `seconds` after `warmup` calls one at a
 * time (caches, JIT, connections); completed calls per second and latencies.
 */
export async function measureConcurrent(op: () => Promise<unknown>, options: { concurrency: number; seconds: number; warmup?: number }): Promise<ConcurrentRun> {
  for (let i = 0; i < (options.warmup ?? 50); i++) await op();
  const latencies: number[] = [];
  const started = performance.now();
  const deadline = started + options.seconds * 1000;
  await Promise.all(
    Array.from({ length: options.concurrency }, async () => {
      while (performance.now() < deadline) {
        const t = performance.now();
        await op();
        latencies.push(performance.now() - t);
      }
    }),
  );
  const elapsed = performance.now() - started;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))] ?? 0;
  return { perSecond: (latencies.length * 1000) / elapsed, p50: at(0.5), p99: at(0.99) };
}

/** Two figures of the machine itself (see hostReference). */
export interface HostReference {
  /** wall time of a fixed single-threaded piece of JavaScript (JSON and SHA-256), ms: the median of five, after one to warm up */
  jsWorkMs: number;
  /** CPU time both ends spend on one request/answer over loopback TCP between two processes, µs */
  roundTripCpuUs: number;
}

// the other end of the round trips: answers each chunk it reads with one byte,
// and when the connection ends prints the CPU time it used, µs
const ECHO_SERVER = `
const net = require('node:net');
const c0 = process.cpuUsage();
const server = net.createServer((s) => {
  s.on('data', () => s.write('k'));
  s.on('end', () => { const c = process.cpuUsage(c0); process.stdout.write(String(c.user + c.system)); server.close(); });
});
server.listen(0, '127.0.0.1', () => process.stdout.write(server.address().port + '\\n'));
`;

/**
 * Taken beside a benchmark, so that runs on a shared host can be compared:
 * this machine's speed changes by tens of percent within minutes, more than
 * most changes to the code, and the two figures show by how much. The first
 * is what every service's own work scales with; the second is what each hop
 * between processes pays (under this kind of virtual machine, a system call
 * and a wake-up of another process are far dearer than on bare metal).
 */
export async function hostReference(): Promise<HostReference> {
  const sample = { hash: 'ab'.repeat(32), from: 'cd'.repeat(20), nonce: 6, metadata: { VM: 'SolidVM', funcName: 'bump', args: '(1)' }, r: 'ef'.repeat(32), s: '01'.repeat(32), v: 28 };
  const times: number[] = [];
  // the first run warms the JIT up and is not counted
  for (let run = 0; run < 6; run++) {
    const t0 = performance.now();
    for (let i = 0; i < 20_000; i++) {
      const text = JSON.stringify({ ...sample, nonce: i });
      createHash('sha256').update(text).digest();
      JSON.parse(text);
    }
    if (run > 0) times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return { jsWorkMs: times[2], roundTripCpuUs: await loopbackRoundTripCpu(5_000) };
}

async function loopbackRoundTripCpu(count: number): Promise<number> {
  const child = spawn(process.execPath, ['-e', ECHO_SERVER], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let out = '';
  // the first line it prints is its port
  const port = await new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      if (out.includes('\n')) resolve(Number(out.slice(0, out.indexOf('\n'))));
    });
  });
  const socket = connect(port, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  const message = Buffer.alloc(200, 1);
  const c0 = process.cpuUsage();
  await new Promise<void>((resolve) => {
    let answered = 0;
    socket.on('data', (d: Buffer) => {
      answered += d.length;
      if (answered >= count) resolve();
      else socket.write(message);
    });
    socket.write(message);
  });
  const mine = process.cpuUsage(c0);
  socket.end();
  await exited;
  const theirs = Number(out.slice(out.indexOf('\n') + 1));
  return (mine.user + mine.system + theirs) / count;
}

/** A process as /proc/<pid>/stat says (Linux). */
export interface ProcInfo {
  pid: number;
  ppid: number;
  comm: string;
  /** CPU seconds so far: user and system */
  cpu: number;
}

const TICKS = 100; // USER_HZ on Linux

/** One process as /proc says now, or null when it is gone. */
export function processInfo(pid: number): ProcInfo | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const close = stat.lastIndexOf(')');
    const comm = stat.slice(stat.indexOf('(') + 1, close);
    const fields = stat.slice(close + 2).split(' ');
    return { pid, ppid: Number(fields[1]), comm, cpu: (Number(fields[11]) + Number(fields[12])) / TICKS };
  } catch {
    return null;
  }
}

/** Every process of the machine now, with its parent, name and CPU time (the benchmarks' CPU per call). */
export function processes(): ProcInfo[] {
  const all: ProcInfo[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const info = processInfo(Number(entry));
    if (info) all.push(info);
  }
  return all;
}
