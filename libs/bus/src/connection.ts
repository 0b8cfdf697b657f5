// The node's NATS connection: reconnects forever (a restarted NATS server must
// not take services down with it), and reports its status changes to the log.
// A service connects as its own NATS user (an nkey; see permissions.ts), and
// its requests' answers come back on that user's own inbox prefix, the only
// inbox its permissions let it subscribe to.
import { connect } from '@nats-io/transport-node';
import { nkeyAuthenticator, type NatsConnection } from '@nats-io/nats-core';
import type { Logger } from '@platform/common';
import { inboxPrefixOf } from './permissions.js';

/** A NATS user's credentials: its name (the inbox prefix follows it) and its nkey seed (`SU…`). */
export interface BusCredentials {
  user: string;
  seed: string;
}

export interface BusOptions {
  url: string;
  /** shown in the server's connection list */
  name: string;
  /** absent: an unauthenticated connection, which only a test server with an open user accepts */
  credentials?: BusCredentials | null;
  logger?: Logger;
}

export async function connectBus(options: BusOptions): Promise<NatsConnection> {
  const credentials = options.credentials ?? null;
  const nc = await connect({
    servers: options.url,
    name: options.name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    waitOnFirstConnect: true,
    // only the node's own server: in a network the others gossip their
    // addresses, where this node's credentials are not users (each server
    // defines only its own node's), and repeated refusals there close the
    // connection for good while its own server restarts
    ignoreClusterUpdates: true,
    // nats-core otherwise captures two stack traces per request: measurable CPU on the hot path
    noAsyncTraces: true,
    ...(credentials ? { authenticator: nkeyAuthenticator(new TextEncoder().encode(credentials.seed)), inboxPrefix: inboxPrefixOf(credentials.user) } : {}),
  });
  const logger = options.logger;
  if (logger) {
    void (async () => {
      for await (const status of nc.status()) {
        if (status.type === 'reconnect' || status.type === 'disconnect') logger.warn({ nats: status.type }, 'NATS connection %s', status.type);
        // a permissions violation names the subject: the one thing that tells a missing grant from a bug
        else if (status.type === 'error') logger.error({ nats: status.type }, 'NATS connection error: %s', status.error?.message ?? 'unknown');
      }
    })();
  }
  return nc;
}
