import { jetstream } from '@nats-io/jetstream';
import { EVENT } from '@app/contracts/event-types';
import type { WorkspaceCreatedData } from '@app/contracts/events';
import { eventSubject } from '@app/contracts/subjects';
import { buildEnvelope } from '@app/platform/events';
import { newId } from '@app/platform/ids';
import { meshHookTimeoutMs, TestMesh } from '../../harness';
import { waitFor } from '../../../tools/mesh/processes';
import { HttpsReceiver, TestCertificate, testCertificate } from '../../../tools/webhooks/https-receiver';
import { allowance } from '../../support/timing';

/**
 * A poison event ends in the consuming service's dead-letter store after its last delivery, with
 * its last error, counted on /metrics, listed and replayed by the admin CLI; the events behind it
 * go on meanwhile. Billing's handler fails on a real database error the test can switch off.
 */
describe('dead-letter store of durable consumers', () => {
  let mesh: TestMesh;

  beforeAll(async () => {
    mesh = await TestMesh.start(['gateway', 'billing'], { EVENT_MAX_DELIVER: '3', EVENT_BACKOFF: '2s,4s' });
    await mesh.query(
      'billing',
      `CREATE FUNCTION refuse_poison() RETURNS trigger LANGUAGE plpgsql AS $fn$
       BEGIN
         IF NEW.workspace_id LIKE 'ws_poison%' THEN RAISE EXCEPTION 'poison account % refused', NEW.workspace_id; END IF;
         RETURN NEW;
       END $fn$`,
    );
    await mesh.query('billing', 'CREATE TRIGGER refuse_poison BEFORE INSERT ON credit_accounts FOR EACH ROW EXECUTE FUNCTION refuse_poison()');
  });

  afterAll(async () => {
    await mesh?.close();
  });

  async function workspaceCreated(object: WorkspaceCreatedData): Promise<string> {
    const envelope = buildEnvelope({ type: EVENT.workspaceCreated, workspace_id: object.workspace_id, livemode: true, api_version: '2026-09-28', object });
    const nc = await mesh.natsClient();
    await jetstream(nc).publish(eventSubject(envelope.type), JSON.stringify(envelope), { msgID: envelope.id });
    return envelope.id;
  }

  const accounts = (workspaceId: string) =>
    mesh.query('billing', 'SELECT plan, plan_balance, pack_balance FROM credit_accounts WHERE workspace_id = $1', [workspaceId]);
  const dead = () => mesh.query('billing', 'SELECT consumer, event_id, type, last_error, attempts FROM dead_events ORDER BY event_id');

  async function metrics(): Promise<string> {
    const res = await fetch(`http://127.0.0.1:${mesh.apps.get('billing')!.port}/metrics`);
    return res.text();
  }

  it('stores the event after its last delivery, counts it, lists it, and replays it once when the cause is fixed', async () => {
    const poison = await workspaceCreated({ workspace_id: 'ws_poison_1', plan: 'growth', plan_credits: 1000, pack_credits: 250 });
    await workspaceCreated({ workspace_id: 'ws_after_poison', plan: 'starter', plan_credits: 100, pack_credits: 0 });

    // no head-of-line blocking: the event behind the poison one is handled while the poison one waits for its retries
    await waitFor('the good event handled', async () => (await accounts('ws_after_poison')).length === 1, allowance(10_000));
    expect((await dead()).length).toBe(0);

    await waitFor('the poison event stored as dead', async () => (await dead()).length === 1, 2000 + 4000 + allowance(14_000)); // the backoffs the test set, and the machine's part
    expect(await dead()).toEqual([
      { consumer: 'billing', event_id: poison, type: 'workspace.created', last_error: 'poison account ws_poison_1 refused', attempts: 3 },
    ]);
    expect(await accounts('ws_poison_1')).toEqual([]);
    // terminated: not delivered again
    await new Promise((r) => setTimeout(r, 1500));
    expect((await dead())[0].attempts).toBe(3);

    const text = await metrics();
    expect(text).toMatch(/^events_dead_letter_total\{[^}]*consumer="billing"[^}]*\} 1$/m);
    expect(text).toMatch(/^events_dead_letter_waiting\{[^}]*consumer="billing"[^}]*\} 1$/m);

    const listed = await mesh.admin('events:dead', '--service', 'billing', '--limit', '5');
    expect(listed).toEqual({
      data: [
        {
          service: 'billing',
          consumer: 'billing',
          event_id: poison,
          type: 'workspace.created',
          last_error: 'poison account ws_poison_1 refused',
          attempts: 3,
          first_failed_at: expect.any(String),
          last_failed_at: expect.any(String),
          envelope: expect.objectContaining({ id: poison, type: 'workspace.created', data: { object: expect.objectContaining({ workspace_id: 'ws_poison_1' }) } }),
        },
      ],
    });
    // across every consuming service: those not running in this mesh are named, not taken for empty
    const all = await mesh.admin('events:dead');
    expect(all.data).toEqual(listed.data);
    expect(all.unreachable.map((u: { service: string }) => u.service).sort()).toEqual(['crm', 'sequences', 'webhooks']);

    // the cause still there: the replay fails and the event stays, with one more attempt
    expect(await mesh.admin('events:replay', '--service', 'billing', '--event', poison)).toEqual({
      replayed: [],
      failed: [{ consumer: 'billing', event_id: poison, error: 'poison account ws_poison_1 refused' }],
    });
    expect((await dead())[0].attempts).toBe(4);

    await mesh.query('billing', 'DROP TRIGGER refuse_poison ON credit_accounts');
    expect(await mesh.admin('events:replay', '--service', 'billing', '--event', poison)).toEqual({
      replayed: [{ consumer: 'billing', event_id: poison }],
      failed: [],
    });
    expect(await accounts('ws_poison_1')).toEqual([{ plan: 'growth', plan_balance: 1000, pack_balance: 250 }]);
    expect(await mesh.query('billing', 'SELECT count(*)::int AS n FROM ledger_entries WHERE workspace_id = $1', ['ws_poison_1'])).toEqual([{ n: 2 }]);
    expect(await dead()).toEqual([]);
    expect(await mesh.admin('events:dead', '--service', 'billing')).toEqual({ data: [] });
    expect(await mesh.admin('events:replay', '--service', 'billing', '--all', 'true')).toEqual({ replayed: [], failed: [] });
    expect(await metrics()).toMatch(/^events_dead_letter_waiting\{[^}]*consumer="billing"[^}]*\} 0$/m);
  });

  it('refuses a replay without a choice of events, and an unknown service', async () => {
    const neither = await mesh.adminRaw(['events:replay', '--service', 'billing']);
    expect(neither.code).toBe(2);
    expect(neither.stderr).toMatch(/give either --event <evt_id> or --all true/);
    const unknown = await mesh.adminRaw(['events:dead', '--service', 'gateway']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/--service must be one of crm, sequences, billing, webhooks/);
  });
});

/**
 * The webhooks fan-out reads events in batches: a poison event queued with good ones fails the
 * batch, is tried alone, and goes to the store after its last delivery while the others are sent.
 */
describe('dead-letter store of the webhooks fan-out', () => {
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
      EVENT_MAX_DELIVER: '2',
      EVENT_BACKOFF: '300ms',
    });
    const ws = await mesh.workspace();
    workspaceId = ws.workspace.id;
    const res = await mesh.request('POST', '/webhook_endpoints', { key: ws.key, body: { url: receiver.url('/dead'), events: ['lead.created'] } });
    expect(res.status).toBe(201);
    await mesh.query(
      'webhooks',
      `CREATE FUNCTION refuse_poison() RETURNS trigger LANGUAGE plpgsql AS $fn$
       BEGIN
         IF NEW.body LIKE '%Poison lead%' THEN RAISE EXCEPTION 'poison delivery refused'; END IF;
         RETURN NEW;
       END $fn$`,
    );
    await mesh.query('webhooks', 'CREATE TRIGGER refuse_poison BEFORE INSERT ON webhook_deliveries FOR EACH ROW EXECUTE FUNCTION refuse_poison()');
  }, meshHookTimeoutMs(2));

  afterAll(async () => {
    await mesh?.close();
    await receiver?.close();
    cert?.dispose();
  });

  it('a poison event in a batch goes to dead_events; the events batched with it are delivered; a replay sends it once', async () => {
    const seen: string[] = [];
    receiver.on((r) => {
      if (r.path === '/dead') seen.push(JSON.parse(r.rawBody).id);
    });
    // queued while the dispatcher is down, so they come back as one batch
    expect(await mesh.stopApp('webhooks')).toBe(0);
    const js = jetstream(await mesh.natsClient());
    const publish = async (name: string) => {
      const id = newId('evt_');
      const envelope = {
        id, object: 'event', type: 'lead.created', api_version: '2026-09-28', created: new Date().toISOString(), workspace_id: workspaceId,
        livemode: true, data: { object: { id: newId('lead_'), object: 'lead', full_name: name } },
      };
      await js.publish(eventSubject('lead.created'), JSON.stringify(envelope), { msgID: id });
      return id;
    };
    const good: string[] = [];
    for (let i = 0; i < 5; i++) good.push(await publish(`Good lead ${i}`));
    const poison = await publish('Poison lead');
    for (let i = 5; i < 10; i++) good.push(await publish(`Good lead ${i}`));
    await mesh.startApp('webhooks');

    await waitFor('the good events delivered', async () => good.every((id) => seen.includes(id)), allowance(20_000));
    const stored = () => mesh.query('webhooks', 'SELECT consumer, event_id, last_error, attempts FROM dead_events');
    await waitFor('the poison event stored as dead', async () => (await stored()).length === 1, allowance(20_000));
    expect(await stored()).toEqual([{ consumer: 'webhooks-dispatcher', event_id: poison, last_error: 'poison delivery refused', attempts: 2 }]);
    expect(seen).not.toContain(poison);
    expect(new Set(seen).size).toBe(seen.length);

    const listed = await mesh.admin('events:dead', '--service', 'webhooks');
    expect(listed.data.map((d: { event_id: string; service: string }) => [d.service, d.event_id])).toEqual([['webhooks', poison]]);

    await mesh.query('webhooks', 'DROP TRIGGER refuse_poison ON webhook_deliveries');
    expect(await mesh.admin('events:replay', '--service', 'webhooks', '--all', 'true')).toEqual({
      replayed: [{ consumer: 'webhooks-dispatcher', event_id: poison }],
      failed: [],
    });
    await waitFor('the replayed event delivered', async () => seen.includes(poison), allowance(15_000));
    expect(await stored()).toEqual([]);
    await new Promise((r) => setTimeout(r, 500));
    expect(seen.filter((id) => id === poison)).toHaveLength(1);
  });
});
