// /health (the process answers), /ready (it can serve: NATS, the identity
// provider and every service it routes to answer), /metrics (Prometheus).
import type { FastifyInstance } from 'fastify';
import { Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { pingService, type NatsConnection, type ServiceName } from '@platform/bus';
import type { TokenVerifier } from '@platform/auth';

export interface ReadinessDeps {
  nc: NatsConnection;
  verifier: TokenVerifier;
  /** the services the registered routes call */
  services: ServiceName[];
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
  app.addHook('onResponse', async (request, reply) => {
    duration.observe({ route: request.routeOptions.url ?? 'unmatched', method: request.method, status: String(reply.statusCode) }, reply.elapsedTime / 1000);
  });

  const hidden = { schema: { hide: true } };
  app.get('/health', hidden, async () => ({ status: 'ok' }));
  app.get('/ready', hidden, async (_request, reply) => {
    const [identityProvider, ...instances] = await Promise.all([deps.verifier.ready(), ...deps.services.map((name) => pingService(deps.nc, name, 500))]);
    const checks: Record<string, boolean> = { nats: !deps.nc.isClosed(), identityProvider };
    deps.services.forEach((name, i) => (checks[name] = (instances[i] ?? 0) > 0));
    const ready = Object.values(checks).every(Boolean);
    return reply.status(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not ready', checks });
  });
  app.get('/metrics', hidden, async (_request, reply) => reply.type(registry.contentType).send(await registry.metrics()));
}
