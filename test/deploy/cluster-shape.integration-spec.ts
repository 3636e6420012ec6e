import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SERVICE_NAMES } from '@app/contracts';
import { eventsStreamSettings } from '@app/platform/config';
import { CLUSTER_SHAPE } from '../../tools/mesh/cluster-shape';
import { kustomize, loadYaml, Obj } from './render';

/**
 * What the chaos run on the cluster shape shows (no client error when one process, one NATS node
 * or the primary database dies) holds for production only if production has at least that shape:
 * the prod overlay's replica floors, its disruption budgets (one pod at a time, as the run kills
 * them), the NATS cluster example and the CloudNativePG examples are compared with the shape
 * `npm run cluster` runs (tools/mesh/cluster-shape.ts).
 */
const ROOT = join(__dirname, '..', '..');
const prod = kustomize(join(ROOT, 'k8s/overlays/prod'));
const one = (kind: string, name: string): Obj => {
  const found = prod.filter((o) => o.kind === kind && o.metadata.name === name);
  expect({ kind, name, count: found.length }).toEqual({ kind, name, count: 1 });
  return found[0];
};

describe('k8s/ gives production at least the shape the cluster chaos run exercised', () => {
  it('replica floors: every service at least as many as the run, the gateways too', () => {
    for (const service of SERVICE_NAMES) {
      const floor = service === 'gateway' ? CLUSTER_SHAPE.gateways : CLUSTER_SHAPE.replicas;
      const hpa = one('HorizontalPodAutoscaler', service);
      expect({ service, atLeast: hpa.spec.minReplicas >= floor }).toEqual({ service, atLeast: true });
    }
  });

  it('disruption budgets: one pod of a service at a time, as the run takes them', () => {
    for (const service of SERVICE_NAMES) {
      const pdb = one('PodDisruptionBudget', service);
      const hpa = one('HorizontalPodAutoscaler', service);
      const unavailable = pdb.spec.maxUnavailable ?? hpa.spec.minReplicas - pdb.spec.minAvailable;
      expect({ service, unavailable }).toEqual({ service, unavailable: 1 });
    }
  });

  it('NATS: a cluster of as many nodes with JetStream, and the EVENTS stream at the same replicas', () => {
    const values = loadYaml(readFileSync(join(ROOT, 'k8s/examples/nats/values.yaml'), 'utf8'), 'values.yaml')[0];
    expect(values.config.cluster).toMatchObject({ enabled: true, replicas: CLUSTER_SHAPE.natsNodes });
    expect(values.config.jetstream.enabled).toBe(true);
    expect(eventsStreamSettings(one('ConfigMap', 'lim-config').data).replicas).toBe(CLUSTER_SHAPE.eventsReplicas);
  });

  it('PostgreSQL: every CloudNativePG cluster has a standby and replicates synchronously', () => {
    for (const file of ['per-service/clusters.yaml', 'shared/cluster.yaml']) {
      const clusters = loadYaml(readFileSync(join(ROOT, 'k8s/examples/postgres', file), 'utf8'), file).filter((d) => d?.kind === 'Cluster');
      expect(clusters.length).toBeGreaterThan(0);
      for (const cluster of clusters) {
        expect({ file, name: cluster.metadata.name, instances: cluster.spec.instances >= CLUSTER_SHAPE.postgres.instances, sync: cluster.spec.minSyncReplicas >= 1 })
          .toEqual({ file, name: cluster.metadata.name, instances: true, sync: true });
      }
    }
  });
});
