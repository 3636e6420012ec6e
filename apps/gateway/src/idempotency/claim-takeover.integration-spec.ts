import { Client, Pool } from 'pg';
import { createPool, dropDatabase, ensureDatabase, randomToken, runMigrations } from '@app/platform';
import { PG_SERVER_URL } from '../../../../test/harness';
import { TcpProxy } from '../../../../tools/mesh/tcp-proxy';
import { GatewayConfig } from '../config';
import { GATEWAY_MIGRATIONS } from '../migrations';
import { CLAIM_OWNER_TIMING, ClaimOwner, claimOwnerSessionName } from './claim-owner.store';
import { IdempotencyScope, IdempotencyStore } from './idempotency.store';
import { allowance } from '../../../../test/support/timing';

/**
 * Idempotency-Key claims of two gateway processes on one real PostgreSQL: a claim whose owner is
 * alive stays in progress for the other, however long; once its owner is gone (its liveness
 * session closed, as a killed process's is, and its heartbeat stale) the other takes it over within
 * a couple of seconds, not after the age that counts a claim abandoned; and the owner taken over
 * from can neither complete nor release its successor's claim. A live owner that could not settle
 * its claim (the database away) settles it once the database is back.
 */
describe('idempotency claims of a gateway that died', () => {
  const url = (() => {
    const u = new URL(PG_SERVER_URL);
    u.pathname = `/gw_takeover_${randomToken(8).toLowerCase()}`;
    return u.toString();
  })();
  // the age rule far away, so only the owner's liveness can hand a claim over here
  const config = { rpcTimeoutMs: 60_000, idempotencySecretKey: 'test-idempotency-secret-key' } as GatewayConfig;
  const scope: IdempotencyScope = { workspaceId: `ws_${randomToken(8)}`, keyId: `key_${randomToken(8)}`, grants: 'owner agency leads' };
  const owners: ClaimOwner[] = [];
  let pool: Pool;
  let admin: Client;
  let survivor: IdempotencyStore;

  async function gateway(timing = CLAIM_OWNER_TIMING): Promise<{ owner: ClaimOwner; store: IdempotencyStore }> {
    const owner = new ClaimOwner({ databaseUrl: url }, timing);
    owners.push(owner);
    await owner.onApplicationBootstrap();
    return { owner, store: new IdempotencyStore(pool, config, owner) };
  }

  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  /** How long until `store` takes the claim of `key` (polled as a retrying client would). */
  async function takeOverAfter(store: IdempotencyStore, key: string, fingerprint: string, limitMs: number): Promise<{ ms: number; token: string }> {
    const started = Date.now();
    while (Date.now() - started < limitMs) {
      const claim = await store.claim(scope, key, fingerprint);
      if (claim.kind === 'claimed') return { ms: Date.now() - started, token: claim.token };
      expect(claim).toEqual({ kind: 'in_progress' });
      await sleep(100);
    }
    throw new Error(`not taken over within ${limitMs} ms`);
  }

  beforeAll(async () => {
    await ensureDatabase(url);
    await runMigrations(url, GATEWAY_MIGRATIONS);
    admin = new Client({ connectionString: url });
    await admin.connect();
    pool = createPool(url, 4);
    survivor = (await gateway()).store;
  });

  afterAll(async () => {
    for (const owner of owners) await owner.onApplicationShutdown();
    await pool?.end();
    await admin?.end();
    await dropDatabase(url);
  });

  it('a claim of a live gateway stays in progress for another, past the time a dead one is taken over in', async () => {
    const { store } = await gateway();
    const key = `key-${randomToken(8)}`;
    expect(await store.claim(scope, key, 'fp')).toMatchObject({ kind: 'claimed' });
    for (let i = 0; i < 4; i++) {
      expect(await survivor.claim(scope, key, 'fp')).toEqual({ kind: 'in_progress' });
      await sleep(CLAIM_OWNER_TIMING.staleAfterMs / 2);
    }
  });

  it('a claim of a gateway that died is taken over within a couple of seconds, and answered by its new owner', async () => {
    const { owner, store } = await gateway();
    const key = `key-${randomToken(8)}`;
    const first = await store.claim(scope, key, 'fp');
    expect(first).toMatchObject({ kind: 'claimed' });
    // what a SIGKILL does to it: no more heartbeats, and its connection closed, so the server drops its lock
    await owner.onApplicationShutdown();
    const { ms, token } = await takeOverAfter(survivor, key, 'fp', 10_000);
    expect(ms).toBeLessThanOrEqual(CLAIM_OWNER_TIMING.staleAfterMs + allowance(1000));
    // the dead owner's late answer changes nothing; the new owner's is what a replay gets
    const stale = (first as { token: string }).token;
    await store.complete(scope, key, stale, 201, '{"id":"late"}');
    await store.release(scope, key, stale);
    expect(await survivor.claim(scope, key, 'fp')).toEqual({ kind: 'in_progress' });
    await survivor.complete(scope, key, token, 201, '{"id":"lead_1"}');
    expect(await store.claim(scope, key, 'fp')).toEqual({ kind: 'replay', status: 201, body: '{"id":"lead_1"}' });
  });

  it('a gateway whose heartbeat stopped but whose process lives (its lock held) keeps its claims', async () => {
    // one heartbeat at start, then none for an hour: as a process whose event loop is held
    const { store } = await gateway({ beatMs: 3_600_000, staleAfterMs: CLAIM_OWNER_TIMING.staleAfterMs });
    const key = `key-${randomToken(8)}`;
    expect(await store.claim(scope, key, 'fp')).toMatchObject({ kind: 'claimed' });
    await sleep(CLAIM_OWNER_TIMING.staleAfterMs + 1000);
    expect(await survivor.claim(scope, key, 'fp')).toEqual({ kind: 'in_progress' });
  });

  it('a gateway whose liveness connection broke (a failover) keeps its claims while its heartbeat is fresh, and takes its lock back', async () => {
    const { owner, store } = await gateway();
    const key = `key-${randomToken(8)}`;
    expect(await store.claim(scope, key, 'fp')).toMatchObject({ kind: 'claimed' });
    const ended = await admin.query<{ ok: boolean }>('SELECT pg_terminate_backend(pid, 5000) AS ok FROM pg_stat_activity WHERE application_name = $1', [claimOwnerSessionName(owner.id)]);
    expect(ended.rows).toEqual([{ ok: true }]);
    expect(await survivor.claim(scope, key, 'fp')).toEqual({ kind: 'in_progress' });
    await sleep(CLAIM_OWNER_TIMING.staleAfterMs + 1000);
    expect(await survivor.claim(scope, key, 'fp')).toEqual({ kind: 'in_progress' });
    const sessions = await admin.query('SELECT 1 FROM pg_stat_activity WHERE application_name = $1', [claimOwnerSessionName(owner.id)]);
    expect(sessions.rowCount).toBe(1);
  });

  it('a claim its live owner could not settle (the database away) is settled in the background once it is back', async () => {
    // this gateway's pool reaches the database through a proxy that is cut and restored
    const target = new URL(url);
    const proxy = await TcpProxy.start(target.hostname, Number(target.port || 5432));
    const viaProxy = new URL(url);
    viaProxy.host = `127.0.0.1:${proxy.port}`;
    const cutPool = createPool(viaProxy.toString(), 2);
    const owner = new ClaimOwner({ databaseUrl: url });
    owners.push(owner);
    await owner.onApplicationBootstrap();
    const store = new IdempotencyStore(cutPool, config, owner);
    try {
      const created = `key-${randomToken(8)}`;
      const failed = `key-${randomToken(8)}`;
      const claims = [await store.claim(scope, created, 'fp'), await store.claim(scope, failed, 'fp')] as { token: string }[];
      proxy.cut();
      // the answers go out meanwhile; neither is recorded, and the keys stay in progress
      await store.settle(scope, created, claims[0].token, 201, '{"id":"lead_2"}');
      await store.settle(scope, failed, claims[1].token, 500, '{"error":{}}');
      expect(await survivor.claim(scope, created, 'fp')).toEqual({ kind: 'in_progress' });
      proxy.restore();
      await store.settleLater();
      expect(await survivor.claim(scope, created, 'fp')).toEqual({ kind: 'replay', status: 201, body: '{"id":"lead_2"}' });
      expect(await survivor.claim(scope, failed, 'fp')).toMatchObject({ kind: 'claimed' });
    } finally {
      await cutPool.end();
      await proxy.close();
    }
  });

  it('two survivors racing for a dead gateway\'s claim: one takes it', async () => {
    const { owner, store } = await gateway();
    const other = (await gateway()).store;
    const key = `key-${randomToken(8)}`;
    expect(await store.claim(scope, key, 'fp')).toMatchObject({ kind: 'claimed' });
    await owner.onApplicationShutdown();
    await sleep(CLAIM_OWNER_TIMING.staleAfterMs + 500);
    const claims = await Promise.all([survivor.claim(scope, key, 'fp'), other.claim(scope, key, 'fp')]);
    expect(claims.map((c) => c.kind).sort()).toEqual(['claimed', 'in_progress']);
  });
});
