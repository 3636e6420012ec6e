import { jetstream } from '@nats-io/jetstream';
import { eventSubject } from '@app/contracts/subjects';
import { newId } from '@app/platform/ids';
import { freePort, httpReady, RunningApp, spawnApp, stopApp, waitFor } from '../../../tools/mesh/processes';
import { HttpsReceiver, TestCertificate, testCertificate } from '../../../tools/webhooks/https-receiver';
import { HARNESS, meshHookTimeoutMs, TestMesh } from '../../harness';
import { allowance } from '../../support/timing';

/**
 * The dispatcher dies with SIGKILL mid-burst: its claims lapse, unacknowledged events come back,
 * and every event arrives. Two dispatcher replicas share the work and never send one attempt twice.
 */
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
  }, meshHookTimeoutMs(2));
  let second: RunningApp | undefined;
  afterAll(async () => {
    if (second) await stopApp(second, 3000);
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
    await waitFor('some deliveries', async () => seen.size >= 100, allowance(15_000), 10);
    await mesh.killApp('webhooks');
    await publishing;
    expect(seen.size).toBeLessThan(500);
    await mesh.startApp('webhooks');
    await waitFor('every event', async () => ids.every((id) => seen.has(id)), allowance(45_000), 100);
    expect(seen.size).toBe(500);
  });

  it('two dispatcher replicas: both send, every event once, one attempt each', async () => {
    // the second replica has room for 4 attempts per endpoint, so most of its deliveries go
    // through the claim query; the first claims fresh ones in its fan-out and claims the rest too
    second = spawnApp('webhooks', { ...mesh.env, WEBHOOK_ENDPOINT_CONCURRENCY: '4' }, await freePort(), () => undefined);
    await waitFor('second webhooks replica', () => httpReady((second as RunningApp).port), HARNESS.readyTimeoutMs);
    const ws = await mesh.workspace();
    const res = await mesh.request('POST', '/webhook_endpoints', { key: ws.key, body: { url: receiver.url('/replicas'), events: ['*'] } });
    expect(res.status).toBe(201);
    receiver.respond('/replicas', () => ({ status: 200, delayMs: 20 }));
    const successes = async (port: number) => {
      const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      return Number(/^webhook_delivery_attempts_total\{[^}]*outcome="success"[^}]*\} (\d+)/m.exec(text)?.[1] ?? 0);
    };
    const first = mesh.apps.get('webhooks') as RunningApp;
    await waitFor('earlier outcomes recorded', async () => {
      const [row] = await mesh.query('webhooks', `SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'pending'`);
      return row.n === 0;
    }, allowance(15_000), 100);
    const firstBefore = await successes(first.port);
    const secondBefore = await successes(second.port);
    const js = jetstream(await mesh.natsClient());
    const ids: string[] = [];
    await Promise.all(Array.from({ length: 600 }, () => {
      const id = newId('evt_');
      ids.push(id);
      const envelope = {
        id, object: 'event', type: 'lead.created', api_version: '2026-09-28', created: new Date().toISOString(), workspace_id: ws.workspace.id,
        livemode: true, data: { object: { id: newId('lead_'), object: 'lead', full_name: 'Replica Lead' } },
      };
      return js.publish(eventSubject('lead.created'), JSON.stringify(envelope), { msgID: id });
    }));
    await waitFor('every event', async () => receiver.at('/replicas').length >= 600, allowance(45_000), 50);
    await new Promise((r) => setTimeout(r, 1000)); // a duplicate would have arrived by now
    const requests = receiver.at('/replicas').map((r) => JSON.parse(r.rawBody).id as string);
    expect(requests).toHaveLength(600);
    expect(new Set(requests)).toEqual(new Set(ids));
    await waitFor('outcomes recorded', async () => {
      const [row] = await mesh.query('webhooks', `SELECT count(*)::int AS n FROM webhook_attempts WHERE endpoint_id = $1`, [res.body.id]);
      return row.n === 600;
    }, allowance(15_000), 100);
    const attempts = await mesh.query('webhooks', `SELECT attempt, outcome FROM webhook_attempts WHERE endpoint_id = $1`, [res.body.id]);
    expect(attempts.every((a) => a.attempt === 1 && a.outcome === 'succeeded')).toBe(true);
    const deliveries = await mesh.query('webhooks', `SELECT status, attempts FROM webhook_deliveries WHERE endpoint_id = $1`, [res.body.id]);
    expect(deliveries).toHaveLength(600);
    expect(deliveries.every((d) => d.status === 'succeeded' && d.attempts === 1)).toBe(true);
    // each replica's count of successful attempts: both took part, and together they made 600
    const firstAfter = await successes(first.port);
    const secondAfter = await successes(second.port);
    expect(firstAfter - firstBefore).toBeGreaterThan(0);
    expect(secondAfter - secondBefore).toBeGreaterThan(0);
    expect(firstAfter - firstBefore + secondAfter - secondBefore).toBe(600);
  });
});
