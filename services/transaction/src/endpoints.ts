// The service's NATS endpoints (contract: libs/bus/src/contracts/tx.ts).
import { IDENTITY, TX, handle, type Handler } from '@platform/bus';
import { fill, resultsText, submit, submitRaw, type AdmissionDeps } from './admission.js';
import { address, chainId, hash, invalid } from './fields.js';
import { register } from './registrar.js';
import { nextNonce } from './store.js';

/** More hashes than any client sends in one call; bounds the query. */
const MAX_HASHES = 10_000;

export function txHandlers(deps: AdmissionDeps): Handler[] {
  return [
    handle(TX.submit, (request) => submit(deps, request)),
    handle(TX.submitRaw, (request) => submitRaw(deps, request)),
    handle(TX.fill, (request) => fill(deps, request)),
    handle(IDENTITY.register, (request) => register(deps, request)),
    handle(TX.results, (request) => {
      const hashes: unknown = request?.hashes;
      if (!Array.isArray(hashes)) throw invalid('body', 'must be a JSON array of transaction hashes');
      if (hashes.length > MAX_HASHES) throw invalid('body', `must hold at most ${MAX_HASHES} hashes, got ${hashes.length}`);
      const asked = hashes.map((h, i) => hash(h, `[${i}]`));
      // without a username the caller is the node itself (the gateway resolving hashes it just handed out)
      if (typeof request.username !== 'string') return resultsText(deps.pool, deps.recent, asked);
      return resultsText(deps.pool, deps.recent, asked, { chains: deps.chains, asker: { username: request.username, organization: request.organization ?? null } });
    }),
    handle(TX.nonce, async (request) => {
      const account = address(request?.address, 'address');
      const chain = chainId(request.chainId, 'chainid');
      return { address: account, chainId: chain, nextNonce: await nextNonce(deps.pool, account, chain) };
    }),
  ];
}
