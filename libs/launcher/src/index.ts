export { freePort, waitForPort } from './ports.js';
export { ensureNatsServer, startNats } from './nats.js';
export type { NatsOptions, RunningNats } from './nats.js';
export { createDatabaseIfMissing, startPostgres } from './postgres.js';
export type { PostgresOptions, RunningPostgres } from './postgres.js';
export { startTestInfra } from './testing.js';
export type { TestInfra } from './testing.js';
