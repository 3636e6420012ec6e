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
});
