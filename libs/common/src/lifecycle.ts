// How a service process ends: on SIGTERM/SIGINT, or when the launcher that
// started it goes away (its IPC channel closes), it runs its stop routine once
// and exits. A stop that hangs is cut short, so that no process is left behind.
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
