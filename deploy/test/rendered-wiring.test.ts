// The rendered wiring runs: the three-organisation example, with keys and a
// genesis made by `npm run deploy -- init`, rendered by helm, then each
// rendered pod's containers started as local processes (test/support/local-pods.ts)
// with the commands, environment, Secrets and ConfigMaps of the manifests.
// The three nodes must form one network: each ready, a transaction made on
// node1 read on node2 and node3 through their own gateways and tokens. Each
// gateway reads cirrus's schema as the read role the pod's init container
// made on its PostgreSQL, which may SELECT cirrus's tables and nothing more.
// Then node2 is rebuilt from the network (nodes[].rebuild): its pod made again
// from the new rendering runs the block service's step, then the services
// with their flags, and agrees with node1 again.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { CIRRUS_READ_ROLE } from '@platform/launcher';
import { parse, stringify } from 'yaml';
import { CHART_DIR, K8S_EXAMPLE, parseManifests, renderChart, type K8sObject } from '../src/chart.js';
import { initNetwork, parseNodes } from '../src/network-init.js';
import { call, checkNetwork, devToken, readContract, waitReady, type NetworkCheck } from '../src/smoke.js';
import { runLocally, type LocalCluster } from './support/local-pods.js';

const START_MS = 300_000;
const REBUILD_MS = 180_000;
let cluster: LocalCluster | null = null;
let dir = '';
const nodes = parseNodes('node1:Org1,node2:Org2,node3:Org3');
let valuesFiles: string[] = [];
let gateways: string[] = [];
let idps: string[] = [];
let check: NetworkCheck | null = null;
/** what each pod's rebuild init container said (the runner keeps only the last lines of all) */
const rebuildLines: string[] = [];

/** The release's objects as helm renders them from these values files, without its test hooks. */
function render(files: string[]): K8sObject[] {
  const text = renderChart({ release: K8S_EXAMPLE.release, namespace: K8S_EXAMPLE.namespace, valuesFiles: files });
  return parseManifests(text).filter((o) => o.metadata.annotations?.['helm.sh/hook'] === undefined);
}

afterAll(async () => {
  await cluster?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 60_000);

test('the rendered three-organisation network forms one network: a transaction on node1 is read on node2 and node3, each gateway reading cirrus as the read-only role', async () => {
  dir = mkdtempSync(join(tmpdir(), 'platform-wiring-'));
  initNetwork(nodes, dir);
  valuesFiles = [join(CHART_DIR, K8S_EXAMPLE.profile), join(dir, 'network.yaml'), ...nodes.map((n) => join(dir, `secrets-${n.name}.yaml`))];
  const objects = render(valuesFiles);
  // a loopback /24 of this run's own: the pods' ports cannot meet another run's
  const base = `127.${100 + Math.floor(Math.random() * 100)}.${Math.floor(Math.random() * 250)}`;
  const started = Date.now();
  try {
    cluster = await runLocally(objects, {
      namespace: K8S_EXAMPLE.namespace,
      clusterDomain: 'cluster.local',
      base,
      onLine: (pod, container, line) => {
        if (container === 'rebuild') rebuildLines.push(`${pod}: ${line}`);
      },
    });
    gateways = nodes.map((n) => `http://${cluster!.serviceAddress(`platform-${n.name}-gateway`, 80)}`);
    idps = nodes.map((n) => `http://${cluster!.serviceAddress(`platform-${n.name}-idp`, 8081)}`);
    // the gateway's /ready waits for the identity provider too: then each node's token comes from its own
    await Promise.all(gateways.map((g) => waitReady(g, 180_000)));
    const tokens = await Promise.all(idps.map((idp, i) => devToken(idp, `wiring${i + 1}`)));
    check = await checkNetwork(gateways, tokens, { readTimeoutMs: 60_000 });
    console.log(`rendered wiring: ${objects.length} objects, ${cluster.pods.size} pods; contract ${check.address} created on node1 and read on all three, ${((Date.now() - started) / 1000).toFixed(1)} s after the pods started`);
    expect(check.reads).toHaveLength(3);
    expect(new Set(check.reads).size).toBe(1);
    for (const node of nodes) await checkReadRole(cluster.pods.get(`platform-${node.name}-0`)!.env);
  } catch (err) {
    console.error(cluster?.logs().split('\n').slice(-120).join('\n'));
    throw err;
  }
}, START_MS);

type ChainHead = { chainId: string; height: number; hash: string; stateRoot: string; networkHeight: number; halted: string | null };

/** The main chain's head as a node's gateway tells it (its metadata), and whether the node says it is synced. */
async function mainHead(gateway: string, token: string): Promise<{ isSynced: boolean; head: ChainHead }> {
  const answer = await call(gateway, 'GET', '/platform-api/eth/v1.2/metadata', token);
  if (answer.status !== 200) throw new Error(`${gateway} metadata: ${answer.status} ${JSON.stringify(answer.body)}`);
  return { isSynced: answer.body.isSynced, head: (answer.body.chains as ChainHead[]).find((c) => c.chainId === '')! };
}

test('node2 rebuilt from the network (nodes[].rebuild): its new pod runs the block service\'s step before its services, which start with their flags; it executes the chain again and agrees with node1, the contract read from its read model made again', async () => {
  if (!cluster || !check) throw new Error('the network of the test before did not form');
  const values = parse(readFileSync(join(CHART_DIR, K8S_EXAMPLE.profile), 'utf8'));
  values.nodes[1].rebuild = true;
  const file = join(dir, 'rebuild.yaml');
  writeFileSync(file, stringify({ nodes: values.nodes }));
  const set = render([...valuesFiles, file]).find((o) => o.kind === 'StatefulSet' && o.metadata.name === 'platform-node2')!;
  expect(set.spec.template.spec.initContainers.map((c: { name: string }) => c.name)).toEqual(['prepare', 'read-role', 'rebuild']);
  const node1Token = await devToken(idps[0], 'rebuild1');
  const node1 = (await mainHead(gateways[0], node1Token)).head;
  expect(node1.height).toBeGreaterThan(0);

  const started = Date.now();
  try {
    const pod = await cluster.replacePod(set);
    // the step removed what node2 had made: its chain stores, and the results on its EXEC stream
    const said = rebuildLines.filter((l) => l.startsWith('platform-node2-0: ') && l.includes('the chain stores and this node'));
    expect(said).toHaveLength(1);
    const report = JSON.parse(said[0].slice('platform-node2-0: '.length)) as { stores: number; purged: Record<string, number> };
    expect(report.stores).toBeGreaterThan(0);
    expect(report.purged.EXEC).toBeGreaterThan(0);
    expect(pod.env.get('rebuild')).toEqual(pod.env.get('block'));
    await waitReady(gateways[1], REBUILD_MS);
    const token = await devToken(idps[1], 'rebuild2');
    // caught up: synced, at node1's height or past it, on the same block with the same state after it (node1 may have moved meanwhile)
    const deadline = Date.now() + REBUILD_MS;
    const both = async () => ({ rebuilt: await mainHead(gateways[1], token), network: (await mainHead(gateways[0], node1Token)).head });
    const agrees = ({ rebuilt, network }: Awaited<ReturnType<typeof both>>) => rebuilt.isSynced && rebuilt.head.height >= node1.height && rebuilt.head.height === network.height;
    let last = await both();
    while (!agrees(last) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 500));
      last = await both();
    }
    console.log(`rendered wiring: node2 rebuilt to block ${last.rebuilt.head.height} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    expect(last.rebuilt.isSynced).toBe(true);
    expect(last.rebuilt.head.halted).toBeNull();
    const head = (h: ChainHead) => ({ height: h.height, hash: h.hash, stateRoot: h.stateRoot });
    expect(head(last.rebuilt.head)).toEqual(head(last.network));
    expect(last.network.height).toBeGreaterThanOrEqual(node1.height);
    expect(await readContract(gateways[1], token, check.address, 60_000)).toBe(check.reads[0]);
  } catch (err) {
    console.error(cluster.logs().split('\n').slice(-120).join('\n'));
    throw err;
  }
}, REBUILD_MS * 2);

/**
 * The read path as a node pod has it: cirrus told the role, the gateway alone
 * (and the init container that makes the role) its URL; as that role, cirrus's
 * tables read, the gateway's own connections there, and every write refused.
 */
async function checkReadRole(env: Map<string, Record<string, string>>): Promise<void> {
  expect(env.get('cirrus')!.CIRRUS_READ_ROLE).toBe(CIRRUS_READ_ROLE);
  const knowing = [...env].filter(([, e]) => 'CIRRUS_READ_DATABASE_URL' in e || 'CIRRUS_READER_PASSWORD' in e).map(([container]) => container);
  expect(knowing.sort()).toEqual(['gateway', 'read-role']);
  const url = env.get('gateway')!.CIRRUS_READ_DATABASE_URL;
  expect(url).toBe(env.get('read-role')!.CIRRUS_READ_DATABASE_URL);
  const reader = new pg.Client({ connectionString: url });
  await reader.connect();
  // the SQLSTATE of a statement refused, or null when it ran
  const refusal = async (sql: string, readWrite = false): Promise<string | null> => {
    await reader.query(readWrite ? 'BEGIN READ WRITE' : 'BEGIN');
    try {
      await reader.query(sql);
      return null;
    } catch (err) {
      return (err as { code?: string }).code ?? String(err);
    } finally {
      await reader.query('ROLLBACK');
    }
  };
  try {
    expect((await reader.query('SELECT current_user AS u')).rows[0].u).toBe(CIRRUS_READ_ROLE);
    const { rows } = await reader.query<{ sql_name: string }>("SELECT sql_name FROM cirrus.tables WHERE contract = 'DeployCheck' AND kind = 'contract'");
    expect(rows).toHaveLength(1);
    const table = `cirrus.${rows[0].sql_name}`;
    expect(Number((await reader.query(`SELECT count(*) AS n FROM ${table}`)).rows[0].n)).toBeGreaterThanOrEqual(1);
    // the gateway answered /cirrus/search through this role, not over the bus
    const gateway = await reader.query("SELECT 1 FROM pg_stat_activity WHERE usename = current_user AND application_name LIKE 'gateway-cirrus-read%'");
    expect(gateway.rowCount).toBeGreaterThan(0);
    // read-only sessions (25006), and no privilege once a transaction asks to write (42501)
    expect(await refusal(`DELETE FROM ${table}`)).toBe('25006');
    expect(await refusal(`DELETE FROM ${table}`, true)).toBe('42501');
    expect(await refusal('CREATE TEMP TABLE scratch (a int)', true)).toBe('42501');
    expect(await refusal('CREATE TABLE public.scratch (a int)', true)).toBe('42501');
    expect(await refusal('SELECT 1 FROM tx.transactions LIMIT 1')).toBe('42501');
  } finally {
    await reader.end();
  }
}
