import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { jetstreamManager, JetStreamManager } from '@nats-io/jetstream';
import { nanos, NatsConnection } from '@nats-io/transport-node';
import { NatsIdentity } from '@app/contracts';
import { connectMesh } from '@app/platform';
import { MESH_NATS_IDENTITY_DIR, ROOT } from '../../tools/mesh/processes';
import { TestMesh } from '../harness';

const HOUR_NS = nanos(60 * 60 * 1000);

/**
 * `migrate.js bus` (npm run migrate -- bus; the compose migrate-bus step, the first container of
 * the Kubernetes gateway-migrate Job): the operator provisions the EVENTS stream, on a real
 * nats-server with the mesh's generated configuration. No service identity may.
 */
describe('migrate.js bus: the operator provisions the EVENTS stream', () => {
  let mesh: TestMesh;
  let nc: NatsConnection;
  let jsm: JetStreamManager;

  beforeAll(async () => {
    mesh = await TestMesh.start([], {}, { provisionBus: false });
    nc = await connectMesh(mesh.probeOptions());
    jsm = await jetstreamManager(nc);
  });
  afterAll(async () => {
    await nc?.close();
    await mesh?.close();
  });

  function migrateBus(identity: NatsIdentity, env: Record<string, string> = {}) {
    const run = spawnSync(process.execPath, [join(ROOT, 'dist/tools/migrate.js'), 'bus'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: {
        PATH: process.env.PATH, NATS_URL: mesh.natsUrl, LOG_LEVEL: 'info',
        NATS_NKEY_SEED_FILE: join(mesh.env[MESH_NATS_IDENTITY_DIR] as string, `${identity}.nk`), ...env,
      },
    });
    return { status: run.status, output: `${run.stdout}${run.stderr}` };
  }

  it('as a service identity it is refused by the server and no stream is made', async () => {
    const run = migrateBus('billing', { MIGRATE_WAIT_MS: '1000' });
    expect(run.status).toBe(1);
    expect(run.output).toMatch(/provisioning the EVENTS stream failed/);
    expect(run.output).toMatch(/permission/i);
    await expect(jsm.streams.info('EVENTS')).rejects.toThrow(/not found/i);
  });

  it('creates the stream as declared, leaves it as it is on the next run, and brings a changed stream back to the declaration', async () => {
    expect(migrateBus('operator')).toMatchObject({ status: 0, output: expect.stringContaining('EVENTS stream created') });
    const { config } = await jsm.streams.info('EVENTS');
    expect(config).toMatchObject({ subjects: ['events.>'], max_age: 7 * 24 * HOUR_NS, duplicate_window: nanos(10 * 60 * 1000), num_replicas: 1, max_bytes: -1 });

    expect(migrateBus('operator')).toMatchObject({ status: 0, output: expect.stringContaining('EVENTS stream unchanged') });

    // a stream widened to the workspaces' listen subjects and cut to an hour (what a service's identity could do before)
    await jsm.streams.update('EVENTS', { ...config, subjects: ['events.>', 'webhooks.listen.*'], max_age: HOUR_NS });
    expect(migrateBus('operator')).toMatchObject({ status: 0, output: expect.stringContaining('EVENTS stream updated') });
    expect((await jsm.streams.info('EVENTS')).config).toMatchObject({ subjects: ['events.>'], max_age: 7 * 24 * HOUR_NS });

    // the settings: a byte cap
    expect(migrateBus('operator', { EVENTS_STREAM_MAX_BYTES: '1048576' })).toMatchObject({ status: 0, output: expect.stringContaining('EVENTS stream updated') });
    expect((await jsm.streams.info('EVENTS')).config.max_bytes).toBe(1_048_576);
  });
});
