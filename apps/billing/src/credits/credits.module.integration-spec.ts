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
});
