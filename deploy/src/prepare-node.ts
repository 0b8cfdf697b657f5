// A node pod's data dir before its services start: the network's genesis and
// the node's block-signing key, mounted from a ConfigMap and a Secret, are
// copied to where the services read them (<DATA_DIR>/genesis.json, which the
// block, chains and transaction services read, and <DATA_DIR>/block/node.key).
// A file already there is never replaced: the block store remembers the
// genesis's hash, and the genesis names the node's key, so a different one is
// an operator's mistake, refused with what differs.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export interface PreparedFile {
  path: string;
  /** true when this start wrote it */
  written: boolean;
}

function placeOnce(source: string, target: string, mode: number, what: string): PreparedFile {
  const wanted = readFileSync(source, 'utf8');
  if (existsSync(target)) {
    if (readFileSync(target, 'utf8').trim() !== wanted.trim()) {
      throw new Error(`${target} holds another ${what} than ${source}: a node keeps the ${what} it was started with (restore the old one, or give the node a new data volume)`);
    }
    return { path: target, written: false };
  }
  mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
  writeFileSync(target, wanted, { mode });
  chmodSync(target, mode);
  return { path: target, written: true };
}

export function prepareNode(options: { dataDir: string; genesisFile: string; nodeKeyFile: string }): PreparedFile[] {
  mkdirSync(options.dataDir, { recursive: true });
  return [
    placeOnce(options.genesisFile, join(options.dataDir, 'genesis.json'), 0o644, 'genesis'),
    placeOnce(options.nodeKeyFile, join(options.dataDir, 'block', 'node.key'), 0o600, 'block-signing key'),
  ];
}
