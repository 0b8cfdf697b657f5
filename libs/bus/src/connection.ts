// The node's NATS connection: reconnects forever (a restarted NATS server must
// not take services down with it), and reports its status changes to the log.
import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/nats-core';
import type { Logger } from '@platform/common';

export interface BusOptions {
  url: string;
  /** shown in the server's connection list */
  name: string;
  logger?: Logger;
}

export async function connectBus(options: BusOptions): Promise<NatsConnection> {
  const nc = await connect({
    servers: options.url,
    name: options.name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    waitOnFirstConnect: true,
    // nats-core otherwise captures two stack traces per request: measurable CPU on the hot path
    noAsyncTraces: true,
  });
  const logger = options.logger;
  if (logger) {
    void (async () => {
      for await (const status of nc.status()) {
        if (status.type === 'reconnect' || status.type === 'disconnect') logger.warn({ nats: status.type }, 'NATS connection %s', status.type);
        else if (status.type === 'error') logger.error({ nats: status.type }, 'NATS connection error');
      }
    })();
  }
  return nc;
}
