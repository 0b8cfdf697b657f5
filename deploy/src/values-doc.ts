// The values reference of deploy/README.md, generated from the chart's
// values.schema.json (one row per key: its path, type, default from
// values.yaml, and description), between two markers in the README.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { CHART_DIR, DEPLOY_DIR } from './chart.js';

export const README = join(DEPLOY_DIR, 'README.md');
const START = '<!-- values-reference: generated from helm/platform/values.schema.json by `npm run deploy -- docs` -->';
const END = '<!-- values-reference end -->';

type Schema = { type?: string | string[]; description?: string; properties?: Record<string, Schema>; items?: Schema; additionalProperties?: Schema | boolean; $ref?: string; enum?: unknown[]; pattern?: string };

export function valuesReference(): string {
  const schema = JSON.parse(readFileSync(join(CHART_DIR, 'values.schema.json'), 'utf8')) as Schema & { $defs: Record<string, Schema> };
  const defaults = parse(readFileSync(join(CHART_DIR, 'values.yaml'), 'utf8'));
  const resolve = (s: Schema): Schema => (s.$ref ? { ...schema.$defs[s.$ref.replace('#/$defs/', '')], ...s, $ref: undefined } : s);
  const rows = ['| key | type | default | description |', '|---|---|---|---|'];
  const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  const typeOf = (s: Schema) => (s.enum ? s.enum.map((v) => JSON.stringify(v)).join(' \\| ') : Array.isArray(s.type) ? s.type.join(' \\| ') : (s.type ?? 'string'));
  const visit = (s: Schema, path: string, value: unknown) => {
    const node = resolve(s);
    const leaf = !node.properties || path.endsWith('resources') || /\.(requests|limits)$/.test(path);
    const shown = value === undefined ? '' : `\`${cell(JSON.stringify(value))}\``;
    if (path && (leaf || node.description)) rows.push(`| \`${path}\` | ${typeOf(node)} | ${leaf ? shown : ''} | ${cell(node.description ?? '')} |`);
    if (leaf) return;
    for (const [key, child] of Object.entries(node.properties ?? {})) {
      const childValue = value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
      visit(child, path ? `${path}.${key}` : key, childValue);
    }
    if (node.items?.properties) for (const [key, child] of Object.entries(node.items.properties)) visit(child, `${path}[].${key}`, undefined);
  };
  visit(schema, '', defaults);
  return `${START}\n\n${rows.join('\n')}\n\n${END}`;
}

/** The README with its values reference as the schema says; throws when the markers are missing. */
export function readmeWithValuesReference(text: string): string {
  const start = text.indexOf(START);
  const end = text.indexOf(END);
  if (start < 0 || end < start) throw new Error(`${README} has no values reference markers`);
  return `${text.slice(0, start)}${valuesReference()}${text.slice(end + END.length)}`;
}

export function writeValuesReference(): void {
  writeFileSync(README, readmeWithValuesReference(readFileSync(README, 'utf8')));
}
