// `npm run deploy -- <command>`: the tools of deploy/ (deploy/README.md).
//   init --nodes node1:Org1,node2:Org2 --out <dir>     a new network's genesis, values and each node's secrets
//   join --node node4:Org4 --genesis <genesis.json> --route-password <file> --out <dir>
//                                                     a joining organisation's secrets
//   k8s                                               renders k8s/platform.yaml from the chart
//   docs                                              regenerates deploy/README.md's values reference
//   helm [args…]                                      runs the pinned helm (fetched and cached on first use)
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { writeK8s } from './chart.js';
import { ensureHelm } from './helm.js';
import { initNetwork, joinNode, parseNodes } from './network-init.js';
import { writeValuesReference } from './values-doc.js';

const USAGE = `usage: npm run deploy -- init --nodes <name:Org,…> --out <dir>
       npm run deploy -- join --node <name:Org> --genesis <file> --route-password <file> --out <dir>
       npm run deploy -- k8s | docs | helm [args…]`;

function option(args: string[], name: string): string {
  const i = args.indexOf(`--${name}`);
  const value = i >= 0 ? args[i + 1] : args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  if (!value) throw new Error(`--${name} is required\n${USAGE}`);
  return value;
}

const [command, ...args] = process.argv.slice(2);
try {
  if (command === 'init') {
    const out = option(args, 'out');
    const nodes = parseNodes(option(args, 'nodes'));
    initNetwork(nodes, out);
    console.log(`wrote ${out}/genesis.json, ${out}/network.yaml (every organisation's), and for each node ${nodes.map((n) => `${out}/secrets-${n.name}.yaml`).join(', ')} (that organisation's only)`);
  } else if (command === 'join') {
    const out = option(args, 'out');
    const [node] = parseNodes(option(args, 'node'));
    joinNode(node, option(args, 'genesis'), readFileSync(option(args, 'route-password'), 'utf8').trim(), out);
    console.log(`wrote ${out}/secrets-${node.name}.yaml and ${out}/${node.name}/`);
  } else if (command === 'k8s') {
    console.log(`wrote ${writeK8s()}`);
  } else if (command === 'docs') {
    writeValuesReference();
    console.log('wrote the values reference of deploy/README.md');
  } else if (command === 'helm') {
    const run = spawnSync(ensureHelm(console.error), args, { stdio: 'inherit' });
    process.exit(run.status ?? 1);
  } else {
    console.error(USAGE);
    process.exit(2);
  }
} catch (err) {
  console.error(`error: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
}
