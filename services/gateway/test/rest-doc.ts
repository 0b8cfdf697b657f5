// docs/openapi.json and docs/rest.md are the gateway's /openapi.json as it is
// served, kept in the repository so that the REST reference can be read
// without a running node. gateway.test.ts compares both with what a gateway
// serves; after changing a route, rewrite them with
//   WRITE_REST_DOC=1 npm test -- services/gateway/test/gateway.test.ts
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const DOCS = join(import.meta.dirname, '..', '..', '..', 'docs');
const REGENERATE = 'WRITE_REST_DOC=1 npm test -- services/gateway/test/gateway.test.ts';

interface Operation {
  summary?: string;
  tags?: string[];
  responses?: Record<string, unknown>;
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The routes of the document as a page: by tag, each route with its summary and statuses. */
export function restReference(document: { info: { title: string; version: string }; paths: Record<string, Record<string, Operation>> }): string {
  const byTag = new Map<string, string[]>();
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const tag = op.tags?.[0] ?? 'other';
      const rows = byTag.get(tag) ?? [];
      rows.push(`| \`${method.toUpperCase()} ${path}\` | ${cell(op.summary ?? '')} | ${Object.keys(op.responses ?? {}).join(', ')} |`);
      byTag.set(tag, rows);
    }
  }
  const lines = [
    `# REST reference: ${document.info.title} ${document.info.version}`,
    '',
    `<!-- generated from the gateway's /openapi.json by services/gateway/test/gateway.test.ts; after changing a route run`,
    `     ${REGENERATE} -->`,
    '',
    "Every route a node's gateway documents, as its `GET /openapi.json` serves it (the whole document, schemas included:",
    '[openapi.json](openapi.json); a running node also renders it at `/docs`). Every route but the health and',
    'metrics endpoints needs `Authorization: Bearer <token>`. An error answer is the JSON error body with a code from',
    '[errors.md](errors.md); the statuses listed are all a route answers, and the test run fails when a test sees',
    'a route answer another (test-e2e/src/statuses.ts).',
    '',
  ];
  for (const [tag, rows] of [...byTag].sort(([a], [b]) => a.localeCompare(b))) lines.push(`## ${tag}`, '', '| route | what it does | statuses |', '|---|---|---|', ...rows, '');
  return `${lines.join('\n').trimEnd()}\n`;
}

/** Compares the docs with the served document (or, with WRITE_REST_DOC=1, rewrites them); answers what differs. */
export function restDocsDiffer(document: Parameters<typeof restReference>[0]): string[] {
  const expected = new Map([
    ['openapi.json', `${JSON.stringify(document, null, 2)}\n`],
    ['rest.md', restReference(document)],
  ]);
  const stale: string[] = [];
  for (const [name, text] of expected) {
    if (process.env.WRITE_REST_DOC === '1') writeFileSync(join(DOCS, name), text);
    let kept = '';
    try {
      kept = readFileSync(join(DOCS, name), 'utf8');
    } catch {
      // missing: stale
    }
    if (kept !== text) stale.push(`docs/${name} is not the served /openapi.json: run ${REGENERATE}`);
  }
  return stale;
}
