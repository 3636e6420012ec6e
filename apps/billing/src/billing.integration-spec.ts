import { jetstream } from '@nats-io/jetstream';
import { EVENT, eventSubject, pingSubject, WorkspaceCreatedData } from '@app/contracts';
import { buildEnvelope } from '@app/platform';
import { TestMesh } from '../../../test/harness';
import { waitFor } from '../../../tools/mesh/processes';

interface AccountRow {
  plan: string;
  plan_balance: number;
  pack_balance: number;
  period_days: number;
}

interface LedgerRow {
  id: string;
  type: string;
  amount: number;
  reason: string;
  ref: string | null;
  pool: string;
}

describe('billing service', () => {
  let mesh: TestMesh;

  beforeAll(async () => {
    mesh = await TestMesh.start(['billing']);
  });

  afterAll(async () => {
    await mesh?.close();
  });

  /** Publishes as the gateway's outbox relay does: to EVENTS, deduplicated by event id. */
  async function workspaceCreated(object: WorkspaceCreatedData): Promise<string> {
    const envelope = buildEnvelope({
      type: EVENT.workspaceCreated,
      workspace_id: object.workspace_id,
      livemode: true,
      api_version: '2026-09-28',
      object,
    });
    const nc = await mesh.natsClient();
    await jetstream(nc).publish(eventSubject(envelope.type), JSON.stringify(envelope), { msgID: envelope.id });
    return envelope.id;
  }

  async function processed(eventId: string): Promise<void> {
    await waitFor(`event ${eventId} processed`, async () => {
      const rows = await mesh.query('billing', 'SELECT 1 FROM processed_events WHERE consumer = $1 AND event_id = $2', ['billing', eventId]);
      return rows.length === 1;
    }, 10_000);
  }

  const account = async (workspaceId: string) =>
    mesh.query<AccountRow>(
      'billing',
      `SELECT plan, plan_balance, pack_balance,
              extract(day FROM period_ends_at - created_at)::int AS period_days
         FROM credit_accounts WHERE workspace_id = $1`,
      [workspaceId],
    );

  const ledger = async (workspaceId: string) =>
    mesh.query<LedgerRow>(
      'billing',
      'SELECT id, type, amount, reason, ref, pool FROM ledger_entries WHERE workspace_id = $1 ORDER BY pool DESC',
      [workspaceId],
    );

  it('answers its ping subject', async () => {
    const { response, err } = await mesh.rpc(pingSubject('billing'), {}, {});
    expect(err).toBeUndefined();
    expect(response).toEqual({ service: 'billing', ok: true });
  });

  it('opens the account of a new workspace and grants both starting balances', async () => {
    await processed(await workspaceCreated({ workspace_id: 'ws_billing_a', plan: 'agency', plan_credits: 5000, pack_credits: 2000 }));

    expect(await account('ws_billing_a')).toEqual([{ plan: 'agency', plan_balance: 5000, pack_balance: 2000, period_days: expect.any(Number) }]);
    const [{ period_days }] = await account('ws_billing_a');
    expect(period_days).toBeGreaterThanOrEqual(28);
    expect(period_days).toBeLessThanOrEqual(31);
    const entries = await ledger('ws_billing_a');
    expect(entries).toEqual([
      { id: expect.stringMatching(/^cl_/), type: 'grant', amount: 5000, reason: 'plan_renewal', ref: null, pool: 'plan' },
      { id: expect.stringMatching(/^cl_/), type: 'grant', amount: 2000, reason: 'pack_2000', ref: null, pool: 'pack' },
    ]);
  });

  it('never grants twice when a workspace is announced again', async () => {
    await processed(await workspaceCreated({ workspace_id: 'ws_billing_b', plan: 'growth', plan_credits: 1000, pack_credits: 0 }));
    await processed(await workspaceCreated({ workspace_id: 'ws_billing_b', plan: 'agency', plan_credits: 9000, pack_credits: 500 }));

    expect(await account('ws_billing_b')).toEqual([{ plan: 'growth', plan_balance: 1000, pack_balance: 0, period_days: expect.any(Number) }]);
    expect(await ledger('ws_billing_b')).toEqual([
      { id: expect.stringMatching(/^cl_/), type: 'grant', amount: 1000, reason: 'plan_renewal', ref: null, pool: 'plan' },
    ]);
  });

  it('writes no ledger entry for zero starting balances', async () => {
    await processed(await workspaceCreated({ workspace_id: 'ws_billing_c', plan: 'free', plan_credits: 0, pack_credits: 0 }));

    expect(await account('ws_billing_c')).toHaveLength(1);
    expect(await ledger('ws_billing_c')).toEqual([]);
  });

  it('drops a malformed event without blocking the ones after it', async () => {
    const bad = await workspaceCreated({ workspace_id: 'ws_billing_bad', plan: 'agency', plan_credits: -5, pack_credits: 0 });
    await processed(await workspaceCreated({ workspace_id: 'ws_billing_d', plan: 'starter', plan_credits: 100, pack_credits: 0 }));
    await processed(bad);

    expect(await account('ws_billing_bad')).toEqual([]);
    expect(await account('ws_billing_d')).toHaveLength(1);
  });

  it('exits 0 on SIGTERM', async () => {
    expect(await mesh.stopApp('billing')).toBe(0);
  });
});
