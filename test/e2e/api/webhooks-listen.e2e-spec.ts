import { spawn } from 'node:child_process';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import Stripe from 'stripe';
import { PermissionViolationError } from '@nats-io/transport-node';
import { workspaceEventsSubject } from '@app/contracts/subjects';
import { connectMesh } from '@app/platform/nats';
import { freePort, ROOT, waitFor } from '../../../tools/mesh/processes';
import { HARNESS, SHARED_ALL_START_MS, TestMesh } from '../../harness';
import { Running, startExampleReceiver } from '../../support/running';
import { allowance } from '../../support/timing';

type Workspace = Awaited<ReturnType<TestMesh['workspace']>>;

const stripe = new Stripe('sk_test_unused');

/**
 * Issue 24: `npm run -s admin -- listen --workspace ws_… --forward-to <url>` receives the
 * workspace's events over NATS (the webhooks service publishes each one it stores) and forwards
 * each body as is to a local receiver, signed with a secret it prints once. The receiver is the
 * example in examples/webhook-receiver, run as its own process, verifying with that secret.
 */
describe('admin listen: the workspace\'s events forwarded to a local receiver', () => {
  let mesh: TestMesh;
  let ws: Workspace;
  let other: Workspace;
  let testKey: string;
  const started: Running[] = [];

  beforeAll(async () => {
    mesh = await TestMesh.sharedAll();
    [ws, other] = await Promise.all([mesh.workspace(), mesh.workspace()]);
    testKey = (await mesh.key(ws.workspace.id, 'test')).key;
  }, SHARED_ALL_START_MS);
  afterAll(async () => {
    await Promise.all(started.map((p) => p.stop()));
    await mesh?.close();
  });

  const listen = (...args: string[]) => {
    const running = new Running(spawn(process.execPath, [join(ROOT, 'dist/apps/admin/src/main.js'), 'listen', ...args], { env: mesh.env, cwd: ROOT }));
    started.push(running);
    return running;
  };
  const receiverAt = (port: number, secret: string) => startExampleReceiver(port, secret, started);
  const createLead = async (key: string, name: string) => {
    const res = await mesh.request('POST', '/leads', { key, body: { full_name: name } });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };
  const eventOfLead = async (key: string, leadId: string) => {
    let event: any;
    await waitFor('the lead\'s event stored', async () => {
      event = (await mesh.request('GET', '/events?type=lead.created', { key })).body.data.find((e: any) => e.data.object.id === leadId);
      return event !== undefined;
    }, allowance(15_000), 100);
    return event;
  };

  it('prints a whsec_ secret once, forwards live and test events to the example receiver, which verifies them, and prints a line per event with its status', async () => {
    const port = await freePort();
    const listener = listen('--workspace', ws.workspace.id, '--forward-to', `http://127.0.0.1:${port}/hooks`);
    await waitFor('the listener ready', async () => listener.lines.length >= 1, HARNESS.readyTimeoutMs, 50);
    const [ready] = listener.json();
    expect(ready).toEqual({ object: 'listener', workspace_id: ws.workspace.id, forward_to: `http://127.0.0.1:${port}/hooks`, secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{40,}$/) });
    const receiver = await receiverAt(port, ready.secret);

    const liveLead = await createLead(ws.key, 'Ada Lovelace');
    const testLead = await createLead(testKey, 'Grace Hopper');
    await createLead(other.key, 'Not This Workspace');
    const live = await eventOfLead(ws.key, liveLead);
    const test = await eventOfLead(testKey, testLead);

    await waitFor('two lines', async () => listener.lines.length >= 3, allowance(15_000), 50);
    const lines = listener.json().slice(1);
    expect(lines).toEqual(expect.arrayContaining([
      { event_id: live.id, type: 'lead.created', livemode: true, status: 200, latency_ms: expect.any(Number) },
      { event_id: test.id, type: 'lead.created', livemode: false, status: 200, latency_ms: expect.any(Number) },
    ]));
    // the receiver accepted both with the printed secret (it prints only what it verified)
    await waitFor('the receiver logged both', async () => receiver.lines.filter((l) => / lead\.created evt_/.test(l)).length >= 2, 5000, 50);
    for (const [event, leadId] of [[live, liveLead], [test, testLead]]) {
      expect(receiver.lines).toContain(`${event.created} lead.created ${event.id} ${leadId}`);
    }
    // the other workspace's event is not this listener's
    await new Promise((r) => setTimeout(r, 1000));
    expect(listener.lines).toHaveLength(3);

    // a receiver that is gone: the line says so, with no status
    await receiver.stop();
    const later = await eventOfLead(ws.key, await createLead(ws.key, 'Alan Turing'));
    await waitFor('the failed forward', async () => listener.lines.length >= 4, allowance(15_000), 50);
    expect(listener.json()[3]).toEqual({ event_id: later.id, type: 'lead.created', livemode: true, status: null, latency_ms: expect.any(Number), error: 'ECONNREFUSED' });

    // interrupted: it stops, says how many it forwarded, and exits 0
    expect(await listener.stop()).toBe(0);
    expect(listener.json().at(-1)).toEqual({ object: 'listener', workspace_id: ws.workspace.id, stopped: true, forwarded: 3 });
    expect(listener.lines.filter((l) => l.includes('whsec_'))).toHaveLength(1);
  });

  it('forwards the exact body of GET /events/{id}, signed at that moment with its own secret; each listener has its own', async () => {
    const bodies: { body: string; signature: string; status: number }[] = [];
    let status = 200;
    const server: Server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        bodies.push({ body: Buffer.concat(chunks).toString('utf8'), signature: String(req.headers['service-signature']), status });
        res.writeHead(status).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/raw`;
      const [a, b] = [listen('--workspace', ws.workspace.id, '--forward-to', url), listen('--workspace', ws.workspace.id, '--forward-to', url)];
      await waitFor('both listeners ready', async () => a.lines.length >= 1 && b.lines.length >= 1, HARNESS.readyTimeoutMs, 50);
      const [secretA, secretB] = [a.json()[0].secret, b.json()[0].secret];
      expect(secretA).not.toBe(secretB);
      status = 418;
      const event = await eventOfLead(ws.key, await createLead(ws.key, 'Edsger Dijkstra'));
      await waitFor('both forwarded', async () => bodies.length === 2, allowance(15_000), 50);
      const exact = (await mesh.request('GET', `/events/${event.id}`, { key: ws.key })).text;
      for (const got of bodies) expect(got.body).toBe(exact);
      // one signature verifies with one listener's secret only
      const verifies = (secret: string) => bodies.filter((got) => {
        try {
          stripe.webhooks.constructEvent(got.body, got.signature, secret);
          return true;
        } catch {
          return false;
        }
      }).length;
      expect([verifies(secretA), verifies(secretB)]).toEqual([1, 1]);
      // the receiver's status, whatever it is
      await waitFor('the lines', async () => a.lines.length >= 2 && b.lines.length >= 2, 5000, 50);
      for (const running of [a, b]) expect(running.json()[1]).toMatchObject({ event_id: event.id, status: 418 });
    } finally {
      server.close();
    }
  });

  it('an unknown workspace is refused at once (exit 1); a --forward-to that is not an http(s) URL is a usage error (exit 2)', async () => {
    const unknown = listen('--workspace', 'ws_missing', '--forward-to', 'http://127.0.0.1:9/hooks');
    expect(await unknown.exited).toBe(1);
    expect(unknown.stderr).toMatch(/^error: .*ws_missing/);
    expect(unknown.lines).toEqual([]);
    for (const url of ['ftp://127.0.0.1/hooks', 'localhost:4242/hooks']) {
      const bad = listen('--workspace', ws.workspace.id, '--forward-to', url);
      expect(await bad.exited).toBe(2);
      expect(bad.stderr).toMatch(/--forward-to must be an absolute http:\/\/ or https:\/\/ URL/);
    }
    const missing = listen('--workspace', ws.workspace.id);
    expect(await missing.exited).toBe(2);
    expect(missing.stderr).toMatch(/--forward-to is required/);
  });

  it("a workspace's events are the operator's to read and the webhooks service's to publish: other identities are refused by the server", async () => {
    const crm = await connectMesh(mesh.identityOptions('crm'));
    const errors: string[] = [];
    void (async () => {
      for await (const s of crm.status()) if (s.type === 'error') errors.push(String(s.error?.message ?? s.error));
    })();
    try {
      const sub = crm.subscribe(workspaceEventsSubject(ws.workspace.id));
      expect(await sub.closed).toBeInstanceOf(PermissionViolationError);
      crm.publish(workspaceEventsSubject(ws.workspace.id), '{}');
      await crm.flush();
      await new Promise((r) => setTimeout(r, 200));
      expect(errors.join('\n')).toMatch(/Permissions Violation for Subscription to "webhooks\.listen\.ws_/i);
      expect(errors.join('\n')).toMatch(/Permissions Violation for Publish to "webhooks\.listen\.ws_/i);
    } finally {
      await crm.close();
    }
  });
});
