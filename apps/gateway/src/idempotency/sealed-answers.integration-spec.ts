import { Client, Pool } from 'pg';
import { createPool, dropDatabase, ensureDatabase, randomToken, runMigrations } from '@app/platform';
import { PG_SERVER_URL } from '../../../../test/harness';
import { GatewayConfig } from '../config';
import { GATEWAY_MIGRATIONS } from '../migrations';
import { ClaimOwner } from './claim-owner.store';
import { IdempotencyScope, IdempotencyStore } from './idempotency.store';

/**
 * Stored answers on a real PostgreSQL: what the table holds is sealed (no part of the answer reads
 * in it), the same store replays the answer as it was sent, and a store holding another
 * IDEMPOTENCY_SECRET_KEY (rotated) cannot read it and runs the request again instead of failing.
 */
describe('idempotency answers at rest', () => {
  const url = (() => {
    const u = new URL(PG_SERVER_URL);
    u.pathname = `/gw_sealed_${randomToken(8).toLowerCase()}`;
    return u.toString();
  })();
  const scope: IdempotencyScope = { workspaceId: `ws_${randomToken(8)}`, keyId: `key_${randomToken(8)}`, grants: 'owner agency leads' };
  let pool: Pool;
  let admin: Client;
  let owner: ClaimOwner;
  const storeWith = (secret: string) => new IdempotencyStore(pool, { rpcTimeoutMs: 10_000, idempotencySecretKey: secret } as GatewayConfig, owner);

  beforeAll(async () => {
    await ensureDatabase(url);
    await runMigrations(url, GATEWAY_MIGRATIONS);
    admin = new Client({ connectionString: url });
    await admin.connect();
    pool = createPool(url, 2);
    owner = new ClaimOwner({ databaseUrl: url });
    await owner.onApplicationBootstrap();
  });

  afterAll(async () => {
    await owner?.onApplicationShutdown();
    await pool?.end();
    await admin?.end();
    await dropDatabase(url);
  });

  it('keeps the answer sealed and replays it byte for byte', async () => {
    const store = storeWith('a-sealing-secret-of-this-gateway');
    const key = `key-${randomToken(8)}`;
    const body = '{"id":"we_1","secret":"whsec_plainly-visible-if-stored-as-is"}';
    const claim = await store.claim(scope, key, 'fp');
    expect(claim).toMatchObject({ kind: 'claimed' });
    await store.complete(scope, key, (claim as { token: string }).token, 201, body);

    const { rows } = await admin.query<{ row: string }>('SELECT t::text AS row FROM idempotency_records t WHERE key_id = $1 AND key = $2', [scope.keyId, key]);
    expect(rows).toHaveLength(1);
    for (const part of ['whsec_', 'plainly-visible', 'we_1', 'secret']) expect(rows[0].row).not.toContain(part);
    expect(await store.claim(scope, key, 'fp')).toEqual({ kind: 'replay', status: 201, body });
  });

  it('an answer sealed under another key is not replayed: the request is claimed again, and its new answer replayed', async () => {
    const key = `key-${randomToken(8)}`;
    const before = storeWith('the-secret-before-rotation-of-it');
    const first = await before.claim(scope, key, 'fp');
    await before.complete(scope, key, (first as { token: string }).token, 201, '{"id":"lead_1"}');

    const after = storeWith('the-secret-after-rotation-of-it');
    const again = await after.claim(scope, key, 'fp');
    expect(again).toEqual({ kind: 'claimed', token: expect.any(String) });
    await after.complete(scope, key, (again as { token: string }).token, 201, '{"id":"lead_1"}');
    expect(await after.claim(scope, key, 'fp')).toEqual({ kind: 'replay', status: 201, body: '{"id":"lead_1"}' });
  });
});
