import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { NATS_IDENTITIES } from '@app/contracts';
import { ensureNatsIdentities, LOCAL_NATS_IDENTITY_DIR, natsHelmValues, natsServerConfig } from '@app/platform';
import { cliFlag } from '../nats-setup';
import { MESH_NATS_IDENTITY_DIR, ROOT } from './processes';

/**
 * `npm run -s nats:config [-- --host 0.0.0.0 --port 4222 --store-dir /data]`: the nats-server
 * configuration of the mesh's identities (made in .data/nats/identities, or MESH_NATS_IDENTITY_DIR,
 * when missing): JetStream, one NKEY user per service and the operator with the permissions of
 * libs/contracts/src/nats-flows.ts, anonymous connections refused. `npm start` and the tests run
 * nats-server with this same configuration; give it to a bus of your own (NATS_URL) and each
 * service its seed file (NATS_NKEY_SEED_FILE); docker-compose.yml writes the same with
 * tools/nats-setup.ts, one directory per identity. `-- --secrets`: the seeds as Kubernetes Secrets
 * (lim-nats-<identity>, key `seed`), as the Deployments mount them (docs/operations.md).
 * `-- --helm-values`: the NATS Helm chart's values overlay with the same `authorization` block
 * (k8s/examples/nats), given to helm after values.yaml.
 */
const flag = (name: string, fallback: string) => cliFlag(process.argv, name, fallback);

const identities = ensureNatsIdentities(process.env[MESH_NATS_IDENTITY_DIR] || join(ROOT, LOCAL_NATS_IDENTITY_DIR));
if (process.argv.includes('--secrets')) {
  // one Secret per identity, key `seed`: what each Deployment (lim-nats-<service>) and the admin CLI (lim-nats-operator) mount
  for (const identity of NATS_IDENTITIES) {
    const seed = readFileSync(identities.seedFile(identity), 'utf8').trim();
    process.stdout.write(`---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: lim-nats-${identity}\n  labels:\n    app.kubernetes.io/part-of: lim\ntype: Opaque\nstringData:\n  seed: ${seed}\n`);
  }
  process.exit(0);
}
if (process.argv.includes('--helm-values')) {
  process.stdout.write(natsHelmValues(identities.users));
  process.stderr.write(`seeds: ${identities.dir}/<identity>.nk (give them to the services as the Secrets of -- --secrets)\n`);
  process.exit(0);
}
process.stdout.write(natsServerConfig({
  host: flag('host', '127.0.0.1'),
  port: Number(flag('port', '4222')),
  storeDir: flag('store-dir', join(ROOT, '.data', 'nats')),
  users: identities.users,
}));
process.stderr.write(`seeds: ${identities.dir}/<identity>.nk (one per service and the operator; keep them secret)\n`);
