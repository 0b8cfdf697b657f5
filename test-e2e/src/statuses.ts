// The check that /openapi.json documents every status the tests see a route
// answer. Jest runs test files in parallel workers, so nothing is shared in
// memory: each worker appends what its tests' requests to a gateway answered
// (method, path, status, test file) to a file of its own in a directory the
// run shares (STATUS_DIR_ENV, made by the run's global setup), and writes the
// gateway's /openapi.json there once. The run's global teardown reads them
// all and matches each path against the document's route templates.
import { appendFileSync, existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The environment variable naming the run's directory of observed statuses; unset, nothing is recorded. */
export const STATUS_DIR_ENV = 'PLATFORM_OBSERVED_STATUSES';
/**
 * Set by `npm test` (scripts/test.ts): the file the teardown writes what is
 * undocumented to, instead of failing jest, whose report (the run's counts)
 * a failed teardown would leave unwritten; `npm test` counts it as a failure.
 */
export const STATUS_VERDICT_ENV = 'PLATFORM_STATUSES_VERDICT';
/** The document, as the first gateway a test reached served it. */
const DOCUMENT_FILE = 'openapi.json';
const RECORDS_SUFFIX = '.statuses.jsonl';

export interface Observation {
  method: string;
  /** the path without its query string */
  path: string;
  status: number;
  /** the test file that saw it, relative to the repository */
  test: string;
}

interface OpenApiDocument {
  paths: Record<string, Record<string, { responses?: Record<string, unknown> }>>;
}

export function isOpenApiDocument(value: unknown): value is OpenApiDocument {
  return typeof value === 'object' && value !== null && typeof (value as OpenApiDocument).paths === 'object' && (value as OpenApiDocument).paths !== null;
}

export function recordObservation(dir: string, observation: Observation): void {
  appendFileSync(join(dir, `${process.pid}${RECORDS_SUFFIX}`), `${JSON.stringify(observation)}\n`);
}

/** Keeps the gateway's document unless one is kept already (every gateway of a run serves the same one). */
export function keepDocument(dir: string, document: OpenApiDocument): void {
  const file = join(dir, DOCUMENT_FILE);
  if (!existsSync(file)) writeFileSync(file, JSON.stringify(document));
}

export function readRun(dir: string): { document: OpenApiDocument | null; observations: Observation[] } {
  const file = join(dir, DOCUMENT_FILE);
  const document = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as OpenApiDocument) : null;
  const observations: Observation[] = [];
  for (const name of readdirSync(dir).filter((n) => n.endsWith(RECORDS_SUFFIX)).sort()) {
    for (const line of readFileSync(join(dir, name), 'utf8').split('\n')) if (line !== '') observations.push(JSON.parse(line) as Observation);
  }
  return { document, observations };
}

interface Template {
  template: string;
  pattern: RegExp;
  /** the number of literal segments: a literal segment matches before a parameter does */
  literals: number;
}

function templatesOf(document: OpenApiDocument): Template[] {
  return Object.keys(document.paths)
    .map((template) => {
      const segments = template.split('/');
      const pattern = segments.map((s) => (/^\{[^}]+\}$/.test(s) ? '[^/]+' : s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('/');
      return { template, pattern: new RegExp(`^${pattern}$`), literals: segments.filter((s) => !s.startsWith('{')).length };
    })
    .sort((a, b) => b.literals - a.literals);
}

/** The route template of the document a request path falls under, or null when it documents none (a hidden route, an unknown path). */
export function templateOf(templates: readonly Template[], path: string): string | null {
  return templates.find((t) => t.pattern.test(path))?.template ?? null;
}

export interface Undocumented {
  method: string;
  template: string;
  status: number;
  documented: string[];
  tests: string[];
}

/**
 * Every (route, status) the tests observed that the document does not list
 * for that route. Requests to paths or methods the document has no route for
 * (hidden routes, unknown paths answered 404) are not the document's to list.
 */
export function undocumentedStatuses(document: OpenApiDocument, observations: readonly Observation[]): Undocumented[] {
  const templates = templatesOf(document);
  const found = new Map<string, Undocumented>();
  for (const { method, path, status, test } of observations) {
    const template = templateOf(templates, path);
    if (template === null) continue;
    const operation = document.paths[template]![method.toLowerCase()];
    if (!operation) continue;
    const documented = Object.keys(operation.responses ?? {});
    if (documented.includes(String(status)) || documented.includes(`${String(status)[0]}XX`) || documented.includes('default')) continue;
    const key = `${method} ${template} ${status}`;
    const entry = found.get(key) ?? { method: method.toUpperCase(), template, status, documented, tests: [] };
    if (!entry.tests.includes(test)) entry.tests.push(test);
    found.set(key, entry);
  }
  return [...found.values()].sort((a, b) => a.template.localeCompare(b.template) || a.method.localeCompare(b.method) || a.status - b.status);
}

export function describeUndocumented(list: readonly Undocumented[]): string {
  return [
    `/openapi.json does not document ${list.length} status(es) the tests saw a route answer; add each to the route's schema.response in services/gateway:`,
    ...list.map((u) => `  ${u.method} ${u.template} answered ${u.status} (documented: ${u.documented.join(', ') || 'none'}) in ${u.tests.join(', ')}`),
  ].join('\n');
}
