// Chain creation (spec "Private chains"): every body is checked and its
// genesis run by the block service before anything is published, so a batch
// is created whole or not at all (but for a publication that fails halfway,
// whose chains exist and are answered by the error's details). The block
// service seals each genesis for the chain's member nodes (docs/network.md
// "Private chains across nodes"): the stream carries only that. A genesis is
// durable once the GENESIS stream acknowledged it; it is stored here right
// after (the genesis consumer stores it too, should this process stop in
// between), so the answer's IDs can be read back at once.
import type { JetStreamClient } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { BLOCK, SUBJECTS, call, encodeJson, type CreateChainsRequest, type SealedGenesis } from '@platform/bus';
import { PlatformError, type ErrorCode, type Genesis, type Logger, type ProtocolParams } from '@platform/common';
import { checkBody, genesisOf } from './body.js';
import { inTransaction, type Db } from './db.js';
import { chainExists, insertChain, visibleChainIds } from './store.js';
import { memberEntryOf, type Who } from './who.js';

export const MAX_CHAINS_PER_REQUEST = 100;

export interface CreateDeps {
  nc: NatsConnection;
  js: JetStreamClient;
  pool: Db;
  who: Who;
  /** the main chain's protocol parameters: a private chain runs by the network's rules */
  protocol: ProtocolParams;
  logger: Logger;
}

export async function createChains(deps: CreateDeps, request: CreateChainsRequest, requestId?: string): Promise<string[]> {
  const options = requestId ? { requestId } : {};
  const bodies = request?.chains;
  if (!Array.isArray(bodies) || bodies.length === 0) throw new PlatformError('VALIDATION_FAILED', 'body must be a chain object, or for /chains a non-empty array of them', { field: 'body' });
  if (bodies.length > MAX_CHAINS_PER_REQUEST) throw new PlatformError('VALIDATION_FAILED', `at most ${MAX_CHAINS_PER_REQUEST} chains per request, got ${bodies.length}`, { field: 'body' });
  const single = bodies.length === 1;
  const checked = bodies.map((b, i) => checkBody(b, single ? '' : `[${i}]`));

  const facts = await deps.who.of(request, requestId);
  if (!facts.address) {
    throw new PlatformError(
      'FORBIDDEN',
      `creating a private chain needs your key in the node's vault, and ${request.username} has none: create it with POST /platform/v2.3/key (accounts that keep their own keys cannot create private chains)`,
      { username: request.username },
    );
  }
  const creator = facts.address;

  let visible: Set<string> | null = null;
  const geneses: Array<{ genesis: Genesis; codeHash: string; sealed: SealedGenesis }> = [];
  for (const [i, body] of checked.entries()) {
    const at = single ? '' : `[${i}].`;
    if (body.parentChain !== null) {
      visible ??= new Set(await visibleChainIds(deps.pool, facts));
      // a chain the creator may not see is as unknown to it as one that does not exist
      if (!visible.has(body.parentChain) || !(await chainExists(deps.pool, body.parentChain))) {
        throw new PlatformError('CHAIN_NOT_FOUND', `${at}parentChain ${body.parentChain} is not a chain you can see on this node`, { field: `${at}parentChain`, chainId: body.parentChain });
      }
    }
    const genesis = genesisOf(body, { address: creator, member: memberEntryOf(facts) }, deps.protocol);
    let codeHash: string;
    try {
      ({ codeHash } = await call(deps.nc, BLOCK.checkGenesis, genesis, { ...options, timeoutMs: 30_000 }));
    } catch (err) {
      // a chain that could not start keeps the block service's code; the field says which item
      if (err instanceof PlatformError && err.status === 422) {
        throw new PlatformError(err.code as ErrorCode, single ? err.message : `[${i}]: ${err.message}`, { ...err.details, field: `${at}src` });
      }
      throw err;
    }
    const sealed = await call(deps.nc, BLOCK.sealGenesis, genesis, { ...options, timeoutMs: 30_000 });
    geneses.push({ genesis, codeHash, sealed });
  }

  const created: string[] = [];
  for (const { genesis, codeHash, sealed } of geneses) {
    try {
      await deps.js.publish(SUBJECTS.chains.genesis(genesis.chainId), encodeJson(sealed), { msgID: genesis.chainId });
    } catch (err) {
      throw new PlatformError('UNAVAILABLE', `the chain's genesis could not be stored${created.length ? `; created before the failure: ${created.join(', ')}` : ''}`, { created }, { cause: err });
    }
    try {
      await inTransaction(deps.pool, (client) => insertChain(client, genesis, codeHash));
      deps.nc.publish(SUBJECTS.chains.visibilityChanged);
    } catch (err) {
      // the chain exists once its genesis is on the stream: the genesis consumer stores it when the database is back
      deps.logger.warn({ err, chain: genesis.chainId }, 'a created chain could not be stored yet; the genesis consumer will');
    }
    created.push(genesis.chainId);
  }
  return created;
}
