// What the node benchmarks measure beside their clients' own clocks: the CPU
// time of each of a node's processes (services, nats-server, PostgreSQL) per
// phase, their memory, the moments a transaction's messages appear on the
// bus, and raw transactions signed with ethers alone (keys the vault never
// held). Shared by node.bench.ts and peer.bench.ts.
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { encodeRlp, hexlify, keccak256, toBeArray, type BaseWallet, type SigningKey } from 'ethers';
import { connectBus, decodeJson, type NatsConnection } from '@platform/bus';
import { publicKeyToPem } from '@platform/certs';
import { REGISTRY_ADDRESS } from '@platform/identity';
import { freePort, postgresClusterDir, processInfo, processes, type ProcInfo, type RunningNode } from '@platform/launcher';
import { Pool } from 'undici';

// --- where the CPU goes: utime + stime of every process under this one ----------

const TICKS = 100; // USER_HZ on Linux

/** A process's command line, its arguments joined by spaces ('' when it is gone). */
function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
}

/**
 * CPU seconds so far of every process of the node, by pid with its part: each
 * service, and its nats-server and PostgreSQL (every backend), known by the
 * node's data directory (or its PostgreSQL cluster's, which may be elsewhere)
 * in their command line or their parent's: several nodes on one machine each
 * have their own.
 */
export function nodeProcesses(node: RunningNode, all: readonly ProcInfo[] = processes()): Map<number, { part: string; cpu: number }> {
  const byPid = new Map(all.map((p) => [p.pid, p]));
  const names = new Map<number, string>();
  for (const [name, proc] of node.processes) if (proc.pid !== null) names.set(proc.pid, name);
  const ownDirs = [`${node.dataDir}/`, postgresClusterDir(node.dataDir)];
  const found = new Map<number, { part: string; cpu: number }>();
  for (const p of all) {
    // a service by its pid; nats-server and PostgreSQL by the node's data directory they run on;
    // anything else only if it descends from a service (not what this process runs beside the node, e.g. the peer it is compared with)
    let part: string | null = names.get(p.pid) ?? null;
    if (part === null) {
      const server = p.comm.startsWith('nats-server') ? 'nats-server' : p.comm.startsWith('postgres') || p.comm.startsWith('postmaster') ? 'postgres' : null;
      let ofNode = false;
      let fromService = false;
      let q: ProcInfo | undefined = p;
      for (let hops = 0; q && hops < 6; hops++, q = byPid.get(q.ppid)) {
        if (names.has(q.ppid)) fromService = true;
        if (server !== null && !ofNode && ownDirs.some((dir) => commandLine(q!.pid).includes(dir))) ofNode = true;
      }
      if (server !== null && ofNode) part = server;
      else if (fromService) part = `other: ${p.comm}`;
      else continue;
    }
    found.set(p.pid, { part, cpu: p.cpu });
  }
  return found;
}

/** CPU seconds so far of every process of the node (`nodeProcesses`), together. */
export const nodeCpuSeconds = (node: RunningNode): number => [...nodeProcesses(node).values()].reduce((total, p) => total + p.cpu, 0);

/** CPU seconds the whole machine has been busy (every process, this container's or not), from /proc/stat. */
function machineBusy(): number {
  const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).map(Number);
  // user nice system idle iowait irq softirq steal
  return (ticks[0] + ticks[1] + ticks[2] + ticks[5] + ticks[6] + ticks[7]) / TICKS;
}

/** CPU seconds of the last phase: the node's processes, and this client */
export const lastPhaseCpu = { node: 0, client: 0 };

/** CPU seconds that are counted from now on, by part, for what `stop()` says. */
export interface CpuMeter {
  /** each part's CPU seconds since the meter started, and all of them together; the machine's busy seconds (every process, this container's or not) */
  stop(): { parts: Map<string, number>; total: number; machine: number; seconds: number };
}

/**
 * Counts the CPU time of the processes of `nodes` (each service, and the
 * nats-servers and PostgreSQLs this process started: with several nodes,
 * each of those once) from now on. It samples them, so that a backend that
 * exits meanwhile keeps what it had used at the last sample.
 */
export function cpuMeter(nodes: readonly RunningNode[]): CpuMeter {
  const now = () => {
    const all = processes();
    return new Map(nodes.flatMap((node) => [...nodeProcesses(node, all)]));
  };
  const first = now();
  const last = new Map(first);
  const sample = () => {
    for (const [pid, p] of now()) last.set(pid, p);
  };
  const timer = setInterval(sample, 250);
  const busy = machineBusy();
  const t0 = performance.now();
  return {
    stop() {
      clearInterval(timer);
      sample();
      const parts = new Map<string, number>();
      for (const [pid, p] of last) parts.set(p.part, (parts.get(p.part) ?? 0) + p.cpu - (first.get(pid)?.cpu ?? 0));
      const total = [...parts.values()].reduce((a, b) => a + b, 0);
      return { parts, total, machine: machineBusy() - busy, seconds: (performance.now() - t0) / 1000 };
    },
  };
}

/** The CPU used as a share of one core, e.g. `150%`. */
export const corePercent = (cpuSeconds: number, seconds: number) => `${Math.round((100 * cpuSeconds) / seconds)}%`;

/** Meters the node's processes while `body` runs and prints each part's CPU time as a share of one core. */
export async function withCpuReport<T>(node: RunningNode, label: string, body: () => Promise<T>): Promise<T> {
  const meter = cpuMeter([node]);
  const self = process.cpuUsage();
  try {
    return await body();
  } finally {
    const { parts, machine, seconds } = meter.stop();
    const mine = process.cpuUsage(self);
    parts.set('bench client', (mine.user + mine.system) / 1e6);
    const total = [...parts.values()].reduce((a, b) => a + b, 0);
    lastPhaseCpu.client = parts.get('bench client')!;
    lastPhaseCpu.node = total - lastPhaseCpu.client;
    const pct = (cpu: number) => corePercent(cpu, seconds);
    const shares = [...parts].sort((a, b) => b[1] - a[1]).map(([part, cpu]) => `${part} ${pct(cpu)}`);
    console.log(`   [${label}, ${seconds.toFixed(1)} s; CPU as % of one core: machine ${pct(machine)} of ${cpus().length * 100}%, this node + client ${pct(total)}, other work ${pct(Math.max(0, machine - total))}] ${shares.join(', ')}`);
  }
}

/**
 * The process's proportional share of memory now (PSS: shared pages divided
 * among their sharers), MiB, in all and its anonymous part (heap, stacks:
 * what the process itself holds; the rest is mapped files, e.g. lmdb's,
 * which the kernel may drop and read again); null when it is gone.
 */
export function pssOf(pid: number): { all: number; anon: number } | null {
  try {
    const text = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0) / 1024;
    return { all: field('Pss'), anon: field('Pss_Anon') };
  } catch {
    return null;
  }
}

export interface PartMemory {
  all: number;
  anon: number;
}

/** PSS of each part of the node now (a service by name, nats-server, PostgreSQL's processes together), and its anonymous part. */
export function memoryByPart(node: RunningNode): Map<string, PartMemory> {
  const parts = new Map<string, PartMemory>();
  for (const [pid, { part }] of nodeProcesses(node)) {
    const name = part.startsWith('other: ') ? 'other' : part;
    const pss = pssOf(pid) ?? { all: 0, anon: 0 };
    const sum = parts.get(name) ?? { all: 0, anon: 0 };
    parts.set(name, { all: sum.all + pss.all, anon: sum.anon + pss.anon });
  }
  return parts;
}

/** The parts' memory, largest first: `block 126 (112), …` (MiB of PSS, its anonymous part in brackets) */
export function memoryLine(memory: Map<string, PartMemory>): string {
  return [...memory].sort((a, b) => b[1].all - a[1].all).map(([p, m]) => `${p} ${Math.round(m.all)} (${Math.round(m.anon)})`).join(', ');
}

export function pssMiB(pid: number): number | null {
  return pssOf(pid)?.all ?? null;
}

/** CPU seconds so far of one process (utime + stime), or null when it is gone. */
export function cpuSecondsOf(pid: number): number | null {
  return processInfo(pid)?.cpu ?? null;
}

export function peakRssMiB(pid: number): number | null {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : null;
  } catch {
    return null;
  }
}

export const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

/**
 * A raw transaction in the platform's signing bytes (docs/conventions.md "Raw
 * transactions: the signed bytes"), with ethers only: `data` is the call's
 * initOrData (an EVM call's calldata, or empty for a SolidVM call named by
 * its metadata).
 */
export function rawTx(wallet: { signingKey: SigningKey }, fields: { nonce: number; to: string; data?: string; metadata: Record<string, string> }) {
  const { nonce, to, data = '', metadata } = fields;
  const int = (n: number) => (n === 0 ? '0x' : hexlify(toBeArray(n)));
  const hash = keccak256(encodeRlp([int(nonce), int(1), int(100_000_000), `0x${to}`, int(0), `0x${data}`]));
  const sig = wallet.signingKey.sign(hash);
  return { nonce, gasPrice: 1, gasLimit: 100_000_000, value: 0, to, initOrData: data, r: sig.r.slice(2), s: sig.s.slice(2), v: sig.v, metadata };
}

/** A raw call of a function by name (metadata.funcName and args, as a SolidVM call is sent). */
export function rawCall(wallet: { signingKey: SigningKey }, nonce: number, to: string, metadata: Record<string, string>) {
  return rawTx(wallet, { nonce, to, metadata });
}

/**
 * A key the vault never held transacts once it has a certificate (issue
 * "Identity"): an administrator's createCert, then the key's own registration
 * in the registry, with nonce 0.
 */
export async function enrolRawKey(ok: Post, wallet: BaseWallet, adminToken: string, n: number): Promise<void> {
  const pubKey = publicKeyToPem(Buffer.from(wallet.signingKey.publicKey.slice(2), 'hex'));
  const pem = (await ok('/bloc/v2.2/x509/createCert', adminToken, { subject: { commonName: `raw-${n}`, organization: 'Bench', pubKey } })) as string;
  const registration = rawCall(wallet, 0, REGISTRY_ADDRESS, { VM: 'SolidVM', funcName: 'registerCertificate', args: JSON.stringify({ newCertificateString: pem }) });
  const result = await ok('/bloc/v2.2/transaction/raw?resolve=true', adminToken, registration);
  if (result.status !== 'Success') throw new Error(`enrolling a raw key failed: ${JSON.stringify(result).slice(0, 300)}`);
}

// --- the gateway, from a load generator --------------------------------------------
// undici, not node:http: the client shares the machine with the node, and
// node:http's client cost 150 µs of CPU per request here against undici's 107
// (64 connections to a plain server, interleaved runs): about a fifth of a
// core less taken from the node at 1,000 requests per second.

/** A POST with a bearer token: the answer's JSON (or its text: createCert answers PEM); any status but 200 throws, naming it. */
export type Post = (path: string, token: string, body: unknown) => Promise<any>;

/** POSTs to the node's gateway over `connections` kept-alive connections. */
export function gatewayClient(url: string, connections: number): { ok: Post; close: () => Promise<void> } {
  const pool = new Pool(url, { connections });
  const ok: Post = async (path, bearer, body) => {
    const headers: Record<string, string> = { authorization: `Bearer ${bearer}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await pool.request({ path, method: 'POST', headers, body: body === undefined ? '' : JSON.stringify(body) }).catch((err: Error) => {
      throw new Error(`POST ${path}: ${err.message}`);
    });
    const text = await response.body.text();
    if (response.statusCode !== 200) throw new Error(`POST ${path}: ${response.statusCode} ${text.slice(0, 500)}`);
    return (response.headers['content-type'] ?? '').toString().includes('json') ? JSON.parse(text) : text;
  };
  return { ok, close: () => pool.close() };
}

/**
 * Each list's transactions sent by one client in order, each awaited (a
 * sender's nonces in order): their hashes, as the node answered admission.
 */
export async function submitInOrder(ok: Post, tokenOf: (client: number) => string, signed: readonly (readonly unknown[])[]): Promise<string[]> {
  const perClient = await Promise.all(
    signed.map(async (list, client) => {
      const mine: string[] = [];
      for (const body of list) mine.push(((await ok('/bloc/v2.2/transaction/raw', tokenOf(client), body)) as { hash: string }).hash);
      return mine;
    }),
  );
  return perClient.flat();
}

/** `count` resolve=true calls one after the other (`call(i)`, one transaction each), each Success, with when it was sent and answered. */
export async function loneCalls(ok: Post, bearer: string, count: number, call: (i: number) => unknown): Promise<Array<{ hash: string; sent: number; answered: number }>> {
  const done: Array<{ hash: string; sent: number; answered: number }> = [];
  for (let i = 0; i < count; i++) {
    const sent = performance.now();
    const [result] = await ok('/platform/v2.3/transaction?resolve=true', bearer, { txs: [call(i)] });
    done.push({ hash: result.hash, sent, answered: performance.now() });
    if (result.status !== 'Success') throw new Error(`a lone call failed: ${JSON.stringify(result).slice(0, 300)}`);
  }
  return done;
}

/** The final results of `hashes` (resolve=true, a thousand per request, all at once). */
export async function finalResults(ok: Post, bearer: string, hashes: readonly string[]): Promise<Array<{ status: string }>> {
  const chunks: string[][] = [];
  for (let i = 0; i < hashes.length; i += 1_000) chunks.push(hashes.slice(i, i + 1_000));
  return (await Promise.all(chunks.map((c) => ok('/bloc/v2.2/transactions/results?resolve=true', bearer, c)))).flat();
}

// --- where a lone call's time goes: the node's own messages, seen on the bus -------

export const HOPS = ['admitted', 'block', 'exec', 'done'] as const;
export type Hop = (typeof HOPS)[number];

/**
 * Watches the node's subjects with plain subscriptions (JetStream also
 * delivers a stored message to them): when each transaction was published to
 * `tx.admitted.*` (admission done), to `block.*` (ordered, executed, appended),
 * to `exec.*` (applied, results out) and to `tx.done` (results
 * recorded) — in this process's clock, like the client's timings.
 */
export async function watchHops(node: RunningNode): Promise<{ seen: Map<string, Partial<Record<Hop, number>>>; nc: NatsConnection }> {
  // the operator's read-only bus user: it sees the flow, and can do nothing to it
  const nc = await connectBus({ url: node.natsUrl, name: 'node-bench-observer', credentials: node.busCredentials('observer') });
  const seen = new Map<string, Partial<Record<Hop, number>>>();
  const mark = (hash: string, hop: Hop) => {
    const at = performance.now();
    const entry = seen.get(hash) ?? {};
    entry[hop] ??= at;
    seen.set(hash, entry);
  };
  const watch = (subject: string, hop: Hop, hashes: (data: Uint8Array, subject: string) => string[]) =>
    nc.subscribe(subject, {
      callback: (err, msg) => {
        if (!err) for (const hash of hashes(msg.data, msg.subject)) mark(hash, hop);
      },
    });
  watch('tx.admitted.>', 'admitted', (d) => {
    const body = decodeJson<{ hash: string } | Array<{ hash: string }>>(d);
    return (Array.isArray(body) ? body : [body]).map((t) => t.hash);
  });
  watch('block.>', 'block', (d) => decodeJson<{ transactions: Array<{ hash: string }> }>(d).transactions.map((t) => t.hash));
  watch('exec.>', 'exec', (d) => decodeJson<{ receipts: Array<{ transactionHash: string }> }>(d).receipts.map((r) => r.transactionHash));
  watch('tx.done', 'done', (d) => decodeJson<{ results: Array<{ hash: string }> }>(d).results.map((r) => r.hash));
  await nc.flush();
  return { seen, nc };
}

/** The hops of a lone call, between the moments watchHops saw: what each covers. */
export const LONE_CALL_HOPS = [
  'request → tx.admitted (gateway, tx, vault, pg)',
  'tx.admitted → block (block: pick, execute, append)',
  'block → exec (block: apply, publish)',
  'exec → tx.done (tx: record results)',
  'tx.done → answer (gateway)',
] as const;

/** Adds each call's time in each hop to `times` (by hop name), for calls every hop of which was seen. */
export function addHopTimes(times: Map<string, number[]>, calls: ReadonlyArray<{ hash: string; sent: number; answered: number }>, seen: Map<string, Partial<Record<Hop, number>>>): void {
  for (const c of calls) {
    const s = seen.get(c.hash);
    if (!s || HOPS.some((h) => s[h] === undefined)) continue;
    const points = [c.sent, s.admitted!, s.block!, s.exec!, s.done!, c.answered];
    LONE_CALL_HOPS.forEach((name, i) => {
      const list = times.get(name) ?? [];
      list.push(points[i + 1]! - points[i]!);
      times.set(name, list);
    });
  }
}

/** A row per hop: its p50. */
export function hopRows(times: Map<string, number[]>): Row[] {
  return LONE_CALL_HOPS.filter((name) => (times.get(name)?.length ?? 0) > 0).map((name) => ({ name: `  lone call hop p50: ${name}`, value: percentile([...times.get(name)!].sort((a, b) => a - b), 50), unit: 'ms' }));
}

/** A row of a benchmark's table. */
export interface Row {
  name: string;
  value: number;
  unit: string;
}

/** A development token of the node's own OpenID provider, for `username` of organization Bench. */
export async function token(node: RunningNode, username: string): Promise<string> {
  const discovery = (await (await fetch(node.discoveryUrl)).json()) as { token_endpoint: string };
  const form = new URLSearchParams({ grant_type: 'password', client_id: 'platform-cli', username, password: 'development', organization: 'Bench' });
  const body = (await (await fetch(discovery.token_endpoint, { method: 'POST', body: form })).json()) as { access_token?: string };
  if (!body.access_token) throw new Error(`no token for ${username}`);
  return body.access_token;
}

/**
 * The environment of a benchmarked node: its own ports and data dir, quiet
 * logs, nonces far past the default limit of 2000 per account, and
 * `BENCH_ADMIN` an administrator (it issues the raw senders' certificates).
 */
export async function benchNodeEnv(dataDir: string): Promise<Record<string, string | undefined>> {
  const env: Record<string, string | undefined> = {
    ...process.env,
    PORT: String(await freePort()),
    VAULT_PORT: String(await freePort()),
    IDP_PORT: String(await freePort()),
    FILES_PORT: String(await freePort()),
    FILES_S3_PORT: String(await freePort()),
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    ACCOUNT_NONCE_LIMIT: '1000000000',
    ADMIN_USERS: BENCH_ADMIN,
  };
  for (const name of ['NATS_URL', 'DATABASE_URL', 'OAUTH_DISCOVERY_URL', 'VAULT_PASSWORD', 'HOST', 'NODE_OPTIONS']) delete env[name];
  return env;
}

export const BENCH_ADMIN = 'bench-admin';
