// `npm start`: one node on this machine, until Ctrl-C or SIGTERM.
//   npm start [-- --reset] [-- --reindex] [-- --indexEVM=true]
import { ConfigError, envWithFlags } from '@platform/common';
import { formatLine, startNode, type RunningNode } from '@platform/launcher';

const args = process.argv.slice(2);
const pretty = process.stdout.isTTY === true;
const print = (name: string, line: string) => console.log(formatLine(name, line, pretty));

let starting: Promise<RunningNode> | null = null;
let node: RunningNode | null = null;
let stopping = false;
async function stop(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  print('launcher', `${signal}: stopping`);
  // a signal during the start: the start finishes first (a start that fails
  // stops what it started itself), then what it started is stopped, so that
  // no NATS server or service is left running without its launcher
  if (!node && starting) print('launcher', 'waiting for the start in progress to end');
  const started = node ?? (await starting?.catch(() => null)) ?? null;
  await started?.stop();
  print('launcher', 'stopped');
  process.exit(0);
}
process.on('SIGINT', () => void stop('SIGINT'));
process.on('SIGTERM', () => void stop('SIGTERM'));

try {
  print('launcher', args.includes('--reset') ? 'starting a node on a fresh data dir' : 'starting the node');
  starting = startNode({ env: envWithFlags(process.env, args), reset: args.includes('--reset'), reindex: args.includes('--reindex'), onLine: print });
  node = await starting;
} catch (err) {
  if (stopping) await new Promise(() => {}); // stop() exits
  print('launcher', err instanceof ConfigError ? `configuration: ${err.message}` : `could not start: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
}
if (stopping) await new Promise(() => {}); // a signal arrived during the start: stop() exits

const lines = [
  `REST interface   ${node.gatewayUrl}/platform/v2.3  (reference: ${node.gatewayUrl}/docs)`,
  `key vault        ${node.vaultUrl}`,
  `identity         ${node.discoveryUrl}${node.idpUrl ? '  (development provider: any username, any password)' : ''}`,
  `NATS             ${node.natsUrl}`,
  `NATS users       ${node.natsCredentialsDir}  (an nkey seed per service; tools watch with observer.nk, read-only)`,
  `data dir         ${node.dataDir}`,
  node.idpUrl ? 'token            TOKEN=$(npm run -s token -- alice --org Acme)' : 'token            from your identity provider',
  `try              curl -X POST -H "Authorization: Bearer $TOKEN" ${node.gatewayUrl}/platform/v2.3/key`,
];
for (const line of lines) console.log(line);
console.log('ready');
