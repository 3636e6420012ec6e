import { jetstream } from '@nats-io/jetstream';
import Stripe from 'stripe';
import { PUBLIC_EVENT_TYPES } from '@app/contracts/event-types';
import { eventSubject, SUBJECTS } from '@app/contracts/subjects';
import { newId } from '@app/platform/ids';
import { waitFor } from '../../../tools/mesh/processes';
import { HttpsReceiver, TestCertificate } from '../../../tools/webhooks/https-receiver';
import { meshHookTimeoutMs, TestMesh } from '../../harness';
import { expectApiError } from '../../support/gateway-assertions';
import { closeWebhooksFixture, deleteEndpoints, startWebhooksFixture, Workspace } from '../../support/webhooks-fixture';
import { allowance } from '../../support/timing';

const stripe = new Stripe('sk_test_unused');
const DAY = 86_400_000;
const CURRENT_VERSION = '2026-09-28';

/**
 * Issue 24: GET /events and GET /events/{id} (the workspace's events, each envelope as
 * delivered, scoped by workspace and mode, filtered, paged, kept EVENTS_RETENTION_DAYS), and
 * POST /webhook_endpoints/{id}/test (a sample event sent at once), through the gateway on a real
 * mesh delivering to a local HTTPS receiver.
 */
describe('events', () => {
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
      WEBHOOK_SECRET_KEY: 'c'.repeat(64),
    }));
  }, meshHookTimeoutMs(2)); // the webhooks fixture: a gateway and the webhooks service
  afterAll(() => closeWebhooksFixture({ mesh, cert, receiver }));

  /**
   * Events into the EVENTS stream as a service's outbox relay publishes them, one after the
   * other (ids are time-ordered: publication order is list order); returns them.
   */
  async function publish(workspaceId: string, events: { type?: string; livemode?: boolean; created?: Date }[]) {
    const js = jetstream(await mesh.natsClient());
    const published: { id: string; type: string; created: string }[] = [];
    for (const e of events) {
      await new Promise((r) => setTimeout(r, 3));
      const id = newId('evt_');
      const type = e.type ?? 'lead.created';
      const created = (e.created ?? new Date()).toISOString();
      const envelope = {
        id, object: 'event', type, api_version: CURRENT_VERSION, created, workspace_id: workspaceId, livemode: e.livemode ?? true,
        data: { object: { id: newId('lead_'), object: 'lead', full_name: 'Ada Lovelace', custom_fields: { tier: 'gold', score: 7 } } },
      };
      await js.publish(eventSubject(type), JSON.stringify(envelope), { msgID: id });
      published.push({ id, type, created });
    }
    return published;
  }
  const storedCount = async (workspaceId: string) =>
    (await mesh.query('webhooks', 'SELECT count(*)::int AS n FROM webhook_events WHERE workspace_id = $1', [workspaceId]))[0].n as number;
  const until = (what: string, check: () => boolean | Promise<boolean>, ms = allowance(15_000)) => waitFor(what, async () => check(), ms, 50);
  const createEndpoint = async (key: string, path: string, events: string[] = ['*']) => {
    const res = await mesh.request('POST', '/webhook_endpoints', { key, body: { url: receiver.url(path), events } });
    expect(res.status).toBe(201);
    return res.body as { id: string; secret: string };
  };
  const listEvents = (key: string, query = '') => mesh.request('GET', `/events${query}`, { key });

  describe('GET /events and GET /events/{id}', () => {
    it('a live key reads the live events, a test key the test ones, newest first, each exactly as delivered; another workspace\'s are 404', async () => {
      await createEndpoint(ws.key, '/events/exact');
      const [first, second, low] = await publish(ws.workspace.id, [{}, {}, { type: 'credits.low' }]);
      const [testEvent] = await publish(ws.workspace.id, [{ type: 'lead.updated', livemode: false }]);
      const [foreign] = await publish(other.workspace.id, [{}]);
      await until('4 deliveries', () => receiver.at('/events/exact').length === 4);
      await until('the other workspace\'s event stored', async () => (await storedCount(other.workspace.id)) === 1);
      const delivered = new Map(receiver.at('/events/exact').map((r) => [JSON.parse(r.rawBody).id as string, r.rawBody]));

      const live = await listEvents(ws.key);
      expect({ status: live.status, ids: live.body.data.map((e: { id: string }) => e.id), has_more: live.body.has_more, next_cursor: live.body.next_cursor })
        .toEqual({ status: 200, ids: [low.id, second.id, first.id], has_more: false, next_cursor: null });
      expect(live.body.object).toBe('list');
      // the envelope as the endpoint received it, byte for byte once serialized: the same fields in the same order
      for (const event of live.body.data) expect(JSON.stringify(event)).toBe(delivered.get(event.id));
      expect(live.body.data[0]).toEqual({
        id: low.id, object: 'event', type: 'credits.low', api_version: CURRENT_VERSION, created: low.created, workspace_id: ws.workspace.id, livemode: true,
        data: { object: expect.objectContaining({ object: 'lead' }) },
      });
      for (const event of [first, second, low]) {
        const res = await mesh.request('GET', `/events/${event.id}`, { key: ws.key });
        expect(res.status).toBe(200);
        expect(res.text).toBe(delivered.get(event.id));
      }

      const test = await listEvents(testKey);
      expect(test.body).toEqual({ object: 'list', data: [JSON.parse(delivered.get(testEvent.id)!)], has_more: false, next_cursor: null });
      expect(test.body.data[0].livemode).toBe(false);
      expect((await mesh.request('GET', `/events/${testEvent.id}`, { key: testKey })).text).toBe(delivered.get(testEvent.id));
      // the other mode's events are not found, in both directions
      expectApiError(await mesh.request('GET', `/events/${first.id}`, { key: testKey }), 404, 'not_found');
      expectApiError(await mesh.request('GET', `/events/${testEvent.id}`, { key: ws.key }), 404, 'not_found');

      // another workspace: its own event only; this workspace's are 404 to it, and its to this one
      expect((await listEvents(other.key)).body.data.map((e: { id: string }) => e.id)).toEqual([foreign.id]);
      expectApiError(await mesh.request('GET', `/events/${first.id}`, { key: other.key }), 404, 'not_found');
      expectApiError(await mesh.request('GET', `/events/${foreign.id}`, { key: ws.key }), 404, 'not_found');
    });

    it('stored once whether or not an endpoint receives it; an event published twice is listed once', async () => {
      const quiet = await mesh.workspace();
      const id = newId('evt_');
      const envelope = JSON.stringify({
        id, object: 'event', type: 'email.sent', api_version: CURRENT_VERSION, created: new Date().toISOString(), workspace_id: quiet.workspace.id, livemode: true,
        data: { object: { id: newId('msg_'), object: 'email_message' } },
      });
      // a relay that published it twice (under two message ids, so JetStream keeps both)
      const js = jetstream(await mesh.natsClient());
      await js.publish(eventSubject('email.sent'), envelope, { msgID: id });
      await js.publish(eventSubject('email.sent'), envelope, { msgID: `${id}-again` });
      await until('stored', async () => (await storedCount(quiet.workspace.id)) === 1);
      await new Promise((r) => setTimeout(r, 1000));
      expect(await storedCount(quiet.workspace.id)).toBe(1);
      const res = await listEvents(quiet.key);
      expect(res.body.data.map((e: { id: string }) => e.id)).toEqual([id]);
      expect(JSON.stringify(res.body.data[0])).toBe(envelope);
    });

    it('type, created[gte] and created[lte] (inclusive, brackets encoded or not) narrow the list; cursor pages; 30 days kept, then pruned', async () => {
      const w = await mesh.workspace();
      const now = Date.now();
      const [old, tenDays, twoDays, hour] = await publish(w.workspace.id, [
        { created: new Date(now - 40 * DAY) }, { created: new Date(now - 10 * DAY) }, { type: 'credits.low', created: new Date(now - 2 * DAY) }, { created: new Date(now - 3_600_000) },
      ]);
      await until('4 stored', async () => (await storedCount(w.workspace.id)) === 4);
      const ids = async (query: string) => {
        const res = await listEvents(w.key, query);
        expect(res.status).toBe(200);
        return res.body.data.map((e: { id: string }) => e.id);
      };
      // older than 30 days: neither listed nor found, though not yet pruned
      expect(await ids('')).toEqual([hour.id, twoDays.id, tenDays.id]);
      expectApiError(await mesh.request('GET', `/events/${old.id}`, { key: w.key }), 404, 'not_found');
      expect(await ids('?type=lead.created')).toEqual([hour.id, tenDays.id]);
      expect(await ids('?type=credits.low')).toEqual([twoDays.id]);
      expect(await ids('?type=email.sent')).toEqual([]);
      const at = (ms: number) => encodeURIComponent(new Date(ms).toISOString());
      expect(await ids(`?created[gte]=${at(now - 3 * DAY)}`)).toEqual([hour.id, twoDays.id]);
      expect(await ids(`?created[lte]=${at(now - 3 * DAY)}`)).toEqual([tenDays.id]);
      expect(await ids(`?created%5Bgte%5D=${at(now - 11 * DAY)}&created%5Blte%5D=${at(now - DAY)}`)).toEqual([twoDays.id, tenDays.id]);
      expect(await ids(`?created[gte]=${encodeURIComponent(twoDays.created)}&created[lte]=${encodeURIComponent(twoDays.created)}`)).toEqual([twoDays.id]);
      expect(await ids(`?type=lead.created&created[gte]=${at(now - 3 * DAY)}`)).toEqual([hour.id]);
      // an offset other than Z names the same instant
      const plusTwo = new Date(now - 3 * DAY + 2 * 3_600_000).toISOString().replace('Z', '+02:00');
      expect(await ids(`?created[gte]=${encodeURIComponent(plusTwo)}`)).toEqual([hour.id, twoDays.id]);

      const page1 = await listEvents(w.key, '?limit=2');
      expect(page1.body).toMatchObject({ object: 'list', has_more: true, next_cursor: expect.any(String) });
      expect(page1.body.data.map((e: { id: string }) => e.id)).toEqual([hour.id, twoDays.id]);
      const page2 = await listEvents(w.key, `?limit=2&starting_after=${page1.body.next_cursor}`);
      expect({ ids: page2.body.data.map((e: { id: string }) => e.id), has_more: page2.body.has_more, next_cursor: page2.body.next_cursor })
        .toEqual({ ids: [tenDays.id], has_more: false, next_cursor: null });
      const filteredPage = await listEvents(w.key, '?type=lead.created&limit=1');
      expect(filteredPage.body.data.map((e: { id: string }) => e.id)).toEqual([hour.id]);
      expect((await listEvents(w.key, `?type=lead.created&limit=1&starting_after=${filteredPage.body.next_cursor}`)).body.data.map((e: { id: string }) => e.id)).toEqual([tenDays.id]);

      // pruned at start-up (and hourly): the webhooks service restarted with EVENTS_RETENTION_DAYS=5 deletes what is older
      const stored = async () => (await mesh.query('webhooks', 'SELECT id FROM webhook_events WHERE workspace_id = $1 ORDER BY id', [w.workspace.id])).map((r) => r.id);
      expect(await stored()).toEqual([old.id, tenDays.id, twoDays.id, hour.id]);
      await mesh.stopApp('webhooks');
      mesh.env.EVENTS_RETENTION_DAYS = '5';
      try {
        await mesh.startApp('webhooks');
        await until('pruned', async () => (await stored()).length === 2);
        expect(await stored()).toEqual([twoDays.id, hour.id]);
        expect(await ids('')).toEqual([hour.id, twoDays.id]);
        expectApiError(await mesh.request('GET', `/events/${tenDays.id}`, { key: w.key }), 404, 'not_found');
      } finally {
        await mesh.stopApp('webhooks');
        delete mesh.env.EVENTS_RETENTION_DAYS;
        await mesh.startApp('webhooks');
      }
    });

    it.each<[string, string, string]>([
      ['an internal event type', '?type=lead.deleted', 'type'],
      ['an unknown event type', '?type=lead.exploded', 'type'],
      ['two types', '?type=lead.created&type=credits.low', 'type'],
      ['a date without a time', '?created[gte]=2026-11-01', 'created[gte]'],
      ['a time without a zone', '?created[lte]=2026-11-01T10:00:00', 'created[lte]'],
      ['no such day', '?created[gte]=2026-02-30T00:00:00Z', 'created[gte]'],
      ['a bound not offered', '?created[gt]=2026-11-01T00:00:00Z', 'created[gt]'],
      ['limit 0', '?limit=0', 'limit'],
      ['limit 101', '?limit=101', 'limit'],
      ['a cursor not made by the list', '?starting_after=nope', 'starting_after'],
    ])('%s -> 400 naming the parameter', async (_label, query, param) => {
      expectApiError(await listEvents(ws.key, query), 400, 'invalid_request', param);
    });

    it('404 for an unknown id, an id longer than any, and an internal event; any member of the workspace reads events', async () => {
      expectApiError(await mesh.request('GET', '/events/evt_missing', { key: ws.key }), 404, 'not_found');
      expectApiError(await mesh.request('GET', `/events/evt_${'x'.repeat(300)}`, { key: ws.key }), 404, 'not_found');
      const internal = newId('evt_');
      await jetstream(await mesh.natsClient()).publish(eventSubject('lead.deleted'), JSON.stringify({
        id: internal, object: 'event', type: 'lead.deleted', api_version: CURRENT_VERSION, created: new Date().toISOString(), workspace_id: ws.workspace.id, livemode: true,
        data: { object: { id: 'lead_x', object: 'lead' } },
      }), { msgID: internal });
      await new Promise((r) => setTimeout(r, 500));
      expectApiError(await mesh.request('GET', `/events/${internal}`, { key: ws.key }), 404, 'not_found');

      const member = await mesh.admin('member:add', '--workspace', ws.workspace.id, '--role', 'member');
      const memberKey = (await mesh.key(ws.workspace.id, 'live', { member: member.id })).key;
      const asMember = await listEvents(memberKey);
      expect(asMember.status).toBe(200);
      expect(asMember.body).toEqual((await listEvents(ws.key)).body);
    });
  });

  describe('POST /webhook_endpoints/{id}/test', () => {
    const sendTest = (endpointId: string, body: unknown, key = ws.key, headers: Record<string, string> = {}) =>
      mesh.request('POST', `/webhook_endpoints/${endpointId}/test`, { key, body, headers });
    const deliveryStatus = async (id: string) => (await mesh.query('webhooks', 'SELECT status FROM webhook_deliveries WHERE id = $1', [id]))[0]?.status;
    // each test makes its own endpoints; a workspace has at most 16
    afterEach(() => deleteEndpoints(mesh, ws.workspace.id));

    it('sends a sample of the type at once, signed with the endpoint\'s secret, "sample": true and livemode false, whatever the endpoint subscribes to; 202 with the delivery', async () => {
      const hook = await createEndpoint(ws.key, '/test/sample', ['lead.created']);
      const res = await sendTest(hook.id, { type: 'credits.low' });
      expect({ status: res.status, body: res.body }).toEqual({
        status: 202,
        body: {
          id: expect.stringMatching(/^whd_/), object: 'webhook_delivery', endpoint_id: hook.id, event_id: expect.stringMatching(/^evt_/), event_type: 'credits.low',
          status: 'pending', attempts: [], next_attempt_at: expect.any(String), created_at: expect.any(String), completed_at: null,
        },
      });
      await until('the sample delivered', () => receiver.at('/test/sample').length === 1, allowance(10_000));
      const [req] = receiver.at('/test/sample');
      const event = stripe.webhooks.constructEvent(req.rawBody, req.headers['service-signature'] as string, hook.secret) as unknown as Record<string, unknown>;
      expect(event).toEqual({
        id: res.body.event_id, object: 'event', type: 'credits.low', api_version: CURRENT_VERSION, created: expect.any(String),
        workspace_id: ws.workspace.id, livemode: false, sample: true,
        data: { object: { object: 'credit_balance', plan: 'agency', balance: { plan: expect.any(Number), pack: expect.any(Number), total: expect.any(Number) }, period_ends_at: expect.any(String), ledger: [] } },
      });
      // the spec's field order, `sample` after `livemode`
      expect(Object.keys(event)).toEqual(['id', 'object', 'type', 'api_version', 'created', 'workspace_id', 'livemode', 'sample', 'data']);
      await until('succeeded', async () => (await deliveryStatus(res.body.id)) === 'succeeded');
      const [listed] = (await mesh.request('GET', `/webhook_endpoints/${hook.id}/deliveries`, { key: ws.key })).body.data;
      expect(listed).toMatchObject({ id: res.body.id, event_id: res.body.event_id, status: 'succeeded', attempts: [{ attempt: 1, outcome: 'succeeded', status_code: 200 }] });
      // a sample is a delivery, not an event: neither key lists nor finds it
      for (const key of [ws.key, testKey]) {
        expectApiError(await mesh.request('GET', `/events/${res.body.event_id}`, { key }), 404, 'not_found');
        expect((await listEvents(key)).body.data.map((e: { id: string }) => e.id)).not.toContain(res.body.event_id);
      }
    });

    it('each of the ten types has its data.object; test and live keys alike', async () => {
      const hook = await createEndpoint(testKey, '/test/types');
      const objects: Record<string, string> = {
        'lead.created': 'lead', 'lead.updated': 'lead', 'lead.stage_changed': 'lead_stage_change', 'reveal.completed': 'reveal', 'email.sent': 'email_message',
        'email.replied': 'email_message', 'email.bounced': 'email_message', 'sequence.completed': 'enrollment', 'unsubscribe.created': 'suppression', 'credits.low': 'credit_balance',
      };
      expect(Object.keys(objects).sort()).toEqual([...PUBLIC_EVENT_TYPES].sort());
      for (const [i, type] of PUBLIC_EVENT_TYPES.entries()) {
        const res = await sendTest(hook.id, { type }, i % 2 === 0 ? testKey : ws.key);
        expect({ type, status: res.status, event_type: res.body.event_type }).toEqual({ type, status: 202, event_type: type });
      }
      await until('ten samples', () => receiver.at('/test/types').length === 10, allowance(15_000));
      const byType = new Map(receiver.at('/test/types').map((r) => {
        const event = JSON.parse(r.rawBody);
        return [event.type, event];
      }));
      for (const type of PUBLIC_EVENT_TYPES) {
        const event = byType.get(type);
        expect({ type, object: event?.data.object.object, livemode: event?.livemode, sample: event?.sample }).toEqual({ type, object: objects[type], livemode: false, sample: true });
      }
      expect(byType.get('lead.updated').data.previous_attributes).toEqual(expect.any(Object));
      expect(byType.get('email.replied').data.object.direction).toBe('inbound');
      expect(byType.get('email.bounced').data.object.direction).toBe('outbound');
      expect(byType.get('sequence.completed').data.object).toMatchObject({ status: 'completed', stop_reason: null });
    });

    it.each<[string, unknown]>([
      ['no type', {}],
      ['an unknown type', { type: 'lead.exploded' }],
      ['an internal type', { type: 'workspace.created' }],
      ['*', { type: '*' }],
      ['type null', { type: null }],
      ['a list of types', { type: ['lead.created'] }],
    ])('%s -> 400 on type, nothing sent', async (_label, body) => {
      const hook = await createEndpoint(ws.key, '/test/invalid');
      expectApiError(await sendTest(hook.id, body), 400, 'invalid_request', 'type');
      await new Promise((r) => setTimeout(r, 300));
      expect(await mesh.query('webhooks', 'SELECT id FROM webhook_deliveries WHERE endpoint_id = $1', [hook.id])).toEqual([]);
    });

    it('an unknown field -> 400 naming it', async () => {
      const hook = await createEndpoint(ws.key, '/test/unknown-field');
      expectApiError(await sendTest(hook.id, { type: 'lead.created', livemode: true }), 400, 'invalid_request', 'livemode');
    });

    it("404 for another workspace's endpoint or none; 403 for a member key; 409 on a disabled endpoint; nothing sent", async () => {
      const hook = await createEndpoint(ws.key, '/test/scoped');
      expectApiError(await sendTest(hook.id, { type: 'lead.created' }, other.key), 404, 'not_found');
      expectApiError(await sendTest('we_missing', { type: 'lead.created' }), 404, 'not_found');
      const member = await mesh.admin('member:add', '--workspace', ws.workspace.id, '--role', 'member');
      const memberKey = (await mesh.key(ws.workspace.id, 'live', { member: member.id })).key;
      expectApiError(await sendTest(hook.id, { type: 'lead.created' }, memberKey), 403, 'permission_denied');
      await mesh.request('PATCH', `/webhook_endpoints/${hook.id}`, { key: ws.key, body: { status: 'disabled' } });
      expectApiError(await sendTest(hook.id, { type: 'lead.created' }), 409, 'conflict');
      await new Promise((r) => setTimeout(r, 500));
      expect(receiver.at('/test/scoped')).toHaveLength(0);
    });

    // Issue 34, item 8: a sample is asked for by a request; it must not turn one request into the
    // retry schedule's seven sends to a URL that fails (a third party's, say).
    it('a sample to an endpoint that answers 500 is sent twice at most: once, then one retry about a minute later; then it has failed', async () => {
      const hook = await createEndpoint(ws.key, '/test/failing');
      receiver.respond('/test/failing', () => ({ status: 500 }));
      const res = await sendTest(hook.id, { type: 'lead.created' });
      expect(res.status).toBe(202);
      const attempts = async () => (await mesh.query('webhooks', 'SELECT count(*)::int AS n FROM webhook_attempts WHERE delivery_id = $1', [res.body.id]))[0].n as number;
      await until('attempt 1 recorded', async () => (await attempts()) === 1);
      // the whole retry schedule (about 24 hours), on the movable clock, step by step
      for (const step of [60, 300, 1800, 7200, 21_600, 54_000]) {
        await mesh.rpc(SUBJECTS.webhooks.testClockAdvance, {}, { ms: Math.ceil(step * 1.11) * 1000 });
        await new Promise((r) => setTimeout(r, 700));
      }
      await until('the sample failed', async () => (await deliveryStatus(res.body.id)) === 'failed');
      await new Promise((r) => setTimeout(r, 1000));
      expect(receiver.at('/test/failing')).toHaveLength(2);
      const [listed] = (await mesh.request('GET', `/webhook_endpoints/${hook.id}/deliveries`, { key: ws.key })).body.data;
      expect(listed).toMatchObject({
        id: res.body.id, status: 'failed', next_attempt_at: null,
        attempts: [{ attempt: 1, outcome: 'failed', status_code: 500 }, { attempt: 2, outcome: 'failed', status_code: 500 }],
      });
    });

    it('the same Idempotency-Key answers the same delivery and sends nothing more; with another body it is 409', async () => {
      const hook = await createEndpoint(ws.key, '/test/idempotent');
      const headers = { 'idempotency-key': `test-${hook.id}` };
      const first = await sendTest(hook.id, { type: 'lead.created' }, ws.key, headers);
      expect(first.status).toBe(202);
      const again = await sendTest(hook.id, { type: 'lead.created' }, ws.key, headers);
      expect({ status: again.status, replayed: again.headers.get('idempotent-replayed'), body: again.body }).toEqual({ status: 202, replayed: 'true', body: first.body });
      expectApiError(await sendTest(hook.id, { type: 'credits.low' }, ws.key, headers), 409, 'conflict');
      await until('the sample delivered', () => receiver.at('/test/idempotent').length === 1, allowance(10_000));
      await new Promise((r) => setTimeout(r, 1000));
      expect(receiver.at('/test/idempotent')).toHaveLength(1);
      expect(await mesh.query('webhooks', 'SELECT id FROM webhook_deliveries WHERE endpoint_id = $1', [hook.id])).toEqual([{ id: first.body.id }]);
      // without a key, each request sends one more
      expect((await sendTest(hook.id, { type: 'lead.created' })).status).toBe(202);
      await until('a second sample', () => receiver.at('/test/idempotent').length === 2, allowance(10_000));
    });
  });
});
