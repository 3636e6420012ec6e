import { jetstream } from '@nats-io/jetstream';
import { EVENT, eventSubject, pingSubject, SUBJECTS, WorkspaceCreatedData } from '@app/contracts';
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

  describe('billing.accounts.open (the gateway, answering a workspace creation)', () => {
    const open = (workspaceId: string, body: Record<string, unknown>) => mesh.rpc(SUBJECTS.billing.accountsOpen, { workspace_id: workspaceId }, body);

    it('opens the account at once with the opening the event carries; the event after it grants nothing again', async () => {
      const opening = { workspace_id: 'ws_billing_open', plan: 'growth', plan_credits: 300, pack_credits: 50 };
      expect(await open('ws_billing_open', opening)).toMatchObject({ response: { workspace_id: 'ws_billing_open', opened: true } });
      expect(await account('ws_billing_open')).toEqual([{ plan: 'growth', plan_balance: 300, pack_balance: 50, period_days: expect.any(Number) }]);

      expect(await open('ws_billing_open', opening)).toMatchObject({ response: { workspace_id: 'ws_billing_open', opened: false } });
      await processed(await workspaceCreated(opening));
      expect(await account('ws_billing_open')).toEqual([{ plan: 'growth', plan_balance: 300, pack_balance: 50, period_days: expect.any(Number) }]);
      expect((await ledger('ws_billing_open')).map((e) => [e.pool, e.amount])).toEqual([['plan', 300], ['pack', 50]]);
    });

    it('after the event opened it: answers opened false and grants nothing', async () => {
      const opening = { workspace_id: 'ws_billing_late', plan: 'starter', plan_credits: 70, pack_credits: 0 };
      await processed(await workspaceCreated(opening));
      expect(await open('ws_billing_late', opening)).toMatchObject({ response: { workspace_id: 'ws_billing_late', opened: false } });
      expect((await ledger('ws_billing_late')).map((e) => [e.pool, e.amount])).toEqual([['plan', 70]]);
    });

    it("refuses a malformed opening, or one for another workspace than the request's, and opens nothing", async () => {
      const bad = await open('ws_billing_x', { workspace_id: 'ws_billing_x', plan: 'agency', plan_credits: -1, pack_credits: 0 });
      expect(bad.err).toMatchObject({ code: 'invalid_request' });
      const other = await open('ws_billing_y', { workspace_id: 'ws_billing_z', plan: 'agency', plan_credits: 10, pack_credits: 0 });
      expect(other.err).toMatchObject({ code: 'invalid_request', param: 'workspace_id' });
      expect(await account('ws_billing_x')).toEqual([]);
      expect(await account('ws_billing_z')).toEqual([]);
    });
  });

  it('exits 0 on SIGTERM', async () => {
    expect(await mesh.stopApp('billing')).toBe(0);
  });
});
