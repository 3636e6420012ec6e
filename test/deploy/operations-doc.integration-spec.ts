import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { Pod } from 'kubernetes-models/v1/Pod';
import { kustomize, loadYaml, Obj } from './render';
import { unknownFields } from './strict-fields';

/**
 * The admin CLI's manifests in docs/operations.md (a toolbox Pod, a Job): valid Kubernetes
 * objects that run the CLI of the gateway's image with the gateway's configuration, inside the
 * gateway's network policy, without being counted as gateway pods.
 */
const ROOT = join(__dirname, '..', '..');
const doc = readFileSync(join(ROOT, 'docs/operations.md'), 'utf8');
const manifests: Obj[] = [...doc.matchAll(/```yaml\n([\s\S]*?)```/g)].flatMap((m) => loadYaml(m[1], 'docs/operations.md'));
const gateway = kustomize(join(ROOT, 'k8s/services/gateway'));
const ofKind = (kind: string) => manifests.filter((o) => o.kind === kind);
const podSpec = (o: Obj): Obj => (o.kind === 'Pod' ? o.spec : o.spec.template.spec);
const podLabels = (o: Obj): Record<string, string> => (o.kind === 'Pod' ? o.metadata.labels : o.spec.template.metadata.labels);

describe('docs/operations.md: the admin CLI in the cluster', () => {
  it('has a toolbox Pod and a Job, each a valid object with no unknown field', () => {
    expect(ofKind('Pod')).toHaveLength(1);
    expect(ofKind('Job')).toHaveLength(1);
    for (const obj of manifests) {
      expect(() => (obj.kind === 'Pod' ? new Pod(obj as never) : new Job(obj as never)).validate()).not.toThrow();
      expect(unknownFields(obj)).toEqual([]);
    }
  });

  it("runs the CLI of the gateway's image with the gateway's configuration", () => {
    const migrate = gateway.find((o) => o.kind === 'Job' && o.metadata.name === 'gateway-migrate')!;
    const migrateContainer = migrate.spec.template.spec.containers[0];
    for (const obj of manifests) {
      const container = podSpec(obj).containers[0];
      expect(container.image).toMatch(/lim-gateway:|^lim\/gateway/);
      expect(container.workingDir).toBe('/app');
      expect(container.envFrom).toEqual(migrateContainer.envFrom);
      expect(container.env).toEqual(expect.arrayContaining(migrateContainer.env));
      expect(container.env).toContainEqual({ name: 'NATS_URL', valueFrom: { secretKeyRef: { name: 'lim-admin-nats', key: 'NATS_URL', optional: true } } });
      expect(podSpec(obj).serviceAccountName).toBe('gateway');
      expect(container.securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false });
      expect(podSpec(obj).securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000 });
    }
    expect(ofKind('Job')[0].spec.template.spec.containers[0].command.slice(0, 2)).toEqual(['node', 'dist/apps/admin/src/main.js']);
    expect(doc).toContain('exec lim-admin -- node dist/apps/admin/src/main.js');
  });

  it("is inside the gateway's network policy (its database, NATS) but not one of the gateway's pods", () => {
    const policy = gateway.find((o) => o.kind === 'NetworkPolicy')!;
    const selected = (selector: Obj, labels: Record<string, string>) => Object.entries(selector.matchLabels ?? {}).every(([k, v]) => labels[k] === v);
    const counting = gateway.filter((o) => ['Service', 'PodDisruptionBudget'].includes(o.kind));
    expect(counting.length).toBeGreaterThan(0);
    for (const obj of manifests) {
      const labels = podLabels(obj);
      expect(selected(policy.spec.podSelector, labels)).toBe(true);
      for (const o of counting) expect(selected(o.kind === 'Service' ? { matchLabels: o.spec.selector } : o.spec.selector, labels)).toBe(false);
    }
  });
});
