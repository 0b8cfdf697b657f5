// The main chain's genesis for a new single-node network, and the faucet key
// it funds. The launcher is the only writer of `<DATA_DIR>/genesis.json`
// (the block service reads it, and refuses to start without it): the genesis
// must fund the faucet's account, and only whoever holds the faucet key knows
// which account that is. Both files are written once and never changed: the
// block store remembers the genesis's hash and refuses another one.
//
// - `<DATA_DIR>/faucet.key`: the faucet's secp256k1 private key, 64 hex,
//   mode 0600; the transaction service signs the faucet's transfers with it
//   (FAUCET_KEY_FILE).
// - `<DATA_DIR>/genesis.json`: the `Genesis` of the main chain, with the
//   faucet's account holding FAUCET_GENESIS_BALANCE. It is funded whether or
//   not gas is enabled: a node started later with GAS_ENABLED=true keeps its
//   genesis, and a balance changes nothing while gas is disabled. It lists
//   the node CA's certificate as the network's trusted root and creates the
//   certificate registry with it (issue "Identity").
// - the node's CA (`<DATA_DIR>/ca/node-ca.key` and `node-ca.pem`, subject
//   O = NODE_ORG), created before the genesis unless NODE_CA_CERT and
//   NODE_CA_KEY give one; the vault signs users' certificates with it.
import { randomBytes } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createNodeCa, privateKeyFromPem, privateKeyToPem, type NodeCa } from '@platform/certs';
import { DEFAULT_PROTOCOL, MAIN_CHAIN, type Genesis, type Validator } from '@platform/common';
import { bytesToHex, generateKeyPair, hexToBytes, keyPairFromPrivateKey, type KeyPair } from '@platform/crypto';
import { nodeCaFiles, readNodeCa, registryGenesisContract, validatorSetGenesisContract, type NodeCaFiles, type NodeCaSource } from '@platform/identity';

/** 10^18 tokens of 18 decimals: 5 × 10^14 faucet calls of 2000 tokens, far below 2^256. */
export const FAUCET_GENESIS_BALANCE = 10n ** 36n;

export interface MainChainFiles {
  genesisPath: string;
  /** the faucet key's file; null when the genesis predates it (the transaction service then keeps its own key) */
  faucetKeyFile: string | null;
  /** the faucet's address, when its key file exists */
  faucetAddress: string | null;
  /** whether the genesis gives the faucet's account a balance (else the faucet's transfers fail with gas enabled) */
  faucetFunded: boolean;
  /** true when this call wrote the genesis */
  created: boolean;
  /** where the node's CA is, for the vault (NODE_CA_CERT / NODE_CA_KEY) */
  ca: { cert: string; key: string };
  /** whether the genesis trusts this node's CA (a node joining another network's genesis may not) */
  caTrusted: boolean;
}

export interface MainGenesisOptions {
  /** NODE_ORG: the organization of a CA created here */
  organization?: string;
  /** NODE_CA_CERT / NODE_CA_KEY */
  ca?: NodeCaSource;
}

/**
 * Makes sure `<dataDir>` holds the main chain's genesis: an existing one is
 * kept as it is; otherwise the faucet key is generated (unless one is there)
 * and a new genesis funding it is written.
 */
export function ensureMainGenesis(dataDir: string, options: MainGenesisOptions = {}): MainChainFiles {
  const genesisPath = join(dataDir, 'genesis.json');
  const keyPath = join(dataDir, 'faucet.key');
  const ca = ensureNodeCa(dataDir, options.organization ?? 'Platform', options.ca ?? {});
  let created = false;
  if (!existsSync(genesisPath)) {
    const faucet = readOrCreateKey(keyPath);
    const genesis = newMainGenesis([{ address: faucet, balance: FAUCET_GENESIS_BALANCE.toString() }], [ca.ca.certificatePem]);
    created = writeOnce(genesisPath, `${JSON.stringify(genesis, null, 2)}\n`);
  }
  // a genesis written by an older launcher (or copied from another node) may come without a faucet key
  const faucetAddress = existsSync(keyPath) ? readKey(keyPath) : null;
  const genesis = JSON.parse(readFileSync(genesisPath, 'utf8')) as Partial<Genesis>;
  const faucetFunded = faucetAddress !== null && (genesis.accounts ?? []).some((a) => a.address === faucetAddress && BigInt(a.balance) > 0n);
  const caTrusted = (genesis.trustedRoots ?? []).some((pem) => pem.replace(/\s+/g, '') === ca.ca.certificatePem.replace(/\s+/g, ''));
  return { genesisPath, faucetKeyFile: faucetAddress === null ? null : keyPath, faucetAddress, faucetFunded, created, ca: ca.source, caTrusted };
}

/**
 * The node's CA: the given one (NODE_CA_CERT and NODE_CA_KEY, both or
 * neither), else the data dir's, created at the first start. Two processes
 * starting at once agree on one CA (files are linked into place, never
 * overwritten).
 */
export function ensureNodeCa(dataDir: string, organization: string, given: NodeCaSource): { ca: NodeCa; source: { cert: string; key: string } } {
  if (given.cert || given.key) {
    if (!given.cert || !given.key) throw new Error('NODE_CA_CERT and NODE_CA_KEY must be given together');
    return { ca: readNodeCa({ cert: given.cert, key: given.key }), source: { cert: given.cert, key: given.key } };
  }
  const files: NodeCaFiles = nodeCaFiles(dataDir);
  const subject = { organization, commonName: `${organization} node CA` };
  if (!existsSync(files.keyFile)) {
    mkdirSync(dirname(files.keyFile), { recursive: true, mode: 0o700 });
    // the key first: a certificate file never exists without its key
    writeOnce(files.keyFile, privateKeyToPem(createNodeCa(subject).privateKey), 0o600);
  }
  if (!existsSync(files.certFile)) {
    const privateKey = privateKeyFromPem(readFileSync(files.keyFile, 'utf8'));
    writeOnce(files.certFile, createNodeCa(subject, { privateKey }).certificatePem);
  }
  const source = { cert: files.certFile, key: files.keyFile };
  return { ca: readNodeCa(source, source), source };
}

/** A new main chain: the default protocol, the given balances, the certificate registry trusting `trustedRoots`. */
export function newMainGenesis(accounts: Genesis['accounts'] = [], trustedRoots: string[] = []): Genesis {
  return {
    format: 1,
    chainId: MAIN_CHAIN,
    label: 'main',
    timestamp: Math.floor(Date.now() / 1000),
    parentChain: null,
    // two networks started in the same second must not share a genesis hash
    nonce: bytesToHex(randomBytes(32)),
    protocol: DEFAULT_PROTOCOL,
    trustedRoots,
    accounts,
    contracts: [registryGenesisContract(trustedRoots)],
    members: [],
    creator: null,
  };
}

/** The key of a key file (64 hex); a file that is not a key stops the start, naming the file and whose key it is. */
export function readKeyPair(path: string, whose = 'the faucet\'s private key'): KeyPair {
  const text = readFileSync(path, 'utf8').trim().replace(/^0x/i, '');
  if (!/^[0-9a-fA-F]{64}$/.test(text)) throw new Error(`${path} must hold ${whose} as 64 hex digits`);
  return keyPairFromPrivateKey(hexToBytes(text));
}

/** The faucet's address from its key file. */
function readKey(path: string): string {
  return readKeyPair(path).address;
}

/** A secp256k1 key file (64 hex), created if missing: the faucet's, a node's block-signing key. */
function readOrCreateKeyPair(path: string, whose?: string): KeyPair {
  if (!existsSync(path)) writeOnce(path, `${bytesToHex(generateKeyPair().privateKey)}\n`, 0o600);
  return readKeyPair(path, whose);
}

function readOrCreateKey(path: string): string {
  return readOrCreateKeyPair(path).address;
}

/**
 * Writes a file only if it does not exist, atomically (a temporary file
 * linked into place), so that two processes starting at once agree on one
 * content. True when this call wrote it.
 */
function writeOnce(path: string, content: string, mode = 0o644): boolean {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, content, { mode });
  try {
    linkSync(tmp, path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return false;
  } finally {
    unlinkSync(tmp);
  }
}

/** One node of a network whose genesis the launcher writes: where its data is, its name and organization. */
export interface NetworkMember {
  name: string;
  organization: string;
  dataDir: string;
}

/**
 * The main chain's genesis of a new network of several nodes on this machine
 * (network.ts), written once into `<rootDir>/network/genesis.json` and into
 * each node's data dir: every node's CA trusted, every node's faucet funded,
 * every node a validator by its block-signing key (`<dataDir>/block/node.key`,
 * created here as the block service would, since the genesis must name it).
 * An existing genesis is kept.
 */
export function ensureNetworkGenesis(rootDir: string, members: NetworkMember[]): string {
  const path = join(rootDir, 'network', 'genesis.json');
  if (!existsSync(path)) {
    const roots: string[] = [];
    const accounts: Genesis['accounts'] = [];
    const validators: Validator[] = [];
    for (const m of members) {
      roots.push(ensureNodeCa(m.dataDir, m.organization, {}).ca.certificatePem);
      accounts.push({ address: readOrCreateKey(join(m.dataDir, 'faucet.key')), balance: FAUCET_GENESIS_BALANCE.toString() });
      const { address, publicKey } = readOrCreateKeyPair(join(m.dataDir, 'block', 'node.key'), 'the node\'s block-signing key');
      validators.push({ node: m.name, organization: m.organization, address, publicKey: bytesToHex(publicKey) });
    }
    const genesis = newMainGenesis(accounts, roots);
    // the validators as the chain's state too: governance changes them from there (docs/network.md)
    writeOnce(path, `${JSON.stringify({ ...genesis, contracts: [...genesis.contracts, validatorSetGenesisContract(validators)], validators }, null, 2)}\n`);
  }
  const text = readFileSync(path, 'utf8');
  for (const m of members) writeOnce(join(m.dataDir, 'genesis.json'), text);
  return path;
}
