import { jetstream } from '@nats-io/jetstream';
import { EVENT, eventSubject, WorkspaceCreatedData } from '@app/contracts';
import { buildEnvelope } from '@app/platform';
import { TestMesh } from '../harness';
import { waitFor } from '../../tools/mesh/processes';

/**
 * A poison event ends in the consuming service's dead-letter store after its last delivery, with
 * its last error, counted on /metrics, listed and replayed by the admin CLI; the events behind it
 * go on meanwhile. Billing's handler fails on a real database error the test can switch off.
 */
describe('dead-letter store of durable consumers', () => {
  let mesh: TestMesh;

  beforeAll(async () => {
    mesh = await TestMesh.start(['gateway', 'billing'], { EVENT_MAX_DELIVER: '3', EVENT_BACKOFF: '300ms,1s' });
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
    await waitFor('the good event handled', async () => (await accounts('ws_after_poison')).length === 1, 10_000);
    expect((await dead()).length).toBe(0);

    await waitFor('the poison event stored as dead', async () => (await dead()).length === 1, 20_000);
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
