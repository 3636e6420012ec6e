import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';

/**
 * A small Kustomize renderer for CI without kubectl: the subset k8s/ uses, with kustomize's
 * semantics. Supported fields: resources (files and directories), namespace, images, replicas,
 * patches (strategic merge from `path` or inline `patch`, JSON 6902 inline, with `target` by
 * kind/name/labelSelector), configMapGenerator and secretGenerator (literals; behavior create or
 * merge; a content-hash name suffix, as kustomize adds, though not the same digits, and the
 * references in pod specs rewritten to it). Any
 * other field is an error, so a kustomization cannot silently use what this does not render.
 */

export type Obj = Record<string, any>;

const SUPPORTED = new Set([
  'apiVersion', 'kind', 'resources', 'namespace', 'images', 'replicas', 'patches',
  'configMapGenerator', 'secretGenerator', 'generatorOptions',
]);

const CLUSTER_SCOPED = new Set([
  'Namespace', 'ClusterRole', 'ClusterRoleBinding', 'CustomResourceDefinition', 'PersistentVolume',
  'StorageClass', 'PriorityClass', 'ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration',
]);

/** Lists merged by key in a strategic merge patch (from the Kubernetes types' patchMergeKey). */
const MERGE_KEYS: Record<string, string> = {
  containers: 'name', initContainers: 'name', volumes: 'name', volumeMounts: 'name', env: 'name',
  imagePullSecrets: 'name', ports: 'containerPort', tolerations: 'key', hostAliases: 'ip',
  topologySpreadConstraints: 'topologyKey',
};

interface Generated {
  kind: 'ConfigMap' | 'Secret';
  name: string;
  hashed: string;
}

const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value));

export function loadYaml(text: string, file: string): Obj[] {
  return parseAllDocuments(text)
    .map((doc) => {
      if (doc.errors.length) throw new Error(`${file}: ${doc.errors[0].message}`);
      return doc.toJS({ maxAliasCount: 100 }) as Obj | null;
    })
    .filter((doc): doc is Obj => doc !== null && doc !== undefined);
}

function kustomizationFile(dir: string): string {
  for (const name of ['kustomization.yaml', 'kustomization.yml', 'Kustomization']) {
    if (existsSync(join(dir, name))) return join(dir, name);
  }
  throw new Error(`${dir}: no kustomization.yaml`);
}

// ---- content hash suffix of generated ConfigMaps and Secrets ----

function sortedJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.keys(value as Obj).sort().map((k) => `${JSON.stringify(k)}:${sortedJson((value as Obj)[k])}`);
    return `{${entries.join(',')}}`;
  }
  // Go's encoder escapes <, > and & in strings.
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');
}

export function kustomizeHash(obj: Obj): string {
  const encoded: Obj =
    obj.kind === 'ConfigMap'
      ? { kind: 'ConfigMap', name: obj.metadata.name, data: obj.data ?? {} }
      : { kind: 'Secret', type: obj.type ?? 'Opaque', name: obj.metadata.name, data: obj.data ?? {} };
  if (obj.kind === 'ConfigMap' && obj.binaryData && Object.keys(obj.binaryData).length) encoded.binaryData = obj.binaryData;
  const hex = createHash('sha256').update(sortedJson(encoded)).digest('hex');
  const map: Record<string, string> = { '0': 'g', '1': 'h', '3': 'k', a: 'm', e: 't' };
  return [...hex.slice(0, 10)].map((c) => map[c] ?? c).join('');
}

// ---- strategic merge patch and JSON 6902 ----

export function strategicMerge(target: unknown, patch: unknown, field = ''): unknown {
  if (patch === null) return undefined;
  if (Array.isArray(patch)) {
    const key = MERGE_KEYS[field];
    if (!key || !Array.isArray(target)) return clone(patch);
    // As kustomize (kyaml) orders them: the patch's items first, in its order, merged with the
    // target's item of the same key; then the target's items the patch does not name.
    const rest = clone(target) as Obj[];
    const result: Obj[] = [];
    for (const item of patch as Obj[]) {
      const at = rest.findIndex((existing) => existing?.[key] === item?.[key]);
      const existing = at >= 0 ? rest.splice(at, 1)[0] : undefined;
      if (item?.$patch === 'delete') continue;
      result.push(existing ? (strategicMerge(existing, item) as Obj) : clone(item));
    }
    return [...result, ...rest];
  }
  if (patch && typeof patch === 'object') {
    if (!target || typeof target !== 'object' || Array.isArray(target)) target = {};
    const result = clone(target) as Obj;
    for (const [k, v] of Object.entries(patch as Obj)) {
      const merged = strategicMerge(result[k], v, k);
      if (merged === undefined) delete result[k];
      else result[k] = merged;
    }
    return result;
  }
  return patch;
}

function pointer(path: string): string[] {
  if (!path.startsWith('/')) throw new Error(`JSON pointer must start with /: ${path}`);
  return path.slice(1).split('/').map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
}

export function jsonPatch(doc: Obj, ops: Obj[]): Obj {
  const result = clone(doc);
  for (const op of ops) {
    const parts = pointer(op.path);
    const last = parts.pop()!;
    let parent: any = result;
    for (const p of parts) {
      parent = parent?.[Array.isArray(parent) ? Number(p) : p];
      if (parent === undefined) throw new Error(`JSON patch ${op.op} ${op.path}: no such path`);
    }
    const index = Array.isArray(parent) ? (last === '-' ? parent.length : Number(last)) : last;
    switch (op.op) {
      case 'add':
        if (Array.isArray(parent)) parent.splice(index as number, 0, clone(op.value));
        else parent[index] = clone(op.value);
        break;
      case 'replace':
        if (!(index in parent)) throw new Error(`JSON patch replace ${op.path}: no such path`);
        parent[index] = clone(op.value);
        break;
      case 'remove':
        if (!(index in parent)) throw new Error(`JSON patch remove ${op.path}: no such path`);
        if (Array.isArray(parent)) parent.splice(index as number, 1);
        else delete parent[index];
        break;
      default:
        throw new Error(`JSON patch op ${op.op} is not supported`);
    }
  }
  return result;
}

// ---- selection, images, name references ----

function matchesLabels(obj: Obj, selector: string): boolean {
  const labels: Record<string, string> = obj.metadata?.labels ?? {};
  return selector.split(',').every((term) => {
    const [k, v] = term.split('=').map((s) => s.trim());
    return v === undefined ? k in labels : labels[k] === v;
  });
}

function matchesTarget(obj: Obj, target: Obj): boolean {
  if (target.kind && obj.kind !== target.kind) return false;
  if (target.name && !new RegExp(`^(?:${target.name})$`).test(obj.metadata?.name)) return false;
  if (target.namespace && obj.metadata?.namespace !== target.namespace) return false;
  if (target.version && !String(obj.apiVersion).endsWith(target.version)) return false;
  if (target.group && !String(obj.apiVersion).startsWith(`${target.group}/`)) return false;
  if (target.labelSelector && !matchesLabels(obj, target.labelSelector)) return false;
  return true;
}

function podSpecs(obj: Obj): Obj[] {
  const spec = obj.spec;
  if (!spec) return [];
  if (obj.kind === 'Pod') return [spec];
  if (obj.kind === 'CronJob') return spec.jobTemplate?.spec?.template?.spec ? [spec.jobTemplate.spec.template.spec] : [];
  return spec.template?.spec ? [spec.template.spec] : [];
}

function containersOf(obj: Obj): Obj[] {
  return podSpecs(obj).flatMap((s) => [...(s.containers ?? []), ...(s.initContainers ?? [])]);
}

function splitImage(image: string): { name: string; tag?: string; digest?: string } {
  const [withTag, digest] = image.split('@');
  const slash = withTag.lastIndexOf('/');
  const colon = withTag.lastIndexOf(':');
  if (colon > slash) return { name: withTag.slice(0, colon), tag: withTag.slice(colon + 1), digest };
  return { name: withTag, digest };
}

function applyImages(objs: Obj[], images: Obj[]): void {
  for (const obj of objs) {
    for (const container of containersOf(obj)) {
      const parsed = splitImage(container.image);
      const rule = images.find((i) => i.name === parsed.name);
      if (!rule) continue;
      const name = rule.newName ?? parsed.name;
      if (rule.digest) container.image = `${name}@${rule.digest}`;
      else if (rule.newTag !== undefined) container.image = `${name}:${rule.newTag}`;
      else container.image = `${name}${parsed.tag ? `:${parsed.tag}` : ''}${parsed.digest ? `@${parsed.digest}` : ''}`;
    }
  }
}

function rewriteReferences(objs: Obj[], generated: Generated[]): void {
  const renamed = (kind: 'ConfigMap' | 'Secret', name: string) =>
    generated.find((g) => g.kind === kind && g.name === name)?.hashed ?? name;
  for (const obj of objs) {
    for (const spec of podSpecs(obj)) {
      for (const v of spec.volumes ?? []) {
        if (v.configMap?.name) v.configMap.name = renamed('ConfigMap', v.configMap.name);
        if (v.secret?.secretName) v.secret.secretName = renamed('Secret', v.secret.secretName);
      }
      for (const s of spec.imagePullSecrets ?? []) s.name = renamed('Secret', s.name);
      for (const c of [...(spec.containers ?? []), ...(spec.initContainers ?? [])]) {
        for (const from of c.envFrom ?? []) {
          if (from.configMapRef?.name) from.configMapRef.name = renamed('ConfigMap', from.configMapRef.name);
          if (from.secretRef?.name) from.secretRef.name = renamed('Secret', from.secretRef.name);
        }
        for (const e of c.env ?? []) {
          const ref = e.valueFrom;
          if (ref?.configMapKeyRef?.name) ref.configMapKeyRef.name = renamed('ConfigMap', ref.configMapKeyRef.name);
          if (ref?.secretKeyRef?.name) ref.secretKeyRef.name = renamed('Secret', ref.secretKeyRef.name);
        }
      }
    }
  }
}

// ---- generators ----

function literals(list: string[] | undefined): Record<string, string> {
  const data: Record<string, string> = {};
  for (const literal of list ?? []) {
    const at = literal.indexOf('=');
    if (at <= 0) throw new Error(`generator literal without "=": ${literal}`);
    let value = literal.slice(at + 1);
    if (/^(["']).*\1$/.test(value)) value = value.slice(1, -1);
    data[literal.slice(0, at)] = value;
  }
  return data;
}

function generate(kind: 'ConfigMap' | 'Secret', spec: Obj, options: Obj, resources: Obj[], generated: Generated[]): void {
  for (const key of Object.keys(spec)) {
    if (!['name', 'behavior', 'literals', 'options', 'type'].includes(key)) throw new Error(`generator field ${key} is not supported`);
  }
  const raw = literals(spec.literals);
  const data =
    kind === 'Secret' ? Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, Buffer.from(v).toString('base64')])) : raw;
  const opts = { ...options, ...spec.options };
  const behavior = spec.behavior ?? 'create';
  if (behavior === 'merge' || behavior === 'replace') {
    const existing = resources.find((r) => r.kind === kind && r.metadata.name === spec.name);
    if (!existing) throw new Error(`${kind} ${spec.name}: behavior ${behavior} but the bases have none`);
    existing.data = behavior === 'merge' ? { ...existing.data, ...data } : data;
    // A merge into a plain resource of a base keeps its name; into a generated one, re-hashes.
    const earlier = generated.find((g) => g.kind === kind && g.name === spec.name);
    if (earlier) earlier.hashed = hashedName(existing, spec.name, opts);
    if (earlier) existing.metadata.name = earlier.hashed;
    return;
  }
  if (behavior !== 'create') throw new Error(`generator behavior ${behavior} is not supported`);
  const obj: Obj = { apiVersion: 'v1', kind, metadata: { name: spec.name }, data };
  if (kind === 'Secret') obj.type = spec.type ?? 'Opaque';
  if (opts.labels) obj.metadata.labels = { ...opts.labels };
  if (opts.annotations) obj.metadata.annotations = { ...opts.annotations };
  const hashed = hashedName(obj, spec.name, opts);
  obj.metadata.name = hashed;
  generated.push({ kind, name: spec.name, hashed });
  resources.push(obj);
}

function hashedName(obj: Obj, name: string, opts: Obj): string {
  if (opts.disableNameSuffixHash) return name;
  return `${name}-${kustomizeHash({ ...obj, metadata: { ...obj.metadata, name } })}`;
}

// ---- the renderer ----

export interface Rendered {
  objects: Obj[];
  /** Generated ConfigMaps and Secrets (original and final names). */
  generated: Generated[];
}

export function render(dir: string): Obj[] {
  return renderDir(resolve(dir)).objects;
}

export function renderDir(dir: string): Rendered {
  const file = kustomizationFile(dir);
  const [k] = loadYaml(readFileSync(file, 'utf8'), file);
  for (const key of Object.keys(k)) {
    if (!SUPPORTED.has(key)) throw new Error(`${file}: field "${key}" is not supported by this renderer`);
  }
  const objects: Obj[] = [];
  const generated: Generated[] = [];
  for (const entry of k.resources ?? []) {
    const path = resolve(dir, entry);
    if (!existsSync(path)) throw new Error(`${file}: resource ${entry} does not exist`);
    if (statSync(path).isDirectory()) {
      const sub = renderDir(path);
      objects.push(...sub.objects);
      generated.push(...sub.generated);
    } else {
      objects.push(...loadYaml(readFileSync(path, 'utf8'), path));
    }
  }
  const ids = new Set<string>();
  for (const obj of objects) {
    const id = `${obj.kind}/${obj.metadata?.namespace ?? ''}/${obj.metadata?.name}`;
    if (ids.has(id)) throw new Error(`${file}: ${id} appears twice`);
    ids.add(id);
  }

  const options = k.generatorOptions ?? {};
  const own: Generated[] = [];
  for (const spec of k.configMapGenerator ?? []) generate('ConfigMap', spec, options, objects, own);
  for (const spec of k.secretGenerator ?? []) generate('Secret', spec, options, objects, own);
  for (const g of own) {
    const at = generated.findIndex((e) => e.kind === g.kind && e.name === g.name);
    if (at >= 0) generated.splice(at, 1);
    generated.push(g);
  }

  let result = objects;
  for (const patch of k.patches ?? []) result = applyPatch(result, patch, dir, file);

  if (k.replicas) {
    for (const { name, count } of k.replicas as Obj[]) {
      const found = result.filter((o) => ['Deployment', 'StatefulSet', 'ReplicaSet'].includes(o.kind) && o.metadata.name === name);
      if (!found.length) throw new Error(`${file}: replicas for ${name}, which no workload is`);
      for (const o of found) o.spec.replicas = count;
    }
  }
  if (k.images) applyImages(result, k.images);
  if (k.namespace) {
    for (const o of result) if (!CLUSTER_SCOPED.has(o.kind)) o.metadata.namespace = k.namespace;
  }
  rewriteReferences(result, generated);
  return { objects: result, generated };
}

function applyPatch(objects: Obj[], patch: Obj, dir: string, file: string): Obj[] {
  const text = patch.path ? readFileSync(resolve(dir, patch.path), 'utf8') : patch.patch;
  if (typeof text !== 'string') throw new Error(`${file}: a patch needs path or patch`);
  const docs = loadYaml(text, patch.path ?? file);
  if (docs.length === 1 && Array.isArray(docs[0])) {
    if (!patch.target) throw new Error(`${file}: a JSON 6902 patch needs a target`);
    const ops = docs[0] as unknown as Obj[];
    let hits = 0;
    const out = objects.map((o) => (matchesTarget(o, patch.target) ? (hits++, jsonPatch(o, ops)) : o));
    if (!hits) throw new Error(`${file}: patch target ${JSON.stringify(patch.target)} matches nothing`);
    return out;
  }
  let out = objects;
  for (const smp of docs) {
    const target = patch.target ?? { kind: smp.kind, name: smp.metadata?.name };
    let hits = 0;
    out = out.map((o) => {
      if (!matchesTarget(o, target)) return o;
      hits++;
      const body = patch.target ? { ...smp, metadata: { ...smp.metadata, name: o.metadata.name } } : smp;
      return strategicMerge(o, body) as Obj;
    });
    if (!hits) throw new Error(`${file}: patch for ${target.kind} ${target.name ?? ''} matches nothing`);
  }
  return out;
}

/** Every directory under `root` that holds a kustomization. */
export function kustomizationDirs(root: string): string[] {
  const found: string[] = [];
  const walk = (d: string) => {
    if (existsSync(join(d, 'kustomization.yaml'))) found.push(d);
    for (const e of readdirSync(d, { withFileTypes: true })) if (e.isDirectory()) walk(join(d, e.name));
  };
  walk(root);
  return found.sort();
}
