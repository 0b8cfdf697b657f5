// A reader of cirrus's schema for a process other than cirrus (the gateway's
// read path, docs/architecture.md "State and storage"): its own small pool
// connected as the read-only role, its own catalogue cache kept current by
// the indexer's change notices, and the very searches cirrus's endpoint
// answers. It never writes: the role it connects as may only SELECT in the
// schema `cirrus` (grantReadAccess), and its sessions are read-only.
import { PlatformError, type Logger } from '@platform/common';
import { createPool, isUnavailable, type Db } from '@platform/pg';
import type { SearchRequest, SearchResponse } from '@platform/bus';
import { TableResolver, search } from './search.js';

export interface CirrusReaderOptions {
  /** a URL of the node's database as the read role (CIRRUS_READ_DATABASE_URL) */
  databaseUrl: string;
  logger: Logger;
  /** the pool's connections and the LISTEN connection show as `<name>` and `<name>-catalogue` in pg_stat_activity */
  applicationName: string;
  /** default 8 */
  poolSize?: number;
}

export interface CirrusReader {
  /** A search for a caller who sees the rows of the chains `visible` ('' is the main chain): the answer cirrus's `cirrus.search` gives, errors included. */
  search(request: SearchRequest, visible: readonly string[]): Promise<SearchResponse>;
  /** Whether the read model can be read now: the database answers, the role reaches the catalogue. */
  ready(timeoutMs?: number): Promise<boolean>;
  stop(): Promise<void>;
}

/**
 * SQLSTATEs that mean the read model cannot be read yet or right now, not
 * that the request is wrong: the schema or a table is missing (cirrus has not
 * migrated yet, or is rebuilding it) or the role was not granted it yet
 * (cirrus grants at its start): 503, as when cirrus itself does not answer.
 */
const NOT_READABLE = new Set(['42501', '3F000', '42P01', '28P01', '28000']);

/** How long a statement may run: as long as the gateway waits for cirrus's answer on the bus (then 503 there too). */
const STATEMENT_TIMEOUT = '10s';

function unavailable(err: unknown): PlatformError | null {
  const code = (err as { code?: unknown } | null)?.code;
  // 57014: canceled by statement_timeout
  if (code === '57014') return new PlatformError('UNAVAILABLE', "cirrus's read model did not answer in time; try again shortly", undefined, { cause: err });
  if (isUnavailable(err) || (typeof code === 'string' && NOT_READABLE.has(code))) {
    return new PlatformError('UNAVAILABLE', "cirrus's read model cannot be read right now; try again shortly", undefined, { cause: err });
  }
  return null;
}

export function startCirrusReader(options: CirrusReaderOptions): CirrusReader {
  const { logger } = options;
  const pool: Db = createPool(options.databaseUrl, {
    applicationName: options.applicationName,
    max: options.poolSize ?? 8,
    // the connections stay: no idle timer set and cleared around every query
    idleTimeoutMs: 0,
    // prepared statements, each execution still planned for its own values (TableResolver's `prepare`);
    // a statement stopped when the gateway would have stopped waiting for cirrus
    settings: { plan_cache_mode: 'force_custom_plan', statement_timeout: STATEMENT_TIMEOUT },
    onIdleError: (err) => logger.warn({ err }, 'an idle connection to the read model failed'),
  });
  const resolver = new TableResolver(pool, options.databaseUrl, logger, { applicationName: `${options.applicationName}-catalogue`, prepare: true });
  // not awaited: a database that is not there yet (or a role not granted yet) is retried every second, and until the notices flow nothing is remembered
  resolver.start().catch(() => {});
  let stopped: Promise<void> | undefined;
  return {
    async search(request, visible) {
      try {
        return await search(pool, resolver, request, visible);
      } catch (err) {
        if (err instanceof PlatformError) throw err;
        const down = unavailable(err);
        if (down) {
          logger.warn({ err }, "cirrus's read model could not be read");
          throw down;
        }
        throw err;
      }
    },
    async ready(timeoutMs = 500) {
      const check = pool.query('SELECT 1 FROM cirrus.names LIMIT 1').then(
        () => true,
        () => false,
      );
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
      try {
        return await Promise.race([check, late]);
      } finally {
        clearTimeout(timer);
      }
    },
    stop() {
      stopped ??= (async () => {
        await resolver.stop();
        await pool.end();
      })();
      return stopped;
    },
  };
}
