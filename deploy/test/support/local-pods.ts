// The rendered manifests run as local processes: each StatefulSet's pod gets
// a loopback address of its own (its "pod IP": every port of the pod is bound
// there, as in its network namespace), each container runs the command,
// arguments and environment the manifest gives it, its volumes are folders
// (Secrets and ConfigMaps written from the rendered objects, emptyDirs and
// volume claims empty), and names are resolved as the cluster's DNS would:
// a Service to the address of the pod it selects, a pod of a headless
// Service by its hostname, localhost and 0.0.0.0 to the pod itself.
//
// What cannot run here stands in for itself: the PostgreSQL image's
// entrypoint is replaced by a local PostgreSQL server per pod, given the user
// (a superuser, as the image makes it), password and database the pod's
// environment names; `nats-server` is the
// machine's; `node` is this one; the image's /app is this repository, whose
// built JavaScript (`.build/…`, which the image builds) is built here first.
// Init containers run first, in order, and must succeed; containers are
// supervised (restarted with a growing pause, as the kubelet does).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { BUILD_DIR, builtEntry, ensureNatsServer, REPO_ROOT, removeDataDir, startPostgres, supervise, type RunningPostgres, type Supervised } from '@platform/launcher';
import type { K8sObject } from '../../src/chart.js';

export interface LocalPod {
  name: string;
  ip: string;
  labels: Record<string, string>;
  /** container port by name and number: where the pod's port is reached locally (the PostgreSQL stand-in's differs) */
  ports: Map<string | number, number>;
  processes: Supervised[];
  /** each container's environment as it ran (init containers too), names and paths made local */
  env: Map<string, Record<string, string>>;
}

export interface LocalCluster {
  pods: Map<string, LocalPod>;
  /** a Service's address, host:port, for a port of the Service */
  serviceAddress(service: string, port: number): string;
  /**
   * the pod of a StatefulSet made again from its (new) template, as the
   * controller replaces it: its containers stopped, its emptyDirs emptied,
   * its volume claims kept, then its init containers and containers run
   */
  replacePod(set: K8sObject): Promise<LocalPod>;
  /** the last lines of every container's output */
  logs(): string;
  stop(): Promise<void>;
}

type Container = { name: string; image: string; command?: string[]; args?: string[]; env?: any[]; workingDir?: string; volumeMounts?: Array<{ name: string; mountPath: string }>; ports?: Array<{ name?: string; containerPort: number }> };

const decode = (secret: K8sObject): Record<string, string> => ({
  ...Object.fromEntries(Object.entries(secret.data ?? {}).map(([k, v]) => [k, Buffer.from(String(v), 'base64').toString('utf8')])),
  ...(secret.stringData ?? {}),
});

/** Runs every StatefulSet's pod of the rendered objects; `base` is the first three octets of the pods' addresses (127.x.y). */
export async function runLocally(objects: K8sObject[], options: { namespace: string; clusterDomain: string; base: string; onLine?: (pod: string, container: string, line: string) => void }): Promise<LocalCluster> {
  const root = mkdtempSync(join(tmpdir(), 'platform-local-pods-'));
  const of = (kind: string) => objects.filter((o) => o.kind === kind);
  const secrets = new Map(of('Secret').map((s) => [s.metadata.name, decode(s)]));
  const configMaps = new Map(of('ConfigMap').map((c) => [c.metadata.name, c.data as Record<string, string>]));
  const services = of('Service');
  const sets = of('StatefulSet');
  const pods = new Map<string, LocalPod>();
  sets.forEach((set, i) => {
    const name = `${set.metadata.name}-0`;
    pods.set(name, { name, ip: `${options.base}.${i + 2}`, labels: set.spec.template.metadata.labels, ports: new Map(), processes: [], env: new Map() });
  });
  const lines: string[] = [];
  const onLine = (pod: string, container: string, line: string) => {
    lines.push(`${pod}/${container}: ${line}`);
    if (lines.length > 400) lines.shift();
    options.onLine?.(pod, container, line);
  };
  const postgresServers: Array<{ server: RunningPostgres; dir: string }> = [];

  const selected = (service: K8sObject): LocalPod => {
    const selector = service.spec.selector as Record<string, string>;
    const pod = [...pods.values()].find((p) => Object.entries(selector).every(([k, v]) => p.labels[k] === v));
    if (!pod) throw new Error(`Service ${service.metadata.name} selects no pod`);
    return pod;
  };
  /** a Service's port to the pod's local port (through targetPort, by name or number) */
  const targetOf = (service: K8sObject, pod: LocalPod, port: number): number => {
    const entry = (service.spec.ports as Array<{ port: number; targetPort?: string | number }>).find((p) => p.port === port);
    if (!entry) throw new Error(`Service ${service.metadata.name} has no port ${port}`);
    const target = entry.targetPort ?? port;
    return pod.ports.get(target) ?? (typeof target === 'number' ? target : Number.NaN);
  };

  /** host names as the cluster's DNS resolves them, longest first, each to its pod and the Service (if any) */
  const names: Array<{ host: string; pod: LocalPod; service: K8sObject | null }> = [];
  const ns = options.namespace;
  for (const service of services) {
    const n = service.metadata.name;
    for (const host of [`${n}.${ns}.svc.${options.clusterDomain}`, `${n}.${ns}.svc`, `${n}.${ns}`, n]) names.push({ host, pod: selected(service), service });
    if (service.spec.clusterIP === 'None') {
      for (const pod of pods.values()) {
        if (!Object.entries(service.spec.selector as Record<string, string>).every(([k, v]) => pod.labels[k] === v)) continue;
        for (const host of [`${pod.name}.${n}.${ns}.svc.${options.clusterDomain}`, `${pod.name}.${n}.${ns}.svc`, `${pod.name}.${n}`]) names.push({ host, pod, service });
      }
    }
  }
  names.sort((a, b) => b.host.length - a.host.length);

  /** a text of a pod's manifest (an env value, an argument) with names, ports and mounted paths made local */
  const localise = (text: string, pod: LocalPod, mounts: Array<{ mountPath: string; dir: string }>): string => {
    // the pod itself first: a stand-in's own 127.0.0.1 put in below is not the pod's
    let out = text.replace(/(?<![\w.])(?:127\.0\.0\.1|localhost|0\.0\.0\.0)(?![\w.])/g, pod.ip);
    for (const { host, pod: target, service } of names) {
      out = out.replace(new RegExp(`(?<![\\w.-])${host.replace(/\./g, '\\.')}(?::(\\d+))?(?![\\w-])`, 'g'), (_m, port?: string) => {
        if (port === undefined) return target.ip;
        const local = service && service.spec.clusterIP !== 'None' ? targetOf(service, target, Number(port)) : (target.ports.get(Number(port)) ?? Number(port));
        return `${target.ip}:${local}`;
      });
    }
    // one pass over every mount path, longest first: a local folder is never rewritten again
    if (mounts.length > 0) {
      const sorted = [...mounts].sort((a, b) => b.mountPath.length - a.mountPath.length);
      const alternatives = sorted.map((m) => m.mountPath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');
      out = out.replace(new RegExp(`(?<![\\w.-])(${alternatives})(?=/|$|[^\\w.-])`, 'g'), (path: string) => sorted.find((m) => m.mountPath === path)!.dir);
    }
    return out;
  };

  const volumesOf = (podName: string, spec: any, claims: string[]): Map<string, string> => {
    const dirs = new Map<string, string>();
    for (const claim of claims) dirs.set(claim, join(root, podName, 'claims', claim));
    for (const volume of spec.volumes ?? []) {
      const dir = join(root, podName, 'volumes', volume.name);
      mkdirSync(dir, { recursive: true });
      const files = (source: Record<string, string> | undefined, what: string, items?: Array<{ key: string; path: string }>, mode = 0o644) => {
        if (!source) throw new Error(`${podName}: ${what} is not among the rendered objects`);
        for (const item of items ?? Object.keys(source).map((key) => ({ key, path: key }))) {
          if (source[item.key] === undefined) throw new Error(`${podName}: ${what} has no key ${item.key}`);
          writeFileSync(join(dir, item.path), source[item.key], { mode });
        }
      };
      if (volume.secret) files(secrets.get(volume.secret.secretName), `Secret ${volume.secret.secretName}`, volume.secret.items, volume.secret.defaultMode ?? 0o644);
      else if (volume.configMap) files(configMaps.get(volume.configMap.name), `ConfigMap ${volume.configMap.name}`, volume.configMap.items);
      else if (!volume.emptyDir) throw new Error(`${podName}: volume ${volume.name} is of a kind this runner does not know`);
      dirs.set(volume.name, dir);
    }
    for (const dir of dirs.values()) mkdirSync(dir, { recursive: true });
    return dirs;
  };

  const envOf = (container: Container, pod: LocalPod, mounts: Array<{ mountPath: string; dir: string }>): Record<string, string> => {
    const env: Record<string, string> = {};
    for (const entry of container.env ?? []) {
      let value: string;
      if (entry.value !== undefined) value = String(entry.value).replace(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (m, name: string) => env[name] ?? m);
      else if (entry.valueFrom?.secretKeyRef) {
        const ref = entry.valueFrom.secretKeyRef;
        const found = secrets.get(ref.name)?.[ref.key];
        // as Kubernetes does: an optional key that is not there leaves the variable unset
        if (found === undefined && ref.optional) continue;
        value = found ?? (() => { throw new Error(`${pod.name}/${container.name}: ${entry.name} names Secret ${ref.name} key ${ref.key}, which is not rendered`); })();
      } else if (entry.valueFrom?.configMapKeyRef) {
        const ref = entry.valueFrom.configMapKeyRef;
        value = configMaps.get(ref.name)?.[ref.key] ?? (() => { throw new Error(`${pod.name}/${container.name}: ${entry.name} names ConfigMap ${ref.name} key ${ref.key}, which is not rendered`); })();
      } else if (entry.valueFrom?.fieldRef?.fieldPath === 'status.podIP') value = pod.ip;
      else throw new Error(`${pod.name}/${container.name}: ${entry.name} has a source this runner does not know`);
      env[entry.name] = localise(value, pod, mounts);
    }
    return env;
  };

  const commandOf = (container: Container, pod: LocalPod, mounts: Array<{ mountPath: string; dir: string }>): { command: string; args: string[]; cwd: string } => {
    const [program, ...rest] = [...(container.command ?? []), ...(container.args ?? [])];
    const command = program === 'node' ? process.execPath : program === 'nats-server' ? ensureNatsServer() : null;
    if (!command) throw new Error(`${pod.name}/${container.name}: ${program} has no local stand-in`);
    const cwd = container.workingDir === '/app' ? REPO_ROOT : container.workingDir ? localise(container.workingDir, pod, mounts) : root;
    return { command, args: rest.map((arg) => localise(arg, pod, mounts)), cwd };
  };

  const baseEnv = { PATH: process.env.PATH, HOME: root };

  const runInit = (pod: LocalPod, container: Container, mounts: Array<{ mountPath: string; dir: string }>) => {
    const { command, args, cwd } = commandOf(container, pod, mounts);
    const env = envOf(container, pod, mounts);
    pod.env.set(container.name, env);
    const run = spawnSync(command, args, { cwd, env: { ...baseEnv, ...env }, encoding: 'utf8', timeout: 120_000 });
    for (const line of `${run.stdout}${run.stderr}`.split('\n').filter(Boolean)) onLine(pod.name, container.name, line);
    if (run.status !== 0) throw new Error(`${pod.name}: init container ${container.name} failed (${run.status ?? run.signal}): ${run.stderr.trim().slice(-800)}`);
  };

  /** the PostgreSQL image stood in for: a local server with the user, password and database of the container's environment */
  const standInPostgres = async (pod: LocalPod, container: Container, mounts: Array<{ mountPath: string; dir: string }>) => {
    const env = envOf(container, pod, mounts);
    const dir = join(root, pod.name, 'postgres');
    const server = await startPostgres({ dataDir: dir });
    postgresServers.push({ server, dir });
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    try {
      await client.query(`CREATE ROLE "${env.POSTGRES_USER}" SUPERUSER LOGIN PASSWORD '${env.POSTGRES_PASSWORD.replace(/'/g, "''")}'`);
      await client.query(`CREATE DATABASE "${env.POSTGRES_DB}" OWNER "${env.POSTGRES_USER}"`);
    } finally {
      await client.end();
    }
    // the stand-in listens on this machine's loopback, on a port of its own
    pod.ip = '127.0.0.1';
    for (const port of container.ports ?? []) {
      pod.ports.set(port.containerPort, server.port);
      if (port.name) pod.ports.set(port.name, server.port);
    }
  };

  const startPod = async (set: K8sObject) => {
    const pod = pods.get(`${set.metadata.name}-0`)!;
    const spec = set.spec.template.spec;
    const dirs = volumesOf(pod.name, spec, (set.spec.volumeClaimTemplates ?? []).map((c: K8sObject) => c.metadata.name));
    const mountsOf = (c: Container) => (c.volumeMounts ?? []).map((m) => ({ mountPath: m.mountPath, dir: dirs.get(m.name) ?? (() => { throw new Error(`${pod.name}/${c.name}: no volume ${m.name}`); })() }));
    for (const c of spec.containers as Container[]) {
      for (const port of c.ports ?? []) {
        pod.ports.set(port.containerPort, port.containerPort);
        if (port.name) pod.ports.set(port.name, port.containerPort);
      }
    }
    for (const container of (spec.initContainers ?? []) as Container[]) runInit(pod, container, mountsOf(container));
    for (const container of spec.containers as Container[]) {
      const mounts = mountsOf(container);
      if (container.image.includes('/postgres:')) {
        await standInPostgres(pod, container, mounts);
        continue;
      }
      const { command, args, cwd } = commandOf(container, pod, mounts);
      const env = envOf(container, pod, mounts);
      pod.env.set(container.name, env);
      pod.processes.push(supervise({ name: container.name, command, args, cwd, env: { ...baseEnv, ...env }, onLine: (name, line) => onLine(pod.name, name, line) }));
    }
  };

  const stopPod = async (pod: LocalPod) => {
    for (const p of [...pod.processes].reverse()) await p.stop().catch(() => {});
    pod.processes = [];
  };

  const stop = async () => {
    // the node pods first, then NATS, then PostgreSQL: the order the services' own shutdown expects
    const order = [...pods.values()].sort((a, b) => rank(a) - rank(b));
    for (const pod of order) await stopPod(pod);
    for (const { server, dir } of postgresServers) {
      await server.stop().catch(() => {});
      removeDataDir(dir);
    }
    rmSync(root, { recursive: true, force: true });
  };
  const rank = (pod: LocalPod) => ({ node: 0, nats: 1, postgres: 2 })[pod.labels['app.kubernetes.io/component'] as 'node'] ?? 3;

  try {
    // what the image builds when it is built: each service's JavaScript a container runs
    const built = sets.flatMap((s) => (s.spec.template.spec.containers as Container[]).map((c) => c.args?.[1] ?? '')).filter((arg) => arg.startsWith(`${BUILD_DIR}/`));
    for (const entry of new Set(built)) await builtEntry(REPO_ROOT, entry.slice(BUILD_DIR.length + 1).replace(/\.mjs$/, '.ts'));
    // PostgreSQL and NATS before the nodes: in a cluster the services would crash and be restarted until they are there
    const byRank = (r: number) => sets.filter((s) => rank(pods.get(`${s.metadata.name}-0`)!) === r);
    for (const r of [2, 1, 0]) {
      const group = byRank(r);
      // NATS servers together: each waits for its routes; the pods' PostgreSQL one after another (initdb is heavy)
      if (r === 2) for (const set of group) await startPod(set);
      else await Promise.all(group.map((set) => startPod(set)));
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    pods,
    serviceAddress(name, port) {
      const service = services.find((s) => s.metadata.name === name);
      if (!service) throw new Error(`no Service ${name}`);
      const pod = selected(service);
      return `${pod.ip}:${targetOf(service, pod, port)}`;
    },
    async replacePod(set) {
      const pod = pods.get(`${set.metadata.name}-0`)!;
      await stopPod(pod);
      pod.env.clear();
      // a new pod's emptyDirs, Secrets and ConfigMaps are written anew; its claims stay
      rmSync(join(root, pod.name, 'volumes'), { recursive: true, force: true });
      await startPod(set);
      return pod;
    },
    logs: () => lines.join('\n'),
    stop,
  };
}
