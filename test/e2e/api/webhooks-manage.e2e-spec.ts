import Stripe from 'stripe';
import { SUBJECTS } from '@app/contracts/subjects';
import { waitFor } from '../../../tools/mesh/processes';
import { HttpsReceiver, TestCertificate } from '../../../tools/webhooks/https-receiver';
import { meshHookTimeoutMs, TestMesh } from '../../harness';
import { publishEvents } from '../../support/webhook-events';
import { expectApiError } from '../../support/gateway-assertions';
import { closeWebhooksFixture, deleteEndpoints, startWebhooksFixture, Workspace } from '../../support/webhooks-fixture';
import { allowance } from '../../support/timing';

const stripe = new Stripe('sk_test_unused');
const HOUR = 3_600_000;

/**
 * Issue 24, item 2: GET and PATCH /webhook_endpoints/{id} and POST .../secret/roll through the
 * gateway, on a real mesh delivering to a local HTTPS receiver.
 */
describe('webhook endpoints: retrieve, update, roll the secret', () => {
  let mesh: TestMesh;
  let cert: TestCertificate;
  let receiver: HttpsReceiver;
  let ws: Workspace;
  let other: Workspace;
  let testKey: string;

  beforeAll(async () => {
    ({ mesh, cert, receiver, ws, other, testKey } = await startWebhooksFixture({
      WEBHOOK_TEST_CLOCK: '1',
      WEBHOOK_TIMEOUT_MS: '2000',
      WEBHOOK_SECRET_KEY: 'b'.repeat(64),
    }));
  }, meshHookTimeoutMs(2)); // the webhooks fixture: a gateway and the webhooks service
  afterAll(() => closeWebhooksFixture({ mesh, cert, receiver }));
  // each test makes its own endpoints; a workspace has at most 16
  afterEach(() => deleteEndpoints(mesh, ws.workspace.id));

  const createEndpoint = async (path: string, events: string[] = ['*'], description?: string) => {
    const res = await mesh.request('POST', '/webhook_endpoints', { key: ws.key, body: { url: receiver.url(path), events, description } });
    expect(res.status).toBe(201);
    return res.body as { id: string; secret: string; url: string; events: string[]; description: string | null; status: string; created_at: string };
  };
  const until = (what: string, check: () => boolean | Promise<boolean>, ms = allowance(15_000)) => waitFor(what, async () => check(), ms, 50);
  const endpointRow = async (id: string) => (await mesh.query('webhooks', 'SELECT status, consecutive_failures FROM webhook_endpoints WHERE id = $1', [id]))[0];
  const signaturesOf = (header: string) => header.split(',').filter((p) => p.startsWith('v1=')).length;

  describe('GET /webhook_endpoints/{id}', () => {
    it('returns the endpoint without its secret, to live and test keys of its workspace; 404 elsewhere', async () => {
      const created = await createEndpoint('/get', ['lead.created'], 'CRM sync');
      const { secret, ...endpoint } = created;
      for (const key of [ws.key, testKey]) {
        const res = await mesh.request('GET', `/webhook_endpoints/${created.id}`, { key });
        expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: endpoint });
        expect(res.text).not.toContain('whsec_');
        expect(res.text).not.toContain(secret);
      }
      expectApiError(await mesh.request('GET', `/webhook_endpoints/${created.id}`, { key: other.key }), 404, 'not_found');
      expectApiError(await mesh.request('GET', '/webhook_endpoints/we_missing', { key: ws.key }), 404, 'not_found');
      expectApiError(await mesh.request('GET', `/webhook_endpoints/${'x'.repeat(300)}`, { key: ws.key }), 404, 'not_found');
      await mesh.request('DELETE', `/webhook_endpoints/${created.id}`, { key: ws.key });
      expectApiError(await mesh.request('GET', `/webhook_endpoints/${created.id}`, { key: ws.key }), 404, 'not_found');
    });

    it('a member key is 403 permission_denied on GET, PATCH and roll', async () => {
      const created = await createEndpoint('/member');
      const member = await mesh.admin('member:add', '--workspace', ws.workspace.id, '--role', 'member');
      const memberKey = (await mesh.key(ws.workspace.id, 'live', { member: member.id })).key;
      expectApiError(await mesh.request('GET', `/webhook_endpoints/${created.id}`, { key: memberKey }), 403, 'permission_denied');
      expectApiError(await mesh.request('PATCH', `/webhook_endpoints/${created.id}`, { key: memberKey, body: { description: 'x' } }), 403, 'permission_denied');
      expectApiError(await mesh.request('POST', `/webhook_endpoints/${created.id}/secret/roll`, { key: memberKey }), 403, 'permission_denied');
    });
  });

  describe('PATCH /webhook_endpoints/{id}', () => {
    it('changes only the fields sent; null clears the description; the new URL and events apply to the next event', async () => {
      const created = await createEndpoint('/patch/a', ['lead.created'], 'first');
      const res = await mesh.request('PATCH', `/webhook_endpoints/${created.id}`, { key: testKey, body: { url: receiver.url('/patch/b'), events: ['lead.updated', 'lead.updated'] } });
      expect({ status: res.status, body: res.body }).toEqual({
        status: 200,
        body: { id: created.id, object: 'webhook_endpoint', url: receiver.url('/patch/b'), events: ['lead.updated'], description: 'first', status: 'enabled', created_at: created.created_at },
      });
      const cleared = await mesh.request('PATCH', `/webhook_endpoints/${created.id}`, { key: ws.key, body: { description: null } });
      expect(cleared.body).toEqual({ ...res.body, description: null });
      const unchanged = await mesh.request('PATCH', `/webhook_endpoints/${created.id}`, { key: ws.key, body: {} });
      expect(unchanged.body).toEqual(cleared.body);
      expect((await mesh.request('GET', `/webhook_endpoints/${created.id}`, { key: ws.key })).body).toEqual(cleared.body);

      await publishEvents(mesh, ws.workspace.id, 1, 'lead.created');
      const [updated] = await publishEvents(mesh, ws.workspace.id, 1, 'lead.updated');
      await until('the lead.updated delivery at the new URL', () => receiver.at('/patch/b').length === 1);
      const [req] = receiver.at('/patch/b');
      expect(JSON.parse(req.rawBody)).toMatchObject({ id: updated, type: 'lead.updated' });
      await new Promise((r) => setTimeout(r, 500));
      expect(receiver.at('/patch/b')).toHaveLength(1);
      expect(receiver.at('/patch/a')).toHaveLength(0);
    });

    it.each<[string, object, string]>([
      ['http URL', { url: 'http://example.com/hook' }, 'url'],
      ['not a URL', { url: 'example' }, 'url'],
      ['a private literal address', { url: 'https://10.0.0.5/hook' }, 'url'],
      ['IPv4-compatible IPv6 of 127.0.0.1', { url: 'https://[::127.0.0.1]/' }, 'url'],
      ['IPv4-mapped IPv6 of 127.0.0.1', { url: 'https://[::ffff:7f00:1]/' }, 'url'],
      ['NAT64 of 127.0.0.1', { url: 'https://[64:ff9b::7f00:1]/' }, 'url'],
      ['6to4 of 169.254.169.254', { url: 'https://[2002:a9fe:a9fe::1]/' }, 'url'],
      ['site-local IPv6', { url: 'https://[fec0::1]/' }, 'url'],
      ['10.0.0.1 spelled in decimal', { url: 'https://167772161/' }, 'url'],
      ['10.0.0.1 spelled short in hex', { url: 'https://0xa.1/' }, 'url'],
      ['url null', { url: null }, 'url'],
      ['no events', { events: [] }, 'events'],
      ['unknown event type', { events: ['lead.exploded'] }, 'events'],
      ['internal event type', { events: ['workspace.created'] }, 'events'],
      ['* with others', { events: ['*', 'lead.created'] }, 'events'],
      ['description over 200', { description: 'x'.repeat(201) }, 'description'],
      ['unknown status', { status: 'paused' }, 'status'],
      ['status null', { status: null }, 'status'],
    ])('%s -> 400 naming the field, nothing changed', async (_label, body, param) => {
      const created = await createEndpoint('/patch/invalid', ['lead.created'], 'kept');
      expectApiError(await mesh.request('PATCH', `/webhook_endpoints/${created.id}`, { key: ws.key, body }), 400, 'invalid_request', param);
      const { secret: _secret, ...endpoint } = created;
      expect((await mesh.request('GET', `/webhook_endpoints/${created.id}`, { key: ws.key })).body).toEqual(endpoint);
    });

    it("404 for another workspace's endpoint, which stays as it was", async () => {
      const created = await createEndpoint('/patch/other', ['lead.created']);
      expectApiError(await mesh.request('PATCH', `/webhook_endpoints/${created.id}`, { key: other.key, body: { status: 'disabled' } }), 404, 'not_found');
      expect((await endpointRow(created.id)).status).toBe('enabled');
      expectApiError(await mesh.request('PATCH', '/webhook_endpoints/we_missing', { key: ws.key, body: { status: 'disabled' } }), 404, 'not_found');
    });

    // Spec, states and transitions: disabled -> enabled when switched back on; the failure count restarts.
    it('disabled: nothing is sent and pending retries are dropped; enabled again: the failure count restarts and new events arrive', async () => {
      const hook = await createEndpoint('/patch/toggle');
      receiver.respond('/patch/toggle', () => ({ status: 500 }));
      // one delivery failed for good (7 attempts on the movable clock): the failure count is 1
      await publishEvents(mesh, ws.workspace.id, 1);
      const attempts = async () => (await mesh.query('webhooks', 'SELECT count(*)::int AS n FROM webhook_attempts WHERE endpoint_id = $1', [hook.id]))[0].n;
      await until('attempt 1', async () => (await attempts()) === 1);
      for (const [i, step] of [60, 300, 1800, 7200, 21_600, 54_000].entries()) {
        await mesh.rpc(SUBJECTS.webhooks.testClockAdvance, {}, { ms: Math.ceil(step * 1.11) * 1000 });
        await until(`attempt ${i + 2}`, async () => (await attempts()) === i + 2);
      }
      await until('the delivery failed', async () => (await endpointRow(hook.id)).consecutive_failures === 1);
      // a second delivery waits for its retry
      await publishEvents(mesh, ws.workspace.id, 1);
      await until('attempt of the second event', async () => (await attempts()) === 8);
      const disabled = await mesh.request('PATCH', `/webhook_endpoints/${hook.id}`, { key: ws.key, body: { status: 'disabled' } });
      expect(disabled.body).toMatchObject({ id: hook.id, status: 'disabled' });
      const pending = await mesh.query('webhooks', `SELECT status FROM webhook_deliveries WHERE endpoint_id = $1 ORDER BY created_at`, [hook.id]);
      expect(pending.map((d) => d.status)).toEqual(['failed', 'dropped']);
      const seen = receiver.at('/patch/toggle').length;
      await publishEvents(mesh, ws.workspace.id, 1);
      await mesh.rpc(SUBJECTS.webhooks.testClockAdvance, {}, { ms: 24 * HOUR });
      await new Promise((r) => setTimeout(r, 1500));
      expect(receiver.at('/patch/toggle')).toHaveLength(seen);
      expect((await endpointRow(hook.id)).consecutive_failures).toBe(1);

      receiver.respond('/patch/toggle', () => ({ status: 200 }));
      const enabled = await mesh.request('PATCH', `/webhook_endpoints/${hook.id}`, { key: ws.key, body: { status: 'enabled' } });
      expect(enabled.body).toMatchObject({ id: hook.id, status: 'enabled' });
      expect(await endpointRow(hook.id)).toEqual({ status: 'enabled', consecutive_failures: 0 });
      const [next] = await publishEvents(mesh, ws.workspace.id, 1);
      await until('delivered again', () => receiver.at('/patch/toggle').length === seen + 1);
      expect(JSON.parse(receiver.at('/patch/toggle')[seen].rawBody).id).toBe(next);
    });
  });

  describe('POST /webhook_endpoints/{id}/secret/roll', () => {
    it('a new secret once; deliveries carry a v1 per secret during the grace period, and a receiver verifying with either accepts', async () => {
      const hook = await createEndpoint('/roll');
      const before = Date.now();
      const rolled = await mesh.request('POST', `/webhook_endpoints/${hook.id}/secret/roll`, { key: ws.key, headers: { 'idempotency-key': 'roll-1' } });
      const { secret: _old, ...endpoint } = hook;
      expect({ status: rolled.status, body: rolled.body }).toEqual({
        status: 200,
        body: { ...endpoint, secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{40,}$/), previous_secret_expires_at: expect.any(String) },
      });
      expect(rolled.body.secret).not.toBe(hook.secret);
      // the default grace period: 24 hours
      const grace = Date.parse(rolled.body.previous_secret_expires_at) - before;
      expect(grace).toBeGreaterThan(24 * HOUR - 60_000);
      expect(grace).toBeLessThan(24 * HOUR + 60_000);
      // a retry with the same key replays the answer: the same secret, not a third one
      const replay = await mesh.request('POST', `/webhook_endpoints/${hook.id}/secret/roll`, { key: ws.key, headers: { 'idempotency-key': 'roll-1' } });
      expect(replay.body).toEqual(rolled.body);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect((await mesh.request('GET', `/webhook_endpoints/${hook.id}`, { key: ws.key })).text).not.toContain('whsec_');

      await publishEvents(mesh, ws.workspace.id, 1);
      await until('the delivery', () => receiver.at('/roll').length === 1);
      const [req] = receiver.at('/roll');
      const header = req.headers['service-signature'] as string;
      expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
      for (const secret of [hook.secret, rolled.body.secret]) {
        expect(stripe.webhooks.constructEvent(req.rawBody, header, secret)).toMatchObject({ type: 'lead.created' });
      }
      expect(() => stripe.webhooks.constructEvent(req.rawBody, header, 'whsec_not_this_one')).toThrow();

      // a second roll: the first secret is forgotten at once, the one it replaces signs beside the new one
      const again = await mesh.request('POST', `/webhook_endpoints/${hook.id}/secret/roll`, { key: ws.key });
      expect(again.status).toBe(200);
      await publishEvents(mesh, ws.workspace.id, 1);
      await until('the second delivery', () => receiver.at('/roll').length === 2);
      const second = receiver.at('/roll')[1];
      const header2 = second.headers['service-signature'] as string;
      expect(signaturesOf(header2)).toBe(2);
      for (const secret of [rolled.body.secret, again.body.secret]) expect(() => stripe.webhooks.constructEvent(second.rawBody, header2, secret)).not.toThrow();
      expect(() => stripe.webhooks.constructEvent(second.rawBody, header2, hook.secret)).toThrow();

      // once the grace period is over (its end moved to the past, as 24 hours would) only the new secret signs
      await mesh.query('webhooks', `UPDATE webhook_endpoints SET previous_secret_expires_at = now() - interval '1 second' WHERE id = $1`, [hook.id]);
      await publishEvents(mesh, ws.workspace.id, 1);
      await until('the third delivery', () => receiver.at('/roll').length === 3);
      const third = receiver.at('/roll')[2];
      const header3 = third.headers['service-signature'] as string;
      expect(signaturesOf(header3)).toBe(1);
      expect(() => stripe.webhooks.constructEvent(third.rawBody, header3, again.body.secret)).not.toThrow();
      expect(() => stripe.webhooks.constructEvent(third.rawBody, header3, rolled.body.secret)).toThrow();
    });

    it("404 for another workspace's endpoint, whose secret is unchanged; a key reused with another endpoint is 409", async () => {
      const hook = await createEndpoint('/roll/other');
      const [before] = await mesh.query('webhooks', 'SELECT secret_enc FROM webhook_endpoints WHERE id = $1', [hook.id]);
      expectApiError(await mesh.request('POST', `/webhook_endpoints/${hook.id}/secret/roll`, { key: other.key }), 404, 'not_found');
      expectApiError(await mesh.request('POST', '/webhook_endpoints/we_missing/secret/roll', { key: ws.key }), 404, 'not_found');
      expect(await mesh.query('webhooks', 'SELECT secret_enc FROM webhook_endpoints WHERE id = $1', [hook.id])).toEqual([before]);
      const first = await mesh.request('POST', `/webhook_endpoints/${hook.id}/secret/roll`, { key: ws.key, headers: { 'idempotency-key': 'roll-reuse' } });
      expect(first.status).toBe(200);
      const another = await createEndpoint('/roll/another');
      expectApiError(
        await mesh.request('POST', `/webhook_endpoints/${another.id}/secret/roll`, { key: ws.key, headers: { 'idempotency-key': 'roll-reuse' } }), 409, 'conflict',
      );
    });
  });

  describe('GET /webhook_endpoints/{id}/deliveries and POST .../deliveries/{delivery_id}/retry', () => {
    const deliveriesOf = async (id: string, query = '', key = ws.key) => mesh.request('GET', `/webhook_endpoints/${id}/deliveries${query}`, { key });
    const attemptCount = async (id: string) => (await mesh.query('webhooks', 'SELECT count(*)::int AS n FROM webhook_attempts WHERE endpoint_id = $1', [id]))[0].n;
    const deliveryStatus = async (id: string) => (await mesh.query('webhooks', 'SELECT status FROM webhook_deliveries WHERE id = $1', [id]))[0]?.status;

    it('each event sent, newest first, with its attempts (status code, latency), next attempt and final state; cursor pages; 404 and 400', async () => {
      const hook = await createEndpoint('/deliveries/list');
      let status = 500;
      receiver.respond('/deliveries/list', () => ({ status }));
      const [first] = await publishEvents(mesh, ws.workspace.id, 1, 'lead.created');
      await until('attempt 1 recorded', async () => (await attemptCount(hook.id)) === 1);
      status = 204;
      const [second] = await publishEvents(mesh, ws.workspace.id, 1, 'lead.updated');
      await until('the second delivery succeeded', async () =>
        (await mesh.query('webhooks', `SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1 AND status = 'succeeded'`, [hook.id]))[0].n === 1);
      const attempt = (outcome: string, code: number, error: string | null) => ({
        attempt: 1, attempted_at: expect.any(String), outcome, status_code: code, error, latency_ms: expect.any(Number),
      });
      const expected = [
        {
          id: expect.stringMatching(/^whd_/), object: 'webhook_delivery', endpoint_id: hook.id, event_id: second, event_type: 'lead.updated',
          status: 'succeeded', attempts: [attempt('succeeded', 204, null)], next_attempt_at: null, created_at: expect.any(String), completed_at: expect.any(String),
        },
        {
          id: expect.stringMatching(/^whd_/), object: 'webhook_delivery', endpoint_id: hook.id, event_id: first, event_type: 'lead.created',
          status: 'pending', attempts: [attempt('failed', 500, 'HTTP 500')], next_attempt_at: expect.any(String), created_at: expect.any(String), completed_at: null,
        },
      ];
      for (const key of [ws.key, testKey]) {
        const res = await deliveriesOf(hook.id, '', key);
        expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { object: 'list', data: expected, has_more: false, next_cursor: null } });
      }
      const res = await deliveriesOf(hook.id);
      // the next attempt about a minute after the first (spec: retry schedule), on the movable clock
      // that the tests before this one moved forward (attempted_at is the real time of the attempt)
      const [{ offset }] = await mesh.query('webhooks', 'SELECT coalesce((SELECT offset_ms FROM webhook_test_clock WHERE id = 1), 0)::float AS offset');
      const gap = Date.parse(res.body.data[1].next_attempt_at) - offset - Date.parse(res.body.data[1].attempts[0].attempted_at);
      expect(gap).toBeGreaterThan(50_000);
      expect(gap).toBeLessThan(70_000);
      const page1 = await deliveriesOf(hook.id, '?limit=1');
      expect(page1.body).toMatchObject({ object: 'list', data: [{ event_id: second }], has_more: true, next_cursor: expect.any(String) });
      const page2 = await deliveriesOf(hook.id, `?limit=1&starting_after=${page1.body.next_cursor}`);
      expect(page2.body).toEqual({ object: 'list', data: [res.body.data[1]], has_more: false, next_cursor: null });

      expectApiError(await deliveriesOf(hook.id, '', other.key), 404, 'not_found');
      expectApiError(await deliveriesOf('we_missing'), 404, 'not_found');
      expectApiError(await deliveriesOf(hook.id, '?limit=0'), 400, 'invalid_request', 'limit');
      expectApiError(await deliveriesOf(hook.id, '?starting_after=nope'), 400, 'invalid_request', 'starting_after');
    });

    it('retry: sent again at once, the same body signed anew with the current secret; 202; the same Idempotency-Key sends nothing more', async () => {
      const hook = await createEndpoint('/deliveries/retry');
      let status = 500;
      receiver.respond('/deliveries/retry', () => ({ status }));
      await publishEvents(mesh, ws.workspace.id, 1);
      await until('attempt 1 recorded', async () => (await attemptCount(hook.id)) === 1);
      const rolled = (await mesh.request('POST', `/webhook_endpoints/${hook.id}/secret/roll`, { key: ws.key })).body;
      status = 200;
      const [delivery] = (await deliveriesOf(hook.id)).body.data;
      const headers = { 'idempotency-key': `retry-${delivery.id}` };
      const retried = await mesh.request('POST', `/webhook_endpoints/${hook.id}/deliveries/${delivery.id}/retry`, { key: ws.key, headers });
      expect({ status: retried.status, body: retried.body }).toEqual({
        status: 202, body: { ...delivery, status: 'pending', next_attempt_at: expect.any(String), completed_at: null },
      });
      // at once: the retry schedule's minute has not passed on the movable clock
      await until('attempt 2', () => receiver.at('/deliveries/retry').length === 2, allowance(10_000));
      const [firstReq, secondReq] = receiver.at('/deliveries/retry');
      expect(secondReq.rawBody).toBe(firstReq.rawBody);
      const header = secondReq.headers['service-signature'] as string;
      expect(header).not.toBe(firstReq.headers['service-signature']);
      expect(stripe.webhooks.constructEvent(secondReq.rawBody, header, rolled.secret)).toMatchObject({ id: delivery.event_id });
      expect(() => stripe.webhooks.constructEvent(firstReq.rawBody, firstReq.headers['service-signature'] as string, rolled.secret)).toThrow();
      await until('the retry succeeded', async () => (await deliveryStatus(delivery.id)) === 'succeeded');
      const [after] = (await deliveriesOf(hook.id)).body.data;
      expect(after).toMatchObject({ id: delivery.id, status: 'succeeded', next_attempt_at: null, attempts: [{ attempt: 1, status_code: 500 }, { attempt: 2, status_code: 200, outcome: 'succeeded' }] });

      const replay = await mesh.request('POST', `/webhook_endpoints/${hook.id}/deliveries/${delivery.id}/retry`, { key: ws.key, headers });
      expect({ status: replay.status, replayed: replay.headers.get('idempotent-replayed'), body: replay.body }).toEqual({ status: 202, replayed: 'true', body: retried.body });
      await new Promise((r) => setTimeout(r, 1000));
      expect(receiver.at('/deliveries/retry')).toHaveLength(2);
    });

    it("404 for another workspace's endpoint or another endpoint's delivery; 409 on a disabled endpoint; nothing sent", async () => {
      const hook = await createEndpoint('/deliveries/scoped');
      const neighbour = await createEndpoint('/deliveries/neighbour');
      await publishEvents(mesh, ws.workspace.id, 1);
      await until('both delivered', () => receiver.at('/deliveries/scoped').length === 1 && receiver.at('/deliveries/neighbour').length === 1);
      const [delivery] = (await deliveriesOf(hook.id)).body.data;
      const retry = (endpointId: string, deliveryId: string, key = ws.key) =>
        mesh.request('POST', `/webhook_endpoints/${endpointId}/deliveries/${deliveryId}/retry`, { key });
      expectApiError(await retry(hook.id, delivery.id, other.key), 404, 'not_found');
      expectApiError(await retry(neighbour.id, delivery.id), 404, 'not_found');
      expectApiError(await retry(hook.id, 'whd_missing'), 404, 'not_found');
      await mesh.request('PATCH', `/webhook_endpoints/${hook.id}`, { key: ws.key, body: { status: 'disabled' } });
      expectApiError(await retry(hook.id, delivery.id), 409, 'conflict');
      await new Promise((r) => setTimeout(r, 1000));
      expect(receiver.at('/deliveries/scoped')).toHaveLength(1);
      expect(await deliveryStatus(delivery.id)).toBe('succeeded');
    });
  });
});
