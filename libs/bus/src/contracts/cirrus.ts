// The cirrus service's endpoints (services/cirrus): the query endpoint of the
// indexed read model.
import { defineEndpoint } from '../rpc.js';
import { SERVICE_NAMES } from '../subjects.js';

export interface SearchRequest {
  /** API table name: `Acme-Item`, `Item` (a bare contract name), `history@Item`, `Item.Moved`, `Item-balances`, `Item@1` */
  table: string;
  /** the raw query string, without `?` (`select=a,b&qty=gte.5&order=qty.desc&limit=10`) */
  query: string;
  /** the `Prefer` header, if any (`count=exact`) */
  prefer?: string;
  /** the caller: rows of the main chain and of the private chains it is a member of (`chains.visibleTo`) */
  username: string;
  /** the token's organization claim, for membership without a registered certificate */
  organization?: string | null;
}

export interface SearchResponse {
  /** the response body: a JSON array, numbers with every digit */
  rows: string;
  status: 200 | 206 | 416;
  /** the Content-Range header */
  contentRange?: string;
  /** with 416: PostgREST's message */
  message?: string;
}

export const CIRRUS = {
  search: defineEndpoint<SearchRequest, SearchResponse>(SERVICE_NAMES.cirrus, 'search', 'cirrus.search'),
} as const;
