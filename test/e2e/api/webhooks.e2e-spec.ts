import Stripe from 'stripe';
import { SUBJECTS } from '@app/contracts/subjects';
import { waitFor } from '../../../tools/mesh/processes';
import { HttpsReceiver, TestCertificate, testCertificate } from '../../../tools/webhooks/https-receiver';
import { startDns } from '../../../tools/mesh/mail-peers';
import { meshHookTimeoutMs, TestMesh } from '../../harness';
import { createLead } from '../../support/leads';
import { publishEvents as publishEventsTo } from '../../support/webhook-events';
import { expectApiError } from '../../support/gateway-assertions';
import { allowance } from '../../support/timing';

type Workspace = Awaited<ReturnType<TestMesh['workspace']>>;

const stripe = new Stripe('sk_test_unused');
const MINUTE = 60_000;

/** Webhook endpoints through the gateway and the dispatcher's deliveries to a local HTTPS receiver. */
describe('webhooks end to end', () => {
  let mesh: TestMesh;
  let cert: TestCertificate;
  let receiver: HttpsReceiver;
  let dns: Awaited<ReturnType<typeof startDns>>;
  const ws: Record<'api' | 'deliver' | 'modes' | 'retry' | 'disable' | 'guard' | 'limit' | 'race', Workspace> = {} as any;

  beforeAll(async () => {
    cert = await testCertificate();
    receiver = await HttpsReceiver.start(cert);
    // the names receivers' URLs use, as the webhooks service resolves them at each connection
    dns = await startDns({ a: { 'internal.test': '10.0.0.5', 'metadata.test': '169.254.169.254', 'cgnat.test': '100.64.0.1' }, authority: ['.test'] });
    mesh = await TestMesh.start(['gateway', 'crm', 'webhooks'], {
      NODE_EXTRA_CA_CERTS: cert.caFile,
      WEBHOOK_ALLOWED_HOSTS: '127.0.0.1,localhost',
      WEBHOOK_DNS_SERVERS: dns.server,
      WEBHOOK_TEST_CLOCK: '1',
      WEBHOOK_TIMEOUT_MS: '2000',
      WEBHOOK_SECRET_KEY: 'a'.repeat(64),
    });
    await Promise.all((Object.keys({ api: 1, deliver: 1, modes: 1, retry: 1, disable: 1, guard: 1, limit: 1, race: 1 }) as Array<keyof typeof ws>).map(async (name) => {
      ws[name] = await mesh.workspace();
    }));
  }, meshHookTimeoutMs(3));
  afterAll(async () => {
    await mesh?.close();
    await receiver?.close();
    await dns?.close();
    cert?.dispose();
  });

  const createEndpoint = async (w: Workspace, path: string, events: string[] = ['*'], key = w.key) => {
    const res = await mesh.request('POST', '/webhook_endpoints', { key, body: { url: receiver.url(path), events } });
    expect({ status: res.status, body: res.body }).toMatchObject({ status: 201, body: { secret: expect.stringMatching(/^whsec_/) } });
    return res.body as { id: string; secret: string };
  };
  const advance = (ms: number) => mesh.rpc(SUBJECTS.webhooks.testClockAdvance, {}, { ms });
  const attempts = async (endpointId: string) =>
    (await mesh.query('webhooks', 'SELECT count(*)::int AS n FROM webhook_attempts WHERE endpoint_id = $1', [endpointId]))[0].n as number;
  const until = (what: string, check: () => boolean | Promise<boolean>, ms = allowance(15_000)) => waitFor(what, async () => check(), ms, 50);
  /** Events straight into the stream, as any service's outbox relay publishes them. */
  const publishEvents = (workspaceId: string, n: number, type = 'lead.created') => publishEventsTo(mesh, workspaceId, n, type);

  describe('GET/POST/DELETE /webhook_endpoints', () => {
    it('a member key is 403 permission_denied; owners and admins may', async () => {
      const member = await mesh.admin('member:add', '--workspace', ws.api.workspace.id, '--role', 'member');
      const admin = await mesh.admin('member:add', '--workspace', ws.api.workspace.id, '--role', 'admin');
      const memberKey = (await mesh.key(ws.api.workspace.id, 'live', { member: member.id })).key;
      const adminKey = (await mesh.key(ws.api.workspace.id, 'live', { member: admin.id })).key;
      const body = { url: receiver.url('/api'), events: ['lead.created'] };
      expectApiError(await mesh.request('POST', '/webhook_endpoints', { key: memberKey, body }), 403, 'permission_denied');
      expectApiError(await mesh.request('GET', '/webhook_endpoints', { key: memberKey }), 403, 'permission_denied');
      expect((await mesh.request('POST', '/webhook_endpoints', { key: adminKey, body })).status).toBe(201);
    });

    it.each<[string, object, string]>([
      ['http URL', { url: 'http://example.com/hook', events: ['*'] }, 'url'],
      ['not a URL', { url: 'example', events: ['*'] }, 'url'],
      ['no events', { url: 'https://example.com/hook', events: [] }, 'events'],
      ['unknown event type', { url: 'https://example.com/hook', events: ['lead.exploded'] }, 'events'],
      ['internal event type', { url: 'https://example.com/hook', events: ['workspace.created'] }, 'events'],
      ['* with others', { url: 'https://example.com/hook', events: ['*', 'lead.created'] }, 'events'],
      ['description over 200', { url: 'https://example.com/hook', events: ['*'], description: 'x'.repeat(201) }, 'description'],
    ])('%s -> 400', async (_label, body, param) => {
      expectApiError(await mesh.request('POST', '/webhook_endpoints', { key: ws.api.key, body }), 400, 'invalid_request', param);
    });

    // Spec, Events: deliveries go to HTTPS endpoints; a literal private, loopback, link-local or
    // metadata address can never receive one, so it is refused at once (unless allow-listed).
    it.each([
      'https://169.254.169.254/latest/meta-data',
      'https://10.0.0.5/hook',
      'https://192.168.1.20:8443/hook',
      'https://172.16.4.4/',
      'https://100.64.0.1/',
      'https://0.0.0.0/',
      'https://2852039166/',
      'https://[::ffff:169.254.169.254]/',
      'https://[fe80::1]/hook',
      'https://[fd00::1]/hook',
      'https://[::1]/hook',
      // IPv6 forms that embed an IPv4 address, and other special-purpose ranges (issue 34)
      'https://[::127.0.0.1]/',
      'https://[::ffff:7f00:1]/',
      'https://[::ffff:0:7f00:1]/',
      'https://[64:ff9b::7f00:1]/',
      'https://[64:ff9b:1::a00:1]/',
      'https://[2002:a9fe:a9fe::1]/',
      'https://[2001::a9fe:a9fe]/',
      'https://[fec0::1]/',
      'https://192.88.99.1/',
      'https://198.18.0.1/',
      'https://203.0.113.7/',
      'https://240.0.0.1/',
      // odd spellings of 10.0.0.1 that WHATWG URL reads as it (127.0.0.1 is allow-listed here)
      'https://167772161/',
      'https://0xa.1/',
      'https://012.0.0.1/',
      'https://10.1/',
    ])('a URL on the literal address %s is 400 naming url, nothing created', async (url) => {
      const before = await mesh.query('webhooks', 'SELECT count(*)::int AS n FROM webhook_endpoints WHERE workspace_id = $1', [ws.api.workspace.id]);
      const res = await mesh.request('POST', '/webhook_endpoints', { key: ws.api.key, body: { url, events: ['*'] } });
      expectApiError(res, 400, 'invalid_request', 'url');
      const after = await mesh.query('webhooks', 'SELECT count(*)::int AS n FROM webhook_endpoints WHERE workspace_id = $1', [ws.api.workspace.id]);
      expect(after[0].n).toBe(before[0].n);
    });

    it('an allow-listed literal (WEBHOOK_ALLOWED_HOSTS) and host names (judged at delivery) are accepted', async () => {
      for (const url of [receiver.url('/api/allowed'), 'https://metadata.internal.example/hook', 'https://93.184.216.34/hook']) {
        const res = await mesh.request('POST', '/webhook_endpoints', { key: ws.api.key, body: { url, events: ['*'] } });
        expect({ url, status: res.status }).toEqual({ url, status: 201 });
      }
    });

    // Spec, Errors: a failed attempt records its error; which internal names resolve, and to what,
    // is not the caller's to learn, so a name with no public address reads as one that does not resolve.
    it('a host name resolving to an internal address at connection is refused, recorded as "refused: not a public address" like a name that does not resolve', async () => {
      const hooks = await Promise.all(['internal.test', 'metadata.test', 'cgnat.test', 'missing.test'].map(async (host) => {
        const res = await mesh.request('POST', '/webhook_endpoints', { key: ws.guard.key, body: { url: `https://${host}/hook`, events: ['*'] } });
        expect({ host, status: res.status }).toEqual({ host, status: 201 });
        return { host, id: res.body.id as string };
      }));
      await publishEvents(ws.guard.workspace.id, 1);
      for (const { id } of hooks) await until(`the attempt of ${id}`, async () => (await attempts(id)) === 1);
      const recorded = await Promise.all(hooks.map(async ({ host, id }) => {
        const [delivery] = (await mesh.request('GET', `/webhook_endpoints/${id}/deliveries`, { key: ws.guard.key })).body.data;
        return { host, status: delivery.status, attempts: delivery.attempts.map((a: any) => ({ outcome: a.outcome, status_code: a.status_code, error: a.error })) };
      }));
      expect(recorded).toEqual(hooks.map(({ host }) => ({
        host, status: 'pending', attempts: [{ outcome: 'failed', status_code: null, error: 'refused: not a public address' }],
      })));
    });

    // Issue 34, item 8: one event fans out to a bounded number of URLs (the spec leaves the number open).
    it('a workspace has at most 16 endpoints, live and test keys\' together: the 17th is 400 invalid_request and creates nothing; deleting one makes room', async () => {
      const count = async (w: Workspace) =>
        (await mesh.query('webhooks', 'SELECT count(*)::int AS n FROM webhook_endpoints WHERE workspace_id = $1', [w.workspace.id]))[0].n as number;
      const testKey = (await mesh.key(ws.limit.workspace.id, 'test')).key as string;
      const made: string[] = [];
      for (let i = 0; i < 16; i++) {
        const res = await mesh.request('POST', '/webhook_endpoints', { key: i % 2 ? testKey : ws.limit.key, body: { url: `https://hooks.example.com/${i}`, events: ['*'] } });
        expect({ i, status: res.status }).toEqual({ i, status: 201 });
        made.push(res.body.id);
      }
      for (const key of [ws.limit.key, testKey]) {
        const refused = await mesh.request('POST', '/webhook_endpoints', { key, body: { url: 'https://hooks.example.com/17', events: ['*'] } });
        expectApiError(refused, 400, 'invalid_request');
        expect(refused.body.error.message).toContain('at most 16 webhook endpoints');
      }
      expect(await count(ws.limit)).toBe(16);
      // a create asked again with its Idempotency-Key still answers its endpoint at the limit
      const headers = { 'idempotency-key': 'limit-replay' };
      await mesh.request('DELETE', `/webhook_endpoints/${made[0]}`, { key: ws.limit.key });
      const last = await mesh.request('POST', '/webhook_endpoints', { key: ws.limit.key, body: { url: 'https://hooks.example.com/last', events: ['*'] }, headers });
      expect(last.status).toBe(201);
      const replay = await mesh.request('POST', '/webhook_endpoints', { key: ws.limit.key, body: { url: 'https://hooks.example.com/last', events: ['*'] }, headers });
      expect({ status: replay.status, id: replay.body.id }).toEqual({ status: 201, id: last.body.id });
      expect(await count(ws.limit)).toBe(16);
    });

    it('creates at once cannot pass the limit together: of 24 sent at once, 16 are made', async () => {
      const results = await Promise.all(Array.from({ length: 24 }, (_, i) =>
        mesh.request('POST', '/webhook_endpoints', { key: ws.race.key, body: { url: `https://hooks.example.com/race/${i}`, events: ['*'] } })));
      const statuses = results.map((r) => r.status).sort();
      expect({ made: statuses.filter((s) => s === 201).length, refused: statuses.filter((s) => s === 400).length }).toEqual({ made: 16, refused: 8 });
      for (const res of results.filter((r) => r.status === 400)) expectApiError(res, 400, 'invalid_request');
      const [{ n }] = await mesh.query('webhooks', 'SELECT count(*)::int AS n FROM webhook_endpoints WHERE workspace_id = $1', [ws.race.workspace.id]);
      expect(n).toBe(16);
    });

    it('201 with the secret once; GET lists without secrets; the same Idempotency-Key returns the same endpoint; DELETE then 404', async () => {
      const body = { url: 'https://hooks.example.com/in', events: ['lead.created', 'lead.updated'], description: 'CRM sync' };
      const headers = { 'idempotency-key': 'we-create-1' };
      const first = await mesh.request('POST', '/webhook_endpoints', { key: ws.api.key, body, headers });
      expect(first.status).toBe(201);
      expect(first.body).toEqual({
        id: expect.stringMatching(/^we_/), object: 'webhook_endpoint', url: body.url, description: 'CRM sync', events: body.events,
        status: 'enabled', created_at: expect.any(String), secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{40,}$/),
      });
      const again = await mesh.request('POST', '/webhook_endpoints', { key: ws.api.key, body, headers });
      expect(again.body).toEqual(first.body);
      const stored = await mesh.query('webhooks', 'SELECT secret_enc FROM webhook_endpoints WHERE id = $1', [first.body.id]);
      expect(stored[0].secret_enc).not.toContain(first.body.secret.slice(6));
      const list = await mesh.request('GET', '/webhook_endpoints?limit=100', { key: ws.api.key });
      expect(list.status).toBe(200);
      const listed = list.body.data.find((e: any) => e.id === first.body.id);
      expect(listed).toEqual({ ...first.body, secret: undefined });
      expect(list.text).not.toContain('whsec_');
      await mesh.request('POST', '/webhook_endpoints', { key: ws.api.key, body: { url: 'https://hooks.example.com/two', events: ['*'] } });
      const page = await mesh.request('GET', '/webhook_endpoints?limit=1', { key: ws.api.key });
      expect(page.body).toMatchObject({ object: 'list', has_more: true, next_cursor: expect.any(String) });
      const del = await mesh.request('DELETE', `/webhook_endpoints/${first.body.id}`, { key: ws.api.key });
      expect(del.body).toEqual({ id: first.body.id, object: 'webhook_endpoint', deleted: true });
      expectApiError(await mesh.request('DELETE', `/webhook_endpoints/${first.body.id}`, { key: ws.api.key }), 404, 'not_found');
    });
  });

  describe('deliveries', () => {
    it('a lead created through the API reaches the endpoint signed; the stripe package verifies the signature', async () => {
      const all = await createEndpoint(ws.deliver, '/deliver/all');
      const updatesOnly = await createEndpoint(ws.deliver, '/deliver/updates', ['lead.updated']);
      const lead = await createLead(mesh, ws.deliver.key, { full_name: 'Hook Target' });
      await until('the delivery', () => receiver.at('/deliver/all').length === 1);
      const [req] = receiver.at('/deliver/all');
      const event = stripe.webhooks.constructEvent(req.rawBody, req.headers['service-signature'] as string, all.secret) as any;
      expect(event).toMatchObject({
        id: expect.stringMatching(/^evt_/), object: 'event', type: 'lead.created', api_version: '2026-09-28',
        workspace_id: ws.deliver.workspace.id, livemode: true, data: { object: { id: lead.id, object: 'lead' } },
      });
      expect(req.headers['content-type']).toBe('application/json');
      expect(() => stripe.webhooks.constructEvent(req.rawBody, req.headers['service-signature'] as string, updatesOnly.secret)).toThrow();
      expect(() => stripe.webhooks.constructEvent(req.rawBody.replace('Hook', 'Hack'), req.headers['service-signature'] as string, all.secret)).toThrow();
      expect(receiver.at('/deliver/updates')).toHaveLength(0);
      await mesh.request('PATCH', `/leads/${lead.id}`, { key: ws.deliver.key, body: { title: 'CTO' } });
      await until('the update', () => receiver.at('/deliver/updates').length === 1);
      const update = receiver.at('/deliver/updates')[0];
      const updated = stripe.webhooks.constructEvent(update.rawBody, update.headers['service-signature'] as string, updatesOnly.secret) as any;
      expect(updated).toMatchObject({ type: 'lead.updated', data: { object: { id: lead.id, title: 'CTO' }, previous_attributes: expect.any(Object) } });
    });

    // Spec, Events: each event goes to each enabled endpoint subscribed to its type; `livemode`
    // in the envelope, not the key that created the endpoint, tells test events apart.
    it('every endpoint receives live and test events alike, whatever the mode of the key that created it', async () => {
      const testKey = (await mesh.key(ws.modes.workspace.id, 'test')).key as string;
      const byLive = await createEndpoint(ws.modes, '/modes/by-live');
      const byTest = await createEndpoint(ws.modes, '/modes/by-test', ['lead.created'], testKey);
      const testLead = await createLead(mesh, testKey, { full_name: 'Test Mode Lead' });
      const liveLead = await createLead(mesh, ws.modes.key, { full_name: 'Live Mode Lead' });
      for (const [path, secret] of [['/modes/by-live', byLive.secret], ['/modes/by-test', byTest.secret]] as const) {
        await until(`both events at ${path}`, () => receiver.at(path).length === 2);
        const events = receiver.at(path).map((req) => stripe.webhooks.constructEvent(req.rawBody, req.headers['service-signature'] as string, secret) as any);
        const livemodeOf = Object.fromEntries(events.map((e) => [e.data.object.id, e.livemode]));
        expect({ path, livemodeOf }).toEqual({ path, livemodeOf: { [testLead.id]: false, [liveLead.id]: true } });
      }
    });

    it('a 3xx is a failure: the redirect is not followed', async () => {
      const hook = await createEndpoint(ws.deliver, '/deliver/redirect');
      receiver.respond('/deliver/redirect', () => ({ status: 302, headers: { location: receiver.url('/deliver/redirected') } }));
      await publishEvents(ws.deliver.workspace.id, 1);
      await until('the failed attempt', async () => (await attempts(hook.id)) === 1);
      const listed = await mesh.admin('deliveries:list', '--endpoint', hook.id);
      expect(listed.attempts[0]).toMatchObject({ status_code: 302, outcome: 'failed', delivery_status: 'pending', attempt: 1 });
      expect(receiver.at('/deliver/redirected')).toHaveLength(0);
    });
  });

  describe('retries on a movable clock', () => {
    it('about 1 min, then 5 min after the previous attempt, with the same event id; success ends the delivery', async () => {
      const hook = await createEndpoint(ws.retry, '/retry/flaky');
      let status = 500;
      receiver.respond('/retry/flaky', () => ({ status }));
      const [eventId] = await publishEvents(ws.retry.workspace.id, 1);
      await until('attempt 1', () => receiver.at('/retry/flaky').length === 1);
      await until('attempt 1 recorded', async () => (await attempts(hook.id)) === 1);
      const [row] = await mesh.query('webhooks', `SELECT extract(epoch FROM next_attempt_at - (SELECT max(attempted_at) FROM webhook_attempts WHERE endpoint_id = $1))::float AS gap
         FROM webhook_deliveries WHERE endpoint_id = $1`, [hook.id]);
      const gapS = row.gap as number;
      expect(gapS).toBeGreaterThan(52);
      expect(gapS).toBeLessThan(68);
      await advance(45_000);
      await new Promise((r) => setTimeout(r, 1500));
      expect(receiver.at('/retry/flaky')).toHaveLength(1);
      await advance(25_000);
      await until('attempt 2', () => receiver.at('/retry/flaky').length === 2);
      await until('attempt 2 recorded', async () => (await attempts(hook.id)) === 2);
      await advance(4 * MINUTE);
      await new Promise((r) => setTimeout(r, 1500));
      expect(receiver.at('/retry/flaky')).toHaveLength(2);
      status = 204;
      await advance(MINUTE + 20_000);
      await until('attempt 3', () => receiver.at('/retry/flaky').length === 3);
      const ids = receiver.at('/retry/flaky').map((r) => JSON.parse(r.rawBody).id);
      expect(new Set(ids)).toEqual(new Set([eventId]));
      await until('success recorded', async () =>
        (await mesh.query('webhooks', `SELECT status FROM webhook_deliveries WHERE endpoint_id = $1`, [hook.id]))[0].status === 'succeeded');
      await advance(60 * MINUTE);
      await new Promise((r) => setTimeout(r, 1000));
      expect(receiver.at('/retry/flaky')).toHaveLength(3);
    });

    it('DELETE drops the retries: nothing more is sent', async () => {
      const hook = await createEndpoint(ws.retry, '/retry/deleted');
      receiver.respond('/retry/deleted', () => ({ status: 503 }));
      await publishEvents(ws.retry.workspace.id, 3);
      await until('first attempts', async () => (await attempts(hook.id)) === 3);
      expect((await mesh.request('DELETE', `/webhook_endpoints/${hook.id}`, { key: ws.retry.key })).status).toBe(200);
      await advance(24 * 60 * MINUTE);
      await new Promise((r) => setTimeout(r, 1500));
      expect(receiver.at('/retry/deleted')).toHaveLength(3);
      expect(await mesh.query('webhooks', 'SELECT id FROM webhook_deliveries WHERE endpoint_id = $1', [hook.id])).toHaveLength(0);
    });

    it('100 failed deliveries in a row disable the endpoint; webhook:enable switches it back on with the count restarted', async () => {
      const hook = await createEndpoint(ws.disable, '/disable/down');
      receiver.respond('/disable/down', () => ({ status: 500 }));
      await publishEvents(ws.disable.workspace.id, 100);
      const steps = [60, 300, 1800, 7200, 21_600, 54_000];
      await until('first attempts', async () => (await attempts(hook.id)) === 100, allowance(20_000));
      for (let i = 0; i < steps.length; i++) {
        await advance(Math.ceil(steps[i] * 1.11) * 1000);
        await until(`attempts round ${i + 2}`, async () => (await attempts(hook.id)) === 100 * (i + 2), allowance(20_000));
      }
      await until('disabled', async () =>
        (await mesh.query('webhooks', 'SELECT status FROM webhook_endpoints WHERE id = $1', [hook.id]))[0].status === 'disabled');
      const [{ failed }] = await mesh.query('webhooks', `SELECT count(*)::int AS failed FROM webhook_deliveries WHERE endpoint_id = $1 AND status = 'failed'`, [hook.id]);
      expect(failed).toBe(100);
      const list = await mesh.request('GET', '/webhook_endpoints', { key: ws.disable.key });
      expect(list.body.data.find((e: any) => e.id === hook.id).status).toBe('disabled');
      const seen = receiver.at('/disable/down').length;
      await publishEvents(ws.disable.workspace.id, 2);
      await new Promise((r) => setTimeout(r, 1500));
      expect(receiver.at('/disable/down')).toHaveLength(seen);
      receiver.respond('/disable/down', () => ({ status: 200 }));
      const enabled = await mesh.admin('webhook:enable', '--endpoint', hook.id);
      expect(enabled).toMatchObject({ id: hook.id, status: 'enabled' });
      const [row] = await mesh.query('webhooks', 'SELECT consecutive_failures FROM webhook_endpoints WHERE id = $1', [hook.id]);
      expect(row.consecutive_failures).toBe(0);
      await publishEvents(ws.disable.workspace.id, 1);
      await until('delivered again', () => receiver.at('/disable/down').length === seen + 1);
    });
  });
});
