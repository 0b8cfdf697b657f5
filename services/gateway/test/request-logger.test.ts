// request.log (src/request-logger.ts): pino's child with the request's id,
// made when the request first writes a line at a level the logger writes.
import { Writable } from 'node:stream';
import { createLogger } from '@platform/common';
import { requestLoggerFactory } from '../src/request-logger.js';

function logged(level: string) {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({ write: (chunk, _enc, done) => (lines.push(JSON.parse(String(chunk)) as Record<string, unknown>), done()) });
  const logger = createLogger('request-logger-test', level, sink);
  return { logger, lines };
}

const make = (logger: ReturnType<typeof createLogger>, bindings: Record<string, unknown>, options: Record<string, unknown> = {}) =>
  requestLoggerFactory.call(undefined as never, logger, bindings, options, undefined as never);

describe('the request logger', () => {
  test('writes what the child would: its bindings, the level, the message, secrets redacted', () => {
    const { logger, lines } = logged('info');
    const log = make(logger, { reqId: 'r-1' });
    log.info({ status: 200, headers: { authorization: 'Bearer secret' } }, 'request');
    log.warn('slow');
    expect(lines).toEqual([
      expect.objectContaining({ reqId: 'r-1', msg: 'request', status: 200, level: 30, headers: { authorization: '[redacted]' } }),
      expect.objectContaining({ reqId: 'r-1', msg: 'slow', level: 40 }),
    ]);
    expect(log.level).toBe('info');
  });

  test('a level the logger does not write writes nothing, and the next one it writes carries the bindings', () => {
    const { logger, lines } = logged('warn');
    const log = make(logger, { reqId: 'r-2' });
    log.info('not written');
    log.debug('not written either');
    expect(lines).toEqual([]);
    log.error({ code: 'INTERNAL' }, 'request failed');
    expect(lines).toEqual([expect.objectContaining({ reqId: 'r-2', code: 'INTERNAL', msg: 'request failed', level: 50 })]);
  });

  test("a child of it, and a route's own level, keep the request's bindings", () => {
    const { logger, lines } = logged('info');
    make(logger, { reqId: 'r-3' }).child({ part: 'events' }).info('child');
    const quiet = make(logger, { reqId: 'r-4' }, { level: 'error' });
    quiet.info('below the route level');
    quiet.error('at it');
    expect(lines).toEqual([expect.objectContaining({ reqId: 'r-3', part: 'events', msg: 'child' }), expect.objectContaining({ reqId: 'r-4', msg: 'at it' })]);
  });
});
