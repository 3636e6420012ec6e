import { Pool } from 'pg';
import { TestMesh } from '../../../../test/harness';
import { migratedSearchDatabase } from '../../../../test/support/search-database';
import { LeasesRepository } from './leases.repository';

const HOUR_MS = 3_600_000;

/**
 * A sweep forgets the leases settled over an hour ago a few at a time (about `maxPages` pages a
 * statement), oldest first, with their pages; a lease settled since, an open lease and their pages
 * stay. Real PostgreSQL, search's migrations.
 */
describe('LeasesRepository.forgetSettled (real PostgreSQL)', () => {
  let mesh: TestMesh;
  let pool: Pool;
  let repo: LeasesRepository;

  beforeAll(async () => {
    let url: string;
    ({ mesh, url } = await migratedSearchDatabase());
    pool = new Pool({ connectionString: url, max: 2 });
    // forgetSettled is one statement on the pool: no unit of work
    repo = new LeasesRepository(pool, undefined as never);
  });
  afterAll(async () => {
    await pool?.end();
    await mesh?.close();
  });

  /** A lease of `pages` pages (used = pages), settled `settledAgo` ago (null: open), and its page rows. */
  async function lease(id: string, pages: number, settledAgo: string | null): Promise<void> {
    await pool.query(
      `INSERT INTO credit_leases (id, workspace_id, state, pool, size, used, ctx, expires_at, settled_at)
       VALUES ($1, 'ws_forget', $2, 'plan', $3, $3, '{}', now() + interval '1 minute', now() - $4::interval)`,
      [id, settledAgo === null ? 'open' : 'settled', pages, settledAgo], // now() - NULL: settled_at NULL
    );
    await pool.query(`INSERT INTO credit_lease_pages (workspace_id, ref, lease_id) SELECT 'ws_forget', $1 || ':' || g, $1 FROM generate_series(1, $2::int) g`, [id, pages]);
  }

  const left = async () => (await pool.query<{ lease_id: string; n: number }>(
    `SELECT l.id AS lease_id, (SELECT count(*)::int FROM credit_lease_pages p WHERE p.lease_id = l.id) AS n FROM credit_leases l ORDER BY l.id`)).rows;

  it('forgets the oldest leases past the hour, about maxPages pages at a time, and keeps the rest', async () => {
    await lease('lse_a', 3000, '4 hours');
    await lease('lse_b', 1500, '3 hours');
    await lease('lse_c', 1000, '2 hours');
    await lease('lse_d', 10, '90 minutes');
    await lease('lse_e', 5, '10 minutes');
    await lease('lse_f', 7, null);

    // the oldest lease goes even when its pages alone are more than the bound
    expect(await repo.forgetSettled(HOUR_MS, 2000)).toEqual({ leases: 1, pages: 3000 });
    expect((await left()).map((l) => l.lease_id)).toEqual(['lse_b', 'lse_c', 'lse_d', 'lse_e', 'lse_f']);
    // then the leases with fewer than 2,000 pages before them: b (0) and c (1,500), not d (2,500)
    expect(await repo.forgetSettled(HOUR_MS, 2000)).toEqual({ leases: 2, pages: 2500 });
    expect(await repo.forgetSettled(HOUR_MS, 2000)).toEqual({ leases: 1, pages: 10 });
    // nothing left past the hour: the lease settled 10 minutes ago and the open one stay, with their pages
    expect(await repo.forgetSettled(HOUR_MS, 2000)).toEqual({ leases: 0, pages: 0 });
    expect(await left()).toEqual([{ lease_id: 'lse_e', n: 5 }, { lease_id: 'lse_f', n: 7 }]);
  });
});
