import { Client } from 'pg';
import { SUBJECTS } from '@app/contracts/subjects';
import { CONSUME_PRIOR_SQL } from '../../../apps/billing/src/credits/ledger.repository';
import { SHARED_ALL_START_MS, TestMesh } from '../../harness';
import { waitFor } from '../../../tools/mesh/processes';
import { expectApiError } from '../../support/gateway-assertions';
import { allowance } from '../../support/timing';

describe('credits', () => {
  let mesh: TestMesh;

  beforeAll(async () => {
    // BILLING_PLAN_CREDITS=agency=100 in SHARED_ALL_SETTINGS
    mesh = await TestMesh.sharedAll();
  }, SHARED_ALL_START_MS);
  afterAll(() => mesh?.close());

  async function account(plan: number, pack: number) {
    const workspace = await mesh.createWorkspace({ name: 'credits', planCredits: plan, packCredits: pack });
    const { key } = await mesh.key(workspace.id, 'live');
    await waitFor('credit account', async () => (await mesh.query('billing', 'SELECT 1 FROM credit_accounts WHERE workspace_id = $1', [workspace.id])).length === 1, allowance(10_000));
    return { ws: workspace.id as string, key: key as string };
  }
  const consume = (ws: string, ref: string, reason = 'search_page') => mesh.rpc(SUBJECTS.billing.creditsConsume, { workspace_id: ws }, { ref, reason });
  const refund = (ws: string, ref: string) => mesh.rpc(SUBJECTS.billing.creditsRefund, { workspace_id: ws }, { ref, reason: 'reveal_failed' });
  const ledgerSum = async (ws: string) =>
    Number((await mesh.query('billing', 'SELECT coalesce(sum(amount), 0) AS s FROM ledger_entries WHERE workspace_id = $1', [ws]))[0].s);

  it("a workspace's creation is answered once billing holds its credit account: its key spends the opening credits at once, granted once", async () => {
    const workspace = await mesh.createWorkspace({ name: 'credits-at-once', planCredits: 12, packCredits: 3 });
    expect(workspace).toMatchObject({ id: expect.stringMatching(/^ws_/), credit_account: 'open' });
    // no wait for the event: the account is there when the creation is answered
    expect(await mesh.query('billing', 'SELECT plan_balance, pack_balance FROM credit_accounts WHERE workspace_id = $1', [workspace.id])).toEqual([{ plan_balance: 12, pack_balance: 3 }]);
    const { key } = await mesh.key(workspace.id, 'live');
    expect((await mesh.request('GET', '/credits', { key })).body.balance).toEqual({ plan: 12, pack: 3, total: 15 });
    // the workspace.created event reaches billing too, and grants nothing again
    const [{ id: eventId }] = await mesh.query('gateway', "SELECT id FROM outbox WHERE type = 'workspace.created' AND envelope->'data'->'object'->>'workspace_id' = $1", [workspace.id]);
    await waitFor('workspace.created processed by billing', async () => (await mesh.query('billing', "SELECT 1 FROM processed_events WHERE consumer = 'billing' AND event_id = $1", [eventId])).length === 1, allowance(10_000));
    expect(await ledgerSum(workspace.id)).toBe(15);
    expect(await mesh.query('billing', "SELECT pool, amount FROM ledger_entries WHERE workspace_id = $1 AND type = 'grant' ORDER BY pool DESC", [workspace.id])).toEqual([{ pool: 'plan', amount: 12 }, { pool: 'pack', amount: 3 }]);
  });

  it('GET /credits returns the balance with the newest ledger entries first', async () => {
    const { ws, key } = await account(30, 5);
    const res = await mesh.request('GET', '/credits', { key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: 'credit_balance', plan: 'agency', balance: { plan: 30, pack: 5, total: 35 }, period_ends_at: expect.any(String) });
    expect(res.body.ledger).toHaveLength(2);
    for (const e of res.body.ledger) expect(Object.keys(e).sort()).toEqual(['amount', 'created_at', 'id', 'pool', 'reason', 'ref', 'type']);
    for (let i = 0; i < 25; i++) expect((await consume(ws, `r${i}`)).err).toBeUndefined();
    const after = await mesh.request('GET', '/credits', { key });
    expect(after.body.ledger).toHaveLength(20);
    expect(after.body.ledger[0]).toMatchObject({ type: 'consume', ref: 'r24', amount: -1, pool: 'plan', reason: 'search_page' });
  });

  it('spends plan credits before pack credits, applies a ref once and never goes negative', async () => {
    const { ws, key } = await account(2, 1);
    expect((await consume(ws, 'a')).response).toMatchObject({ applied: true, charged: 1, balance: { plan: 1, pack: 1, total: 2 } });
    expect((await consume(ws, 'a')).response).toMatchObject({ applied: false, balance: { total: 2 } });
    expect((await consume(ws, 'b')).response.balance).toEqual({ plan: 0, pack: 1, total: 1 });
    expect((await consume(ws, 'c')).response.balance).toEqual({ plan: 0, pack: 0, total: 0 });
    const rows = await mesh.query('billing', `SELECT ref, pool FROM ledger_entries WHERE workspace_id = $1 AND type = 'consume' ORDER BY ref`, [ws]);
    expect(rows).toEqual([{ ref: 'a', pool: 'plan' }, { ref: 'b', pool: 'plan' }, { ref: 'c', pool: 'pack' }]);
    expect((await consume(ws, 'd')).err).toMatchObject({ code: 'insufficient_credits' });
    expect((await mesh.request('GET', '/credits', { key })).body.balance.total).toBe(0);
    expect(await ledgerSum(ws)).toBe(0);
  });

  it('charges exactly the balance under concurrent consumes', async () => {
    const { ws } = await account(7, 3);
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => consume(ws, `c${i}`)));
    expect(results.filter((r) => r.response?.applied)).toHaveLength(10);
    expect(results.filter((r) => r.err?.code === 'insufficient_credits')).toHaveLength(30);
    expect(await ledgerSum(ws)).toBe(0);
  });

  it('applies a group of consumes in one statement by the same rules: plan before pack within one consume, a ref once, 402 without taking', async () => {
    // 103 credits of a 100-a-month plan: no consume here brings credits.low due, so every group
    // is applied by billing_consume (a group that would is applied by the service's transaction)
    const { ws } = await account(3, 100);
    const take = (ref: string, amount: number) => mesh.rpc(SUBJECTS.billing.creditsConsume, { workspace_id: ws }, { ref, reason: 'reveal', amount });
    expect((await take('x', 5)).response).toEqual({ applied: true, charged: 5, balance: { plan: 0, pack: 98, total: 98 } });
    expect((await take('x', 5)).response).toEqual({ applied: false, charged: 5, balance: { plan: 0, pack: 98, total: 98 } });
    const together = await Promise.all([take('y', 1), take('y', 1), take('z', 1000), take('w', 2)]);
    expect(together.filter((r) => r.response?.applied === true).map((r) => r.response.charged).sort()).toEqual([1, 2]);
    expect(together.filter((r) => r.response?.applied === false)).toEqual([{ response: { applied: false, charged: 1, balance: expect.any(Object) } }]);
    expect(together.filter((r) => r.err).map((r) => r.err.code)).toEqual(['insufficient_credits']);
    const rows = await mesh.query('billing', `SELECT ref, amount, pool, reason FROM ledger_entries WHERE workspace_id = $1 AND type = 'consume' ORDER BY ref, pool DESC`, [ws]);
    expect(rows).toEqual([
      { ref: 'w', amount: -2, pool: 'pack', reason: 'reveal' },
      { ref: 'x', amount: -3, pool: 'plan', reason: 'reveal' },
      { ref: 'x', amount: -2, pool: 'pack', reason: 'reveal' },
      { ref: 'y', amount: -1, pool: 'pack', reason: 'reveal' },
    ]);
    const [balance] = await mesh.query('billing', 'SELECT plan_balance, pack_balance FROM credit_accounts WHERE workspace_id = $1', [ws]);
    expect(balance).toEqual({ plan_balance: 0, pack_balance: 95 });
    expect(await ledgerSum(ws)).toBe(95);
    expect((await mesh.rpc(SUBJECTS.billing.creditsConsume, { workspace_id: 'ws_without_account' }, { ref: 'n', reason: 'reveal' })).err).toMatchObject({ code: 'insufficient_credits' });
  });

  it("finds a consume's earlier refs by the refs, however long the workspace's ledger and however stale the statistics", async () => {
    const { ws } = await account(5, 0);
    // statistics taken before this workspace had any entry, as autovacuum leaves them for a while
    // after a workspace starts spending: the planner believes it has (almost) none
    await mesh.query('billing', 'ANALYZE ledger_entries');
    const entries = 20_000;
    await mesh.query('billing', `INSERT INTO ledger_entries (id, workspace_id, type, amount, reason, ref, pool)
      SELECT 'le_bulk_' || g, $1, 'consume', -1, 'search_page', 'bulk-' || g, 'plan' FROM generate_series(1, $2::int) g`, [ws, entries]);
    const refs = ['bulk-7', 'bulk-19999', 'never-used'];
    const db = new Client({ connectionString: mesh.databaseUrl('billing') });
    await db.connect();
    try {
      // the named statement's plan once PostgreSQL switches it to a generic one
      await db.query('SET plan_cache_mode = force_generic_plan');
      await db.query(`PREPARE prior (text, text[]) AS ${CONSUME_PRIOR_SQL}`);
      const explained = await db.query(`EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE prior('${ws}', '{${refs.join(',')}}')`);
      const nodes: Record<string, any>[] = [];
      const walk = (node: Record<string, any>) => {
        nodes.push(node);
        for (const child of node.Plans ?? []) walk(child);
      };
      walk(explained.rows[0]['QUERY PLAN'][0].Plan);
      const ledgerScans = nodes.filter((n) => n['Relation Name'] === 'ledger_entries' || (n['Index Name'] ?? '').startsWith('ledger_entries'));
      expect(ledgerScans.length).toBeGreaterThan(0);
      // what the reads of ledger_entries touched: the refs' own entries, not the workspace's 20,000
      for (const n of ledgerScans) {
        expect(n['Actual Rows']).toBeLessThanOrEqual(refs.length);
        expect(n['Rows Removed by Filter'] ?? 0).toBeLessThanOrEqual(refs.length);
        expect(n['Rows Removed by Index Recheck'] ?? 0).toBeLessThanOrEqual(refs.length);
      }
      const found = await db.query(`EXECUTE prior('${ws}', '{${refs.join(',')}}')`);
      expect(found.rows.map((r) => r.ref).sort()).toEqual(['bulk-19999', 'bulk-7']);
    } finally {
      await db.end();
    }
    // and through the service: a ref among them is not taken again, a new one is
    expect((await consume(ws, 'bulk-19999')).response).toMatchObject({ applied: false, charged: 1, balance: { total: 5 } });
    expect((await consume(ws, 'fresh')).response).toMatchObject({ applied: true, charged: 1, balance: { total: 4 } });
  });

  it('refunds a consume once, into the pool it came from', async () => {
    const { ws } = await account(1, 1);
    await consume(ws, 'x');
    await consume(ws, 'y');
    expect((await refund(ws, 'y')).response).toEqual({ applied: true, refunded: 1 });
    expect((await refund(ws, 'y')).response).toEqual({ applied: false, refunded: 0 });
    expect((await refund(ws, 'never')).response).toEqual({ applied: false, refunded: 0 });
    const [acc] = await mesh.query('billing', 'SELECT plan_balance, pack_balance FROM credit_accounts WHERE workspace_id = $1', [ws]);
    expect(acc).toEqual({ plan_balance: 0, pack_balance: 1 });
    expect(await ledgerSum(ws)).toBe(1);
  });

  it('credits:grant adds to a pool; credits:renew expires the plan pool and grants the monthly credits', async () => {
    const { ws, key } = await account(30, 0);
    const granted = await mesh.admin('credits:grant', '--workspace', ws, '--pool', 'pack', '--amount', '2000');
    expect(granted.balance).toEqual({ plan: 30, pack: 2000, total: 2030 });
    expect(granted.ledger[0]).toMatchObject({ type: 'purchase', amount: 2000, reason: 'pack_2000', pool: 'pack' });
    await mesh.admin('credits:grant', '--workspace', ws, '--pool', 'plan', '--amount', '5', '--reason', 'goodwill');
    const before = (await mesh.request('GET', '/credits', { key })).body;
    const renewed = await mesh.admin('credits:renew', '--workspace', ws);
    expect(renewed.balance).toEqual({ plan: 100, pack: 2000, total: 2100 });
    expect(renewed.ledger.slice(0, 2)).toEqual([
      expect.objectContaining({ type: 'grant', amount: 100, reason: 'plan_renewal', pool: 'plan' }),
      expect.objectContaining({ type: 'expire', amount: -35, reason: 'plan_renewal', pool: 'plan' }),
    ]);
    expect(new Date(renewed.period_ends_at).getTime()).toBeGreaterThan(new Date(before.period_ends_at).getTime());
    expect(await ledgerSum(ws)).toBe(2100);
    const bad = await mesh.adminRaw(['credits:grant', '--workspace', ws, '--pool', 'gold', '--amount', '1']);
    expect(bad.code).not.toBe(0);
  });

  it('emits credits.low once per period when the total drops below 10% of the monthly credits', async () => {
    const { ws } = await account(12, 0);
    const lows = async () => mesh.query('billing', `SELECT envelope FROM outbox WHERE type = 'credits.low' AND envelope->>'workspace_id' = $1`, [ws]);
    await consume(ws, 'l1');
    await consume(ws, 'l2');
    expect(await lows()).toHaveLength(0); // 10 left: not below 10
    await consume(ws, 'l3');
    await consume(ws, 'l4');
    const sent = await lows();
    expect(sent).toHaveLength(1);
    expect(sent[0].envelope.data.object).toMatchObject({ object: 'credit_balance', balance: { total: 9 } });
    await mesh.admin('credits:renew', '--workspace', ws);
    for (let i = 0; i < 95; i++) await consume(ws, `m${i}`);
    expect(await lows()).toHaveLength(2);
  });

  it('GET /credits needs a key', async () => {
    expectApiError(await mesh.request('GET', '/credits'), 401, 'authentication_failed');
  });
});
