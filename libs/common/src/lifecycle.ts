// How a service process ends: on SIGTERM/SIGINT, or when the launcher that
// started it goes away (its IPC channel closes), it runs its stop routine once
// and exits. A stop that hangs is cut short, so that no process is left behind.
import { ConfigError, loadConfig, type NodeConfig } from './config.js';
import type { Logger } from './logger.js';

const STOP_DEADLINE_MS = 6_000;

export function stopOnSignals(logger: Logger, stop: () => Promise<void>): void {
  let stopping = false;
  const shutdown = (reason: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ reason }, 'stopping');
    setTimeout(() => {
      logger.warn('stop did not finish in time; exiting');
      process.exit(1);
    }, STOP_DEADLINE_MS).unref();
    stop().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'stop failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
  if (process.connected) process.once('disconnect', () => shutdown('launcher gone'));
}

/** Ends a service process that cannot start: one line `<service>: <message>` on stderr, exit code 1. */
export function failStart(service: string, message: string): never {
  process.stderr.write(`${service}: ${message}\n`);
  process.exit(1);
}

/**
 * The configuration of a service process, with the connections it needs
 * present: a bad variable, or a missing NATS_URL / DATABASE_URL, ends the
 * process with a line naming it.
 */
export function loadServiceConfig<R extends 'natsUrl' | 'natsCredentials' | 'databaseUrl' | 'oauthDiscoveryUrl'>(
  service: string,
  env: Record<string, string | undefined>,
  required: readonly R[],
  needs: Partial<Record<R, string>> = {},
): NodeConfig & { [K in R]: string } {
  let config: NodeConfig;
  try {
    config = loadConfig(env);
  } catch (err) {
    failStart(service, err instanceof ConfigError ? err.message : String(err));
  }
  const variables = { natsUrl: 'NATS_URL', natsCredentials: 'NATS_CREDENTIALS', databaseUrl: 'DATABASE_URL', oauthDiscoveryUrl: 'OAUTH_DISCOVERY_URL' } as const;
  for (const key of required) {
    if (config[key] === null) failStart(service, `${variables[key]} is required: ${needs[key] ?? 'npm start sets it'}`);
  }
  return config as NodeConfig & { [K in R]: string };
}

/** Runs every stop step, newest resource first, even when one fails: a failed drain must not leave a pool open. */
export async function runStopSteps(steps: Array<() => Promise<unknown>>, logger: Logger): Promise<void> {
  for (const step of steps) {
    try {
      await step();
    } catch (err) {
      logger.warn({ err }, 'a shutdown step failed');
    }
  }
}
