// Nodes that join a network as they would from other machines (docs/network.md
// "Joining a network"): the network's keys and genesis made once by
// `npm run deploy -- init`, then each node started alone by the launcher with
// NETWORK_GENESIS, NODE_KEYS_DIR and NATS_ROUTES naming the other's route
// port, the routes in mutual TLS with certificates the openssl CLI made.
// They form one network: what is made on one is read on the other; a server
// with the routes' password but no certificate is not let in.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect as tlsConnect } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, removeDataDir, startNats, startNode, type RunningNode } from '@platform/launcher';
import { initNetwork } from '../../deploy/src/network-init.js';
import { api, busViolations, devToken, isolatedEnv } from './harness.js';

const START_MS = 300_000;
const COUNTER = 'contract Counter { uint public n = 5; function bump(uint by) public returns (uint) { n += by; return n; } }';

let root: string;
let clusterPort1 = 0;

/** A P-256 CA (Go's TLS, which NATS uses, has no secp256k1) and a certificate of it for each node's server, for 127.0.0.1, both TLS roles. */
function makeRouteCertificates(dir: string, nodes: string[]): void {
  mkdirSync(dir, { recursive: true });
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  openssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'ca.key', '-subj', '/O=Network/CN=routes CA', '-days', '2', '-out', 'ca.pem');
  for (const node of nodes) {
    openssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', `${node}.key`, '-subj', `/CN=${node}`, '-out', `${node}.csr`);
    writeFileSync(join(dir, `${node}.ext`), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth,clientAuth\n');
    openssl('x509', '-req', '-in', `${node}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '2', '-extfile', `${node}.ext`, '-out', `${node}.pem`);
  }
}

/** What a TLS client gets from a route port: the server's INFO once the handshake succeeded, or the handshake's failure. */
async function tlsRouteAnswer(port: number, clientCert?: { cert: Buffer; key: Buffer }): Promise<string> {
  const socket = tlsConnect({ port, host: '127.0.0.1', ca: readFileSync(join(root, 'tls', 'ca.pem')), ...(clientCert ?? {}) });
  try {
    return await new Promise<string>((resolve) => {
      socket.once('data', (chunk: Buffer) => resolve(chunk.toString('latin1')));
      socket.on('error', (err) => resolve(`error: ${err.message}`));
      socket.once('close', () => resolve('closed'));
    });
  } finally {
    socket.destroy();
  }
}
const nodes: RunningNode[] = [];
const logs: string[] = [];

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'platform-join-'));
  const keys = join(root, 'keys');
  initNetwork([{ name: 'node1', organization: 'Org1' }, { name: 'node2', organization: 'Org2' }], keys);
  makeRouteCertificates(join(root, 'tls'), ['node1', 'node2']);
  const clusterPorts = [await freePort(), await freePort()];
  const envOf = async (i: number) => ({
    ...isolatedEnv(),
    LOG_LEVEL: 'info',
    DATA_DIR: join(root, `data${i + 1}`),
    PORT: String(await freePort()),
    VAULT_PORT: String(await freePort()),
    IDP_PORT: String(await freePort()),
    FILES_PORT: String(await freePort()),
    FILES_S3_PORT: String(await freePort()),
    NODE_NAME: `node${i + 1}`,
    NODE_ORG: `Org${i + 1}`,
    NETWORK_GENESIS: join(keys, 'genesis.json'),
    NODE_KEYS_DIR: join(keys, `node${i + 1}`),
    NATS_CLUSTER_HOST: '127.0.0.1',
    NATS_CLUSTER_PORT: String(clusterPorts[i]),
    NATS_ROUTES: `127.0.0.1:${clusterPorts[1 - i]}`,
    NATS_ROUTE_TLS_CERT: join(root, 'tls', `node${i + 1}.pem`),
    NATS_ROUTE_TLS_KEY: join(root, 'tls', `node${i + 1}.key`),
    NATS_ROUTE_TLS_CA: join(root, 'tls', 'ca.pem'),
  });
  clusterPort1 = clusterPorts[0]!;
  const envs = [await envOf(0), await envOf(1)];
  // together: the network's streams need both servers of two
  const started = await Promise.allSettled(envs.map((env, i) => startNode({ env, onLine: (name, line) => logs.push(`node${i + 1}/${name} | ${line}`), readyTimeoutMs: 180_000 })));
  for (const s of started) if (s.status === 'fulfilled') nodes.push(s.value);
  const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) throw failed.reason;
}, START_MS);

afterAll(async () => {
  for (const node of nodes.reverse()) await node.stop();
  for (const i of [1, 2]) removeDataDir(join(root, `data${i}`));
  rmSync(root, { recursive: true, force: true });
  expect(busViolations(logs)).toEqual([]);
}, START_MS);

test('two nodes started alone from the keys of `deploy init` form one network: a contract made on node1 is read on node2', async () => {
  const [node1, node2] = nodes as [RunningNode, RunningNode];
  expect(logs.some((l) => l.startsWith('node2/launcher | joining the network of node1, node2 as node2'))).toBe(true);
  const token1 = await devToken(node1, 'alice');
  const token2 = await devToken(node2, 'bob');
  expect((await api(node1, 'POST', '/platform/v2.3/key', token1)).status).toBe(200);
  const created = await api(node1, 'POST', '/platform/v2.3/transaction?resolve=true', token1, { txs: [{ type: 'CONTRACT', payload: { contract: 'Counter', src: COUNTER, args: {}, metadata: { VM: 'SolidVM' } } }] });
  expect(created.body[0]).toMatchObject({ status: 'Success' });
  const address = created.body[0].data.contents.address;
  for (let i = 0; ; i++) {
    const rows = await api(node2, 'GET', `/cirrus/search/Counter?address=eq.${address}`, token2);
    if (rows.status === 200 && rows.body.length === 1) {
      expect(rows.body[0]).toMatchObject({ address, n: 5 });
      break;
    }
    if (i > 120) throw new Error(`node2 did not index the contract: ${JSON.stringify(rows.body)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  const [m1, m2] = await Promise.all([api(node1, 'GET', '/platform-api/eth/v1.2/metadata', token1), api(node2, 'GET', '/platform-api/eth/v1.2/metadata', token2)]);
  expect(m1.body.networkID).toBe(m2.body.networkID);
  expect(m2.body.validators.map((v: { node: string; organization: string }) => `${v.node}:${v.organization}`)).toEqual(['node1:Org1', 'node2:Org2']);
  expect((await api(node2, 'GET', '/platform-api/eth/v1.2/peers', token2)).body).toEqual([expect.objectContaining({ node: 'node1', organization: 'Org1', connected: true })]);
});

test('the routes are TLS, both ways: a server that has the password but no certificate is refused', async () => {
  // a TLS client with a certificate of the routes' CA is answered; one without is not
  const withCert = await tlsRouteAnswer(clusterPort1, { cert: readFileSync(join(root, 'tls', 'node2.pem')), key: readFileSync(join(root, 'tls', 'node2.key')) });
  expect(withCert).toMatch(/^INFO \{.*"tls_required":true/);
  expect(await tlsRouteAnswer(clusterPort1)).not.toMatch(/^INFO/);
  const password = readFileSync(join(root, 'keys', 'node1', 'route-password'), 'utf8').trim();
  const lines: string[] = [];
  const intruder = await startNats({
    dataDir: join(root, 'intruder'),
    node: 'intruder',
    accounts: 'accounts { A: { users: [] } }',
    cluster: { name: 'platform', port: await freePort(), user: 'route', password, routes: [`127.0.0.1:${clusterPort1}`] },
    onLog: (line) => lines.push(line),
  });
  try {
    // node1's server refuses its route: it cannot complete the TLS handshake
    for (let i = 0; !logs.some((l) => l.startsWith('node1/nats') && /TLS route handshake error/i.test(l)); i++) {
      if (i > 150) throw new Error(`node1 did not refuse the intruder's route: ${lines.slice(-5).join(' | ')}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    // and each route the intruder opened was closed again
    const rid = (l: string) => /rid:(\d+)/.exec(l)?.[1];
    const stillOpen = () => {
      const closed = new Set(lines.filter((l) => /connection closed/.test(l)).map(rid));
      return lines.filter((l) => /Route connection created/.test(l)).map(rid).filter((r) => !closed.has(r));
    };
    for (let i = 0; stillOpen().length > 0 && i < 50; i++) await new Promise((r) => setTimeout(r, 100));
    expect(lines.some((l) => /Route connection created/.test(l))).toBe(true);
    expect(stillOpen()).toEqual([]);
  } finally {
    await intruder.stop();
  }
});
