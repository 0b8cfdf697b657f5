// What Helm cannot make, made once per network or per joining organisation:
// each node's NATS users' nkeys, block-signing key, faucet key and CA, its
// vault, PostgreSQL and read role passwords, the network's route password, and the
// network's genesis (trusting every node's CA, funding every faucet, naming
// every node a validator). The launcher's own generators make them
// (ensureNetworkGenesis, ensureMainGenesis, ensureBusCredentials), in a
// scratch dir per node that is removed afterwards; what is kept is written
// into the output dir:
//
// - genesis.json, and network.yaml: the chart's values every organisation
//   shares (network.genesis and network.members);
// - secrets-<node>.yaml (0600): nodeSecrets.<node>, for that organisation only;
// - <node>/ (0700): the same keys one file each, for
//   `kubectl create secret generic <release>-<node>-secrets --from-file=<dir>`.
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUS_USERS, ensureBusCredentials, type BusUser } from '@platform/bus';
import { NODE_NAME_PATTERN } from '@platform/common';
import { bytesToHex, generateKeyPair } from '@platform/crypto';
import { ensureMainGenesis, ensureNetworkGenesis } from '@platform/launcher';
import { stringify } from 'yaml';

export interface NodeSpec {
  name: string;
  organization: string;
}

/** A node's key material, as the chart's nodeSecrets.<node> takes it. */
export interface NodeSecrets {
  nodeKey: string;
  faucetKey: string;
  caCert: string;
  caKey: string;
  vaultPassword: string;
  postgresPassword: string;
  /** the password of the gateway's read-only role cirrus_reader (the chart's read-role init container) */
  cirrusReaderPassword: string;
  routePassword: string;
  bus: Record<BusUser, string>;
}

/** The Secret's key of each value: the file names the chart mounts. */
export const SECRET_FILES: Record<Exclude<keyof NodeSecrets, 'bus'>, string> = {
  nodeKey: 'node.key',
  faucetKey: 'faucet.key',
  caCert: 'ca.pem',
  caKey: 'ca.key',
  vaultPassword: 'vault-password',
  postgresPassword: 'postgres-password',
  cirrusReaderPassword: 'cirrus-reader-password',
  routePassword: 'route-password',
};

const password = () => randomBytes(24).toString('hex');
const read = (path: string) => readFileSync(path, 'utf8');

/** Parses `node1:Org1,node2:Org2`; a name that is not a node name throws. */
export function parseNodes(text: string): NodeSpec[] {
  const nodes = text.split(',').map((item) => {
    const [name, organization] = item.split(':').map((s) => s.trim());
    if (!name || !NODE_NAME_PATTERN.test(name)) throw new Error(`"${name}" is not a node name: a lower-case letter, then lower-case letters, digits or dashes`);
    if (!organization) throw new Error(`${name}: its organisation is missing (name:Organisation)`);
    return { name, organization };
  });
  if (new Set(nodes.map((n) => n.name)).size !== nodes.length) throw new Error('two nodes of one name');
  return nodes;
}

function secretsOf(dataDir: string, routePassword: string): NodeSecrets {
  const bus = Object.fromEntries(ensureBusCredentials(join(dataDir, 'bus')).map(({ user, file }) => [user, read(file).trim()])) as Record<BusUser, string>;
  return {
    nodeKey: read(join(dataDir, 'block', 'node.key')).trim(),
    faucetKey: read(join(dataDir, 'faucet.key')).trim(),
    caCert: read(join(dataDir, 'ca', 'node-ca.pem')),
    caKey: read(join(dataDir, 'ca', 'node-ca.key')),
    vaultPassword: password(),
    postgresPassword: password(),
    cirrusReaderPassword: password(),
    routePassword,
    bus,
  };
}

function writeNodeSecrets(outDir: string, name: string, secrets: NodeSecrets): void {
  writeFileSync(join(outDir, `secrets-${name}.yaml`), stringify({ nodeSecrets: { [name]: secrets } }, { lineWidth: 0 }), { mode: 0o600 });
  const dir = join(outDir, name);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  for (const [key, file] of Object.entries(SECRET_FILES)) writeFileSync(join(dir, file), secrets[key as keyof typeof SECRET_FILES], { mode: 0o600 });
  for (const user of BUS_USERS) writeFileSync(join(dir, `${user}.nk`), secrets.bus[user], { mode: 0o600 });
}

export interface InitResult {
  genesisPath: string;
  secrets: Record<string, NodeSecrets>;
}

/** A new network of the given nodes: its genesis, shared values and each node's secrets, into outDir (which must not hold a network yet). */
export function initNetwork(nodes: NodeSpec[], outDir: string): InitResult {
  if (existsSync(join(outDir, 'genesis.json'))) throw new Error(`${outDir} already holds a network (genesis.json): keys are made once`);
  mkdirSync(outDir, { recursive: true, mode: 0o700 });
  const scratch = mkdtempSync(join(tmpdir(), 'platform-network-'));
  try {
    const members = nodes.map((n) => ({ ...n, dataDir: join(scratch, n.name) }));
    const genesisPath = ensureNetworkGenesis(scratch, members);
    const routePassword = password();
    const secrets: Record<string, NodeSecrets> = {};
    for (const m of members) {
      secrets[m.name] = secretsOf(m.dataDir, routePassword);
      writeNodeSecrets(outDir, m.name, secrets[m.name]);
    }
    const genesis = read(genesisPath);
    writeFileSync(join(outDir, 'genesis.json'), genesis);
    // network only: Helm replaces lists whole, so the nodes stay in the operator's values file (their hosts, existing Secrets)
    const shared = { network: { genesis, members: nodes.map((n) => n.name) } };
    writeFileSync(join(outDir, 'network.yaml'), stringify(shared, { lineWidth: 0 }));
    return { genesisPath: join(outDir, 'genesis.json'), secrets };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * The keys of a node joining an existing network: its own CA, node key,
 * faucet key, nkeys and passwords, with the network's route password. Its CA
 * is not among the genesis's trusted roots, and the node is not a validator:
 * it follows the network's blocks (deploy/README.md "Add an organisation").
 */
export function joinNode(node: NodeSpec, genesisFile: string, routePassword: string, outDir: string): NodeSecrets {
  mkdirSync(outDir, { recursive: true, mode: 0o700 });
  if (existsSync(join(outDir, `secrets-${node.name}.yaml`))) throw new Error(`${outDir} already holds ${node.name}'s keys`);
  const scratch = mkdtempSync(join(tmpdir(), 'platform-join-'));
  try {
    copyFileSync(genesisFile, join(scratch, 'genesis.json'));
    // the CA (O = the organisation) beside the network's genesis, which is kept as it is
    ensureMainGenesis(scratch, { organization: node.organization });
    for (const file of ['faucet.key', join('block', 'node.key')]) {
      mkdirSync(join(scratch, 'block'), { recursive: true });
      writeFileSync(join(scratch, file), `${bytesToHex(generateKeyPair().privateKey)}\n`, { mode: 0o600 });
    }
    const secrets = secretsOf(scratch, routePassword);
    writeNodeSecrets(outDir, node.name, secrets);
    return secrets;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
