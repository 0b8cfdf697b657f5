// Rewrites the table in docs/nats-permissions.md from the permission table the
// server configuration is generated from (libs/bus/src/permissions.ts).
// Run: node --import tsx libs/bus/bin/permission-table.ts
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { permissionTableMarkdown } from '../src/permissions.js';

const BEGIN = '<!-- permission table: generated, do not edit -->';
const END = '<!-- end of the permission table -->';
const file = join(import.meta.dirname, '..', '..', '..', 'docs', 'nats-permissions.md');
const doc = readFileSync(file, 'utf8');
const start = doc.indexOf(BEGIN);
const end = doc.indexOf(END);
if (start < 0 || end < start) throw new Error(`${file} lacks the markers ${BEGIN} … ${END}`);
writeFileSync(file, `${doc.slice(0, start + BEGIN.length)}\n${permissionTableMarkdown()}${doc.slice(end)}`);
console.log(`wrote the permission table into ${file}`);
