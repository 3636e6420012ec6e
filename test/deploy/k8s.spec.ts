import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { SERVICE_NAMES, ServiceName } from '@app/contracts';
import { DEFAULT_HTTP_PORTS } from '@app/platform/config';
import { kustomizationDirs, loadYaml, Obj, renderDir } from './kustomize';
import { unknownFields } from './strict-fields';

/**
 * Offline CI for k8s/: every kustomization renders (our renderer, no kubectl needed), every
 * rendered object validates against the Kubernetes schemas of `kubernetes-models`, and the
 * manifests have what operators rely on (probes, non-root, read-only root, resources, one
 * HPA/PDB/ServiceAccount/migration Job per service, network isolation). Where kubectl exists,
 * our rendering must equal `kubectl kustomize`.
 */

const ROOT = join(__dirname, '..', '..');
const K8S = join(ROOT, 'k8s');
const rel = (dir: string) => relative(ROOT, dir);

/** The kubernetes-models class of an object, by apiVersion and kind. */
function modelOf(obj: Obj): (new (data: Obj) => { validate(): void }) | undefined {
  const [group, version] = String(obj.apiVersion).includes('/') ? String(obj.apiVersion).split('/') : ['', obj.apiVersion];
  const path = group ? `kubernetes-models/${group}/${version}/${obj.kind}` : `kubernetes-models/${version}/${obj.kind}`;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require(path)[obj.kind];
  } catch {
    return undefined;
  }
}

/** Schema errors of an object (types, required fields, enums; unknown fields), empty when it is valid. */
export function schemaErrors(obj: Obj): string[] {
  const where = `${obj.kind} ${obj.metadata?.name}`;
  const Model = modelOf(obj);
  if (!Model) return [`${where}: no Kubernetes schema for ${obj.apiVersion} ${obj.kind}`];
  // Fields the type does not have (a misspelt one would be dropped silently by the API server).
  const unknown = unknownFields(obj).map((e) => `${obj.metadata?.name}: ${e}`);
  try {
    new Model(obj).validate();
    return unknown;
  } catch (err) {
    return [`${where}: ${(err as Error).message}`, ...unknown];
  }
}

const DIRS = kustomizationDirs(K8S).filter((d) => !rel(d).startsWith('k8s/examples'));
const rendered = new Map(DIRS.map((d) => [rel(d), renderDir(d)]));
const objectsOf = (dir: string): Obj[] => rendered.get(dir)!.objects;
const find = (objs: Obj[], kind: string, name: string) => objs.filter((o) => o.kind === kind && o.metadata.name === name);
const one = (objs: Obj[], kind: string, name: string): Obj => {
  const found = find(objs, kind, name);
  expect({ kind, name, count: found.length }).toEqual({ kind, name, count: 1 });
  return found[0];
};
const selects = (selector: Obj, labels: Obj) =>
  Object.entries(selector.matchLabels ?? {}).every(([k, v]) => labels?.[k] === v) &&
  (selector.matchExpressions ?? []).every((e: Obj) => (e.operator === 'In' ? e.values.includes(labels?.[e.key]) : true));

describe('k8s/: every kustomization renders and validates', () => {
  it('covers the base, each service and both overlays', () => {
    expect([...rendered.keys()]).toEqual(
      expect.arrayContaining(['k8s/base', 'k8s/overlays/dev', 'k8s/overlays/prod', ...SERVICE_NAMES.map((s) => `k8s/services/${s}`)]),
    );
  });

  it.each(DIRS.map(rel))('%s: every object is valid against the Kubernetes schemas', (dir) => {
    const objs = objectsOf(dir);
    expect(objs.length).toBeGreaterThan(0);
    expect(objs.flatMap(schemaErrors)).toEqual([]);
  });

  it('the validation does fail on an invalid manifest, and on a misspelt field', () => {
    const deployment = structuredClone(one(objectsOf('k8s/base'), 'Deployment', 'crm'));
    delete deployment.spec.template.spec.containers[0].name;
    deployment.spec.replicas = 'two';
    expect(schemaErrors(deployment).join()).toMatch(/name|integer/);
    const misspelt = structuredClone(one(objectsOf('k8s/base'), 'Deployment', 'crm'));
    misspelt.spec.template.spec.containers[0].securityContext.readOnlyRootFilesytem = true;
    misspelt.spec.template.spec.volumes[0].emptyDir.sizeLimt = '1Gi';
    expect(schemaErrors(misspelt)).toEqual([
      'crm: Deployment.spec.template.spec.containers[0].securityContext.readOnlyRootFilesytem: unknown field',
      'crm: Deployment.spec.template.spec.volumes[0].emptyDir.sizeLimt: unknown field',
    ]);
    expect(schemaErrors({ apiVersion: 'autoscaling/v9', kind: 'HorizontalPodAutoscaler', metadata: { name: 'x' } })).toHaveLength(1);
  });

  it('each service kustomization deploys alone exactly what the base deploys for it', () => {
    const base = objectsOf('k8s/base');
    for (const service of SERVICE_NAMES) {
      const alone = objectsOf(`k8s/services/${service}`);
      for (const obj of alone) expect(find(base, obj.kind, obj.metadata.name)).toEqual([obj]);
    }
  });
});

describe.each(['k8s/base', 'k8s/overlays/dev', 'k8s/overlays/prod'])('%s: per service', (dir) => {
  const objs = objectsOf(dir);

  it.each([...SERVICE_NAMES])('%s: Deployment with probes, limits, graceful stop, non-root, read-only root', (service: ServiceName) => {
    const d = one(objs, 'Deployment', service);
    const pod = d.spec.template.spec;
    expect(selects(d.spec.selector, d.spec.template.metadata.labels)).toBe(true);
    expect(pod.serviceAccountName).toBe(service);
    expect(pod.automountServiceAccountToken).toBe(false);
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(30);
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: expect.any(Number) });
    expect(pod.securityContext.runAsUser).not.toBe(0);
    expect(pod.containers).toHaveLength(1);
    const c = pod.containers[0];
    expect(c.ports).toEqual([{ name: 'http', containerPort: DEFAULT_HTTP_PORTS[service] }]);
    expect(c.startupProbe.httpGet).toEqual({ path: '/health/live', port: 'http' });
    expect(c.livenessProbe.httpGet).toEqual({ path: '/health/live', port: 'http' });
    expect(c.readinessProbe.httpGet).toEqual({ path: '/health/ready', port: 'http' });
    expect(c.resources.requests).toEqual({ cpu: expect.any(String), memory: expect.any(String) });
    expect(c.resources.limits).toEqual({ cpu: expect.any(String), memory: expect.any(String) });
    expect(c.securityContext).toMatchObject({
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      runAsNonRoot: true,
      capabilities: { drop: ['ALL'] },
    });
    const refs = (c.envFrom ?? []).map((e: Obj) => e.configMapRef?.name ?? e.secretRef?.name);
    expect(refs[0]).toBe('lim-config');
    expect(refs[1]).toMatch(/^lim-secrets/);
    // Writable scratch space despite the read-only root.
    expect(c.volumeMounts).toEqual(expect.arrayContaining([expect.objectContaining({ mountPath: '/tmp' })]));
  });

  it.each([...SERVICE_NAMES])('%s: Service, HPA, PDB, ServiceAccount and migration Job', (service: ServiceName) => {
    const d = one(objs, 'Deployment', service);
    const podLabels = d.spec.template.metadata.labels;

    const svc = one(objs, 'Service', service);
    expect(selects({ matchLabels: svc.spec.selector }, podLabels)).toBe(true);
    expect(svc.spec.ports).toEqual([{ name: 'http', port: DEFAULT_HTTP_PORTS[service], targetPort: 'http' }]);

    const hpa = one(objs, 'HorizontalPodAutoscaler', service);
    expect(hpa.apiVersion).toBe('autoscaling/v2');
    expect(hpa.spec.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: service });
    expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(1);
    expect(hpa.spec.maxReplicas).toBeGreaterThanOrEqual(hpa.spec.minReplicas);

    const pdb = one(objs, 'PodDisruptionBudget', service);
    expect(selects(pdb.spec.selector, podLabels)).toBe(true);

    const sa = one(objs, 'ServiceAccount', service);
    expect(sa.automountServiceAccountToken).toBe(false);

    const jobs = objs.filter((o) => o.kind === 'Job' && o.metadata.labels?.['lim.io/service'] === service);
    expect(jobs.map((j) => j.metadata.name)).toEqual([`${service}-migrate`]);
    const job = jobs[0].spec.template;
    const [migrate] = job.spec.containers;
    expect(migrate.command).toEqual(['node', 'dist/tools/migrate.js', service]);
    expect(migrate.image).toBe(d.spec.template.spec.containers[0].image);
    expect(migrate.envFrom).toEqual(d.spec.template.spec.containers[0].envFrom);
    expect(migrate.env).toEqual(d.spec.template.spec.containers[0].env);
    expect(job.spec.restartPolicy).toBe('Never');
    expect(job.spec.serviceAccountName).toBe(service);
    expect(job.spec.securityContext.runAsNonRoot).toBe(true);
    expect(migrate.securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false });
    expect(migrate.resources.limits).toBeDefined();
    // The migration pods are not counted as the service's pods by its Service, PDB or HPA.
    expect(selects(d.spec.selector, job.metadata.labels)).toBe(false);
    expect(selects({ matchLabels: svc.spec.selector }, job.metadata.labels)).toBe(false);
    expect(selects(pdb.spec.selector, job.metadata.labels)).toBe(false);
  });

  it('network policies: default deny; only the gateway is reachable from outside; each service reaches its own database, NATS and DNS', () => {
    const policies = objs.filter((o) => o.kind === 'NetworkPolicy');
    const deny = one(objs, 'NetworkPolicy', 'lim-default-deny');
    expect(deny.spec.policyTypes).toEqual(['Ingress', 'Egress']);
    expect(deny.spec.ingress ?? []).toEqual([]);
    expect(deny.spec.egress ?? []).toEqual([]);

    for (const service of SERVICE_NAMES) {
      const d = one(objs, 'Deployment', service);
      const podLabels = d.spec.template.metadata.labels;
      const job = find(objs, 'Job', `${service}-migrate`)[0].spec.template.metadata.labels;
      expect(selects(deny.spec.podSelector, podLabels)).toBe(true);
      expect(selects(deny.spec.podSelector, job)).toBe(true);
      const applying = policies.filter((p) => selects(p.spec.podSelector, podLabels));
      const own = one(objs, 'NetworkPolicy', service);
      expect(selects(own.spec.podSelector, job)).toBe(true);

      // Ingress: an unrestricted rule (no `from`) only on the gateway.
      const open = applying.flatMap((p) => p.spec.ingress ?? []).filter((r: Obj) => !r.from);
      expect({ service, open: open.length > 0 }).toEqual({ service, open: service === 'gateway' });

      // Egress to databases: only pods labelled as this service's database.
      const egress: Obj[] = applying.flatMap((p) => p.spec.egress ?? []);
      const dbLabels = egress
        .flatMap((r) => r.to ?? [])
        .flatMap((peer: Obj) => Object.keys(peer.podSelector?.matchLabels ?? {}))
        .filter((k: string) => k.startsWith('db.lim.io/'));
      expect(dbLabels).toEqual([`db.lim.io/${service}`]);
      const portsTo = (label: string, value: string) =>
        egress
          .filter((r) => (r.to ?? []).some((peer: Obj) => peer.podSelector?.matchLabels?.[label] === value))
          .flatMap((r) => r.ports.map((p: Obj) => `${p.protocol}/${p.port}`));
      expect(portsTo(`db.lim.io/${service}`, 'true')).toEqual(['TCP/5432']);
      expect(portsTo('app.kubernetes.io/name', 'nats')).toEqual(['TCP/4222']);
      expect(portsTo('k8s-app', 'kube-dns').sort()).toEqual(['TCP/53', 'UDP/53']);
      // Anything else leaves the cluster only (never pods of other services on their ports).
      for (const rule of egress) {
        for (const peer of rule.to ?? []) {
          if (peer.ipBlock) expect(peer.ipBlock.except).toEqual(expect.arrayContaining(['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16']));
          expect(peer.podSelector?.matchLabels?.['lim.io/service']).toBeUndefined();
        }
      }
    }
  });
});

describe('overlays', () => {
  const dev = objectsOf('k8s/overlays/dev');
  const prod = objectsOf('k8s/overlays/prod');

  it('put everything in their namespace', () => {
    expect(new Set(dev.map((o) => o.metadata.namespace))).toEqual(new Set(['lim-dev']));
    expect(new Set(prod.map((o) => o.metadata.namespace))).toEqual(new Set(['lim-prod']));
  });

  it('tag images: dev with dev, prod pinned to a version (never latest), Jobs like Deployments', () => {
    for (const service of SERVICE_NAMES) {
      const image = (objs: Obj[], kind: string, name: string) => one(objs, kind, name).spec.template.spec.containers[0].image;
      expect(image(dev, 'Deployment', service)).toBe(`lim/${service}:dev`);
      expect(image(dev, 'Job', `${service}-migrate`)).toBe(`lim/${service}:dev`);
      expect(image(prod, 'Deployment', service)).toMatch(new RegExp(`/lim-${service}:\\d+\\.\\d+\\.\\d+$`));
      expect(image(prod, 'Job', `${service}-migrate`)).toBe(image(prod, 'Deployment', service));
    }
  });

  it('scale: dev one replica of each; prod leaves the count to the autoscalers, at least 2 (3 gateways)', () => {
    for (const service of SERVICE_NAMES) {
      expect(one(dev, 'Deployment', service).spec.replicas).toBe(1);
      expect(one(dev, 'HorizontalPodAutoscaler', service).spec.minReplicas).toBe(1);
      expect(one(prod, 'Deployment', service).spec.replicas).toBeUndefined();
      expect(one(prod, 'HorizontalPodAutoscaler', service).spec.minReplicas).toBeGreaterThanOrEqual(service === 'gateway' ? 3 : 2);
    }
  });

  it('resources: dev requests less CPU than the base, prod gives the gateway and crm more', () => {
    const cpu = (objs: Obj[], service: string) => one(objs, 'Deployment', service).spec.template.spec.containers[0].resources.requests.cpu;
    expect(cpu(dev, 'crm')).toBe('20m');
    expect(cpu(prod, 'gateway')).toBe('500m');
    expect(cpu(prod, 'crm')).toBe('500m');
  });

  it('secrets: dev generates throwaway ones; prod commits none', () => {
    expect(dev.filter((o) => o.kind === 'Secret').map((o) => o.metadata.name)).toEqual([expect.stringMatching(/^lim-secrets-[a-z0-9]{10}$/)]);
    expect(prod.filter((o) => o.kind === 'Secret')).toEqual([]);
    expect(one(prod, 'ConfigMap', 'lim-config').data).toMatchObject({ EXPORT_STORAGE: 's3', TRUST_PROXY: 'true' });
  });
});

const kubectl = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' }).status === 0;

(kubectl ? describe : describe.skip)('the same as kubectl kustomize (where kubectl exists)', () => {
  const key = (o: Obj) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;
  it.each(DIRS.map(rel))('%s', (dir) => {
    const ours = rendered.get(dir)!;
    // Generated names end in a content hash; ours is not kustomize's digits, so compare the stem.
    const stem = (text: string) =>
      ours.generated.reduce((t, g) => t.replace(new RegExp(`\\b${g.name}-[a-z0-9]{10}\\b`, 'g'), `${g.name}-HASH`), text);
    const out = spawnSync('kubectl', ['kustomize', join(ROOT, dir)], { encoding: 'utf8' });
    expect(out.stderr).toBe('');
    const theirs = loadYaml(stem(out.stdout), dir);
    for (const o of theirs) {
      // kubectl folds long base64 values over lines.
      if (o.kind === 'Secret') for (const k of Object.keys(o.data ?? {})) o.data[k] = String(o.data[k]).replace(/\s/g, '');
    }
    const mine = JSON.parse(stem(JSON.stringify(ours.objects))) as Obj[];
    const byKey = (objs: Obj[]) => Object.fromEntries(objs.map((o) => [key(o), o]));
    expect(byKey(mine)).toEqual(byKey(theirs));
  });
});

describe('k8s/examples (not part of the base): parse, and core objects validate', () => {
  const files: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name));
      else if (/\.ya?ml$/.test(e.name)) files.push(join(d, e.name));
    }
  };
  walk(join(K8S, 'examples'));
  const docs = files.flatMap((f) => loadYaml(readFileSync(f, 'utf8'), f).map((doc) => ({ file: rel(f), doc })));
  const manifests = docs.filter(({ doc }) => doc.apiVersion && doc.kind);

  it('are not included by any kustomization of the deployment', () => {
    for (const dir of DIRS) {
      const text = readFileSync(join(dir, 'kustomization.yaml'), 'utf8');
      expect({ dir: rel(dir), examples: /examples/.test(text.replace(/#.*$/gm, '')) }).toEqual({ dir: rel(dir), examples: false });
    }
  });

  it('core Kubernetes objects among them are valid', () => {
    const core = manifests.filter(({ doc }) => modelOf(doc));
    expect(core.flatMap(({ file, doc }) => schemaErrors(doc).map((e) => `${file}: ${e}`))).toEqual([]);
  });

  it('PostgreSQL: CloudNativePG clusters label their pods for the network policies of each service', () => {
    const clusters = manifests.filter(({ doc }) => doc.kind === 'Cluster' && String(doc.apiVersion).startsWith('postgresql.cnpg.io/'));
    const perService = clusters.filter(({ file }) => file.includes('per-service'));
    const shared = clusters.filter(({ file }) => file.includes('shared'));
    expect(perService.map(({ doc }) => doc.metadata.name).sort()).toEqual(SERVICE_NAMES.map((s) => `${s}-db`).sort());
    for (const { doc } of perService) {
      const service = doc.metadata.name.replace(/-db$/, '');
      expect(doc.spec.inheritedMetadata.labels).toEqual({ [`db.lim.io/${service}`]: 'true' });
      expect(doc.spec.bootstrap.initdb).toMatchObject({ database: `lim_${service}` });
    }
    expect(shared).toHaveLength(1);
    for (const service of SERVICE_NAMES) expect(shared[0].doc.spec.inheritedMetadata.labels[`db.lim.io/${service}`]).toBe('true');
  });
});

describe('exposure', () => {
  it.each(['k8s/base', 'k8s/overlays/dev', 'k8s/overlays/prod'])('%s: only the gateway is exposed outside the cluster', (dir) => {
    const objs = objectsOf(dir);
    for (const svc of objs.filter((o) => o.kind === 'Service')) expect([svc.metadata.name, svc.spec.type ?? 'ClusterIP']).toEqual([svc.metadata.name, 'ClusterIP']);
    const backends = objs
      .filter((o) => o.kind === 'Ingress')
      .flatMap((i) => i.spec.rules.flatMap((r: Obj) => r.http.paths.map((p: Obj) => p.backend.service.name)));
    expect(new Set(backends).size).toBeLessThanOrEqual(1);
    if (backends.length) expect(backends[0]).toBe('gateway');
  });

  it('prod serves the API through an Ingress with TLS', () => {
    const ingress = one(objectsOf('k8s/overlays/prod'), 'Ingress', 'gateway');
    expect(ingress.spec.tls[0].hosts).toEqual([ingress.spec.rules[0].host]);
  });

  it('every server pod is annotated for metrics scraping on its own port', () => {
    for (const service of SERVICE_NAMES) {
      const annotations = one(objectsOf('k8s/base'), 'Deployment', service).spec.template.metadata.annotations;
      expect(annotations).toEqual({ 'prometheus.io/scrape': 'true', 'prometheus.io/port': String(DEFAULT_HTTP_PORTS[service]), 'prometheus.io/path': '/metrics' });
    }
  });

  it('k8s/deploy.sh is valid bash', () => {
    expect(spawnSync('bash', ['-n', join(K8S, 'deploy.sh')], { encoding: 'utf8' }).status).toBe(0);
  });
});
