import { TestMesh, meshHookTimeoutMs } from '../harness';
import { allowance } from '../support/timing';

async function metricsOf(port: number): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${port}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toContain('text/plain');
  return res.text();
}

describe('observability: logs and metrics', () => {
  let mesh: TestMesh;
  beforeAll(async () => {
    mesh = await TestMesh.start(['gateway', 'crm', 'webhooks', 'sequences'], { LOG_LEVEL: 'info', EXPORT_POLL_MS: '100' });
  }, meshHookTimeoutMs(4));
  afterAll(() => mesh?.close());

  it('one request id shows in the gateway log line and in the crm log line of the same request', async () => {
    const { key, workspace } = await mesh.workspace();
    const res = await mesh.request('POST', '/leads', { key, body: { full_name: 'Traced Lead' } });
    expect(res.status).toBe(201);
    const requestId = res.headers.get('request-id') as string;
    const deadline = Date.now() + 5000;
    const lineFor = (service: 'gateway' | 'crm') =>
      (mesh.logs.get(service) ?? []).map((l) => { try { return JSON.parse(l); } catch { return null; } }).find((l) => l?.request_id === requestId);
    while (Date.now() < deadline && !(lineFor('gateway') && lineFor('crm'))) await new Promise((r) => setTimeout(r, 50));
    expect(lineFor('gateway')).toMatchObject({ service: 'gateway', request_id: requestId, workspace_id: workspace.id, route: '/api/v1/leads', status: 201 });
    expect(lineFor('crm')).toMatchObject({ service: 'crm', request_id: requestId, workspace_id: workspace.id, subject: 'crm.leads.create', outcome: 'ok' });
  });

  it('exposes the named series on /metrics of every app', async () => {
    const { key } = await mesh.workspace();
    await mesh.request('GET', '/leads', { key });
    await mesh.request('GET', '/leads/lead_missing', { key });
    const gateway = await metricsOf(mesh.apps.get('gateway')!.port);
    expect(gateway).toMatch(/http_requests_total\{[^}]*method="GET"[^}]*route="\/api\/v1\/leads"[^}]*status="200"[^}]*\} \d+/);
    expect(gateway).toMatch(/http_request_duration_seconds_bucket\{[^}]*route="\/api\/v1\/leads\/:id"[^}]*status="404"/);
    expect(gateway).toMatch(/nats_request_duration_seconds_count\{[^}]*subject="crm.leads.list"[^}]*outcome="ok"[^}]*\} \d+/);
    expect(gateway).toMatch(/nats_request_duration_seconds_count\{[^}]*subject="crm.leads.get"[^}]*outcome="domain_error"/);
    expect(gateway).toMatch(/outbox_pending_events\{service="gateway"\} \d+/);

    const crm = await metricsOf(mesh.apps.get('crm')!.port);
    expect(crm).toMatch(/rpc_handler_duration_seconds_count\{[^}]*subject="crm.leads.list"[^}]*outcome="ok"[^}]*\} \d+/);
    expect(crm).toMatch(/outbox_pending_events\{service="crm"\} \d+/);
    expect(crm).toMatch(/outbox_oldest_pending_seconds\{service="crm"\} /);
    expect(crm).toMatch(/process_resident_memory_bytes\{service="crm"\} \d+/);
  });

  it('exposes export durations, webhook delivery outcomes and sending engine throughput', async () => {
    const { key } = await mesh.workspace();
    const queued = await mesh.request('POST', '/exports', { key, body: { format: 'csv' } });
    expect(queued.status).toBe(202);
    const deadline = Date.now() + allowance(20_000);
    let status = queued.body.status;
    while (status !== 'completed' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      status = (await mesh.request('GET', `/exports/${queued.body.id}`, { key })).body.status;
    }
    expect(status).toBe('completed');
    expect(await metricsOf(mesh.apps.get('crm')!.port)).toMatch(/export_duration_seconds_count\{[^}]*format="csv"[^}]*outcome="completed"[^}]*\} 1/);
    expect(await metricsOf(mesh.apps.get('webhooks')!.port)).toMatch(/# TYPE webhook_delivery_attempts_total counter/);
    expect(await metricsOf(mesh.apps.get('sequences')!.port)).toMatch(/# TYPE sequences_smtp_handoffs_total counter/);
  });
});
