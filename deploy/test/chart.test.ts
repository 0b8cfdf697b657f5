// The chart without a cluster: helm lint --strict and helm template of every
// values profile, every rendered object valid for the Kubernetes API (types
// and required fields by kubernetes-models, unknown fields by the API's
// interfaces), the wiring the design needs, k8s/ in sync with the chart, and
// the README's values reference in sync with the schema. Helm is fetched and
// checked (src/helm.ts): when it cannot be had, these tests fail.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUS_USERS } from '@platform/bus';
import { BUILD_DIR, CIRRUS_READ_ROLE, REBUILD_FIRST_ARGS, memoryEnv, serviceEntry } from '@platform/launcher';
import { parse, stringify } from 'yaml';
import { CHART_DIR, K8S_EXAMPLE, parseManifests, readK8s, renderChart, renderK8s, valuesProfiles, type K8sObject } from '../src/chart.js';
import { helm } from '../src/helm.js';
import { initNetwork, parseNodes } from '../src/network-init.js';
import { natsConfigInputFromEnv } from '../src/nats-config.js';
import { schemaProblems, unknownFields } from '../src/validate.js';
import { README, readmeWithValuesReference } from '../src/values-doc.js';

const profiles = valuesProfiles();
const rendered = new Map<string, K8sObject[]>();
const render = (profile: string) => {
  if (!rendered.has(profile)) rendered.set(profile, parseManifests(renderChart({ release: 'platform', namespace: 'platform', valuesFiles: [join(CHART_DIR, profile)] })));
  return rendered.get(profile)!;
};

test('the chart ships the four profiles: one node, three organisations, external PostgreSQL, a node joining', () => {
  expect(profiles).toEqual(['values.yaml', 'values-external-postgres.yaml', 'values-join.yaml', 'values-single.yaml', 'values-three-orgs.yaml']);
});

test.each(profiles)('helm lint --strict passes with %s', (profile) => {
  const run = helm(['lint', '--strict', CHART_DIR, '-f', join(CHART_DIR, profile)]);
  expect(`${run.stdout}${run.stderr}`).toContain('1 chart(s) linted, 0 chart(s) failed');
  expect(run.status).toBe(0);
}, 60_000);

test.each(profiles)('every object rendered from %s is valid for the Kubernetes API, with no unknown field', async (profile) => {
  const objects = render(profile);
  expect(objects.length).toBeGreaterThan(5);
  expect(await schemaProblems(objects)).toEqual([]);
  expect(unknownFields(objects)).toEqual([]);
}, 60_000);

test('the checks catch what they are for: a wrong type, a missing field, an unknown field', async () => {
  const set = structuredClone(render('values-single.yaml').find((o) => o.kind === 'StatefulSet')!);
  set.spec.replicas = 'one';
  set.spec.template.spec.containers[0].containerPorts = [{ containerPort: 1 }];
  delete set.spec.selector;
  expect((await schemaProblems([set]))[0].message).toMatch(/replicas must be integer|selector/);
  expect(unknownFields([set])).toEqual([{ object: set.kind + '/' + set.metadata.name, message: 'unknown field spec.template.spec.containers[0].containerPorts' }]);
}, 60_000);

test('a wrong value fails at install with a message naming it', () => {
  const run = helm(['template', 'platform', CHART_DIR, '--set', 'nodes[0].name=Node_1']);
  expect(run.status).not.toBe(0);
  expect(run.stderr).toMatch(/nodes\/0\/name/);
  const typo = helm(['template', 'platform', CHART_DIR, '--set', 'postgres.enable=false']);
  expect(typo.stderr).toMatch(/additional properties 'enable' not allowed|enable/);
});

test('the three-organisation wiring: per node a pod of its services, a PostgreSQL and a NATS server routed to the two others', () => {
  const objects = render('values-three-orgs.yaml');
  const named = (kind: string, name: string) => objects.find((o) => o.kind === kind && o.metadata.name === name)!;
  for (const node of ['node1', 'node2', 'node3']) {
    const pod = named('StatefulSet', `platform-${node}`).spec.template.spec;
    expect(pod.containers.map((c: { name: string }) => c.name)).toEqual(['idp', 'vault', 'transaction', 'block', 'cirrus', 'chains', 'gateway']);
    const gateway = pod.containers.find((c: { name: string }) => c.name === 'gateway');
    expect(gateway.readinessProbe.httpGet.path).toBe('/ready');
    expect(gateway.livenessProbe.httpGet.path).toBe('/health');
    for (const c of [...pod.containers, ...pod.initContainers]) {
      expect(c.securityContext).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, runAsNonRoot: true });
      expect(c.resources.limits).toBeDefined();
    }
    // each service mounts its own NATS user's seed and no other
    for (const c of pod.containers.filter((c: { name: string }) => c.name !== 'idp')) {
      const bus = pod.volumes.find((v: { name: string }) => v.name === `bus-${c.name}`);
      expect(bus.secret.items).toEqual([{ key: `${c.name}.nk`, path: `${c.name}.nk` }]);
    }
    const nats = named('StatefulSet', `platform-${node}-nats`);
    const routes = nats.spec.template.spec.initContainers[0].env.find((e: { name: string }) => e.name === 'NATS_ROUTES').value.split(',');
    expect(routes.sort()).toEqual(['node1', 'node2', 'node3'].filter((n) => n !== node).map((n) => `platform-${n}-nats-0.platform-${n}-nats.platform.svc.cluster.local:6222`));
    expect(nats.spec.volumeClaimTemplates[0].spec.resources.requests.storage).toBe('10Gi');
    expect(named('Service', `platform-${node}-nats`).spec).toMatchObject({ clusterIP: 'None', publishNotReadyAddresses: true });
    expect(named('StatefulSet', `platform-${node}-postgres`).spec.volumeClaimTemplates).toHaveLength(1);
  }
  expect(named('PodDisruptionBudget', 'platform-nats').spec.maxUnavailable).toBe(1);
  expect(objects.filter((o) => o.kind === 'Ingress').map((o) => o.spec.rules[0].host)).toEqual(['node1.platform.example', 'node2.platform.example', 'node3.platform.example']);
  expect(objects.filter((o) => o.kind === 'NetworkPolicy')).toHaveLength(9);
});

test('a node behind another address for the other clusters advertises it: nodes[].natsAdvertise reaches its server\'s cluster configuration', () => {
  const run = helm(['template', 'org4', CHART_DIR, '-f', join(CHART_DIR, 'values-join.yaml'), '--set', 'nodes[0].natsAdvertise=nats.org4.example:6222']);
  expect(run.stderr).toBe('');
  const nats = parseManifests(run.stdout).find((o) => o.kind === 'StatefulSet' && o.metadata.name === 'org4-node4-nats')!;
  const env = nats.spec.template.spec.initContainers[0].env as Array<{ name: string; value?: string }>;
  expect(env.find((e) => e.name === 'NATS_CLUSTER_ADVERTISE')?.value).toBe('nats.org4.example:6222');
  const input = natsConfigInputFromEnv({ NODE_NAME: 'node4', NETWORK_MEMBERS: 'node1,node4', NATS_CLUSTER_NAME: 'platform', ROUTE_PASSWORD: 'p', NATS_CREDENTIALS_DIR: '/nowhere', NATS_CLUSTER_ADVERTISE: 'nats.org4.example:6222' });
  expect(input.advertise).toBe('nats.org4.example:6222');
  expect(helm(['template', 'org4', CHART_DIR, '-f', join(CHART_DIR, 'values-join.yaml'), '--set', 'nodes[0].natsAdvertise=no-port']).stderr).toMatch(/natsAdvertise/);
});

test('each service runs its built JavaScript, with the memory settings the launcher gives it', () => {
  const pod = render('values-three-orgs.yaml').find((o) => o.kind === 'StatefulSet' && o.metadata.name === 'platform-node1')!.spec.template.spec;
  for (const c of pod.containers as Array<{ name: string; args: string[]; env: Array<{ name: string; value?: string }> }>) {
    expect(c.args).toEqual(['node', `${BUILD_DIR}/${serviceEntry(c.name).replace(/\.ts$/, '.mjs')}`]);
    const launcher = memoryEnv(c.name, {});
    expect(c.env.find((e) => e.name === 'NODE_OPTIONS')?.value).toBe(launcher.NODE_OPTIONS);
    expect(c.env.find((e) => e.name === 'MALLOC_ARENA_MAX')?.value).toBe(launcher.MALLOC_ARENA_MAX);
  }
});

test("the chart's list of NATS users is the bus's", () => {
  const helpers = readFileSync(join(CHART_DIR, 'templates', '_helpers.tpl'), 'utf8');
  const list = /define "platform.busUsers" -}}\n(.*)\n/.exec(helpers)![1].split(',');
  expect(list).toEqual([...BUS_USERS]);
});

type EnvVar = { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean } } };
type Container = { name: string; env?: EnvVar[] };
const podOf = (objects: K8sObject[], name: string) => objects.find((o) => o.kind === 'StatefulSet' && o.metadata.name === name)!.spec.template.spec as { initContainers: Container[]; containers: Container[] };
const envOf = (c: Container) => new Map((c.env ?? []).map((e, i) => [e.name, { ...e, index: i }]));
const READ_VARS = ['CIRRUS_READ_ROLE', 'CIRRUS_READ_DATABASE_URL', 'CIRRUS_READER_PASSWORD'];

test("the chart's read role is the launcher's", () => {
  const helpers = readFileSync(join(CHART_DIR, 'templates', '_helpers.tpl'), 'utf8');
  expect(/define "platform.cirrusReadRole" -}}\n(.*)\n/.exec(helpers)![1]).toBe(CIRRUS_READ_ROLE);
});

test('the read path with the bundled PostgreSQL: an init container makes the role, cirrus grants it, the gateway reads as it, its password from the Secret', () => {
  for (const node of ['node1', 'node2', 'node3']) {
    const pod = podOf(render('values-three-orgs.yaml'), `platform-${node}`);
    expect(pod.initContainers.map((c) => c.name)).toEqual(['prepare', 'read-role']);
    const init = envOf(pod.initContainers[1]);
    const gateway = envOf(pod.containers.find((c) => c.name === 'gateway')!);
    const secret = { name: `platform-${node}-secrets`, key: 'cirrus-reader-password' };
    for (const env of [init, gateway]) {
      expect(env.get('CIRRUS_READER_PASSWORD')!.valueFrom).toEqual({ secretKeyRef: secret });
      const url = env.get('CIRRUS_READ_DATABASE_URL')!;
      // Kubernetes expands $(NAME) only from a variable defined before
      expect(url.index).toBeGreaterThan(env.get('CIRRUS_READER_PASSWORD')!.index);
      expect(url.value).toBe(`postgres://${CIRRUS_READ_ROLE}:$(CIRRUS_READER_PASSWORD)@platform-${node}-postgres.platform.svc.cluster.local:5432/platform`);
      // the same server and database as the services' own URL
      expect(env.get('DATABASE_URL')!.value!.replace(/^.*@/, '')).toBe(url.value!.replace(/^.*@/, ''));
    }
    expect(envOf(pod.containers.find((c) => c.name === 'cirrus')!).get('CIRRUS_READ_ROLE')!.value).toBe(CIRRUS_READ_ROLE);
    // no other container learns of the role, its URL or its password
    for (const c of pod.containers.filter((c) => c.name !== 'gateway')) {
      expect([...envOf(c).keys()].filter((n) => READ_VARS.includes(n))).toEqual(c.name === 'cirrus' ? ['CIRRUS_READ_ROLE'] : []);
    }
  }
});

test('the read path with an operator\'s PostgreSQL: the role\'s URL from the Secret of DATABASE_URL; cirrusRead.enabled false leaves the gateway on the bus', () => {
  const pod = podOf(render('values-external-postgres.yaml'), 'platform-node1');
  const init = envOf(pod.initContainers.find((c) => c.name === 'read-role')!);
  const gateway = envOf(pod.containers.find((c) => c.name === 'gateway')!);
  for (const env of [init, gateway]) {
    expect(env.get('DATABASE_URL')!.valueFrom).toEqual({ secretKeyRef: { name: 'node1-database', key: 'url' } });
    expect(env.get('CIRRUS_READ_DATABASE_URL')!.valueFrom).toEqual({ secretKeyRef: { name: 'node1-database', key: 'read-url' } });
    expect(env.has('CIRRUS_READER_PASSWORD')).toBe(false);
  }
  const off = helm(['template', 'platform', CHART_DIR, '-f', join(CHART_DIR, 'values-external-postgres.yaml'), '--set', 'cirrusRead.enabled=false']);
  expect(off.stderr).toBe('');
  const offPod = podOf(parseManifests(off.stdout), 'platform-node1');
  expect(offPod.initContainers.map((c) => c.name)).toEqual(['prepare']);
  expect(offPod.containers.flatMap((c) => [...envOf(c).keys()]).filter((n) => READ_VARS.includes(n))).toEqual([]);
});

test("the read role's password is in the node's Secret and nowhere else: not in the chart's values, not in any other object", () => {
  const dir = mkdtempSync(join(tmpdir(), 'platform-chart-'));
  try {
    const [node] = parseNodes('node1:Org1');
    const { secrets } = initNetwork([node], dir);
    const password = secrets.node1.cirrusReaderPassword;
    expect(password).toMatch(/^[0-9a-f]{48}$/);
    const files = [join(CHART_DIR, 'values-single.yaml'), join(dir, 'network.yaml'), join(dir, 'secrets-node1.yaml')];
    const text = renderChart({ release: 'platform', namespace: 'platform', valuesFiles: files });
    const holding = parseManifests(text).filter((o) => JSON.stringify(o).includes(password));
    expect(holding.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual(['Secret/platform-node1-secrets']);
    expect(holding[0].stringData['cirrus-reader-password']).toBe(password);
    expect(readFileSync(join(dir, 'node1', 'cirrus-reader-password'), 'utf8')).toBe(password);
    // the chart's own values hold no key material: it comes from the operator's files (npm run deploy -- init)
    for (const profile of profiles) expect(parse(readFileSync(join(CHART_DIR, profile), 'utf8')).nodeSecrets ?? {}).toEqual({});
    // a Secret rendered from values made before the read role: refused, naming the value
    const values = parse(readFileSync(files[2], 'utf8'));
    delete values.nodeSecrets.node1.cirrusReaderPassword;
    writeFileSync(files[2], stringify(values));
    const before = helm(['template', 'platform', CHART_DIR, ...files.flatMap((f) => ['-f', f])]);
    expect(before.status).not.toBe(0);
    expect(before.stderr).toMatch(/nodeSecrets\.node1\.cirrusReaderPassword/);
    expect(helm(['template', 'platform', CHART_DIR, ...files.flatMap((f) => ['-f', f]), '--set', 'cirrusRead.enabled=false']).status).toBe(0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);

test("nodes[].rebuild: before the services, an init container runs the block service's --rebuild step as the block container runs; transaction and chains get --rebuild, cirrus --reindex, as the launcher gives them; nothing else changes, and a node without it is as before", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'platform-chart-'));
  try {
    const values = parse(readFileSync(join(CHART_DIR, 'values-three-orgs.yaml'), 'utf8'));
    values.nodes[0].rebuild = false;
    values.nodes[1].rebuild = true;
    const file = join(dir, 'rebuild.yaml');
    writeFileSync(file, stringify(values));
    const objects = parseManifests(renderChart({ release: 'platform', namespace: 'platform', valuesFiles: [file] }));
    expect(await schemaProblems(objects)).toEqual([]);
    expect(unknownFields(objects)).toEqual([]);

    const key = (o: K8sObject) => `${o.kind}/${o.metadata.name}`;
    const plain = new Map(render('values-three-orgs.yaml').map((o) => [key(o), o]));
    expect(objects.map(key)).toEqual([...plain.keys()]);
    expect(objects.filter((o) => JSON.stringify(o) !== JSON.stringify(plain.get(key(o)))).map(key)).toEqual(['StatefulSet/platform-node2']);

    type Run = { name: string; args: string[]; lifecycle?: unknown };
    const expected = structuredClone(plain.get('StatefulSet/platform-node2')!);
    const pod = expected.spec.template.spec as { initContainers: Run[]; containers: Run[] };
    // the block service's own container, run once to its end: its image, environment, credentials and volumes, no preStop pause
    const { lifecycle: preStop, ...block } = pod.containers.find((c) => c.name === 'block')!;
    expect(preStop).toBeDefined();
    pod.initContainers.push({ ...block, name: 'rebuild', args: [...block.args, '--rebuild'] });
    for (const c of pod.containers) c.args = [...c.args, ...(REBUILD_FIRST_ARGS[c.name as keyof typeof REBUILD_FIRST_ARGS] ?? [])];
    const rebuilt = objects.find((o) => key(o) === 'StatefulSet/platform-node2')!;
    expect(rebuilt).toEqual(expected);
    // what the test compared against: the step last of the init containers, the three services' flags
    const rebuiltPod = rebuilt.spec.template.spec as { initContainers: Run[]; containers: Run[] };
    expect(rebuiltPod.initContainers.map((c) => c.name)).toEqual(['prepare', 'read-role', 'rebuild']);
    expect(rebuiltPod.initContainers[2].args).toEqual(['node', '.build/services/block/src/main.mjs', '--rebuild']);
    expect(Object.fromEntries(rebuiltPod.containers.filter((c) => c.args.length > 2).map((c) => [c.name, c.args.slice(2)]))).toEqual({ transaction: ['--rebuild'], cirrus: ['--reindex'], chains: ['--rebuild'] });

    const wrong = helm(['template', 'platform', CHART_DIR, '--set-string', 'nodes[0].rebuild=yes']);
    expect(wrong.status).not.toBe(0);
    expect(wrong.stderr).toMatch(/nodes\/0\/rebuild/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);

test('k8s/ is the three-organisation example as the chart renders it now (npm run deploy -- k8s)', () => {
  expect(K8S_EXAMPLE.profile).toBe('values-three-orgs.yaml');
  expect(readK8s()).toBe(renderK8s());
});

test("deploy/README.md's values reference is the schema's (npm run deploy -- docs)", () => {
  const text = readFileSync(README, 'utf8');
  expect(text).toBe(readmeWithValuesReference(text));
});
