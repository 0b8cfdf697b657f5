// A node that joins a network whose other nodes run on other machines
// (`npm start` with NETWORK_GENESIS, docs/network.md "Joining a network"):
// the network's genesis and this node's keys are installed into its data dir
// at the first start (and must stay the same at every later one), and its
// NATS server joins the cluster through the routes it is given.
//
// The keys come as `npm run deploy -- init` writes them for each node
// (deploy/src/network-init.ts): node.key, faucet.key, ca.pem, ca.key,
// route-password.
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Genesis, JoinConfig } from '@platform/common';
import { nodeCaFiles } from '@platform/identity';
import { readKeyPair } from './genesis.js';
import { NETWORK_CLUSTER_NAME, NETWORK_ROUTE_USER, networkReplicas, type NatsClusterOptions } from './nats.js';

export interface JoinedNetwork {
  /** every node of the network (the validators, and NETWORK_NODES): every server defines each one's account */
  nodes: string[];
  cluster: NatsClusterOptions;
  /** NETWORK_REPLICAS for this node's services: the same on every node */
  replicas: number;
}

/** Where each key of NODE_KEYS_DIR goes in the data dir. */
function keyFiles(dataDir: string): Array<{ from: string; to: string }> {
  const ca = nodeCaFiles(dataDir);
  return [
    { from: 'node.key', to: join(dataDir, 'block', 'node.key') },
    { from: 'faucet.key', to: join(dataDir, 'faucet.key') },
    { from: 'ca.pem', to: ca.certFile },
    { from: 'ca.key', to: ca.keyFile },
  ];
}

/** Copies `from` to `to` unless `to` exists; an existing file must be the same: a node's keys and genesis never change under it. */
function install(from: string, to: string, what: string): void {
  if (existsSync(to)) {
    if (!readFileSync(to).equals(readFileSync(from))) throw new Error(`${to} differs from ${from} (${what}): a node's data dir keeps the keys and genesis it started with; start from an empty DATA_DIR to use others`);
    return;
  }
  mkdirSync(dirname(to), { recursive: true, mode: 0o700 });
  copyFileSync(from, to);
}

/**
 * Installs the network's genesis and this node's keys into `dataDir`, checks
 * that this node is one of the network's (and, if a validator, that its key is
 * the one the genesis names), and answers how its NATS server joins the
 * cluster.
 */
export function prepareJoin(join_: JoinConfig, node: string, dataDir: string): JoinedNetwork {
  if (!existsSync(join_.genesisFile)) throw new Error(`NETWORK_GENESIS: ${join_.genesisFile} does not exist`);
  let genesis: Genesis;
  try {
    genesis = JSON.parse(readFileSync(join_.genesisFile, 'utf8')) as Genesis;
  } catch (err) {
    throw new Error(`NETWORK_GENESIS: ${join_.genesisFile} is not JSON`, { cause: err });
  }
  const validators = genesis.validators ?? [];
  if (validators.length === 0) throw new Error(`NETWORK_GENESIS: ${join_.genesisFile} lists no validators: it is not a network's genesis`);
  const nodes = [...new Set([...validators.map((v) => v.node), ...join_.extraNodes])];
  if (!nodes.includes(node)) {
    throw new Error(`NODE_NAME ${node} is not one of the network's nodes (${nodes.join(', ')}): a follower that joins later is named in NETWORK_NODES, on every node`);
  }
  install(join_.genesisFile, join(dataDir, 'genesis.json'), 'the network\'s genesis');
  if (join_.keysDir) {
    for (const { from, to } of keyFiles(dataDir)) {
      const source = join(join_.keysDir, from);
      if (existsSync(source)) install(source, to, `NODE_KEYS_DIR's ${from}`);
    }
  }
  const validator = validators.find((v) => v.node === node);
  const keyFile = join(dataDir, 'block', 'node.key');
  if (validator) {
    if (!existsSync(keyFile)) throw new Error(`${node} is a validator of the network, and its block-signing key (${keyFile}) is missing: set NODE_KEYS_DIR to its keys`);
    const { address } = readKeyPair(keyFile, `${node}'s block-signing key`);
    if (address !== validator.address) throw new Error(`${keyFile} is not ${node}'s key: the genesis names ${validator.address}, the file holds ${address}'s`);
  }
  for (const [variable, file] of Object.entries({ NATS_ROUTE_TLS_CERT: join_.routeTls?.certFile, NATS_ROUTE_TLS_KEY: join_.routeTls?.keyFile, NATS_ROUTE_TLS_CA: join_.routeTls?.caFile })) {
    if (file && !existsSync(file)) throw new Error(`${variable}: ${file} does not exist`);
  }
  const passwordFile = join_.routePasswordFile ?? join(join_.keysDir!, 'route-password');
  if (!existsSync(passwordFile)) throw new Error(`the routes' password file ${passwordFile} does not exist (NATS_ROUTE_PASSWORD_FILE, or NODE_KEYS_DIR's route-password)`);
  return {
    nodes,
    replicas: networkReplicas(nodes.length),
    cluster: {
      name: NETWORK_CLUSTER_NAME,
      host: join_.clusterHost,
      port: join_.clusterPort,
      user: NETWORK_ROUTE_USER,
      password: readFileSync(passwordFile, 'utf8').trim(),
      routes: join_.routes,
      ...(join_.clusterAdvertise ? { advertise: join_.clusterAdvertise } : {}),
      ...(join_.routeTls ? { tls: { certFile: resolve(join_.routeTls.certFile), keyFile: resolve(join_.routeTls.keyFile), caFile: resolve(join_.routeTls.caFile) } } : {}),
    },
  };
}
