// The node pod's init container: the genesis and the node key into the data dir (../prepare-node.ts).
import { prepareNode } from '../prepare-node.js';

try {
  const need = (name: string) => process.env[name] || (() => { throw new Error(`${name} is required`); })();
  for (const file of prepareNode({ dataDir: need('DATA_DIR'), genesisFile: need('GENESIS_FILE'), nodeKeyFile: need('NODE_KEY_FILE') })) {
    console.log(`${file.path}: ${file.written ? 'written' : 'kept'}`);
  }
} catch (err) {
  console.error(`prepare: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
}
