import { Client } from 'pg';
import { TestMesh } from '../../harness';
import { waitFor } from '../../../tools/mesh/processes';
import { allowance } from '../../support/timing';

/**
 * `search:seed` survives one slow request (issue 25): the chunks in flight are held up in
 * PostgreSQL (the test holds a lock that every insert into `entities` waits for) past the admin
 * CLI's 10 s deadline, so the CLI gets no answer and asks the same chunks again; the first
 * attempts then commit too. A chunk is upserted by its entities' ext_keys, so the retries update
 * what the first attempts wrote: the command completes, and the index holds each entity once and
 * counts it once. Real nats-server, search service and PostgreSQL; nothing is mocked.
 */
describe('admin search:seed with a request that outlives its deadline', () => {
  let mesh: TestMesh;
  afterAll(() => mesh?.close());

  it('retries the chunk, completes, and inserts nothing twice', async () => {
    mesh = await TestMesh.start(['search'], { SEED_CHUNK: '500', SEED_PARALLEL: '2' });
    const holder = new Client({ connectionString: mesh.databaseUrl('search') });
    await holder.connect();
    try {
      // the lock is taken once the seed has written its first chunks, and held past the CLI's deadline
      const seed = mesh.adminRaw(['search:seed', '--count', '6000']);
      await waitFor('first chunks', async () => Number((await mesh.query('search', 'SELECT n FROM entities_count'))[0].n) >= 1000, allowance(30_000), 20);
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE entities IN SHARE MODE');
      await new Promise((r) => setTimeout(r, 12_000));
      await holder.query('COMMIT');
      const { code, stdout, stderr } = await seed;
      expect({ code, stderr: code === 0 ? '' : stderr }).toEqual({ code: 0, stderr: '' });
      const result = JSON.parse(stdout);
      expect(result.retries).toBeGreaterThanOrEqual(1);
      expect(stderr).toMatch(/search:seed entities \d+\.\.\d+: could not reach search\.entities\.seed: no reply to search\.entities\.seed within 10000 ms; asking again \(attempt 2\)/);
      // every entity once, and counted once (the retried chunks updated what their first attempts wrote)
      expect(result.total).toBe(6000);
      const [row] = await mesh.query('search', `SELECT count(*)::int AS n, count(DISTINCT ext_key)::int AS keys, (SELECT n::int FROM entities_count) AS counted,
        count(*) FILTER (WHERE ext_key NOT IN (SELECT 'seed:' || g FROM generate_series(0, 5999) g))::int AS other FROM entities`);
      expect(row).toEqual({ n: 6000, keys: 6000, counted: 6000, other: 0 });
      expect(result.inserted + result.updated).toBe(6000);
      expect(result.inserted).toBeLessThanOrEqual(6000);
    } finally {
      await holder.end();
    }
  });
});
