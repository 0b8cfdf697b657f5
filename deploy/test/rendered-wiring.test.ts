// The rendered wiring runs: the three-organisation example, with keys and a
// genesis made by `npm run deploy -- init`, rendered by helm, then each
// rendered pod's containers started as local processes (test/support/local-pods.ts)
// with the commands, environment, Secrets and ConfigMaps of the manifests.
// The three nodes must form one network: each ready, a transaction made on
// node1 read on node2 and node3 through their own gateways and tokens.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHART_DIR, K8S_EXAMPLE, parseManifests, renderChart } from '../src/chart.js';
import { initNetwork, parseNodes } from '../src/network-init.js';
import { checkNetwork, devToken, waitReady } from '../src/smoke.js';
import { runLocally, type LocalCluster } from './support/local-pods.js';

const START_MS = 300_000;
let cluster: LocalCluster | null = null;
let dir = '';

afterAll(async () => {
  await cluster?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 60_000);

test('the rendered three-organisation network forms one network: a transaction on node1 is read on node2 and node3', async () => {
  dir = mkdtempSync(join(tmpdir(), 'platform-wiring-'));
  const nodes = parseNodes('node1:Org1,node2:Org2,node3:Org3');
  initNetwork(nodes, dir);
  const text = renderChart({
    release: K8S_EXAMPLE.release,
    namespace: K8S_EXAMPLE.namespace,
    valuesFiles: [join(CHART_DIR, K8S_EXAMPLE.profile), join(dir, 'network.yaml'), ...nodes.map((n) => join(dir, `secrets-${n.name}.yaml`))],
  });
  const objects = parseManifests(text).filter((o) => o.metadata.annotations?.['helm.sh/hook'] === undefined);
  // a loopback /24 of this run's own: the pods' ports cannot meet another run's
  const base = `127.${100 + Math.floor(Math.random() * 100)}.${Math.floor(Math.random() * 250)}`;
  const started = Date.now();
  try {
    cluster = await runLocally(objects, { namespace: K8S_EXAMPLE.namespace, clusterDomain: 'cluster.local', base });
    const gateways = nodes.map((n) => `http://${cluster!.serviceAddress(`platform-${n.name}-gateway`, 80)}`);
    const idps = nodes.map((n) => `http://${cluster!.serviceAddress(`platform-${n.name}-idp`, 8081)}`);
    // the gateway's /ready waits for the identity provider too: then each node's token comes from its own
    await Promise.all(gateways.map((g) => waitReady(g, 180_000)));
    const tokens = await Promise.all(idps.map((idp, i) => devToken(idp, `wiring${i + 1}`)));
    const check = await checkNetwork(gateways, tokens, { readTimeoutMs: 60_000 });
    console.log(`rendered wiring: ${objects.length} objects, ${cluster.pods.size} pods; contract ${check.address} created on node1 and read on all three, ${((Date.now() - started) / 1000).toFixed(1)} s after the pods started`);
    expect(check.reads).toHaveLength(3);
    expect(new Set(check.reads).size).toBe(1);
  } catch (err) {
    console.error(cluster?.logs().split('\n').slice(-120).join('\n'));
    throw err;
  }
}, START_MS);
