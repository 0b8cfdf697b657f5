// `request.log` without a logger made for every request. Fastify gives each
// request pino's child logger bound to its id; pino writes the child's
// bindings through the redaction of secrets when it is made, which cost
// about as much as routing the request, and most requests never log below
// `info` (a search answered 200 does not). So the child is made when the
// request first writes a line at a level the logger writes; until then the
// request's logger answers for it. What is written is the same: the child's
// bindings, the same redaction, the same levels.
import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify';
import type { Logger } from '@platform/common';

type Bindings = Parameters<FastifyBaseLogger['child']>[0];

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

class RequestLogger implements FastifyBaseLogger {
  #child: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: Logger,
    private readonly bindings: Bindings,
  ) {}

  private made(): FastifyBaseLogger {
    return (this.#child ??= this.parent.child(this.bindings));
  }

  private write(level: Level, args: unknown[]): void {
    // a level the logger does not write makes no child (pino's own method would do nothing)
    if (this.#child === undefined && !this.parent.isLevelEnabled(level)) return;
    const log = this.made();
    (log[level] as (...line: unknown[]) => void).apply(log, args);
  }

  get level(): string {
    return (this.#child ?? this.parent).level;
  }

  set level(level: string) {
    this.made().level = level;
  }

  fatal(...args: unknown[]): void {
    this.write('fatal', args);
  }
  error(...args: unknown[]): void {
    this.write('error', args);
  }
  warn(...args: unknown[]): void {
    this.write('warn', args);
  }
  info(...args: unknown[]): void {
    this.write('info', args);
  }
  debug(...args: unknown[]): void {
    this.write('debug', args);
  }
  trace(...args: unknown[]): void {
    this.write('trace', args);
  }
  silent(): void {}

  child(bindings: Bindings, options?: Parameters<FastifyBaseLogger['child']>[1]): FastifyBaseLogger {
    return this.made().child(bindings, options);
  }
}

/**
 * Fastify's `childLoggerFactory` for a pino logger: a request's logger whose
 * pino child is made on its first line. A route with its own log level or
 * serializers (options) gets its child at once, as Fastify would make it.
 */
export const requestLoggerFactory: NonNullable<FastifyServerOptions['childLoggerFactory']> = function (logger, bindings, options) {
  if (Object.keys(options).length > 0) return logger.child(bindings, options);
  return new RequestLogger(logger as Logger, bindings);
};
