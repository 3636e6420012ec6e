import { Client } from 'pg';
import { PG_SERVER_URL } from '../../../test/harness';
import { ClaimOwner, claimOwnerGone, ClaimOwnerKind, claimOwnerSessionName } from './claim-owner';
import { dropDatabase, ensureDatabase } from './db';
import { randomToken } from './ids';

/**
 * A process's liveness as a claim owner on a real PostgreSQL: callers that ask at once for its lock
 * (the first requests after start-up, or after its session broke) share one session instead of
 * each opening one that finds the lock held by the other; a heartbeat that only times out keeps
 * the session and the lock; the owner is gone for others only once its session has closed.
 */
describe('ClaimOwner', () => {
  const url = (() => {
    const u = new URL(PG_SERVER_URL);
    u.pathname = `/claim_owner_${randomToken(8).toLowerCase()}`;
    return u.toString();
  })();
  const kind: ClaimOwnerKind = { service: 'test', idPrefix: 'tst', table: 'test_instances', lockClass: 72201499 };
  const owners: ClaimOwner[] = [];
  let admin: Client;

  const gone = async (owner: ClaimOwner, staleMs: number): Promise<boolean> => {
    const { rows } = await admin.query<{ gone: boolean }>(`SELECT ${claimOwnerGone(kind, '$1::text', 2, 3)} AS gone`, [owner.id, staleMs, kind.lockClass]);
    return rows[0].gone;
  };
  const sessions = async (owner: ClaimOwner): Promise<number> =>
    (await admin.query('SELECT 1 FROM pg_stat_activity WHERE application_name = $1', [claimOwnerSessionName(kind.service, owner.id)])).rowCount ?? 0;

  beforeAll(async () => {
    await ensureDatabase(url);
    admin = new Client({ connectionString: url });
    await admin.connect();
    await admin.query(`CREATE TABLE ${kind.table} (id text COLLATE "C" PRIMARY KEY, seen_at timestamptz NOT NULL DEFAULT now())`);
  });

  afterAll(async () => {
    for (const owner of owners) await owner.onApplicationShutdown();
    await admin?.end();
    await dropDatabase(url);
  });

  it('callers that ask for the lock at once share one session, and all of them hold it', async () => {
    const owner = new ClaimOwner(url, kind, { beatMs: 3_600_000, staleAfterMs: 2000 });
    owners.push(owner);
    const outcomes = await Promise.allSettled(Array.from({ length: 8 }, () => owner.ensureLive()));
    expect(outcomes.filter((o) => o.status === 'rejected')).toEqual([]);
    expect(await sessions(owner)).toBe(1);
    // its heartbeat is stale (no beat for an hour), but its lock is held: alive
    expect(await gone(owner, 0)).toBe(false);
  });

  it('a heartbeat that times out keeps the session and the lock; a closed session leaves the owner gone', async () => {
    const owner = new ClaimOwner(url, kind, { beatMs: 3_600_000, staleAfterMs: 2000 });
    owners.push(owner);
    await owner.ensureLive();
    // the heartbeat row held by another transaction: the owner's next beat waits past its statement deadline
    await admin.query('BEGIN');
    await admin.query(`SELECT 1 FROM ${kind.table} WHERE id = $1 FOR UPDATE`, [owner.id]);
    const beat = owner.beat();
    await expect(beat).rejects.toThrow('Query read timeout');
    await admin.query('ROLLBACK');
    expect(await sessions(owner)).toBe(1);
    expect(await gone(owner, 0)).toBe(false);
    // the process dies: its session closes, the lock goes with it
    await admin.query('SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity WHERE application_name = $1', [claimOwnerSessionName(kind.service, owner.id)]);
    expect(await gone(owner, 0)).toBe(true);
  });
});
