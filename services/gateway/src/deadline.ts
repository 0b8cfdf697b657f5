// How long a request's body may take to arrive. Node's own `requestTimeout`
// is one setting for the whole server, and it would cut off a file's upload
// (the files service's routes) at the same 60 s as a JSON body. So the
// server keeps Node's limit on headers only, and each request gets its own:
// a body that has not arrived whole `ms` after its headers is answered 408
// and its connection closed, as Node would; a streamed route (a file in or
// out) instead has its connection closed after `ms` without a byte either
// way — it may take as long as it keeps moving.
import type { FastifyInstance } from 'fastify';
import { PlatformError, rawErrorResponse } from '@platform/common';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** the route streams a file through: bounded by stalls, not by a deadline */
    streamed?: boolean;
  }
}

export function installRequestDeadline(app: FastifyInstance, ms: number): void {
  app.addHook('onRequest', (request, reply, done) => {
    const raw = request.raw;
    if (request.routeOptions.config?.streamed) {
      const socket = raw.socket;
      const stalled = () => socket.destroy();
      socket.setTimeout(ms, stalled);
      // a keep-alive connection goes on to other requests (a resolve=true may wait quietly for 60 s): the stall limit is this one's
      reply.raw.once('close', () => {
        socket.off('timeout', stalled);
        socket.setTimeout(0);
      });
      return done();
    }
    // a request whose body has all arrived (a GET has none) has nothing left to wait for
    if (raw.complete) return done();
    const timer = setTimeout(() => {
      const socket = raw.socket;
      if (raw.complete || !socket || socket.destroyed) return;
      if (!socket.writable) return void socket.destroy();
      socket.end(rawErrorResponse(new PlatformError('REQUEST_TIMEOUT', `the request did not arrive within ${ms / 1000} s`), request.id));
      setTimeout(() => socket.destroy(), 1_000).unref();
    }, ms);
    timer.unref();
    const clear = () => clearTimeout(timer);
    raw.once('end', clear);
    raw.once('close', clear);
    done();
  });
}
