// docs/errors.md is the error catalogue (src/errors.ts) as a page: this test
// renders it from the catalogue and fails when the page says anything else.
// After a change to the catalogue, rewrite the page with
//   WRITE_ERRORS_DOC=1 npm test -- libs/common/test/errors-doc.test.ts
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ERROR_DOMAINS, RETIRED_ERRORS } from '../src/errors.js';

const PAGE = join(import.meta.dirname, '..', '..', '..', 'docs', 'errors.md');

const DOMAIN_TITLES: Record<keyof typeof ERROR_DOMAINS, string> = {
  request: 'Requests (any endpoint)',
  auth: 'Authentication and authorization',
  accounts: 'Accounts and identity',
  transactions: 'Transactions',
  contracts: 'Contracts',
  chains: 'Private chains',
  data: 'Contract data',
  files: 'Files',
  node: 'The node',
};

const cell = (text: string) => text.replace(/\|/g, '\\|');

function render(): string {
  const lines = [
    '# Error codes',
    '',
    '<!-- generated from libs/common/src/errors.ts by libs/common/test/errors-doc.test.ts: edit the catalogue, then run',
    '     WRITE_ERRORS_DOC=1 npm test -- libs/common/test/errors-doc.test.ts -->',
    '',
    'Every error a client receives from the gateway or the vault is the JSON error body of',
    '[conventions.md, "Errors"](conventions.md#errors-platform-endpoints): `{"error": {"code", "message", "details"?, "requestId"}}`.',
    'The code names the failure and fixes the HTTP status; branch on the code, never on the message.',
    'A code is never reused: a code no longer sent is listed under "Retired" for good.',
    '',
  ];
  for (const [domain, codes] of Object.entries(ERROR_DOMAINS)) {
    lines.push(`## ${DOMAIN_TITLES[domain as keyof typeof ERROR_DOMAINS]}`, '', '| code | status | meaning | what the caller can do |', '|---|---|---|---|');
    for (const [code, entry] of Object.entries(codes)) lines.push(`| \`${code}\` | ${entry.status} | ${cell(entry.summary)} | ${'hint' in entry ? cell(entry.hint) : ''} |`);
    lines.push('');
  }
  lines.push('## Retired', '', 'Not sent any more; a node of an older version may still send one.', '', '| code | status | meaning | replaced by |', '|---|---|---|---|');
  for (const [code, entry] of Object.entries(RETIRED_ERRORS)) lines.push(`| \`${code}\` | ${entry.status} | ${cell(entry.summary)} | ${cell(entry.retired)} |`);
  return `${lines.join('\n')}\n`;
}

test('docs/errors.md lists every code of the catalogue, by domain, with its status, meaning and hint', () => {
  const expected = render();
  if (process.env.WRITE_ERRORS_DOC === '1') writeFileSync(PAGE, expected);
  const page = readFileSync(PAGE, 'utf8');
  if (page !== expected) throw new Error('docs/errors.md does not match libs/common/src/errors.ts: run WRITE_ERRORS_DOC=1 npm test -- libs/common/test/errors-doc.test.ts');
  expect(page).toBe(expected);
});
