import { jetstream } from '@nats-io/jetstream';
import { Client } from 'pg';
import { eventSubject } from '@app/contracts/subjects';
import { newId } from '@app/platform/ids';
import { waitFor } from '../../../tools/mesh/processes';
import { HttpsReceiver, TestCertificate } from '../../../tools/webhooks/https-receiver';
import { meshHookTimeoutMs, TestMesh } from '../../harness';
import { expectApiError, RATE_LIMIT } from '../../support/gateway-assertions';
import { SseClient } from '../../support/sse';
import { closeWebhooksFixture, startWebhooksFixture, Workspace } from '../../support/webhooks-fixture';
import { allowance } from '../../support/timing';

const CURRENT_VERSION = '2026-09-28';
const STREAMS_PER_KEY = 3;

/**
 * Issue 38: GET /events/stream, the workspace's events as Server-Sent Events for a client that
 * has nothing but an API key: scoped to the key's workspace and mode as GET /events is, each
 * event's data the envelope GET /events/{id} answers, resumable with Last-Event-ID without a gap
 * or a repeat, counted once toward the rate limit, ended by a revocation and by the gateway
 * stopping. Events enter the mesh as a service's outbox relay publishes them (JetStream), so a
 * test can publish one whose id is older than one already streamed.
 */
describe('GET /events/stream', () => {
  let mesh: TestMesh;
  let cert: TestCertificate;
  let receiver: HttpsReceiver;
  let ws: Workspace;
  let other: Workspace;
  let testKey: string;
  const opened: SseClient[] = [];

  beforeAll(async () => {
    ({ mesh, cert, receiver, ws, other, testKey } = await startWebhooksFixture({
      EVENTS_STREAM_POLL_MS: '200',
      EVENTS_STREAM_HEARTBEAT_MS: '1000',
      EVENTS_STREAMS_PER_KEY: String(STREAMS_PER_KEY),
    }));
  }, meshHookTimeoutMs(2)); // the webhooks fixture: a gateway and the webhooks service
  afterAll(async () => {
    for (const stream of opened) stream.close();
    await closeWebhooksFixture({ mesh, cert, receiver });
  });

  /** Events published one after the other into the EVENTS stream; `at` makes an id of another moment. */
  async function publish(workspaceId: string, events: { type?: string; livemode?: boolean; at?: number }[]) {
    const js = jetstream(await mesh.natsClient());
    const ids: string[] = [];
    for (const e of events) {
      await new Promise((r) => setTimeout(r, 3));
      const id = newId('evt_', e.at ?? Date.now());
      const type = e.type ?? 'lead.created';
      const envelope = {
        id, object: 'event', type, api_version: CURRENT_VERSION, created: new Date(e.at ?? Date.now()).toISOString(), workspace_id: workspaceId,
        livemode: e.livemode ?? true, data: { object: { id: newId('lead_'), object: 'lead', full_name: 'Ada Lovelace' } },
      };
      await js.publish(eventSubject(type), JSON.stringify(envelope), { msgID: id });
      ids.push(id);
    }
    return ids;
  }

  async function open(key: string | undefined, query = '', headers: Record<string, string> = {}) {
    const opening = await SseClient.open(`${mesh.baseUrl}/events/stream${query}`, { ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers });
    if (opening.stream) opened.push(opening.stream);
    return opening;
  }
  async function stream(key: string, query = '', headers: Record<string, string> = {}) {
    const { stream: s, refused } = await open(key, query, headers);
    expect(refused?.text).toBeUndefined();
    return s!;
  }
  const ids = (s: SseClient) => s.events.map((e) => e.id);
  /**
   * Events in the order they were stored: the fan-out stores events published one after the
   * other in transactions that may commit in either order, and the stream follows the commits.
   */
  const stored = async (...eventIds: string[]) =>
    (await mesh.query('webhooks', 'SELECT id FROM webhook_events WHERE id = ANY ($1) ORDER BY tx, id', [eventIds])).map((r: { id: string }) => r.id);
  const until = (what: string, check: () => boolean | Promise<boolean>, ms = allowance(15_000)) => waitFor(what, async () => check(), ms, 50);
  const quiet = (ms = 1000) => new Promise((r) => setTimeout(r, ms));
  /** Waits, if need be, until the current rate-limit window (a minute of the gateway database's clock) has `seconds` left. */
  const roomInRateWindow = async (seconds: number) => {
    const [{ left }] = await mesh.query<{ left: number }>('gateway', 'SELECT (60 - mod(extract(epoch FROM clock_timestamp()), 60))::float8 AS left');
    if (left < seconds) await quiet(left * 1000 + 250);
  };

  it('a key\'s stream carries its workspace\'s events of its mode, each the envelope GET /events/{id} answers; the other mode\'s and another workspace\'s never arrive', async () => {
    const [live, test, foreign] = [await stream(ws.key), await stream(testKey), await stream(other.key)];
    expect(live.response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(live.response.headers.get('cache-control')).toBe('no-cache, no-transform');
    expect(live.response.headers.get('request-id')).toMatch(/^req_/);
    expect(live.response.headers.get('ratelimit-limit')).toBe(String(RATE_LIMIT));

    const [first] = await publish(ws.workspace.id, [{}]);
    const [testEvent] = await publish(ws.workspace.id, [{ type: 'lead.updated', livemode: false }]);
    const [otherEvent] = await publish(other.workspace.id, [{}]);
    const [second] = await publish(ws.workspace.id, [{ type: 'credits.low' }]);
    await until('each stream\'s events', () => live.events.length >= 2 && test.events.length >= 1 && foreign.events.length >= 1);
    await quiet();
    expect([ids(live), ids(test), ids(foreign)]).toEqual([await stored(first, second), [testEvent], [otherEvent]]);
    for (const event of live.events) {
      const exact = await mesh.request('GET', `/events/${event.id}`, { key: ws.key });
      expect(event.data).toBe(exact.text);
    }
    expect(test.json()[0]).toMatchObject({ id: testEvent, livemode: false, workspace_id: ws.workspace.id });
    expect(live.ended).toBe(false);
    for (const s of [live, test, foreign]) s.close();
  });

  it('Last-Event-ID resumes right after that event: every event stored since, once each and in order, then the new ones', async () => {
    const first = await stream(ws.key);
    const [a, b] = await publish(ws.workspace.id, [{}, {}]);
    await until('a and b', () => first.events.length >= 2);
    expect(ids(first)).toEqual(await stored(a, b));
    first.close();
    const [c, d] = await publish(ws.workspace.id, [{ type: 'lead.updated' }, {}]);
    await until('c and d stored', async () => (await stored(c, d)).length === 2);

    const [[firstSent, secondSent], [third, fourth]] = [ids(first), await stored(c, d)];
    const resumed = await stream(ws.key, '', { 'last-event-id': firstSent });
    const later = await stream(ws.key, '', { 'last-event-id': fourth });
    await until('b, c and d replayed', () => resumed.events.length >= 3);
    const [e] = await publish(ws.workspace.id, [{}]);
    await until('e live', () => resumed.events.length >= 4 && later.events.length >= 1);
    await quiet();
    expect(ids(resumed)).toEqual([secondSent, third, fourth, e]);
    expect(ids(later)).toEqual([e]);
    resumed.close();
    later.close();
  });

  it('an event stored after a newer one (an older id, a slower producer) is still sent, once, and a resume after the newer one sends it', async () => {
    const s = await stream(ws.key);
    const [newer] = await publish(ws.workspace.id, [{}]);
    await until('the newer event', () => s.events.length >= 1);
    const [older] = await publish(ws.workspace.id, [{ at: Date.now() - 60_000 }]);
    expect(older < newer).toBe(true);
    await until('the older event', () => s.events.length >= 2);
    s.close();
    const resumed = await stream(ws.key, '', { 'last-event-id': newer });
    await until('the older event again, after the newer one', () => resumed.events.length >= 1);
    await quiet();
    expect([ids(s), ids(resumed)]).toEqual([[newer, older], [older]]);
    resumed.close();
  });

  it('a write transaction running in another database of the server (the gateway\'s, here) delays nothing: the event arrives while it still runs', async () => {
    const other = new Client({ connectionString: mesh.databaseUrl('gateway') });
    await other.connect();
    try {
      await other.query('BEGIN');
      await other.query('SELECT pg_current_xact_id()');
      const s = await stream(ws.key);
      const [id] = await publish(ws.workspace.id, [{}]);
      await until('the event, the other database\'s transaction still running', () => s.events.length >= 1);
      expect(ids(s)).toEqual([id]);
      s.close();
    } finally {
      await other.end();
    }
  });

  it('`types` keeps those event types; a value that is not event types separated by commas is 400 with param types', async () => {
    const s = await stream(ws.key, '?types=credits.low,lead.updated');
    const [, low, updated] = await publish(ws.workspace.id, [{}, { type: 'credits.low' }, { type: 'lead.updated' }]);
    await until('two events', () => s.events.length >= 2);
    await quiet();
    expect(ids(s)).toEqual(await stored(low, updated));
    s.close();
    for (const query of ['?types=lead.created,nope', '?types=', '?types=lead.created,', '?type=lead.created']) {
      const { refused } = await open(ws.key, query);
      expectApiError(refused!, 400, 'invalid_request', query.startsWith('?type=') ? 'type' : 'types');
    }
  });

  it('a Last-Event-ID of another workspace\'s event, of the other mode\'s or of none is 400 with param Last-Event-ID', async () => {
    const [foreign] = await publish(other.workspace.id, [{}]);
    const [testEvent] = await publish(ws.workspace.id, [{ livemode: false }]);
    await until('both stored', async () => (await mesh.request('GET', `/events/${foreign}`, { key: other.key })).status === 200
      && (await mesh.request('GET', `/events/${testEvent}`, { key: testKey })).status === 200);
    for (const id of [foreign, testEvent, 'evt_doesnotexist', 'not an id']) {
      const { refused } = await open(ws.key, '', { 'last-event-id': id });
      expectApiError(refused!, 400, 'invalid_request', 'Last-Event-ID');
    }
  });

  it('without a key, with a malformed or a revoked key: 401 with the error object; revoking the key ends its open stream', async () => {
    const fresh = await mesh.workspace();
    const s = await stream(fresh.key);
    for (const key of [undefined, 'svc_live_nope']) {
      const { refused } = await open(key);
      expectApiError(refused!, 401, 'authentication_failed');
    }
    await mesh.admin('key:revoke', '--key', fresh.keyId);
    await until('the stream ended', () => s.ended, allowance(15_000));
    const { refused } = await open(fresh.key);
    expectApiError(refused!, 401, 'authentication_failed');
  });

  it('counts once toward the rate limit however long it stays open; a key holds at most EVENTS_STREAMS_PER_KEY streams (429 beyond)', async () => {
    const fresh = await mesh.workspace();
    // the limit's windows are whole minutes of the gateway database's clock: the stream and the
    // read after it must fall in one window, or the read counts in a fresh one (RATE_LIMIT - 1)
    await roomInRateWindow(10);
    const streams = [await stream(fresh.key)];
    expect(streams[0].response.headers.get('ratelimit-remaining')).toBe(String(RATE_LIMIT - 1));
    await quiet(1500); // several reads of the stored events meanwhile
    const list = await mesh.request('GET', '/events', { key: fresh.key });
    expect(list.headers.get('ratelimit-remaining')).toBe(String(RATE_LIMIT - 2));
    for (let i = 1; i < STREAMS_PER_KEY; i++) streams.push(await stream(fresh.key));
    const { refused } = await open(fresh.key);
    expectApiError(refused!, 429, 'rate_limited');
    expect(refused!.headers.get('retry-after')).toMatch(/^\d+$/);
    // another key of the workspace has its own
    const second = (await mesh.key(fresh.workspace.id, 'live')).key as string;
    (await stream(second)).close();
    streams[0].close();
    await until('a stream freed', async () => {
      const { stream: s, refused: again } = await open(fresh.key);
      s?.close();
      return again === undefined;
    });
    for (const s of streams) s.close();
  });

  it('a comment line at least every EVENTS_STREAM_HEARTBEAT_MS while nothing happens', async () => {
    const s = await stream(other.key);
    await quiet(2500);
    expect(s.comments.filter((c) => c === 'keep-alive').length).toBeGreaterThanOrEqual(2);
    expect(s.raw.startsWith(`: events of ${other.workspace.id} (live events)\nretry: 1000\n\n`)).toBe(true);
    s.close();
  });

  it('the gateway stopping ends its streams at once (its drain does not wait for them); the client resumes from its last id on the gateway started again', async () => {
    const s = await stream(ws.key);
    const [a] = await publish(ws.workspace.id, [{}]);
    await until('a', () => s.events.length >= 1);
    const started = Date.now();
    expect(await mesh.stopApp('gateway')).toBe(0);
    expect(Date.now() - started).toBeLessThan(allowance(5000));
    await until('the stream ended', () => s.ended, allowance(5000));
    const [b, c] = await publish(ws.workspace.id, [{}, {}]);
    await mesh.startApp('gateway');
    const resumed = await stream(ws.key, '', { 'last-event-id': a });
    await until('b and c', () => resumed.events.length >= 2);
    await quiet();
    expect(ids(resumed)).toEqual(await stored(b, c));
    resumed.close();
  });
});
