// The service's NATS endpoints (contract: libs/bus/src/contracts/tx.ts).
import { IDENTITY, TX, handle, type Handler } from '@platform/bus';
import { fill, resultsText, submit, submitRaw, type AdmissionDeps } from './admission.js';
import { unknownChain } from './chains.js';
import { address, chainId, hash, invalid, username } from './fields.js';
import { register } from './registrar.js';
import { nextNonce } from './store.js';

/** More hashes than any client sends in one call; bounds the query. */
const MAX_HASHES = 10_000;

function hashesOf(request: { hashes?: unknown } | undefined): string[] {
  const hashes: unknown = request?.hashes;
  if (!Array.isArray(hashes)) throw invalid('body', 'must be a JSON array of transaction hashes');
  if (hashes.length > MAX_HASHES) throw invalid('body', `must hold at most ${MAX_HASHES} hashes, got ${hashes.length}`);
  return hashes.map((h, i) => hash(h, `[${i}]`));
}

function organization(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw invalid('organization', 'must be a string or null');
  return value;
}

export function txHandlers(deps: AdmissionDeps): Handler[] {
  return [
    handle(TX.submit, (request) => submit(deps, request)),
    handle(TX.submitRaw, (request) => submitRaw(deps, request)),
    handle(TX.fill, (request) => fill(deps, request)),
    handle(IDENTITY.register, (request) => register(deps, request)),
    handle(TX.results, (request) => {
      const asked = hashesOf(request);
      // never unfiltered for want of a user: the node's own reads have their own subject
      const asker = { username: username(request.username), organization: organization(request.organization) };
      return resultsText(deps.pool, deps.recent, asked, { chains: deps.chains, asker });
    }),
    // the node's own read (the gateway's resolve=true, for hashes the request was already shown)
    handle(TX.nodeResults, (request) => resultsText(deps.pool, deps.recent, hashesOf(request))),
    handle(TX.nonce, async (request) => {
      const account = address(request?.address, 'address');
      const chain = chainId(request.chainId, 'chainid');
      const asker = { username: username(request.username), organization: organization(request.organization) };
      // a private chain's nonces show its accounts' activity: to others it is as unknown as a chain that does not exist
      if (!(await deps.chains.visible(chain, asker))) throw unknownChain(chain, 'chainid');
      return { address: account, chainId: chain, nextNonce: await nextNonce(deps.pool, account, chain) };
    }),
  ];
}
