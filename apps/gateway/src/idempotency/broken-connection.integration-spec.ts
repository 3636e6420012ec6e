import { execFileSync } from 'node:child_process';
import { Client, Pool } from 'pg';
import { createPool, dropDatabase, ensureDatabase, randomToken, runMigrations } from '@app/platform';
import { PG_SERVER_URL } from '../../../../test/harness';
import { GatewayConfig } from '../config';
import { GATEWAY_MIGRATIONS } from '../migrations';
import { PgCounterStore } from '../rate-limit/pg-counter.store';
import { ClaimOwner } from './claim-owner.store';
import { IdempotencyScope, IdempotencyStore } from './idempotency.store';

/**
 * The gateway's own stores on a real PostgreSQL whose backends are terminated between their
 * statements (pg_terminate_backend, as a failover's shutdown of the old primary ends every
 * session): the next call still succeeds, on a fresh connection of the pool, and does its work
 * once. The pool holds one connection, and the backend is ended while this process's event loop
 * is held (psql run synchronously, as a busy gateway is when the database goes away): the next
 * call is given the broken connection before the pool can notice, and its first statement fails.
 */
describe('gateway stores across a terminated connection', () => {
  const url = (() => {
    const u = new URL(PG_SERVER_URL);
    u.pathname = `/gw_broken_${randomToken(8).toLowerCase()}`;
    return u.toString();
  })();
  let pool: Pool;
  let admin: Client;
  let idempotency: IdempotencyStore;
  let owner: ClaimOwner;
  let counters: PgCounterStore;
  const scope: IdempotencyScope = { workspaceId: `ws_${randomToken(8)}`, keyId: `key_${randomToken(8)}`, grants: 'owner agency leads' };

  beforeAll(async () => {
    await ensureDatabase(url);
    await runMigrations(url, GATEWAY_MIGRATIONS);
    admin = new Client({ connectionString: url });
    await admin.connect();
    pool = createPool(url, 1);
    // the owner's liveness session is its own connection, never the pool's one that is terminated
    owner = new ClaimOwner({ databaseUrl: url });
    await owner.onApplicationBootstrap();
    idempotency = new IdempotencyStore(pool, { rpcTimeoutMs: 10_000, idempotencySecretKey: 'test-idempotency-secret-key' } as GatewayConfig, owner);
    counters = new PgCounterStore(pool);
  });

  afterAll(async () => {
    await owner?.onApplicationShutdown();
    await pool?.end();
    await admin?.end();
    await dropDatabase(url);
  });

  /**
   * Ends the session of the pool's one connection and waits until its backend is gone, without
   * letting this process read the news: the caller's next statement goes to the broken connection.
   */
  async function terminatePooled(): Promise<void> {
    const { pid } = (await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0];
    const ended = execFileSync('psql', [url, '-XAtqc', `SELECT pg_terminate_backend(${Number(pid)}, 5000)`], { encoding: 'utf8' }).trim();
    expect(ended).toBe('t');
  }

  it('the first statement after a termination fails without a retry (the scenario breaks the connection)', async () => {
    await terminatePooled();
    await expect(pool.query('SELECT 1')).rejects.toMatchObject({ code: '57P01' });
  });

  it('claims, completes and replays an Idempotency-Key with the connection terminated before each statement', async () => {
    const key = `key-${randomToken(8)}`;
    await terminatePooled();
    const claim = await idempotency.claim(scope, key, 'fp-1');
    expect(claim).toEqual({ kind: 'claimed', token: expect.any(String) });
    const { token } = claim as { token: string };
    await terminatePooled();
    expect(await idempotency.claim(scope, key, 'fp-1')).toEqual({ kind: 'in_progress' });
    await terminatePooled();
    await idempotency.complete(scope, key, token, 201, '{"id":"lead_1"}');
    await terminatePooled();
    expect(await idempotency.claim(scope, key, 'fp-1')).toEqual({ kind: 'replay', status: 201, body: '{"id":"lead_1"}' });
    const stored = await admin.query('SELECT status, response_status FROM idempotency_records WHERE workspace_id = $1 AND key = $2', [scope.workspaceId, key]);
    expect(stored.rows).toEqual([{ status: 'done', response_status: 201 }]);
  });

  it('releases a claim with the connection terminated before it', async () => {
    const key = `key-${randomToken(8)}`;
    const claim = await idempotency.claim(scope, key, 'fp-2');
    expect(claim).toMatchObject({ kind: 'claimed' });
    await terminatePooled();
    await idempotency.release(scope, key, (claim as { token: string }).token);
    expect((await admin.query('SELECT 1 FROM idempotency_records WHERE workspace_id = $1 AND key = $2', [scope.workspaceId, key])).rowCount).toBe(0);
  });

  it('counts a rate-limit lease once with the connection terminated before it', async () => {
    const bucket = `bucket-${randomToken(8)}`;
    await terminatePooled();
    const first = await counters.add(bucket, 5);
    expect(first.total).toBe(5);
    await terminatePooled();
    const second = await counters.add(bucket, 3);
    expect(second.total).toBe(8);
    const { rows } = await admin.query<{ count: string }>('SELECT sum(count)::text AS count FROM rate_limit_counters WHERE bucket = $1', [bucket]);
    expect(rows[0].count).toBe('8');
  });
});
