// Jest's setupFilesAfterEnv: every fetch a test makes to a gateway is
// recorded with the status it answered (statuses.ts), whichever client made
// it: the harness's `api` and `request`, or a test's own fetch. An origin is
// a gateway when it serves an OpenAPI document at /openapi.json (asked once
// per origin and test file; the vault, the identity provider and the files
// service serve none). The request itself is passed on untouched.
import { relative } from 'node:path';
import { STATUS_DIR_ENV, isOpenApiDocument, keepDocument, recordObservation } from './statuses.js';

const dir = process.env[STATUS_DIR_ENV];
const ROOT = new URL('../..', import.meta.url).pathname;

if (dir) {
  const original = globalThis.fetch;
  const gateways = new Map<string, Promise<boolean>>();
  const isGateway = (origin: string) => {
    let known = gateways.get(origin);
    if (!known) {
      known = original(`${origin}/openapi.json`, { signal: AbortSignal.timeout(5_000) })
        .then(async (response) => {
          if (!response.ok) return false;
          const document: unknown = await response.json();
          if (!isOpenApiDocument(document)) return false;
          keepDocument(dir, document);
          return true;
        })
        .catch(() => false);
      gateways.set(origin, known);
    }
    return known;
  };
  globalThis.fetch = async (input: string | URL | Request, init?: RequestInit) => {
    const response = await original(input, init);
    const url = new URL(input instanceof Request ? input.url : input);
    const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
    if ((url.protocol === 'http:' || url.protocol === 'https:') && (await isGateway(url.origin))) {
      const test = relative(ROOT, expect.getState().testPath ?? 'unknown');
      recordObservation(dir, { method, path: url.pathname, status: response.status, test });
    }
    return response;
  };
}
