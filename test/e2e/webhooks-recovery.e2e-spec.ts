import { jetstream } from '@nats-io/jetstream';
import { eventSubject } from '@app/contracts';
import { newId } from '@app/platform/ids';
import { waitFor } from '../../tools/mesh/processes';
import { HttpsReceiver, TestCertificate, testCertificate } from '../../tools/webhooks/https-receiver';
import { TestMesh } from '../harness';

/** The dispatcher dies with SIGKILL mid-burst: its claims lapse, unacknowledged events come back, and every event arrives. */
describe('webhooks recovery', () => {
  let mesh: TestMesh;
  let cert: TestCertificate;
  let receiver: HttpsReceiver;
  let workspaceId: string;

  beforeAll(async () => {
    cert = await testCertificate();
    receiver = await HttpsReceiver.start(cert);
    mesh = await TestMesh.start(['gateway', 'webhooks'], {
      NODE_EXTRA_CA_CERTS: cert.caFile,
      WEBHOOK_ALLOWED_HOSTS: '127.0.0.1,localhost',
      WEBHOOK_TIMEOUT_MS: '2000',
    });
    const ws = await mesh.workspace();
    workspaceId = ws.workspace.id;
    const res = await mesh.request('POST', '/webhook_endpoints', { key: ws.key, body: { url: receiver.url('/burst'), events: ['lead.created'] } });
    expect(res.status).toBe(201);
  }, 60_000);
  afterAll(async () => {
    await mesh?.close();
    await receiver?.close();
    cert?.dispose();
  });

  it('SIGKILL of the dispatcher mid-burst loses no event: the receiver sees every event id at least once', async () => {
    receiver.respond('/burst', () => ({ status: 200, delayMs: 50 }));
    const seen = new Set<string>();
    receiver.on((r) => {
      if (r.path === '/burst') seen.add(JSON.parse(r.rawBody).id);
    });
    const js = jetstream(await mesh.natsClient());
    const ids: string[] = [];
    const publishing = (async () => {
      for (let i = 0; i < 500; i++) {
        const id = newId('evt_');
        ids.push(id);
        const envelope = {
          id, object: 'event', type: 'lead.created', api_version: '2026-09-28', created: new Date().toISOString(), workspace_id: workspaceId,
          livemode: true, data: { object: { id: newId('lead_'), object: 'lead', full_name: `Lead ${i}` } },
        };
        await js.publish(eventSubject('lead.created'), JSON.stringify(envelope), { msgID: id });
      }
    })();
    await waitFor('some deliveries', async () => seen.size >= 100, 15_000, 10);
    await mesh.killApp('webhooks');
    await publishing;
    expect(seen.size).toBeLessThan(500);
    await mesh.startApp('webhooks');
    await waitFor('every event', async () => ids.every((id) => seen.has(id)), 45_000, 100);
    expect(seen.size).toBe(500);
  }, 60_000);
});
