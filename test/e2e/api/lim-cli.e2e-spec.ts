import { jetstream } from '@nats-io/jetstream';
import { eventSubject } from '@app/contracts/subjects';
import { newId } from '@app/platform/ids';
import { verifySignature } from '../../../packages/client/src';
import { freePort, waitFor } from '../../../tools/mesh/processes';
import { HttpsReceiver, TestCertificate } from '../../../tools/webhooks/https-receiver';
import { HARNESS, meshHookTimeoutMs, TestMesh } from '../../harness';
import { LimBuild } from '../../support/lim';
import { Running, startExampleReceiver } from '../../support/running';
import { closeWebhooksFixture, startWebhooksFixture, Workspace } from '../../support/webhooks-fixture';
import { allowance } from '../../support/timing';

/**
 * Issue 38: `lim`, the integrator's CLI (packages/cli), needing nothing but an API key and the
 * API's address: `lim listen` forwards the workspace's events to a local receiver (the example in
 * examples/webhook-receiver, verifying each signature with the secret lim printed), resuming after
 * a gateway restart without a gap or a repeat; `lim trigger` sends a sample to the workspace's
 * endpoints or straight to a local receiver; `lim events` and `lim deliveries` read and retry as
 * the API answers.
 */
describe('lim (packages/cli) against the mesh', () => {
  let mesh: TestMesh;
  let cert: TestCertificate;
  let receiver: HttpsReceiver;
  let ws: Workspace;
  let other: Workspace;
  let testKey: string;
  let lim: LimBuild;
  const started: Running[] = [];

  beforeAll(async () => {
    lim = await LimBuild.build();
    ({ mesh, cert, receiver, ws, other, testKey } = await startWebhooksFixture({ EVENTS_STREAM_POLL_MS: '200' }));
    await mesh.startApp('crm');
  }, meshHookTimeoutMs(3)); // the webhooks fixture and crm; lim's build in the rest of the hook
  afterAll(async () => {
    await Promise.all(started.map((p) => p.stop()));
    await closeWebhooksFixture({ mesh, cert, receiver });
  });

  const env = (key: string | null = ws.key) => ({ LIM_API_KEY: key ?? undefined, LIM_API_BASE: mesh.baseUrl });
  const listen = (args: string[], key?: string) => {
    const running = lim.spawn(['listen', ...args], env(key));
    started.push(running);
    return running;
  };
  const exampleReceiver = (port: number, secret: string) => startExampleReceiver(port, secret, started);
  const createLead = async (key: string, name: string) => {
    const res = await mesh.request('POST', '/leads', { key, body: { full_name: name } });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };
  const eventOfLead = async (key: string, leadId: string, type = 'lead.created') => {
    let event: any;
    await waitFor('the lead\'s event stored', async () => {
      event = (await mesh.request('GET', `/events?type=${type}`, { key })).body.data.find((e: any) => e.data.object.id === leadId);
      return event !== undefined;
    }, allowance(15_000), 100);
    return event;
  };
  const eventLines = (running: Running) => running.json().filter((l) => 'event_id' in l);

  it('lim listen prints a whsec_ secret once, forwards the key\'s events to the example receiver, which verifies them, one line each with its status', async () => {
    const port = await freePort();
    const listener = listen(['--forward-to', `http://127.0.0.1:${port}/hooks`]);
    await waitFor('the listener ready', async () => listener.lines.length >= 1, HARNESS.readyTimeoutMs, 50);
    const [ready] = listener.json();
    expect(ready).toEqual({ object: 'listener', forward_to: `http://127.0.0.1:${port}/hooks`, events: ['*'], livemode: true, secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{43}$/) });
    const example = await exampleReceiver(port, ready.secret);

    const leadId = await createLead(ws.key, 'Ada Lovelace');
    await createLead(testKey, 'Test Mode Lead');
    await createLead(other.key, 'Another Workspace');
    const event = await eventOfLead(ws.key, leadId);
    await waitFor('the event forwarded', async () => eventLines(listener).length >= 1, allowance(15_000), 50);
    await new Promise((r) => setTimeout(r, 1000));
    // only the key's workspace and mode
    expect(eventLines(listener)).toEqual([{ event_id: event.id, type: 'lead.created', livemode: true, status: 200, latency_ms: expect.any(Number) }]);
    // the receiver printed it: it verified the signature with the printed secret
    await waitFor('the receiver logged it', async () => example.lines.includes(`${event.created} lead.created ${event.id} ${leadId}`), 5000, 50);

    expect(await listener.stop()).toBe(0);
    expect(listener.json().at(-1)).toEqual({ object: 'listener', stopped: true, forwarded: 1 });
    expect(listener.lines.filter((l) => l.includes('whsec_'))).toHaveLength(1);
  });

  it('lim listen --events keeps those types; the body forwarded is GET /events/{id}\'s, signed with the listener\'s secret', async () => {
    const bodies: { body: string; signature: string }[] = [];
    const port = await freePort();
    const { createServer } = await import('node:http');
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        bodies.push({ body: Buffer.concat(chunks).toString('utf8'), signature: String(req.headers['service-signature']) });
        res.writeHead(418).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    try {
      const listener = listen(['--forward-to', `http://127.0.0.1:${port}/raw`, '--events', 'lead.updated'], testKey);
      await waitFor('the listener ready', async () => listener.lines.length >= 1, HARNESS.readyTimeoutMs, 50);
      const { secret, livemode } = listener.json()[0];
      expect(livemode).toBe(false);
      const leadId = await createLead(testKey, 'Grace Hopper');
      expect((await mesh.request('PATCH', `/leads/${leadId}`, { key: testKey, body: { title: 'Rear Admiral' } })).status).toBe(200);
      const updated = await eventOfLead(testKey, leadId, 'lead.updated');
      await waitFor('forwarded', async () => bodies.length >= 1, allowance(15_000), 50);
      await new Promise((r) => setTimeout(r, 1000));
      expect(bodies).toHaveLength(1);
      expect(bodies[0].body).toBe((await mesh.request('GET', `/events/${updated.id}`, { key: testKey })).text);
      expect(verifySignature(bodies[0].body, bodies[0].signature, secret).ok).toBe(true);
      expect(eventLines(listener)).toEqual([{ event_id: updated.id, type: 'lead.updated', livemode: false, status: 418, latency_ms: expect.any(Number) }]);
    } finally {
      server.close();
    }
  });

  it('lim listen survives a gateway restart: the events stored meanwhile are forwarded after it, none lost or twice', async () => {
    const port = await freePort();
    const listener = listen(['--forward-to', `http://127.0.0.1:${port}/hooks`]);
    await waitFor('the listener ready', async () => listener.lines.length >= 1, HARNESS.readyTimeoutMs, 50);
    const example = await exampleReceiver(port, listener.json()[0].secret);
    const before = await eventOfLead(ws.key, await createLead(ws.key, 'Before Restart'));
    await waitFor('before forwarded', async () => eventLines(listener).length >= 1, allowance(15_000), 50);

    expect(await mesh.stopApp('gateway')).toBe(0);
    // stored while the gateway is down: published as a service's outbox relay publishes
    const js = jetstream(await mesh.natsClient());
    const whileDown = newId('evt_');
    await js.publish(eventSubject('lead.created'), JSON.stringify({
      id: whileDown, object: 'event', type: 'lead.created', api_version: '2026-09-28', created: new Date().toISOString(), workspace_id: ws.workspace.id,
      livemode: true, data: { object: { id: newId('lead_'), object: 'lead', full_name: 'While Down' } },
    }), { msgID: whileDown });
    await waitFor('stored', async () => (await mesh.query('webhooks', 'SELECT 1 FROM webhook_events WHERE id = $1', [whileDown])).length === 1, allowance(15_000), 100);
    await new Promise((r) => setTimeout(r, 1500));
    await mesh.startApp('gateway');
    const after = await eventOfLead(ws.key, await createLead(ws.key, 'After Restart'));

    await waitFor('three forwarded', async () => eventLines(listener).length >= 3, allowance(30_000), 50);
    await new Promise((r) => setTimeout(r, 1000));
    expect(eventLines(listener).map((l) => [l.event_id, l.status])).toEqual([[before.id, 200], [whileDown, 200], [after.id, 200]]);
    expect(listener.stderr).toMatch(/reconnected, resuming after evt_/);
    await waitFor('the receiver verified all three', async () => example.lines.filter((l) => / lead\.created evt_/.test(l)).length === 3, 5000, 50);
  });

  it('lim trigger sends a sample to the workspace\'s endpoints that receive the type and prints each receiver\'s status; --forward-to sends it straight to a local receiver, signed', async () => {
    const fresh = await mesh.workspace();
    const e1 = (await mesh.request('POST', '/webhook_endpoints', { key: fresh.key, body: { url: receiver.url('/lim/one'), events: ['credits.low'] } })).body;
    const e2 = (await mesh.request('POST', '/webhook_endpoints', { key: fresh.key, body: { url: receiver.url('/lim/all'), events: ['*'] } })).body;
    await mesh.request('POST', '/webhook_endpoints', { key: fresh.key, body: { url: receiver.url('/lim/none'), events: ['lead.created'] } });
    receiver.respond('/lim/all', () => ({ status: 503 }));

    const sent = await lim.run(['trigger', 'credits.low'], env(fresh.key));
    expect({ code: sent.code, stderr: sent.stderr }).toEqual({ code: 1, stderr: '' });
    const lines = sent.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines).toEqual(expect.arrayContaining([
      expect.objectContaining({ endpoint_id: e1.id, type: 'credits.low', status: 200, delivery_id: expect.stringMatching(/^whd_/) }),
      expect.objectContaining({ endpoint_id: e2.id, type: 'credits.low', status: 503 }),
    ]));
    expect(lines).toHaveLength(2);
    const [delivered] = receiver.at('/lim/one');
    expect(JSON.parse(delivered.rawBody)).toMatchObject({ type: 'credits.low', livemode: false, sample: true, workspace_id: fresh.workspace.id });
    expect(verifySignature(delivered.rawBody, String(delivered.headers['service-signature']), e1.secret).ok).toBe(true);
    expect(receiver.at('/lim/none')).toEqual([]);

    // straight to the example receiver, with the secret it holds
    const port = await freePort();
    const secret = 'whsec_' + 'k'.repeat(43);
    const example = await exampleReceiver(port, secret);
    const local = await lim.run(['trigger', 'lead.created', '--forward-to', `http://127.0.0.1:${port}/hooks`, '--secret', secret], env(fresh.key));
    expect({ code: local.code, stderr: local.stderr }).toEqual({ code: 0, stderr: '' });
    const line = JSON.parse(local.stdout);
    expect(line).toEqual({ event_id: expect.stringMatching(/^evt_/), type: 'lead.created', livemode: false, sample: true, status: 200, latency_ms: expect.any(Number) });
    await waitFor('the receiver verified it', async () => example.lines.some((l) => l.includes(` lead.created ${line.event_id} `)), 5000, 50);
    // without a secret: a fresh one, printed first
    const fresher = await lim.run(['trigger', 'lead.created', '--forward-to', `http://127.0.0.1:${port}/hooks`], env(fresh.key));
    const [printed, refused] = fresher.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(printed).toEqual({ object: 'trigger', forward_to: `http://127.0.0.1:${port}/hooks`, secret: expect.stringMatching(/^whsec_/) });
    expect({ code: fresher.code, status: refused.status }).toEqual({ code: 1, status: 400 });
    // a workspace without a matching endpoint, an unknown type
    const none = await lim.run(['trigger', 'lead.created'], env(other.key));
    expect({ code: none.code, stderr: none.stderr }).toEqual({ code: 1, stderr: expect.stringContaining('no enabled webhook endpoint of this workspace receives lead.created') });
    const unknown = await lim.run(['trigger', 'lead.nope', '--forward-to', `http://127.0.0.1:${port}/hooks`], env(fresh.key));
    expect({ code: unknown.code, stderr: unknown.stderr }).toEqual({ code: 2, stderr: expect.stringContaining('unknown event type lead.nope') });
  });

  it('lim events list|get and lim deliveries list|retry print the API\'s JSON', async () => {
    const fresh = await mesh.workspace();
    const endpoint = (await mesh.request('POST', '/webhook_endpoints', { key: fresh.key, body: { url: receiver.url('/lim/deliveries'), events: ['*'] } })).body;
    const leadIds = [await createLead(fresh.key, 'One'), await createLead(fresh.key, 'Two')];
    for (const id of leadIds) await eventOfLead(fresh.key, id);

    const list = await lim.run(['events', 'list', '--type', 'lead.created', '--limit', '1'], env(fresh.key));
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout)).toEqual((await mesh.request('GET', '/events?type=lead.created&limit=1', { key: fresh.key })).body);
    const page = JSON.parse(list.stdout);
    const next = await lim.run(['events', 'list', '--type', 'lead.created', '--limit', '1', '--starting-after', page.next_cursor], env(fresh.key));
    expect(JSON.parse(next.stdout).data[0].id).not.toBe(page.data[0].id);
    const got = await lim.run(['events', 'get', page.data[0].id], env(fresh.key));
    expect(JSON.parse(got.stdout)).toEqual(page.data[0]);

    await waitFor('two deliveries attempted', async () =>
      (await mesh.request('GET', `/webhook_endpoints/${endpoint.id}/deliveries`, { key: fresh.key })).body.data.filter((d: any) => d.attempts.length > 0).length === 2, allowance(15_000), 100);
    const deliveries = await lim.run(['deliveries', 'list', '--endpoint', endpoint.id], env(fresh.key));
    expect(JSON.parse(deliveries.stdout)).toEqual((await mesh.request('GET', `/webhook_endpoints/${endpoint.id}/deliveries`, { key: fresh.key })).body);
    const deliveryId = JSON.parse(deliveries.stdout).data[0].id;
    const retried = await lim.run(['deliveries', 'retry', deliveryId], env(fresh.key));
    expect({ code: retried.code, id: JSON.parse(retried.stdout).id, object: JSON.parse(retried.stdout).object }).toEqual({ code: 0, id: deliveryId, object: 'webhook_delivery' });
    await waitFor('a second attempt', async () =>
      (await mesh.request('GET', `/webhook_endpoints/${endpoint.id}/deliveries`, { key: fresh.key })).body.data.find((d: any) => d.id === deliveryId).attempts.length === 2, allowance(15_000), 100);

    const missing = await lim.run(['events', 'get', 'evt_missing'], env(fresh.key));
    expect({ code: missing.code, stderr: missing.stderr }).toEqual({ code: 1, stderr: expect.stringMatching(/^error: 404 not_found \[id\]: .*\(request req_/) });
  });

  it('a revoked or unknown key is refused (exit 1, the API\'s error); no key, an unknown flag or a bad URL is a usage error (exit 2)', async () => {
    const fresh = await mesh.workspace();
    await mesh.admin('key:revoke', '--key', fresh.keyId);
    for (const key of [fresh.key, 'svc_live_' + 'x'.repeat(32)]) {
      const refused = await lim.run(['listen', '--forward-to', 'http://127.0.0.1:9/hooks'], env(key));
      expect({ code: refused.code, stdout: refused.stdout, stderr: refused.stderr }).toEqual({ code: 1, stdout: '', stderr: expect.stringMatching(/^error: 401 authentication_failed: /) });
    }
    const cases: [string[], Record<string, string | undefined>, RegExp][] = [
      [['events', 'list'], env(null), /an API key is needed/],
      [['events', 'list', '--nope', '1'], env(), /unknown flag --nope/],
      [['listen', '--forward-to', 'localhost:4242/hooks'], env(), /--forward-to must be an absolute http:\/\/ or https:\/\/ URL/],
      [['listen'], env(), /--forward-to is required/],
      [['frobnicate'], env(), /unknown command frobnicate/],
    ];
    for (const [args, vars, message] of cases) {
      const run = await lim.run(args, vars);
      expect({ args, code: run.code, stderr: run.stderr }).toEqual({ args, code: 2, stderr: expect.stringMatching(message) });
    }
    const help = await lim.run(['--help'], {});
    expect({ code: help.code, usage: help.stdout }).toEqual({ code: 0, usage: expect.stringContaining('listen --forward-to <url>') });
  });
});
