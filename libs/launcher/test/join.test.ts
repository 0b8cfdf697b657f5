// A node joining a network from another machine (NETWORK_GENESIS): what is
// installed into its data dir, what is refused, and the cluster it joins.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '@platform/common';
import { ensureNetworkGenesis, natsServerConfig, prepareJoin } from '../src/index.js';

let root: string;
/** the network's genesis, and each node's keys laid out as `npm run deploy -- init` writes them */
let keysOf: (node: string) => string;
let genesisFile: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'launcher-join-'));
  const members = ['node1', 'node2'].map((name, i) => ({ name, organization: `Org${i + 1}`, dataDir: join(root, 'made', name) }));
  genesisFile = ensureNetworkGenesis(join(root, 'made'), members);
  keysOf = (node) => {
    const dir = join(root, 'keys', node);
    mkdirSync(dir, { recursive: true });
    const made = join(root, 'made', node);
    // a node outside the genesis (a follower) brings only the password here
    if (existsSync(made)) {
      copyFileSync(join(made, 'block', 'node.key'), join(dir, 'node.key'));
      copyFileSync(join(made, 'faucet.key'), join(dir, 'faucet.key'));
      copyFileSync(join(made, 'ca', 'node-ca.pem'), join(dir, 'ca.pem'));
      copyFileSync(join(made, 'ca', 'node-ca.key'), join(dir, 'ca.key'));
    }
    writeFileSync(join(dir, 'route-password'), 'shared-secret\n');
    return dir;
  };
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const joinEnv = (node: string, extra: Record<string, string> = {}) =>
  loadConfig({ NODE_NAME: node, NETWORK_GENESIS: genesisFile, NODE_KEYS_DIR: keysOf(node), NATS_ROUTES: 'host1.example:6222', NATS_CLUSTER_PORT: '7222', ...extra });

test('the genesis and the node\'s keys go into its data dir; its server routes to the others with the shared password', () => {
  const config = joinEnv('node2', { NATS_CLUSTER_ADVERTISE: 'node2.example:7222' });
  const dataDir = join(root, 'node2-data');
  const joined = prepareJoin(config.join!, 'node2', dataDir);
  expect(joined).toMatchObject({ nodes: ['node1', 'node2'], replicas: 2, cluster: { host: '0.0.0.0', port: 7222, routes: ['host1.example:6222'], password: 'shared-secret', advertise: 'node2.example:7222' } });
  expect(readFileSync(join(dataDir, 'genesis.json'), 'utf8')).toBe(readFileSync(genesisFile, 'utf8'));
  expect(readFileSync(join(dataDir, 'block', 'node.key'), 'utf8')).toBe(readFileSync(join(root, 'made', 'node2', 'block', 'node.key'), 'utf8'));
  expect(readFileSync(join(dataDir, 'ca', 'node-ca.pem'), 'utf8')).toContain('BEGIN CERTIFICATE');
  // a second start finds the same files and changes nothing
  expect(prepareJoin(config.join!, 'node2', dataDir)).toEqual(joined);
  const conf = natsServerConfig({ node: 'node2', accounts: '', cluster: joined.cluster, host: '127.0.0.1' });
  expect(conf).toContain('listen: "0.0.0.0:7222"');
  expect(conf).toContain('advertise: "node2.example:7222"');
  expect(conf).toContain('nats-route://route:shared-secret@host1.example:6222');
});

test('refused, each naming why: a node the network does not have, another node\'s key, a data dir of another network, no password', () => {
  expect(() => prepareJoin(joinEnv('node3').join!, 'node3', join(root, 'a'))).toThrow(/node3 is not one of the network's nodes \(node1, node2\)/);
  // a follower named in NETWORK_NODES may join; it is no validator, so needs no block key of the genesis
  expect(prepareJoin(joinEnv('node3', { NETWORK_NODES: 'node3' }).join!, 'node3', join(root, 'b')).nodes).toEqual(['node1', 'node2', 'node3']);
  const wrongKey = loadConfig({ NODE_NAME: 'node2', NETWORK_GENESIS: genesisFile, NODE_KEYS_DIR: keysOf('node1'), NATS_ROUTES: 'h:1' });
  expect(() => prepareJoin(wrongKey.join!, 'node2', join(root, 'c'))).toThrow(/is not node2's key: the genesis names/);
  const dataDir = join(root, 'd');
  prepareJoin(joinEnv('node1').join!, 'node1', dataDir);
  writeFileSync(join(dataDir, 'genesis.json'), '{"another":"network"}');
  expect(() => prepareJoin(joinEnv('node1').join!, 'node1', dataDir)).toThrow(/differs from .* \(the network's genesis\)/);
  expect(() => loadConfig({ NETWORK_GENESIS: genesisFile })).toThrow(/NATS_ROUTE_PASSWORD_FILE/);
  expect(() => loadConfig({ NETWORK_GENESIS: genesisFile, NATS_ROUTE_PASSWORD_FILE: 'x', NATS_ROUTES: 'no-port' })).toThrow(/NATS_ROUTES: expected host:port/);
  expect(loadConfig({}).join).toBeNull();
});
