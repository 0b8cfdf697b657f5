// `npm start`: one node on this machine, until Ctrl-C or SIGTERM.
//   npm start [-- --reset] [-- --reindex] [-- --rebuild] [-- --indexEVM=true]
// `npm start -- --nodes 3`: a network of three nodes on this machine
// (docs/network.md); `--node 3` with it starts node 3 alone again.
// `--rebuild`: execute every chain again from the network's blocks
// (docs/network.md "Rebuilding a node from the network").
import { ConfigError, envWithFlags } from '@platform/common';
import { formatLine, startNetwork, startNode, type RunningNetwork, type RunningNode } from '@platform/launcher';

const args = process.argv.slice(2);
const pretty = process.stdout.isTTY === true;
const print = (name: string, line: string) => console.log(formatLine(name, line, pretty));

/** `--name N` or `--name=N`: a positive integer, or undefined when absent */
function countFlag(name: string): number | undefined {
  const at = args.findIndex((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  if (at < 0) return undefined;
  const text = args[at].includes('=') ? args[at].slice(args[at].indexOf('=') + 1) : args[at + 1];
  if (!text || !/^[1-9]\d*$/.test(text)) {
    print('launcher', `--${name} takes a positive integer`);
    process.exit(1);
  }
  return Number(text);
}

const nodes = countFlag('nodes');
const only = countFlag('node');
if (only !== undefined && nodes === undefined) {
  print('launcher', '--node N names a node of a network: give the network with --nodes');
  process.exit(1);
}

interface Started {
  stop(): Promise<void>;
}
let starting: Promise<Started> | null = null;
let started: Started | null = null;
let stopping = false;
async function stop(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  print('launcher', `${signal}: stopping`);
  // a signal during the start: the start finishes first (a start that fails
  // stops what it started itself), then what it started is stopped, so that
  // no NATS server or service is left running without its launcher
  if (!started && starting) print('launcher', 'waiting for the start in progress to end');
  const running = started ?? (await starting?.catch(() => null)) ?? null;
  await running?.stop();
  print('launcher', 'stopped');
  process.exit(0);
}
process.on('SIGINT', () => void stop('SIGINT'));
process.on('SIGTERM', () => void stop('SIGTERM'));

const env = envWithFlags(process.env, args);
const reset = args.includes('--reset');
const rebuild = args.includes('--rebuild');
try {
  if (nodes === undefined) {
    print('launcher', reset ? 'starting a node on a fresh data dir' : rebuild ? 'starting the node, rebuilt from the blocks' : 'starting the node');
    starting = startNode({ env, reset, rebuild, reindex: args.includes('--reindex'), onLine: print });
  } else {
    print('launcher', `starting ${only ? `node ${only} of a network of ${nodes}` : `a network of ${nodes} nodes`}${reset ? ' on a fresh data dir' : rebuild ? ', rebuilt from the network' : ''}`);
    starting = startNetwork({ size: nodes, env, reset, rebuild, ...(only ? { only: [only] } : {}), onLine: (node, name, line) => print(`${node}/${name}`, line) });
  }
  started = await starting;
} catch (err) {
  if (stopping) await new Promise(() => {}); // stop() exits
  print('launcher', err instanceof ConfigError ? `configuration: ${err.message}` : `could not start: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
}
if (stopping) await new Promise(() => {}); // a signal arrived during the start: stop() exits

if (nodes === undefined) {
  const node = started as RunningNode;
  const lines = [
    `REST interface   ${node.gatewayUrl}/platform/v2.3  (reference: ${node.gatewayUrl}/docs)`,
    `dashboard        ${node.gatewayUrl}/dashboard`,
    `key vault        ${node.vaultUrl}`,
    `identity         ${node.discoveryUrl}${node.idpUrl ? '  (development provider: any username, any password)' : ''}`,
    `NATS             ${node.natsUrl}`,
    `NATS users       ${node.natsCredentialsDir}  (an nkey seed per service; tools watch with observer.nk, read-only)`,
    `data dir         ${node.dataDir}`,
    node.idpUrl ? 'token            TOKEN=$(npm run -s token -- alice --org Acme)' : 'token            from your identity provider',
    `try              curl -X POST -H "Authorization: Bearer $TOKEN" ${node.gatewayUrl}/platform/v2.3/key`,
  ];
  for (const line of lines) console.log(line);
} else {
  const network = started as RunningNetwork;
  // one block per node, in order, each line naming its node
  for (const index of [...network.running.keys()].sort((a, b) => a - b)) {
    const node = network.running.get(index)!;
    const name = network.nodes[index - 1].name;
    const lines = [
      `REST interface   ${node.gatewayUrl}/platform/v2.3`,
      `dashboard        ${node.gatewayUrl}/dashboard`,
      `key vault        ${node.vaultUrl}`,
      `identity         ${node.discoveryUrl}`,
      `NATS             ${node.natsUrl}`,
      `organization     ${network.nodes[index - 1].organization}`,
      `data dir         ${node.dataDir}`,
    ];
    for (const line of lines) console.log(`${name}  ${line}`);
  }
  const first = network.nodes[[...network.running.keys()].sort((a, b) => a - b)[0] - 1];
  console.log(`token            TOKEN=$(IDP_PORT=${first.ports.idp} npm run -s token -- alice)  (a token is its node's: IDP_PORT of the node you call)`);
}
console.log('ready');
