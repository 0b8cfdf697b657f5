// The chains service's NATS endpoints (contract: libs/bus/src/contracts/chains.ts).
import { CHAINS, handle, type Handler, type ListChainsRequest } from '@platform/bus';
import { PlatformError } from '@platform/common';
import { chainIdField } from './body.js';
import { createChains, type CreateDeps } from './create.js';
import { chainRecords, chainRules, isMember, visibleChainIds } from './store.js';

const MAX_PAGE = 1_000;

function page(v: unknown, field: string, fallback: number, max: number): number {
  if (v === undefined || v === null) return fallback;
  const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0 || n > max) throw new PlatformError('VALIDATION_FAILED', `${field} must be an integer from 0 to ${max}`, { field });
  return n;
}

export function chainsHandlers(deps: CreateDeps): Handler[] {
  return [
    handle(CHAINS.create, (request, meta) => createChains(deps, request, meta.requestId)),
    handle(CHAINS.visibleTo, async (request, meta) => ({ chainIds: ['', ...(await visibleChainIds(deps.pool, await deps.who.of(request, meta.requestId)))] })),
    handle(CHAINS.list, async (request: ListChainsRequest, meta) => {
      const limit = page(request?.limit, 'limit', MAX_PAGE, MAX_PAGE);
      const offset = page(request?.offset, 'offset', 0, Number.MAX_SAFE_INTEGER);
      const wanted = Array.isArray(request.chainIds) ? new Set(request.chainIds.map((id, i) => chainIdField(id, `chainid[${i}]`)).filter((id): id is string => id !== null)) : null;
      if (request.chainIds !== undefined && request.chainIds !== null && !Array.isArray(request.chainIds)) throw new PlatformError('VALIDATION_FAILED', 'chainid must be a list of chain IDs', { field: 'chainid' });
      const visible = await visibleChainIds(deps.pool, await deps.who.of(request, meta.requestId));
      const chosen = (wanted ? visible.filter((id) => wanted.has(id)) : visible).slice(offset, offset + limit);
      return chainRecords(deps.pool, chosen);
    }),
    handle(CHAINS.exists, async (request, meta) => {
      const chainId = chainIdField(request?.chainId, 'chainid');
      // the answer depends on who asks (a members-only chain exists for its members only): no answer without the user
      const facts = await deps.who.of(request, meta.requestId);
      if (chainId === null) return { chainId: '', exists: true, membersOnly: false, protocol: deps.protocol };
      const rules = await chainRules(deps.pool, chainId);
      // to a non-member a members-only chain is exactly a chain that does not exist
      if (!rules || (rules.membersOnly && !(await isMember(deps.pool, chainId, facts)))) return { chainId, exists: false, membersOnly: false, protocol: null };
      return { chainId, exists: true, membersOnly: rules.membersOnly, protocol: rules.protocol };
    }),
  ];
}
