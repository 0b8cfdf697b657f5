// Which chains' rows a caller may see: the chains service's answer
// (`chains.visibleTo`: the main chain and the private chains the user is a
// member of). Without that answer the caller sees the main chain only, never
// more: the main chain's data does not depend on the chains service, and a
// private chain's must never be shown on trust.
import type { NatsConnection } from '@nats-io/nats-core';
import { CHAINS, call, type SearchRequest } from '@platform/bus';
import { PlatformError, type Logger } from '@platform/common';

export async function visibleChainsOf(nc: NatsConnection, request: SearchRequest, logger: Logger, requestId?: string): Promise<string[]> {
  if (typeof request?.username !== 'string') return [''];
  try {
    const { chainIds } = await call(nc, CHAINS.visibleTo, { username: request.username, organization: request.organization ?? null }, requestId ? { requestId } : {});
    return chainIds;
  } catch (err) {
    if (!(err instanceof PlatformError) || err.code !== 'UNAVAILABLE') throw err;
    logger.warn({ requestId }, 'the chains service did not answer: the search shows the main chain only');
    return [''];
  }
}
