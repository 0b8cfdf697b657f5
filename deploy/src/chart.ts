// The chart as files and as rendered objects: its values profiles, `helm
// template` of one, and the k8s/ example (the three-organisation profile
// rendered for the release `platform` in the namespace `platform`).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { helm } from './helm.js';

export const DEPLOY_DIR = fileURLToPath(new URL('..', import.meta.url));
export const CHART_DIR = join(DEPLOY_DIR, 'helm', 'platform');
export const K8S_FILE = join(DEPLOY_DIR, '..', 'k8s', 'platform.yaml');
export const K8S_EXAMPLE = { release: 'platform', namespace: 'platform', profile: 'values-three-orgs.yaml' };

/** Every values profile the chart ships: values.yaml and each values-*.yaml beside it. */
export function valuesProfiles(): string[] {
  return ['values.yaml', ...readdirSync(CHART_DIR).filter((f) => /^values-.+\.yaml$/.test(f)).sort()];
}

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: any;
}

/** `helm template` of the chart; a failure throws with helm's message. */
export function renderChart(options: { release: string; namespace: string; valuesFiles: string[] }): string {
  const args = ['template', options.release, CHART_DIR, '--namespace', options.namespace, ...options.valuesFiles.flatMap((f) => ['-f', f])];
  const run = helm(args);
  if (run.status !== 0) throw new Error(`helm ${args.join(' ')} failed: ${run.stderr.trim()}`);
  return run.stdout;
}

/** The objects of a rendered manifest, in order. */
export function parseManifests(text: string): K8sObject[] {
  return parseAllDocuments(text).flatMap((doc) => {
    if (doc.errors.length > 0) throw new Error(`invalid YAML: ${doc.errors[0].message}`);
    const value = doc.toJS();
    return value === null || value === undefined ? [] : [value as K8sObject];
  });
}

const K8S_HEADER = `# The three-organisation example of deploy/helm/platform (values-three-orgs.yaml),
# rendered for the release "platform" in the namespace "platform". Do not edit:
# npm run deploy -- k8s writes it again, and a test fails when it differs from the chart.
# Before applying it, create the genesis ConfigMap and each node's Secret (deploy/README.md).
`;

export function renderK8s(): string {
  const profile = join(CHART_DIR, K8S_EXAMPLE.profile);
  const text = renderChart({ release: K8S_EXAMPLE.release, namespace: K8S_EXAMPLE.namespace, valuesFiles: [profile] });
  // helm's test hooks are for `helm test`, not for kubectl apply
  const body = text.split(/^---\n/m).filter((doc) => !/^# Source: platform\/templates\/tests\//m.test(doc)).join('---\n');
  return `${K8S_HEADER}${body.startsWith('---') ? '' : '---\n'}${body}`;
}

export function writeK8s(): string {
  writeFileSync(K8S_FILE, renderK8s());
  return K8S_FILE;
}

export function readK8s(): string {
  return readFileSync(K8S_FILE, 'utf8');
}
