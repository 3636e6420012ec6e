import { join } from 'node:path';
import { Test, TestingModule } from '@nestjs/testing';
import { loadServiceConfig, PG_POOL, runMigrations, UnitOfWork } from '@app/platform';
import { MESH_NATS_IDENTITY_DIR } from '../../../../tools/mesh/processes';
import { Pool } from 'pg';
import { TestMesh, testContext } from '../../../../test/harness';
import { loadBillingConfig } from '../billing.config';
import { BillingModule } from '../billing.module';
import { MIGRATIONS } from '../migrations';
import { CreditsService } from './credits.service';

/**
 * Billing's module under @nestjs/testing: Nest builds BillingModule as the service does (its
 * TypeORM data source, pool, NATS connection and consumers), on a database and a nats-server of
 * the test's own, and the test calls CreditsService directly, without the request-reply layer.
 */
describe('BillingModule (Nest testing module, real PostgreSQL and NATS)', () => {
  let mesh: TestMesh;
  let moduleRef: TestingModule;
  let credits: CreditsService;
  let pool: Pool;

  beforeAll(async () => {
    mesh = await TestMesh.start([]);
    const env = { ...mesh.env, NATS_NKEY_SEED_FILE: join(mesh.env[MESH_NATS_IDENTITY_DIR] as string, 'billing.nk') };
    const config = loadServiceConfig('billing', env);
    await runMigrations(config.databaseUrl, MIGRATIONS);
    moduleRef = await Test.createTestingModule({ imports: [BillingModule.register(config, loadBillingConfig(env))] }).compile();
    await moduleRef.init();
    credits = moduleRef.get(CreditsService);
    pool = moduleRef.get<Pool>(PG_POOL);
  });
  afterAll(async () => {
    await moduleRef?.close();
    await mesh?.close();
  });

  it('a consume is charged once per ref, plan before pack, and the ledger sums to the balance', async () => {
    const ctx = testContext({ workspace_id: 'ws_module' });
    await moduleRef.get(UnitOfWork).run((tx) => credits.openAccount(tx, { workspace_id: 'ws_module', plan: 'starter', plan_credits: 2, pack_credits: 3 }));
    const first = await credits.consume(ctx, { ref: 'reveal_1', reason: 'reveal', amount: 3 });
    expect(first).toEqual({ applied: true, charged: 3, balance: { plan: 0, pack: 2, total: 2 } });
    expect(await credits.consume(ctx, { ref: 'reveal_1', reason: 'reveal', amount: 3 })).toEqual({ applied: false, charged: 3, balance: { plan: 0, pack: 2, total: 2 } });
    await expect(credits.consume(ctx, { ref: 'reveal_2', reason: 'reveal', amount: 5 })).rejects.toMatchObject({ code: 'insufficient_credits' });
    const [{ sum }] = (await pool.query<{ sum: number }>(`SELECT sum(amount)::int AS sum FROM ledger_entries WHERE workspace_id = 'ws_module'`)).rows;
    const balance = await credits.balance(ctx);
    expect(sum).toBe(2);
    expect(balance.balance).toEqual({ plan: 0, pack: 2, total: 2 });
    expect(balance.ledger.filter((e) => e.ref === 'reveal_1').map((e) => [e.pool, e.amount]).sort()).toEqual([['pack', -1], ['plan', -2]]);
  });

  describe('a refund by ref wins over the consume of that ref in whatever order they arrive', () => {
    const open = async (workspaceId: string, planCredits: number) =>
      moduleRef.get(UnitOfWork).run((tx) => credits.openAccount(tx, { workspace_id: workspaceId, plan: 'starter', plan_credits: planCredits, pack_credits: 0 }));
    /** The workspace's stored balance, its ledger's sum, and each ref's net charge. */
    const books = async (workspaceId: string) => {
      const [account] = (await pool.query<{ total: number }>('SELECT plan_balance + pack_balance AS total FROM credit_accounts WHERE workspace_id = $1', [workspaceId])).rows;
      const [{ sum }] = (await pool.query<{ sum: number }>('SELECT coalesce(sum(amount), 0)::int AS sum FROM ledger_entries WHERE workspace_id = $1', [workspaceId])).rows;
      const nets = (await pool.query<{ ref: string; net: number }>(
        `SELECT ref, sum(amount)::int AS net FROM ledger_entries WHERE workspace_id = $1 AND ref IS NOT NULL GROUP BY ref ORDER BY ref`, [workspaceId],
      )).rows;
      return { total: account.total, sum, nets: Object.fromEntries(nets.map((n) => [n.ref, n.net])) };
    };

    it('refund then consume: the refund closes the ref, the late consume (and any retry of it) charges nothing and answers refunded', async () => {
      const ctx = testContext({ workspace_id: 'ws_refund_first' });
      await open(ctx.workspace_id, 500);
      expect(await credits.refund(ctx, { ref: 'rev_late', reason: 'reveal_failed' })).toEqual({ applied: false, refunded: 0 });
      const late = { applied: false, charged: 0, refunded: true, balance: { plan: 500, pack: 0, total: 500 } };
      expect(await credits.consume(ctx, { ref: 'rev_late', reason: 'reveal' })).toEqual(late);
      expect(await credits.consume(ctx, { ref: 'rev_late', reason: 'reveal' })).toEqual(late);
      expect(await credits.refund(ctx, { ref: 'rev_late', reason: 'reveal_failed' })).toEqual({ applied: false, refunded: 0 });
      expect(await books(ctx.workspace_id)).toEqual({ total: 500, sum: 500, nets: {} });
      // another workspace's ref of the same name is its own
      const other = testContext({ workspace_id: 'ws_refund_first_other' });
      await open(other.workspace_id, 500);
      expect(await credits.consume(other, { ref: 'rev_late', reason: 'reveal' })).toMatchObject({ applied: true, charged: 1 });
    });

    it('consume then refund: the refund gives the credit back, and a consume of the ref after it charges nothing', async () => {
      const ctx = testContext({ workspace_id: 'ws_consume_first' });
      await open(ctx.workspace_id, 500);
      expect(await credits.consume(ctx, { ref: 'rev_1', reason: 'reveal' })).toEqual({ applied: true, charged: 1, balance: { plan: 499, pack: 0, total: 499 } });
      expect(await credits.refund(ctx, { ref: 'rev_1', reason: 'reveal_failed' })).toEqual({ applied: true, refunded: 1 });
      expect(await credits.consume(ctx, { ref: 'rev_1', reason: 'reveal' })).toEqual({ applied: false, charged: 0, refunded: true, balance: { plan: 500, pack: 0, total: 500 } });
      expect(await credits.refund(ctx, { ref: 'rev_1', reason: 'reveal_failed' })).toEqual({ applied: false, refunded: 0 });
      expect(await books(ctx.workspace_id)).toEqual({ total: 500, sum: 500, nets: { rev_1: 0 } });
    });

    it('a consume and a refund of one ref at once, in either order, beside other consumes of their group: the ref nets zero, the others are charged once', async () => {
      const ctx = testContext({ workspace_id: 'ws_together' });
      await open(ctx.workspace_id, 500);
      // each round: a consume that starts a group, then the rest arrive while it is applied (one group)
      for (let round = 0; round < 10; round++) {
        const ref = `rev_race_${round}`;
        const consume = (r: string) => credits.consume(ctx, { ref: r, reason: 'reveal' });
        const refund = () => credits.refund(ctx, { ref, reason: 'reveal_failed' });
        let charged: Awaited<ReturnType<typeof consume>>;
        let gaveBack: Awaited<ReturnType<typeof refund>>;
        if (round % 2 === 0) [, charged, gaveBack] = await Promise.all([consume(`lead_${round}`), consume(ref), refund(), consume(ref), consume(`tail_${round}`)]);
        else [, gaveBack, charged] = await Promise.all([consume(`lead_${round}`), refund(), consume(ref), consume(ref), consume(`tail_${round}`)]);
        // either the consume came first and the refund gave it back, or the refund came first and the consume took nothing
        if (charged.applied) expect(gaveBack).toEqual({ applied: true, refunded: 1 });
        else expect([charged.refunded, gaveBack]).toEqual([true, { applied: false, refunded: 0 }]);
      }
      const { total, sum, nets } = await books(ctx.workspace_id);
      expect(total).toBe(480);
      expect(sum).toBe(480);
      for (let round = 0; round < 10; round++) {
        expect(nets[`lead_${round}`]).toBe(-1);
        expect(nets[`tail_${round}`]).toBe(-1);
        expect(nets[`rev_race_${round}`] ?? 0).toBe(0);
      }
    });

    it('refunds of one workspace at once share transactions (one row lock and commit per group): each ref given back once, twice asked answered once, an unknown ref closed, the books exact', async () => {
      const ctx = testContext({ workspace_id: 'ws_refund_group' });
      await open(ctx.workspace_id, 500);
      const refs = Array.from({ length: 40 }, (_, i) => `rev_group_${i}`);
      for (const ref of refs) await credits.consume(ctx, { ref, reason: 'reveal', amount: 2 });
      expect((await books(ctx.workspace_id)).total).toBe(420);
      const transactions = jest.spyOn(moduleRef.get(UnitOfWork), 'run');
      try {
        // every ref's refund, the first ten asked twice, and a ref never consumed, all at once
        const asked = [...refs, ...refs.slice(0, 10), 'rev_group_never'];
        const answers = await Promise.all(asked.map((ref) => credits.refund(ctx, { ref, reason: 'reveal_failed' })));
        const byRef = new Map<string, typeof answers>();
        asked.forEach((ref, i) => byRef.set(ref, [...(byRef.get(ref) ?? []), answers[i]]));
        for (const ref of refs) {
          const got = byRef.get(ref)!;
          // given back once, whichever of its refunds came first; the other answered applied: false
          expect({ ref, applied: got.filter((a) => a.applied).map((a) => a.refunded) }).toEqual({ ref, applied: [2] });
        }
        expect(byRef.get('rev_group_never')).toEqual([{ applied: false, refunded: 0 }]);
        // fewer transactions than refunds: they were grouped
        expect(transactions.mock.calls.length).toBeLessThan(asked.length / 2);
      } finally {
        transactions.mockRestore();
      }
      const { total, sum, nets } = await books(ctx.workspace_id);
      expect({ total, sum }).toEqual({ total: 500, sum: 500 });
      for (const ref of refs) expect(nets[ref]).toBe(0);
      // the unknown ref is closed: its late consume takes nothing
      expect(await credits.consume(ctx, { ref: 'rev_group_never', reason: 'reveal' })).toMatchObject({ applied: false, refunded: true });
    });

    it("in a group applied by the service's own transaction (credits.low due), a refunded ref takes nothing too", async () => {
      const ctx = testContext({ workspace_id: 'ws_low' });
      // starter's 1,000 a month: the second credit taken brings the balance under 10%
      await open(ctx.workspace_id, 101);
      await credits.refund(ctx, { ref: 'rev_gone', reason: 'reveal_failed' });
      const [first, low, gone] = await Promise.all([
        credits.consume(ctx, { ref: 'page_1', reason: 'search_page' }),
        credits.consume(ctx, { ref: 'page_2', reason: 'search_page' }),
        credits.consume(ctx, { ref: 'rev_gone', reason: 'reveal' }),
      ]);
      expect([first.charged, low.charged]).toEqual([1, 1]);
      expect(gone).toEqual({ applied: false, charged: 0, refunded: true, balance: { plan: 99, pack: 0, total: 99 } });
      expect(await books(ctx.workspace_id)).toEqual({ total: 99, sum: 99, nets: { page_1: -1, page_2: -1 } });
      const events = await pool.query(`SELECT 1 FROM outbox WHERE type = 'credits.low' AND envelope->>'workspace_id' = $1`, [ctx.workspace_id]);
      expect(events.rowCount).toBe(1);
    });
  });

  describe('credit leases: balance + open leases = ledger at every step, settled from the pages search recorded', () => {
    const open = async (workspaceId: string, plan: number, pack = 0, planName: 'starter' | 'agency' = 'agency') =>
      moduleRef.get(UnitOfWork).run((tx) => credits.openAccount(tx, { workspace_id: workspaceId, plan: planName, plan_credits: plan, pack_credits: pack }));
    /** Per pool: the balance, what open leases reserve (the account's columns and the open leases' sum), and the ledger's sum. */
    const books = async (workspaceId: string) => {
      const [row] = (await pool.query(
        `SELECT a.plan_balance, a.pack_balance, a.plan_leased, a.pack_leased,
           (SELECT coalesce(sum(amount), 0)::int FROM ledger_entries WHERE workspace_id = $1 AND pool = 'plan') AS plan_ledger,
           (SELECT coalesce(sum(amount), 0)::int FROM ledger_entries WHERE workspace_id = $1 AND pool = 'pack') AS pack_ledger,
           (SELECT coalesce(sum(amount), 0)::int FROM credit_leases WHERE workspace_id = $1 AND state = 'open' AND pool = 'plan') AS plan_open,
           (SELECT coalesce(sum(amount), 0)::int FROM credit_leases WHERE workspace_id = $1 AND state = 'open' AND pool = 'pack') AS pack_open
         FROM credit_accounts a WHERE a.workspace_id = $1`, [workspaceId])).rows;
      // the balance is the ledger's sum; what open leases reserve is part of it, and the account's columns say exactly that
      expect([row.plan_balance, row.pack_balance]).toEqual([row.plan_ledger, row.pack_ledger]);
      expect([row.plan_leased, row.pack_leased]).toEqual([row.plan_open, row.pack_open]);
      return { plan: row.plan_balance, pack: row.pack_balance, planLeased: row.plan_leased, packLeased: row.pack_leased };
    };
    const pages = (prefix: string, n: number, at = Date.now()) => Array.from({ length: n }, (_, i) => ({ ref: `${prefix}${i}`, at: new Date(at - (n - i) * 1000).toISOString() }));

    it('a lease reserves at most half of the spare pool, charges nothing, and what it reserves no consume can take', async () => {
      const ctx = testContext({ workspace_id: 'ws_lease_half' });
      await open(ctx.workspace_id, 10, 5);
      expect(await credits.lease(ctx, { lease_id: 'lse_a', want: 100 })).toEqual({ lease_id: 'lse_a', granted: 5, pool: 'plan', leased: 5, expires_in_ms: expect.any(Number) });
      // asked again (a retried request): the same lease, nothing more reserved
      expect(await credits.lease(ctx, { lease_id: 'lse_a', want: 100 })).toMatchObject({ granted: 5, pool: 'plan', leased: 5 });
      expect(await books(ctx.workspace_id)).toEqual({ plan: 10, pack: 5, planLeased: 5, packLeased: 0 });
      expect(await credits.balance(ctx)).toMatchObject({ balance: { plan: 10, pack: 5, total: 15 }, leased: 5 });
      expect(await credits.lease(ctx, { lease_id: 'lse_b', want: 2 })).toMatchObject({ granted: 2, pool: 'plan', leased: 7 });
      // 3 plan and 5 pack are spare: a reveal of 4 takes the 3 and 1 of pack, a reveal of 5 more is refused
      expect(await credits.consume(ctx, { ref: 'rev_1', reason: 'reveal', amount: 4 })).toEqual({ applied: true, charged: 4, balance: { plan: 7, pack: 4, total: 11 } });
      await expect(credits.consume(ctx, { ref: 'rev_2', reason: 'reveal', amount: 5 })).rejects.toMatchObject({ code: 'insufficient_credits' });
      expect(await books(ctx.workspace_id)).toEqual({ plan: 7, pack: 4, planLeased: 7, packLeased: 0 });
      // plan is all leased: the next lease is of pack
      expect(await credits.lease(ctx, { lease_id: 'lse_c', want: 100 })).toMatchObject({ granted: 2, pool: 'pack', leased: 9 });
      await expect(credits.lease(ctx, { lease_id: 'bad', want: 0 })).rejects.toMatchObject({ code: 'invalid_request', param: 'want' });
    });

    it('settles the pages search recorded as consumes at their times, returns the rest, and answers a second settle alike', async () => {
      const ctx = testContext({ workspace_id: 'ws_lease_settle' });
      await open(ctx.workspace_id, 100);
      expect(await credits.lease(ctx, { lease_id: 'lse_s', want: 20 })).toMatchObject({ granted: 20, pool: 'plan' });
      const charged = pages('search:req_s', 7, Date.now() + 8000); // after the account's grants, so the newest entries
      expect(await credits.settleLease(ctx, { lease_id: 'lse_s', pages: charged })).toEqual({ lease_id: 'lse_s', used: 7, returned: 13, expired: 0 });
      expect(await credits.settleLease(ctx, { lease_id: 'lse_s', pages: charged })).toEqual({ lease_id: 'lse_s', used: 7, returned: 13, expired: 0 });
      expect(await books(ctx.workspace_id)).toEqual({ plan: 93, pack: 0, planLeased: 0, packLeased: 0 });
      const balance = await credits.balance(ctx);
      expect(balance.leased).toBeUndefined();
      expect(balance.ledger.slice(0, 7).map((e) => [e.type, e.amount, e.reason, e.ref, e.pool, e.created_at])).toEqual(
        charged.reverse().map((p) => ['consume', -1, 'search_page', p.ref, 'plan', p.at]),
      );
      // a lease request that arrives after its settle reserves nothing
      expect(await credits.lease(ctx, { lease_id: 'lse_s', want: 20 })).toMatchObject({ granted: 0, closed: true });
      expect(await books(ctx.workspace_id)).toMatchObject({ plan: 93, planLeased: 0 });
    });

    it('a settle of a lease billing never took closes its id: the late request takes nothing', async () => {
      const ctx = testContext({ workspace_id: 'ws_lease_late' });
      await open(ctx.workspace_id, 10);
      expect(await credits.settleLease(ctx, { lease_id: 'lse_never', pages: [] })).toEqual({ lease_id: 'lse_never', used: 0, returned: 0, expired: 0 });
      expect(await credits.lease(ctx, { lease_id: 'lse_never', want: 5 })).toMatchObject({ granted: 0, closed: true });
      expect(await books(ctx.workspace_id)).toEqual({ plan: 10, pack: 0, planLeased: 0, packLeased: 0 });
    });

    it('a refunded page is not charged at the settle; a page refunded after it is given back once', async () => {
      const ctx = testContext({ workspace_id: 'ws_lease_refund' });
      await open(ctx.workspace_id, 50);
      await credits.lease(ctx, { lease_id: 'lse_r', want: 10 });
      expect(await credits.refund(ctx, { ref: 'search:req_r1', reason: 'search_failed' })).toEqual({ applied: false, refunded: 0 });
      const charged = pages('search:req_r', 3);
      expect(await credits.settleLease(ctx, { lease_id: 'lse_r', pages: charged })).toMatchObject({ used: 2, returned: 8 });
      expect(await credits.refund(ctx, { ref: 'search:req_r2', reason: 'search_failed' })).toEqual({ applied: true, refunded: 1 });
      expect(await books(ctx.workspace_id)).toEqual({ plan: 49, pack: 0, planLeased: 0, packLeased: 0 });
    });

    it('the last credit is leased and charged; then nothing is spare and the lease that holds it is named', async () => {
      const ctx = testContext({ workspace_id: 'ws_lease_last' });
      await open(ctx.workspace_id, 1);
      expect(await credits.lease(ctx, { lease_id: 'lse_l1', want: 50 })).toMatchObject({ granted: 1, pool: 'plan', leased: 1 });
      expect(await credits.lease(ctx, { lease_id: 'lse_l2', want: 50 })).toEqual({ lease_id: 'lse_l2', granted: 0, pool: null, leased: 1, expires_in_ms: null });
      await expect(credits.consume(ctx, { ref: 'rev_l', reason: 'reveal' })).rejects.toMatchObject({ code: 'insufficient_credits' });
      // more pages than the lease holds is a broken record: refused, the lease stays open
      await expect(credits.settleLease(ctx, { lease_id: 'lse_l1', pages: pages('p', 2) })).rejects.toThrow(/2 pages charged against 1/);
      expect(await books(ctx.workspace_id)).toEqual({ plan: 1, pack: 0, planLeased: 1, packLeased: 0 });
      expect(await credits.settleLease(ctx, { lease_id: 'lse_l1', pages: pages('p', 1) })).toMatchObject({ used: 1, returned: 0 });
      expect(await books(ctx.workspace_id)).toEqual({ plan: 0, pack: 0, planLeased: 0, packLeased: 0 });
    });

    it('a renewal while a plan lease is open expires only the spare plan credits; the settle charges the pages and expires the rest of the lease', async () => {
      const ctx = testContext({ workspace_id: 'ws_lease_renew' });
      await open(ctx.workspace_id, 40, 0);
      await credits.lease(ctx, { lease_id: 'lse_p', want: 10 });
      const renewed = await credits.renew(ctx);
      // agency's monthly credits in this test's config, and the 10 still leased
      const monthly = renewed.balance.plan - 10;
      expect(renewed.ledger.slice(0, 2).map((e) => [e.type, e.amount])).toEqual([['grant', monthly], ['expire', -30]]);
      expect(await books(ctx.workspace_id)).toEqual({ plan: monthly + 10, pack: 0, planLeased: 10, packLeased: 0 });
      expect(await credits.settleLease(ctx, { lease_id: 'lse_p', pages: pages('search:req_p', 4) })).toEqual({ lease_id: 'lse_p', used: 4, returned: 0, expired: 6 });
      expect(await books(ctx.workspace_id)).toEqual({ plan: monthly, pack: 0, planLeased: 0, packLeased: 0 });
    });

    it('pages that bring the balance under 10% of the month emit credits.low at the settle, once', async () => {
      const ctx = testContext({ workspace_id: 'ws_lease_low' });
      await open(ctx.workspace_id, 101, 0, 'starter');
      await credits.lease(ctx, { lease_id: 'lse_low', want: 10 });
      expect(await credits.settleLease(ctx, { lease_id: 'lse_low', pages: pages('search:req_low', 5) })).toMatchObject({ used: 5 });
      const events = await pool.query(`SELECT envelope FROM outbox WHERE type = 'credits.low' AND envelope->>'workspace_id' = $1`, [ctx.workspace_id]);
      expect(events.rows.map((r) => r.envelope.data.object.balance.total)).toEqual([96]);
    });

    it('200 leases and consumes at once never reserve or take more than the balance', async () => {
      const ctx = testContext({ workspace_id: 'ws_lease_race' });
      await open(ctx.workspace_id, 60, 40);
      const asks = Array.from({ length: 200 }, (_, i) => (i % 2 === 0
        ? credits.lease(ctx, { lease_id: `lse_race_${i}`, want: 3 }).then((r) => r.granted)
        : credits.consume(ctx, { ref: `rev_race_${i}`, reason: 'reveal' }).then((r) => r.charged, () => 0)));
      const taken = (await Promise.all(asks)).reduce((a, b) => a + b, 0);
      expect(taken).toBe(100);
      const { plan, pack, planLeased, packLeased } = await books(ctx.workspace_id);
      expect(plan + pack - planLeased - packLeased).toBe(0);
    });
  });
});
