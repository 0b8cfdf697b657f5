// Builds the JavaScript every long-running process of a node runs (each
// service and the development identity provider; src/build.ts), for a place
// that runs them without the launcher: the container image builds them once,
// and its containers run `node .build/services/<name>/src/main.mjs`.
// `node --import tsx libs/launcher/bin/build.ts` from the repository's root.
import { relative } from 'node:path';
import { NODE_SERVICES, REPO_ROOT, builtEntry, serviceEntry } from '../src/index.js';

for (const part of [...NODE_SERVICES, 'idp']) {
  const out = await builtEntry(REPO_ROOT, serviceEntry(part));
  console.log(`${part}: ${relative(REPO_ROOT, out)}`);
}
