// /health (the process answers), /ready (it can serve: NATS, the identity
// provider, every service it routes to answer — the files service on its
// /health, the others on the bus — and every chain makes progress), /metrics
// (Prometheus).
import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { BLOCK, call, chainToken, pingService, type ChainHealthRecord, type NatsConnection, type ServiceName } from '@platform/bus';
import type { TokenVerifier } from '@platform/auth';

export interface ReadinessDeps {
  nc: NatsConnection;
  verifier: TokenVerifier;
  /** the services the registered routes call */
  services: ServiceName[];
  /** the files service's URL, when the gateway routes the file endpoints to it: it is on HTTP, not the bus */
  filesUrl?: string;
  /** the read path of `/cirrus/search` (CIRRUS_READ_DATABASE_URL): `checks.cirrus` also needs the read model to be readable */
  cirrusReader?: { ready(timeoutMs?: number): Promise<boolean> };
}

/** how long /ready and /metrics wait for the block service's view of its chains */
const CHAINS_TIMEOUT_MS = 500;
/** how long /ready waits for the files service's /health, as for a service's ping */
const FILES_TIMEOUT_MS = 500;

/** Whether the files service answers its /health in time. */
async function filesAnswers(filesUrl: string): Promise<boolean> {
  try {
    const answer = await fetch(new URL('/health', filesUrl), { signal: AbortSignal.timeout(FILES_TIMEOUT_MS) });
    await answer.body?.cancel();
    return answer.ok;
  } catch {
    return false;
  }
}

export function installObservability(app: FastifyInstance, deps: ReadinessDeps): void {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by route, method and status',
    labelNames: ['route', 'method', 'status'],
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  // one series per route, method and status: its child is looked up by a plain key instead of hashing the labels at every request
  const series = new Map<string, Histogram.Internal<'route' | 'method' | 'status'>>();
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const key = `${reply.statusCode} ${request.method} ${route}`;
    let child = series.get(key);
    if (child === undefined) series.set(key, (child = duration.labels({ route, method: request.method, status: String(reply.statusCode) })));
    child.observe(reply.elapsedTime / 1000);
    done();
  });

  /** The block service's chains, or null when it does not answer (its own check says so). */
  const chainHealth = async (): Promise<ChainHealthRecord[] | null> => {
    try {
      return (await call(deps.nc, BLOCK.health, {}, { timeoutMs: CHAINS_TIMEOUT_MS })).chains;
    } catch {
      return null;
    }
  };
  // read from the block service at each scrape: the counts are its own, kept since it started
  let scraped: Promise<ChainHealthRecord[] | null> | null = null;
  const scrape = (): Promise<ChainHealthRecord[] | null> => (scraped ??= chainHealth().finally(() => setTimeout(() => (scraped = null), 0)));
  new Counter({
    name: 'block_chain_retries_total',
    help: 'Failed rounds of a chain\'s block loop (publishing results, appending a block), each retried, since the block service started',
    labelNames: ['chain'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const c of (await scrape()) ?? []) this.inc({ chain: chainToken(c.chainId) }, c.retries);
    },
  });
  new Gauge({
    name: 'block_chain_stuck',
    help: '1 while a chain makes no progress (its block loop keeps failing, or it halted), else 0',
    labelNames: ['chain'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const c of (await scrape()) ?? []) this.set({ chain: chainToken(c.chainId) }, c.stuck || c.halted !== null ? 1 : 0);
    },
  });
  new Gauge({
    name: 'block_chain_height',
    help: 'The last block a chain applied',
    labelNames: ['chain'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const c of (await scrape()) ?? []) this.set({ chain: chainToken(c.chainId) }, c.height);
    },
  });

  new Gauge({
    name: 'block_chain_network_height',
    help: 'The last block the network ordered on a chain, as far as this node has heard',
    labelNames: ['chain'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const c of (await scrape()) ?? []) this.set({ chain: chainToken(c.chainId) }, c.networkHeight);
    },
  });
  new Gauge({
    name: 'block_chain_agreed_height',
    help: 'The highest block a majority of the validators attested with the hash and state root this node applied (a network only)',
    labelNames: ['chain'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const c of (await scrape()) ?? []) if (c.agreedHeight !== null) this.set({ chain: chainToken(c.chainId) }, c.agreedHeight);
    },
  });

  const hidden = { schema: { hide: true } };
  app.get('/health', hidden, async () => ({ status: 'ok' }));
  app.get('/ready', hidden, async (_request, reply) => {
    const [identityProvider, chains, files, cirrusReadable, ...instances] = await Promise.all([
      deps.verifier.ready(),
      deps.services.includes('block') ? chainHealth() : Promise.resolve(null),
      deps.filesUrl ? filesAnswers(deps.filesUrl) : Promise.resolve(null),
      deps.cirrusReader ? deps.cirrusReader.ready(500) : Promise.resolve(true),
      ...deps.services.map((name) => pingService(deps.nc, name, 500)),
    ]);
    const checks: Record<string, boolean> = { nats: !deps.nc.isClosed(), identityProvider };
    deps.services.forEach((name, i) => (checks[name] = (instances[i] ?? 0) > 0));
    // the indexer answers, and (with the read path) its schema can be read as the read role: granted at cirrus's start
    if ('cirrus' in checks) checks.cirrus &&= cirrusReadable;
    if (files !== null) checks.files = files;
    // per chain: a chain whose block loop keeps failing takes nothing in, whatever the services' pings say
    const perChain: Record<string, { height: number; progressing: boolean; reason?: string; since?: string; retries?: number }> = {};
    for (const c of chains ?? []) {
      const blocked = c.halted ?? (c.stuck ? c.reason : null);
      perChain[chainToken(c.chainId)] = blocked === null ? { height: c.height, progressing: true } : { height: c.height, progressing: false, reason: blocked ?? 'unknown', ...(c.since ? { since: new Date(c.since).toISOString() } : {}), retries: c.retries };
    }
    // (`checks.chains` is the chains service's)
    if (chains) checks.chainsProgressing = Object.values(perChain).every((c) => c.progressing);
    const ready = Object.values(checks).every(Boolean);
    return reply.status(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not ready', checks, ...(chains ? { chains: perChain } : {}) });
  });
  app.get('/metrics', hidden, async (_request, reply) => reply.type(registry.contentType).send(await registry.metrics()));
}
