// The check of observed statuses against /openapi.json (src/statuses.ts): how
// paths fall under route templates, what counts as documented, and that the
// workers' records and the document round-trip through the run's directory.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeUndocumented, keepDocument, readRun, recordObservation, undocumentedStatuses, type Observation } from '../src/statuses.js';

const document = {
  paths: {
    '/platform/v2.3/transaction/{hash}': { get: { responses: { 200: {}, 404: {} } } },
    '/platform/v2.3/transaction/result': { post: { responses: { 200: {}, 400: {} } } },
    '/cirrus/search/{table}': { get: { responses: { 200: {}, '4XX': {} } } },
    '/anything': { get: { responses: { default: {} } } },
  },
};
const seen = (method: string, path: string, status: number, test = 'a.test.ts'): Observation => ({ method, path, status, test });

describe('undocumentedStatuses', () => {
  test('a status the route lists, by number, by class or as default, is documented', () => {
    expect(undocumentedStatuses(document, [seen('GET', '/platform/v2.3/transaction/ab12', 404), seen('GET', '/cirrus/search/Shelf', 416), seen('GET', '/anything', 503)])).toEqual([]);
  });

  test('a status the route does not list is named with the route template, what it lists and the tests that saw it', () => {
    const found = undocumentedStatuses(document, [seen('GET', '/platform/v2.3/transaction/ab12', 401, 'a.test.ts'), seen('GET', '/platform/v2.3/transaction/cd34', 401, 'b.test.ts'), seen('GET', '/cirrus/search/Shelf', 503)]);
    expect(found).toEqual([
      { method: 'GET', template: '/cirrus/search/{table}', status: 503, documented: ['200', '4XX'], tests: ['a.test.ts'] },
      { method: 'GET', template: '/platform/v2.3/transaction/{hash}', status: 401, documented: ['200', '404'], tests: ['a.test.ts', 'b.test.ts'] },
    ]);
    expect(describeUndocumented(found)).toContain('GET /platform/v2.3/transaction/{hash} answered 401 (documented: 200, 404) in a.test.ts, b.test.ts');
  });

  test('a literal segment wins over a parameter: POST …/transaction/result is its own route, not …/{hash}', () => {
    expect(undocumentedStatuses(document, [seen('POST', '/platform/v2.3/transaction/result', 400)])).toEqual([]);
    expect(undocumentedStatuses(document, [seen('POST', '/platform/v2.3/transaction/result', 404)])).toMatchObject([{ template: '/platform/v2.3/transaction/result', status: 404 }]);
  });

  test('paths and methods the document has no route for (hidden routes, unknown paths) are not checked', () => {
    expect(undocumentedStatuses(document, [seen('GET', '/metrics', 500), seen('GET', '/platform/v2.3/nothing', 404), seen('DELETE', '/anything', 405), seen('GET', '/cirrus/search/a/b', 404)])).toEqual([]);
  });
});

describe("the run's directory", () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'statuses-test-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  test('holds the first document kept and every observation recorded', () => {
    expect(readRun(dir)).toEqual({ document: null, observations: [] });
    keepDocument(dir, document);
    keepDocument(dir, { paths: {} });
    recordObservation(dir, seen('GET', '/anything', 200));
    recordObservation(dir, seen('POST', '/platform/v2.3/transaction/result', 400));
    expect(readRun(dir)).toEqual({ document, observations: [seen('GET', '/anything', 200), seen('POST', '/platform/v2.3/transaction/result', 400)] });
  });
});
