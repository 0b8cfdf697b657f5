// Offline checks of rendered Kubernetes objects against the API's schemas:
// - kubernetes-models validates each object with the schema of its kind and
//   version (types, required fields, formats, enums);
// - it lets unknown fields through (a misspelt `containerPorts:` passes), so
//   each object is also walked against the TypeScript interfaces the package
//   ships for the same schemas: every key of every nested object must be a
//   property the API knows, the way `kubectl apply --validate=strict` refuses one.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import ts from 'typescript';
import type { K8sObject } from './chart.js';

const require = createRequire(import.meta.url);
const MODELS_DIR = dirname(require.resolve('kubernetes-models/package.json'));

/** kubernetes-models' module of a kind: `apps/v1` → apps/v1/StatefulSet, core `v1` → v1/Service. */
function modulePath(object: K8sObject): string {
  const [group, version] = object.apiVersion.includes('/') ? object.apiVersion.split('/') : ['', object.apiVersion];
  return join(...[group, version, object.kind].filter(Boolean));
}

export interface Problem {
  object: string;
  message: string;
}

const nameOf = (o: K8sObject) => `${o.kind}/${o.metadata?.name ?? '?'}`;

/** The schema's verdict on each object: one problem per invalid object, naming the fields. */
export async function schemaProblems(objects: K8sObject[]): Promise<Problem[]> {
  const problems: Problem[] = [];
  for (const object of objects) {
    let Model: new (data: unknown) => { validate(): void };
    try {
      const module = await import(join(MODELS_DIR, `${modulePath(object)}.js`));
      Model = module[object.kind];
    } catch {
      problems.push({ object: nameOf(object), message: `no schema for ${object.apiVersion} ${object.kind}` });
      continue;
    }
    try {
      new Model(object).validate();
    } catch (err) {
      problems.push({ object: nameOf(object), message: err instanceof Error ? err.message : String(err) });
    }
  }
  return problems;
}

/**
 * Walks the objects against the kinds' TypeScript interfaces (one program for
 * all kinds, built once per call): a key the interface does not declare is an
 * unknown field. Maps (labels, data, resources) have index signatures and take
 * any key; IntOrString and Quantity are strings or numbers and have no fields.
 */
export function unknownFields(objects: K8sObject[]): Problem[] {
  const kinds = [...new Map(objects.map((o) => [`${o.apiVersion}/${o.kind}`, o])).values()];
  const entry = join(MODELS_DIR, '__unknown_fields_check.ts');
  const source = kinds.map((o, i) => `import type { I${o.kind} as T${i} } from ${JSON.stringify(`kubernetes-models/${modulePath(o)}`)};\nexport type K${i} = T${i};`).join('\n');
  const options: ts.CompilerOptions = { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, strict: true, noEmit: true, skipLibCheck: true, types: [] };
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  host.readFile = (file) => (file === entry ? source : readFile(file));
  host.fileExists = (file) => file === entry || fileExists(file);
  const program = ts.createProgram([entry], options, host);
  const checker = program.getTypeChecker();
  const file = program.getSourceFile(entry)!;
  const typeOfKind = new Map<string, ts.Type>();
  for (const statement of file.statements) {
    if (ts.isTypeAliasDeclaration(statement)) {
      const index = Number(statement.name.text.slice(1));
      const kind = kinds[index];
      typeOfKind.set(`${kind.apiVersion}/${kind.kind}`, checker.getTypeAtLocation(statement.name));
    }
  }
  const problems: Problem[] = [];
  const objectParts = (type: ts.Type): ts.Type[] =>
    (type.isUnion() ? type.types : [type]).filter((t) => !(t.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Null | ts.TypeFlags.StringLike | ts.TypeFlags.NumberLike | ts.TypeFlags.BooleanLike)));
  const walk = (value: unknown, type: ts.Type, path: string, object: string) => {
    if (value === null || typeof value !== 'object') return;
    const parts = objectParts(type);
    if (parts.length === 0) return;
    if (Array.isArray(value)) {
      const element = parts.map((t) => checker.getIndexTypeOfType(t, ts.IndexKind.Number)).find(Boolean);
      if (element) value.forEach((item, i) => walk(item, element, `${path}[${i}]`, object));
      return;
    }
    for (const [key, child] of Object.entries(value)) {
      const property = parts.map((t) => t.getProperty(key)).find(Boolean);
      if (property) {
        walk(child, checker.getTypeOfSymbol(property), `${path}.${key}`, object);
        continue;
      }
      const index = parts.map((t) => checker.getIndexTypeOfType(t, ts.IndexKind.String)).find(Boolean);
      if (index) walk(child, index, `${path}.${key}`, object);
      else problems.push({ object, message: `unknown field ${`${path}.${key}`.replace(/^\./, '')}` });
    }
  };
  for (const object of objects) {
    const type = typeOfKind.get(`${object.apiVersion}/${object.kind}`);
    if (!type) {
      problems.push({ object: nameOf(object), message: `no type for ${object.apiVersion} ${object.kind}` });
      continue;
    }
    walk(object, type, '', nameOf(object));
  }
  return problems;
}
