import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { SERVICE_NAMES, SERVICE_UNAVAILABLE_RETRY_AFTER_S, ServiceName } from '@app/contracts';
import { DEFAULT_HTTP_PORTS, eventRetrySettings, eventsStreamSettings } from '@app/platform/config';
import { trustProxySetting } from '../../apps/gateway/src/config';
import { KUBECTL, kustomizationDirs, kustomizationKind, kustomize, loadYaml, Obj } from './render';
import { unknownFields } from './strict-fields';
import { detectionOfCluster, failoverWatchSettings, SHIPPED_FAILOVER_DETECTION } from '../../tools/mesh/pg-pair';
import { DEFAULT_MAX_RETRIES, DEFAULT_MAX_RETRY_AFTER_MS } from '../../packages/client/src/retry';

/**
 * Offline CI for k8s/: every kustomization renders with `kubectl kustomize`, every rendered
 * object validates against the Kubernetes schemas of `kubernetes-models`, the manifests have what
 * operators rely on (probes, non-root, read-only root, resources, one HPA/PDB/ServiceAccount/
 * migration Job per service, network isolation), a service deployed alone gets exactly what the
 * whole overlay gives it, and k8s/deploy.sh migrates only the services it deploys.
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

// Components are rendered through the kustomizations that include them.
const DIRS = kustomizationDirs(K8S).filter((d) => !rel(d).startsWith('k8s/examples') && kustomizationKind(d) === 'Kustomization');
const objectsOf = (dir: string): Obj[] => kustomize(join(ROOT, dir));
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
  it('covers the base, each service, both overlays and each service alone in each', () => {
    expect(DIRS.map(rel)).toEqual(
      expect.arrayContaining([
        'k8s/base', 'k8s/overlays/dev', 'k8s/overlays/prod', ...SERVICE_NAMES.map((s) => `k8s/services/${s}`),
        ...SERVICE_NAMES.flatMap((s) => [`k8s/overlays/dev/services/${s}`, `k8s/overlays/prod/services/${s}`]),
      ]),
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

  it('each service kustomization has exactly what the base has for it, every object labelled with its service', () => {
    const base = objectsOf('k8s/base');
    for (const service of SERVICE_NAMES) {
      const own = objectsOf(`k8s/services/${service}`);
      expect(own.map((o) => `${o.kind}/${o.metadata.labels?.['lim.io/service']}`).sort()).toEqual(
        ['Deployment', 'HorizontalPodAutoscaler', 'Job', 'NetworkPolicy', 'PodDisruptionBudget', 'Service', 'ServiceAccount'].map((k) => `${k}/${service}`),
      );
      for (const obj of own) expect(find(base, obj.kind, obj.metadata.name)).toEqual([obj]);
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

  it('the bus: the gateway\'s migration Job provisions the EVENTS stream first (an init container, the gateway\'s image), as the operator; no other container has the operator\'s seed', () => {
    const job = one(objs, 'Job', 'gateway-migrate').spec.template.spec;
    expect(job.initContainers).toHaveLength(1);
    const [bus] = job.initContainers;
    expect(bus.command).toEqual(['node', 'dist/tools/migrate.js', 'bus']);
    expect(bus.image).toBe(job.containers[0].image);
    expect(bus.envFrom).toEqual([{ configMapRef: { name: 'lim-config' } }]);
    expect(bus.env).toEqual([{ name: 'NATS_NKEY_SEED', valueFrom: { secretKeyRef: { name: 'lim-nats-operator', key: 'seed' } } }]);
    expect(bus.securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, runAsNonRoot: true, capabilities: { drop: ['ALL'] } });
    expect(bus.resources.limits).toBeDefined();
    // with TLS to NATS (prod), the files lim-config names are mounted for it too
    const tlsFiles = job.volumes?.find((v: Obj) => v.secret?.secretName === 'lim-tls');
    if (tlsFiles) expect(bus.volumeMounts).toEqual([{ name: tlsFiles.name, mountPath: '/etc/lim/tls', readOnly: true }]);
    else expect(bus.volumeMounts).toBeUndefined();
    // every other container of the mesh runs without the operator's seed
    const pods = objs.filter((o) => o.kind === 'Deployment' || o.kind === 'Job').map((o) => o.spec.template.spec);
    const withSeed = pods.flatMap((pod) => [...(pod.initContainers ?? []), ...pod.containers].filter((c: Obj) => JSON.stringify(c).includes('lim-nats-operator')));
    expect(withSeed).toEqual([bus]);
    expect(pods.flatMap((pod) => pod.volumes ?? []).filter((v: Obj) => v.secret?.secretName === 'lim-nats-operator')).toEqual([]);
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

describe.each(['k8s/base', 'k8s/overlays/prod'])('%s: egress the features need', (dir) => {
  const objs = objectsOf(dir);
  const PRIVATE = ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '169.254.0.0/16', '100.64.0.0/10'];
  /** Ports a service's pods may reach at a public address (8.8.8.8 stands for any), `TCP/*` for every TCP port. */
  const publicPorts = (service: string) => {
    const podLabels = one(objs, 'Deployment', service).spec.template.metadata.labels;
    return objs
      .filter((o) => o.kind === 'NetworkPolicy' && selects(o.spec.podSelector, podLabels))
      .flatMap((p) => p.spec.egress ?? [])
      .filter((r: Obj) => (r.to ?? []).some((peer: Obj) => peer.ipBlock?.cidr === '0.0.0.0/0'))
      .flatMap((r: Obj) => {
        for (const peer of r.to) expect(peer.ipBlock.except).toEqual(expect.arrayContaining(PRIVATE));
        return (r.ports ?? [{ protocol: 'TCP' }, { protocol: 'UDP' }]).map((p: Obj) => `${p.protocol}/${p.port ?? '*'}`);
      })
      .sort();
  };

  it('search: the SMTP probe (TCP 25) and DNS to any public address', () => {
    expect(publicPorts('search')).toEqual(['TCP/25', 'TCP/53', 'UDP/53']);
  });

  it('webhooks: deliveries to any TCP port of a public address (the SSRF guard decides the host)', () => {
    expect(publicPorts('webhooks')).toEqual(['TCP/*']);
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

  it('TLS: prod connects to NATS and PostgreSQL over TLS with the mounted lim-tls files, verifying the servers; dev does not', () => {
    const config = one(prod, 'ConfigMap', 'lim-config').data;
    expect(config).toMatchObject({
      NATS_URL: expect.stringMatching(/^tls:\/\//), PG_SSL_MODE: 'verify-full',
      NATS_TLS_CA_FILE: '/etc/lim/tls/ca.crt', NATS_TLS_CERT_FILE: '/etc/lim/tls/tls.crt', NATS_TLS_KEY_FILE: '/etc/lim/tls/tls.key', PG_TLS_CA_FILE: '/etc/lim/tls/ca.crt',
    });
    const pods = prod.filter((o) => o.kind === 'Deployment' || o.kind === 'Job');
    expect(pods).toHaveLength(2 * SERVICE_NAMES.length);
    for (const pod of pods) {
      const spec = pod.spec.template.spec;
      const volume = spec.volumes.find((v: Obj) => v.secret?.secretName === 'lim-tls');
      expect({ pod: pod.metadata.name, mounted: spec.containers[0].volumeMounts.find((m: Obj) => m.name === volume?.name) }).toEqual({
        pod: pod.metadata.name, mounted: { name: volume?.name, mountPath: '/etc/lim/tls', readOnly: true },
      });
      // the Deployment keeps its scratch /tmp beside the certificates
      if (pod.kind === 'Deployment') expect(spec.containers[0].volumeMounts.map((m: Obj) => m.mountPath)).toContain('/tmp');
    }
    const devConfig = one(dev, 'ConfigMap', 'lim-config').data;
    expect(Object.keys(devConfig).filter((k) => /TLS|SSL/.test(k))).toEqual([]);
  });

  it('secrets: dev generates throwaway ones; prod commits none', () => {
    expect(dev.filter((o) => o.kind === 'Secret').map((o) => o.metadata.name)).toEqual([expect.stringMatching(/^lim-secrets-[a-z0-9]{10}$/)]);
    expect(prod.filter((o) => o.kind === 'Secret')).toEqual([]);
    expect(one(prod, 'ConfigMap', 'lim-config').data).toMatchObject({ EXPORT_STORAGE: 's3' });
    // X-Forwarded-For is read from the ingress controller's pod network only, never from any peer
    expect(trustProxySetting(one(prod, 'ConfigMap', 'lim-config').data)).toEqual(['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16']);
  });

  it('the EVENTS stream: three replicas and a byte cap in prod, one replica and no cap in dev; both parse as the services read them', () => {
    const prodConfig = one(prod, 'ConfigMap', 'lim-config').data;
    const devConfig = one(dev, 'ConfigMap', 'lim-config').data;
    expect(eventsStreamSettings(prodConfig)).toEqual({ replicas: 3, maxBytes: 10 * 1024 ** 3 });
    expect(eventsStreamSettings(devConfig)).toEqual({ replicas: 1, maxBytes: -1 });
    expect(eventRetrySettings(prodConfig)).toEqual({ maxDeliver: 8, backoffMs: [1000, 5000, 30_000, 120_000, 600_000] });
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

  it('NATS: its NetworkPolicy admits the mesh\'s pods only to the client port, and TLS with client certificates is on', () => {
    const policy = manifests.find(({ doc }) => doc.kind === 'NetworkPolicy' && doc.metadata.name === 'nats')?.doc as Obj;
    expect(policy.spec.podSelector).toEqual({ matchLabels: { 'app.kubernetes.io/name': 'nats' } });
    expect(policy.spec.policyTypes).toEqual(['Ingress']);
    const base = objectsOf('k8s/base');
    const admitted = (labels: Obj, port: number) =>
      policy.spec.ingress.some((r: Obj) => r.ports.some((p: Obj) => p.port === port) && r.from.some((peer: Obj) => peer.podSelector && selects(peer.podSelector, labels)));
    for (const service of SERVICE_NAMES) {
      expect({ service, admitted: admitted(one(base, 'Deployment', service).spec.template.metadata.labels, 4222) }).toEqual({ service, admitted: true });
    }
    for (const stranger of [{}, { 'app.kubernetes.io/name': 'prometheus' }, { 'app.kubernetes.io/part-of': 'lim' }, { 'lim.io/service': 'crm' }]) {
      expect({ stranger, admitted: admitted(stranger, 4222) }).toEqual({ stranger, admitted: false });
    }
    expect(admitted({ 'app.kubernetes.io/name': 'nats' }, 6222)).toBe(true);
    expect(admitted(one(base, 'Deployment', 'crm').spec.template.metadata.labels, 6222)).toBe(false);
    const values = loadYaml(readFileSync(join(K8S, 'examples/nats/values.yaml'), 'utf8'), 'values.yaml')[0];
    expect(values.config.nats.tls).toMatchObject({ enabled: true, merge: { verify: true, timeout: 10 } });
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

  it('PostgreSQL: search reads its pages through the cluster\'s -ro Service (SEARCH_READ_DATABASE_URL from search-db-ro)', () => {
    const base = objectsOf('k8s/base');
    const envOf = (kind: string, name: string) => one(base, kind, name).spec.template.spec.containers[0].env as Obj[];
    expect(envOf('Deployment', 'search')).toContainEqual({ name: 'SEARCH_READ_DATABASE_URL', valueFrom: { secretKeyRef: { name: 'search-db-ro', key: 'uri', optional: true } } });
    const sharedSecret = (name: string) => manifests.find(({ file, doc }) => file.includes('shared') && doc.kind === 'Secret' && doc.metadata.name === name)?.doc as Obj;
    const rw = new URL(sharedSecret('search-db-app').stringData.uri);
    const ro = new URL(sharedSecret('search-db-ro').stringData.uri);
    expect([rw.hostname, ro.hostname]).toEqual(['lim-pg-rw', 'lim-pg-ro']);
    expect({ user: ro.username, password: ro.password, port: ro.port, db: ro.pathname }).toEqual({ user: rw.username, password: rw.password, port: rw.port, db: rw.pathname });
    // per service: the operator's password, so the Secret is made from search-db-app once the cluster is up (the file says how)
    const perService = readFileSync(join(K8S, 'examples/postgres/per-service/clusters.yaml'), 'utf8');
    expect(perService).toContain("sed 's/@search-db-rw:/@search-db-ro:/'");
  });
});

describe('k8s/examples/postgres: every database backed up (kubectl kustomize of each example)', () => {
  const PLUGIN = 'barman-cloud.cloudnative-pg.io';
  const examples = { prod: 'k8s/examples/postgres/per-service', dev: 'k8s/examples/postgres/shared' };
  const ofKind = (objs: Obj[], kind: string) => objs.filter((o) => o.kind === kind);
  /** A six-field cron expression (seconds first), as CloudNativePG's ScheduledBackup takes it. */
  const SIX_FIELD_CRON = /^(\S+\s+){5}\S+$/;

  it.each(Object.entries(examples))('%s (%s): each Cluster archives its WAL through the plugin to an ObjectStore of the example, with a ScheduledBackup of its own', (_env, dir) => {
    const objs = objectsOf(dir);
    const clusters = ofKind(objs, 'Cluster');
    const stores = new Map(ofKind(objs, 'ObjectStore').map((o) => [o.metadata.name, o]));
    expect(clusters.length).toBeGreaterThan(0);
    for (const cluster of clusters) {
      const name = cluster.metadata.name;
      // the plugin, not the deprecated in-tree barmanObjectStore
      expect({ name, inTree: cluster.spec.backup?.barmanObjectStore }).toEqual({ name, inTree: undefined });
      const archivers = (cluster.spec.plugins ?? []).filter((p: Obj) => p.isWALArchiver);
      expect({ name, archivers: archivers.map((p: Obj) => p.name) }).toEqual({ name, archivers: [PLUGIN] });
      const store = stores.get(archivers[0].parameters?.barmanObjectName);
      expect({ name, store: store?.apiVersion }).toEqual({ name, store: 'barmancloud.cnpg.io/v1' });
      expect(store!.spec.configuration.destinationPath).toMatch(/^s3:\/\/[a-z0-9][a-z0-9.-]+\//);
      expect(store!.spec.configuration.wal.compression).toBeDefined();
      expect(store!.spec.retentionPolicy).toMatch(/^[1-9][0-9]*[dwm]$/);
      const scheduled = ofKind(objs, 'ScheduledBackup').filter((b) => b.spec.cluster.name === name);
      expect({ name, scheduled: scheduled.length }).toEqual({ name, scheduled: 1 });
      expect(scheduled[0].spec).toMatchObject({ method: 'plugin', pluginConfiguration: { name: PLUGIN }, immediate: true, schedule: expect.stringMatching(SIX_FIELD_CRON) });
    }
    // no ScheduledBackup of a cluster the example does not have
    expect(ofKind(objs, 'ScheduledBackup').map((b) => b.spec.cluster.name).sort()).toEqual(clusters.map((c) => c.metadata.name).sort());
  });

  it('prod: one Cluster per service, all backed up; the store names a real bucket and its credentials by a Secret the example does not commit', () => {
    const objs = objectsOf(examples.prod);
    expect(ofKind(objs, 'Cluster').map((c) => c.metadata.name).sort()).toEqual(SERVICE_NAMES.map((s) => `${s}-db`).sort());
    const [store] = ofKind(objs, 'ObjectStore');
    const config = store.spec.configuration;
    expect(config.endpointURL).toBeUndefined();
    expect(config.destinationPath).not.toMatch(/minio/);
    const secrets = new Set(Object.values(config.s3Credentials).map((ref) => (ref as Obj).name));
    expect([...secrets]).toEqual(['lim-pg-backups-s3']);
    expect(ofKind(objs, 'Secret')).toEqual([]);
  });

  it('dev: the shared cluster (every database) backs up to the dev MinIO, whose credentials Secret is there and marked dev-only', () => {
    const objs = objectsOf(examples.dev);
    const [cluster] = ofKind(objs, 'Cluster');
    for (const service of SERVICE_NAMES) expect(find(objs, 'Database', `lim-${service}`)[0].spec.cluster.name).toBe(cluster.metadata.name);
    const [store] = ofKind(objs, 'ObjectStore');
    const minio = one(objs, 'Service', 'minio');
    expect(store.spec.configuration.endpointURL).toBe(`http://${minio.metadata.name}:${minio.spec.ports[0].port}`);
    const refs = Object.values(store.spec.configuration.s3Credentials) as Obj[];
    const credentials = one(objs, 'Secret', refs[0].name);
    expect(credentials.metadata.labels['lim.io/dev-only']).toBe('true');
    for (const ref of refs) expect(credentials.stringData[ref.key]).toEqual(expect.any(String));
    // MinIO's root user is the same pair, so the store can write
    const env = one(objs, 'Deployment', 'minio').spec.template.spec.containers[0].env as Obj[];
    expect(env.map((e) => [e.name, e.valueFrom.secretKeyRef])).toEqual([
      ['MINIO_ROOT_USER', { name: credentials.metadata.name, key: refs.find((r) => r === store.spec.configuration.s3Credentials.accessKeyId)!.key }],
      ['MINIO_ROOT_PASSWORD', { name: credentials.metadata.name, key: store.spec.configuration.s3Credentials.secretAccessKey.key }],
    ]);
  });

  it('no backup is left commented out in the examples', () => {
    const dir = join(K8S, 'examples/postgres');
    const files = readdirSync(dir, { recursive: true }).map(String).filter((f) => f.endsWith('.yaml'));
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const commented = readFileSync(join(dir, file), 'utf8').split('\n').filter((line) => /^\s*#\s*(backup|barmanObjectStore|plugins)\s*:/.test(line));
      expect({ file, commented }).toEqual({ file, commented: [] });
    }
  });
});

describe('k8s/examples/postgres: failure detection (kubectl kustomize of each example)', () => {
  const examples = { prod: 'k8s/examples/postgres/per-service', dev: 'k8s/examples/postgres/shared' };

  it.each(Object.entries(examples))("%s (%s): every Cluster detects a lost primary as the shipped file says, and npm run cluster's failover watcher uses the same settings", (_env, dir) => {
    const clusters = objectsOf(dir).filter((o) => o.kind === 'Cluster' && String(o.apiVersion).startsWith('postgresql.cnpg.io/'));
    expect(clusters.length).toBeGreaterThan(0);
    for (const cluster of clusters) {
      expect({ cluster: cluster.metadata.name, detection: detectionOfCluster(cluster) }).toEqual({ cluster: cluster.metadata.name, detection: SHIPPED_FAILOVER_DETECTION });
      // written out, not left to the operator's defaults (10 s x 3: 20-30 s without writes)
      expect(cluster.spec.probes.readiness).toEqual({ periodSeconds: 2, timeoutSeconds: 2, failureThreshold: 3 });
      expect(cluster.spec.failoverDelay).toBe(0);
    }
    expect(failoverWatchSettings({})).toEqual(SHIPPED_FAILOVER_DETECTION);
  });

  it("packages/client's default retries wait out the shipped detection of a stopped primary and its promotion, against the gateway's 503 Retry-After", () => {
    const d = SHIPPED_FAILOVER_DETECTION;
    // a primary that refuses connections: the first failed probe within an interval of the stop, then threshold - 1 more
    const detectedWithinMs = d.probeIntervalMs * d.failureThreshold + d.failoverDelayMs;
    // what the client waits at least before its last attempt: every retry waits Retry-After at least
    const ridesOutMs = DEFAULT_MAX_RETRIES * SERVICE_UNAVAILABLE_RETRY_AFTER_S * 1000;
    expect(detectedWithinMs).toBe(6000);
    // a promotion and the services back in their queue groups within as long again as the detection, and margin beyond
    expect(ridesOutMs).toBeGreaterThanOrEqual(3 * detectedWithinMs);
    expect(SERVICE_UNAVAILABLE_RETRY_AFTER_S * 1000).toBeLessThanOrEqual(DEFAULT_MAX_RETRY_AFTER_MS);
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

describe.each(['dev', 'prod'])('one service deployed alone in %s (k8s/overlays/<env>/services/<name>)', (env) => {
  const whole = objectsOf(`k8s/overlays/${env}`);
  const key = (o: Obj) => `${o.kind}/${o.metadata.namespace}/${o.metadata.name}`;
  const byKey = (objs: Obj[]) => Object.fromEntries(objs.map((o) => [key(o), o]));
  const ofService = (objs: Obj[], service: string) => objs.filter((o) => o.metadata.labels?.['lim.io/service'] === service);

  it.each([...SERVICE_NAMES])('%s: every object of the service is the one the whole overlay renders (image tag, resources, HPA bounds, secrets)', (service) => {
    const alone = objectsOf(`k8s/overlays/${env}/services/${service}`);
    const mine = ofService(alone, service);
    expect(mine).toHaveLength(7);
    expect(byKey(mine)).toEqual(byKey(ofService(whole, service)));
    // Nothing of another service; besides its own objects, dev generates the Secret it reads.
    const rest = alone.filter((o) => !mine.includes(o));
    expect(rest.map((o) => o.kind)).toEqual(env === 'dev' ? ['Secret'] : []);
    for (const secret of rest) expect(find(whole, 'Secret', secret.metadata.name)).toEqual([secret]);
  });

  it.each([...SERVICE_NAMES])('%s: every ConfigMap and Secret its pods read exists when it is deployed alone', (service) => {
    const alone = objectsOf(`k8s/overlays/${env}/services/${service}`);
    const names = (kind: string) => new Set(alone.filter((o) => o.kind === kind).map((o) => o.metadata.name));
    // Provided by the namespace: the shared ConfigMap (the whole overlay's), prod's Secret (the
    // secret store); optional references (the <service>-db-app Secret) need not exist.
    const provided = { ConfigMap: new Set(['lim-config']), Secret: new Set(env === 'prod' ? ['lim-secrets'] : []) };
    for (const name of provided.ConfigMap) expect(find(whole, 'ConfigMap', name)).toHaveLength(1);
    const pods = alone.filter((o) => o.kind === 'Deployment' || o.kind === 'Job').map((o) => o.spec.template.spec);
    expect(pods).toHaveLength(2);
    for (const container of pods.flatMap((p) => p.containers)) {
      const refs: [keyof typeof provided, string][] = [
        ...(container.envFrom ?? []).map((e: Obj): [keyof typeof provided, string] => (e.configMapRef ? ['ConfigMap', e.configMapRef.name] : ['Secret', e.secretRef.name])),
        ...(container.env ?? [])
          .filter((e: Obj) => e.valueFrom && !(e.valueFrom.secretKeyRef ?? e.valueFrom.configMapKeyRef).optional)
          .map((e: Obj): [keyof typeof provided, string] => (e.valueFrom.secretKeyRef ? ['Secret', e.valueFrom.secretKeyRef.name] : ['ConfigMap', e.valueFrom.configMapKeyRef.name])),
      ];
      expect(refs.map(([kind]) => kind)).toEqual(expect.arrayContaining(['ConfigMap', 'Secret']));
      for (const [kind, name] of refs) expect({ kind, name, exists: names(kind).has(name) || provided[kind].has(name) }).toEqual({ kind, name, exists: true });
    }
  });
});

describe('k8s/deploy.sh (against a kubectl that records its calls; kustomize is the real one)', () => {
  let dir: string;
  let log: string;
  const realKubectl = spawnSync('sh', ['-c', `command -v ${KUBECTL}`], { encoding: 'utf8' }).stdout.trim();
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'deploy-sh-'));
    log = join(dir, 'calls');
    writeFileSync(
      join(dir, 'kubectl'),
      `#!/usr/bin/env bash\n(IFS=$'\\t'; printf '%s\\n' "$*") >> "${log}"\nif [ "$1" = kustomize ]; then exec "${realKubectl}" "$@"; fi\n`,
    );
    chmodSync(join(dir, 'kubectl'), 0o755);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const deploy = (...args: string[]) => {
    rmSync(log, { force: true });
    const out = spawnSync('bash', [join(K8S, 'deploy.sh'), ...args], { encoding: 'utf8', cwd: ROOT, env: { ...process.env, PATH: `${dir}:${process.env.PATH}` } });
    const calls = out.status === null ? [] : (() => { try { return readFileSync(log, 'utf8').trim().split('\n').map((l) => l.split('\t')); } catch { return []; } })();
    return { status: out.status, stderr: out.stderr, calls };
  };
  const selectorOf = (call: string[]) => call[call.indexOf('-l') + 1];
  /** The objects of a rendering a set-based selector of the form `a=b,c=d,k in (x,y)` selects. */
  const selected = (objs: Obj[], selector: string) => {
    const terms = selector.match(/[^,()]+(\([^)]*\))?/g)!;
    return objs.filter((o) =>
      terms.every((term) => {
        const inSet = term.match(/^(\S+) in \((.*)\)$/);
        if (inSet) return inSet[2].split(',').includes(o.metadata.labels?.[inSet[1]]);
        const [k, v] = term.split('=');
        return o.metadata.labels?.[k] === v;
      }),
    );
  };

  it('<service> <env>: deletes and waits on that service\'s migration Job only, then rolls out that Deployment', () => {
    const { status, stderr, calls } = deploy('crm', 'prod');
    expect({ status, stderr }).toEqual({ status: 0, stderr: '' });
    const dir = join(K8S, 'overlays/prod/services/crm');
    expect(calls[0]).toEqual(['kustomize', dir]);
    const verbs = calls.slice(1).map((c) => c.slice(0, 3).join(' '));
    expect(verbs).toEqual(['-n lim-prod delete', '-n lim-prod apply', '-n lim-prod wait', '-n lim-prod apply', '-n lim-prod rollout']);
    const [del, , wait, , rollout] = calls.slice(1);
    expect(selectorOf(del)).toBe(selectorOf(wait));
    // Among every team's objects in the namespace, the selector picks crm's Job alone.
    const jobs = selected(objectsOf('k8s/overlays/prod'), selectorOf(del));
    expect(jobs.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual(['Job/crm-migrate']);
    expect(rollout).toEqual(['-n', 'lim-prod', 'rollout', 'status', 'deployment/crm', '--timeout=10m']);
  });

  it('<env>: the whole mesh, every service\'s Job and Deployment', () => {
    const { status, calls } = deploy('dev');
    expect(status).toBe(0);
    expect(calls[0]).toEqual(['kustomize', join(K8S, 'overlays/dev')]);
    const del = calls.find((c) => c[2] === 'delete')!;
    expect(selected(objectsOf('k8s/overlays/dev'), selectorOf(del)).map((o) => o.metadata.name).sort()).toEqual(SERVICE_NAMES.map((s) => `${s}-migrate`).sort());
    expect(calls.filter((c) => c[2] === 'rollout').map((c) => c[4]).sort()).toEqual(SERVICE_NAMES.map((s) => `deployment/${s}`).sort());
  });

  it('refuses a service\'s own kustomization, which has no environment\'s settings, before touching the cluster', () => {
    const { status, stderr, calls } = deploy('k8s/services/crm', 'lim-prod');
    expect(status).toBe(2);
    expect(stderr).toContain('k8s/deploy.sh crm <env>');
    expect(calls).toEqual([]);
  });
});
