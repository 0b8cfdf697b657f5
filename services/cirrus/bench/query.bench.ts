// Query benchmark (the "queries"): a whole node (`startNode`, as
// `npm start` runs it), a contract uploaded through the REST interface so that
// cirrus creates its table, then 1,000,000 rows written into that table with
// one SQL statement (generate_series), and a filtered, ordered, limited query:
// - through the gateway: GET /cirrus/search/<table> with a bearer token
//   (HTTP, token check, the gateway's read path: resolve, parse, plan, run
//   as the read-only role, JSON; docs/architecture.md "State and storage");
// - cirrus's `cirrus.search` over NATS (the path the gateway took before, and
//   takes without CIRRUS_READ_DATABASE_URL);
// - the same statement, sent directly with pg (unprepared);
// each with 8 requests in flight; requests per second, the ratio, and p50
// latencies. For reference, the gateway's cheapest route (GET /health: no
// token, no NATS, no database) at the same concurrency: what HTTP alone costs
// on this machine, an upper bound for any route that does work. Rounds alternate and the best of each is kept (the host is
// shared). CPU per query (Linux): the CPU time of this process (the client)
// and of every process of the node (each service, nats-server, PostgreSQL's
// backends) over a round, divided by its queries — steadier than a rate on a
// shared host. Indexes of a contract table: primary key (address, chainId),
// block_number, chainId — the ones cirrus creates for every contract table.
// `QUERY_BENCH_NODE_OPTIONS` is passed to every node process as NODE_OPTIONS:
// with `--import <abs path>/test-e2e/bench/cpu-profile.mjs` and CPU_PROFILE_DIR,
// each process writes a CPU profile of the last round's gateway phase.
// `npm run bench -- cirrus/bench/query`, or `node --import tsx services/cirrus/bench/query.bench.ts`.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { CIRRUS, call, connectBus } from '@platform/bus';
import { createLogger } from '@platform/common';
import { freePort, measureConcurrent, processes, startNode, type RunningNode } from '@platform/launcher';
import { nativeStatement, parseQuery, planQuery, catalogueOf } from '@platform/query';
import { catalogueTable, resolveTable } from '@platform/cirrus-read';

export interface BenchResult {
  name: string;
  value: number;
  unit: string;
}

const ROWS = 1_000_000;
const CONCURRENCY = 8;
const SECONDS = 3;
const ROUNDS = 2;

const SRC = `
contract BenchItem {
  string name;
  uint qty;
  bool active;
  address owner;
  constructor(string _name, uint _qty) { name = _name; qty = _qty; active = true; owner = msg.sender; }
}`;

/** The query: a filter on two variables, the newest first, one page. */
const QUERY = 'select=address,name,qty,block_number&qty=gt.5000&active=is.true&order=block_number.desc&limit=20';

const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY * 2 });

function get(url: string, token: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { agent, headers: { authorization: `Bearer ${token}` } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** CPU seconds so far of this process and of every process descending from it (the node: services, nats-server, postgres), by pid with its part. */
function cpuByPid(node: RunningNode): Map<number, { part: string; cpu: number }> {
  const procs = new Map(processes().map((p) => [p.pid, p]));
  const services = new Map<number, string>();
  for (const [name, proc] of node.processes) if (proc.pid !== null) services.set(proc.pid, name);
  const out = new Map<number, { part: string; cpu: number }>();
  for (const [pid, p] of procs) {
    let part = pid === process.pid ? 'client' : services.get(pid);
    if (!part) {
      let mine = false;
      for (let q = procs.get(pid), hops = 0; q && hops < 6; q = procs.get(q.ppid), hops++) if (q.ppid === process.pid) mine = true;
      if (!mine) continue;
      part = p.comm.startsWith('nats-server') ? 'nats-server' : p.comm.startsWith('postgres') || p.comm.startsWith('postmaster') ? 'postgres' : 'other';
    }
    out.set(pid, { part, cpu: p.cpu });
  }
  return out;
}

/** CPU ms per call, by part, between two cpuByPid snapshots (a process that ended meanwhile is not counted). */
function cpuPerCall(before: Map<number, { part: string; cpu: number }>, after: Map<number, { part: string; cpu: number }>, calls: number): Record<string, number> {
  const parts: Record<string, number> = {};
  for (const [pid, { part, cpu }] of after) parts[part] = (parts[part] ?? 0) + ((cpu - (before.get(pid)?.cpu ?? 0)) * 1000) / calls;
  return parts;
}

async function json(url: string, init: RequestInit): Promise<any> {
  const res = await fetch(url, init);
  const body = (await res.json()) as any;
  if (!res.ok) throw new Error(`${url}: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

export async function run(): Promise<BenchResult[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'cirrus-bench-'));
  const env: Record<string, string | undefined> = { ...process.env };
  for (const name of ['NATS_URL', 'DATABASE_URL', 'CIRRUS_READ_DATABASE_URL', 'CIRRUS_READ_ROLE', 'OAUTH_DISCOVERY_URL', 'VAULT_PASSWORD', 'HOST']) delete env[name];
  if (process.env.QUERY_BENCH_NODE_OPTIONS) env.NODE_OPTIONS = process.env.QUERY_BENCH_NODE_OPTIONS;
  const profiling = Boolean(process.env.CPU_PROFILE_DIR && env.NODE_OPTIONS?.includes('cpu-profile'));
  const node = await startNode({
    env: { ...env, PORT: String(await freePort()), VAULT_PORT: String(await freePort()), IDP_PORT: String(await freePort()), DATA_DIR: dataDir, LOG_LEVEL: 'warn', IDENTITY_REQUIRED: 'false' },
    onLine: () => {},
  });
  const pool = new pg.Pool({ connectionString: node.databaseUrl, max: CONCURRENCY });
  pool.on('error', () => {});
  // calls cirrus.search directly, as the gateway does, with the gateway's bus user
  const nc = await connectBus({ url: node.natsUrl, name: 'cirrus-bench', credentials: node.busCredentials('gateway'), logger: createLogger('cirrus-bench', 'silent') });
  try {
    const discovery = await json(node.discoveryUrl, {});
    const form = new URLSearchParams({ grant_type: 'password', client_id: 'platform-cli', username: 'bench', password: 'development' });
    const token: string = (await json(discovery.token_endpoint, { method: 'POST', body: form })).access_token;
    const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    await json(`${node.gatewayUrl}/platform/v2.3/key`, { method: 'POST', headers: auth });
    const [upload] = await json(`${node.gatewayUrl}/platform/v2.3/transaction?resolve=true`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ txs: [{ type: 'CONTRACT', payload: { contract: 'BenchItem', src: SRC, args: { _name: 'first', _qty: 1 }, metadata: { VM: 'SolidVM' } } }] }),
    });
    if (upload.status !== 'Success') throw new Error(`upload: ${JSON.stringify(upload)}`);
    let rec = await resolveTable(pool, 'BenchItem');
    for (let i = 0; !rec && i < 100; i++) {
      await new Promise((r) => setTimeout(r, 100));
      rec = await resolveTable(pool, 'BenchItem');
    }
    if (!rec) throw new Error('cirrus did not create the BenchItem table');
    const col = new Map(rec.columns.map(([api, sql]) => [api, sql]));
    // 1,000,000 contract rows in one statement, as the indexer would have written them
    await pool.query(`INSERT INTO cirrus.${rec.sqlName} (address, chain_id, record_id, block_hash, block_timestamp, block_number, transaction_hash, transaction_sender,
        ${col.get('name')}, ${col.get('qty')}, ${col.get('active')}, ${col.get('owner')})
      SELECT a, '', a, lpad(to_hex(i / 100), 64, '0'), to_char(timestamp '2024-01-01' + (i / 100) * interval '1 second', 'YYYY-MM-DD HH24:MI:SS') || ' UTC', i / 100 + 10,
        lpad(to_hex(i), 64, '0'), lpad(to_hex(i % 97), 40, '0'), 'item ' || i, (i::bigint * 7919) % 10000, i % 3 <> 0, lpad(to_hex(i % 50), 40, '0')
      FROM generate_series(1, ${ROWS}) AS i, LATERAL (SELECT 'b' || lpad(to_hex(i), 39, '0') AS a) x`);
    await pool.query(`ANALYZE cirrus.${rec.sqlName}`);

    const plan = planQuery(parseQuery(QUERY), catalogueOf([catalogueTable('BenchItem', rec)]), { table: 'BenchItem', visibleChains: [''] });
    const statement = nativeStatement(plan);
    const url = `${node.gatewayUrl}/cirrus/search/BenchItem?${QUERY}`;
    const check = await get(url, token);
    if (check.status !== 200 || (JSON.parse(check.body) as unknown[]).length !== 20) throw new Error(`the query answered ${check.status} ${check.body.slice(0, 200)}`);
    const ops = {
      gateway: async () => {
        const res = await get(url, token);
        if (res.status !== 200) throw new Error(`${res.status} ${res.body}`);
      },
      // cirrus's endpoint alone, over NATS: where the time goes between the gateway and the database
      endpoint: () => call(nc, CIRRUS.search, { table: 'BenchItem', query: QUERY, username: 'bench' }),
      direct: () => pool.query(statement.text, statement.values),
      // the gateway's cheapest route (no token, no NATS, no database): what HTTP alone costs on this machine, client included
      http: async () => {
        const res = await get(`${node.gatewayUrl}/health`, token);
        if (res.status !== 200) throw new Error(`${res.status} ${res.body}`);
      },
    };
    const best = { gateway: { perSecond: 0, p50: Infinity }, endpoint: { perSecond: 0, p50: Infinity }, direct: { perSecond: 0, p50: Infinity }, http: { perSecond: 0, p50: Infinity } };
    // CPU ms per query by part, the lowest total of the rounds
    const proc = existsSync('/proc/self/stat');
    const cpu: Partial<Record<keyof typeof best, Record<string, number>>> = {};
    const total = (parts: Record<string, number> | undefined) => Object.values(parts ?? {}).reduce((a, b) => a + b, 0);
    for (let round = 0; round < ROUNDS; round++) {
      for (const key of ['gateway', 'endpoint', 'direct', 'http'] as const) {
        for (let i = 0; i < 100; i++) await ops[key]();
        const profiled = profiling && key === 'gateway' && round === ROUNDS - 1;
        // cpu-profile.mjs: the first signal starts each process's profiler, the second writes its profile
        const toggle = async () => {
          for (const p of node.processes.values()) p.signal('SIGUSR2');
          await new Promise((resolve) => setTimeout(resolve, 300));
        };
        if (profiled) await toggle();
        const before = proc ? cpuByPid(node) : null;
        const t = await measureConcurrent(ops[key], { concurrency: CONCURRENCY, seconds: SECONDS, warmup: 0 });
        if (before) {
          const parts = cpuPerCall(before, cpuByPid(node), t.perSecond * SECONDS);
          if (cpu[key] === undefined || total(parts) < total(cpu[key])) cpu[key] = parts;
        }
        if (profiled) {
          await toggle();
          console.log(`   profiles of the gateway phase: ${process.env.CPU_PROFILE_DIR}`);
        }
        if (t.perSecond > best[key].perSecond) best[key] = t;
      }
    }
    const cpuRows: BenchResult[] = [];
    for (const [key, label] of [['gateway', 'through the gateway'], ['endpoint', 'cirrus.search over NATS'], ['direct', 'direct']] as const) {
      const parts = cpu[key];
      if (!parts) continue;
      const shown = Object.entries(parts).filter(([, ms]) => ms >= 0.005).sort((a, b) => b[1] - a[1]).map(([part, ms]) => `${part} ${ms.toFixed(3)}`).join(', ');
      cpuRows.push({ name: `cirrus query (1M rows): CPU per query ${label} (${shown})`, value: total(parts), unit: 'ms' });
    }
    return [
      { name: 'cirrus query (1M rows): through the gateway', value: Math.round(best.gateway.perSecond), unit: 'req/s' },
      { name: 'cirrus query (1M rows): cirrus.search over NATS', value: Math.round(best.endpoint.perSecond), unit: 'req/s' },
      { name: 'cirrus query (1M rows): same SQL direct with pg', value: Math.round(best.direct.perSecond), unit: 'queries/s' },
      { name: 'cirrus query (1M rows): gateway / direct', value: Math.round((best.gateway.perSecond / best.direct.perSecond) * 100), unit: '%' },
      { name: 'cirrus query (1M rows): p50 through the gateway', value: best.gateway.p50, unit: 'ms' },
      { name: 'cirrus query (1M rows): p50 cirrus.search over NATS', value: best.endpoint.p50, unit: 'ms' },
      { name: 'cirrus query (1M rows): p50 direct', value: best.direct.p50, unit: 'ms' },
      ...cpuRows,
      { name: 'reference: GET /health through the gateway (HTTP alone)', value: Math.round(best.http.perSecond), unit: 'req/s' },
      { name: 'reference: GET /health / direct SQL', value: Math.round((best.http.perSecond / best.direct.perSecond) * 100), unit: '%' },
    ];
  } finally {
    agent.destroy();
    await nc.drain();
    await pool.end();
    await node.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const r of await run()) console.log(`${r.name.padEnd(60)} ${(Number.isInteger(r.value) ? r.value.toLocaleString('en-US') : r.value.toFixed(2)).padStart(10)} ${r.unit}`);
}
