import { Pool } from 'pg';
import { TestMesh } from '../../../../test/harness';
import { migratedSearchDatabase } from '../../../../test/support/search-database';
import { waitFor } from '../../../../tools/mesh/processes';
import { EntitiesRepository } from './entities.repository';
import { seedEntity } from './seed';

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => seedEntity(from + k));

/**
 * upsertMany writes a batch with a plain INSERT first and, when a key of it is already stored,
 * upserts it instead (entities.repository.ts): a chunk written again (a seed's retried chunk, or
 * one seeded again after a crash) must leave every entity once, counted once. Real PostgreSQL.
 */
describe('EntitiesRepository.upsertMany writes each entity once (real PostgreSQL)', () => {
  let mesh: TestMesh;
  let pool: Pool;
  let repository: EntitiesRepository;

  beforeAll(async () => {
    let url: string;
    ({ mesh, url } = await migratedSearchDatabase());
    pool = new Pool({ connectionString: url, max: 4 });
    repository = new EntitiesRepository(pool, undefined as never);
  });
  afterAll(async () => {
    await pool?.end();
    await mesh?.close();
  });

  /** What the tables hold: rows, distinct keys and the kept count. */
  const state = async () => (await pool.query(`SELECT
      (SELECT count(*)::int FROM entities) AS rows, (SELECT count(DISTINCT ext_key)::int FROM entities) AS keys,
      (SELECT n::int FROM entities_count) AS counted`)).rows[0];

  it('a chunk written twice, then a batch of stored and new keys: each entity once, counted once', async () => {
    expect(await repository.upsertMany(range(0, 2000), { regenerable: true })).toEqual({ inserted: 2000, updated: 0 });
    const ids = (await pool.query('SELECT ext_key, id FROM entities ORDER BY ext_key')).rows;
    expect(await repository.upsertMany(range(0, 2000), { regenerable: true })).toEqual({ inserted: 0, updated: 2000 });
    expect(await state()).toEqual({ rows: 2000, keys: 2000, counted: 2000 });
    // an entity keeps its id when written again
    expect((await pool.query('SELECT ext_key, id FROM entities ORDER BY ext_key')).rows).toEqual(ids);
    // the stored keys of a batch come anywhere in it (here the first half of its ext_key order, then the last)
    expect(await repository.upsertMany(range(1000, 3000))).toEqual({ inserted: 1000, updated: 1000 });
    expect(await repository.upsertMany([...range(3000, 3500), ...range(0, 10)])).toEqual({ inserted: 500, updated: 10 });
    expect(await state()).toEqual({ rows: 3500, keys: 3500, counted: 3500 });
    // an update is written: a stored key's new rank and words
    await repository.upsertMany([{ ...seedEntity(5), rank_score: 7, search_text: 'zebrafish' }, ...range(3500, 3600)]);
    expect((await pool.query(`SELECT rank_score, terms @@ 'zebrafish'::tsquery AS found FROM entities WHERE ext_key = 'seed:5'`)).rows)
      .toEqual([{ rank_score: 7, found: true }]);
    expect(await state()).toEqual({ rows: 3600, keys: 3600, counted: 3600 });
  });

  it('a batch whose connection dies mid-write leaves nothing; the chunk written again leaves each entity once', async () => {
    await repository.upsertMany(range(10_000, 10_100), { regenerable: true });
    const before = await state();
    const holder = await pool.connect();
    let writing: Promise<unknown> | undefined;
    try {
      // every insert into `entities` waits for this lock: the batch is loaded and its INSERT waiting when its backend is killed
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE entities IN SHARE MODE');
      writing = repository.upsertMany(range(10_000, 11_500), { regenerable: true }).then(() => 'written', (err: Error) => err);
      // asked outside the holder's transaction, whose view of pg_stat_activity stays as it first read it
      const waiting = async () => (await pool.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity
          WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%INSERT INTO entities%'`)).rows;
      await waitFor('the batch waiting on the lock', async () => (await waiting()).length > 0, 20_000, 20);
      for (const { pid } of await waiting()) await holder.query('SELECT pg_terminate_backend($1)', [pid]);
      expect(await writing).toBeInstanceOf(Error);
      await holder.query('COMMIT');
    } finally {
      holder.release();
    }
    expect(await state()).toEqual(before);
    // the whole chunk again: its first 100 keys were stored before, the others are new
    expect(await repository.upsertMany(range(10_000, 11_500), { regenerable: true })).toEqual({ inserted: 1400, updated: 100 });
    const n = before.rows + 1400;
    expect(await state()).toEqual({ rows: n, keys: n, counted: n });
  });

  it('two writers of the same new keys at once: one inserts them, the other updates them', async () => {
    const chunk = () => range(6000, 8000);
    const before = await state();
    const results = await Promise.all([repository.upsertMany(chunk(), { regenerable: true }), repository.upsertMany(chunk(), { regenerable: true })]);
    expect(results.map((r) => r.inserted).sort((a, b) => a - b)).toEqual([0, 2000]);
    expect(results.map((r) => r.updated).sort((a, b) => a - b)).toEqual([0, 2000]);
    const n = before.rows + 2000;
    expect(await state()).toEqual({ rows: n, keys: n, counted: n });
  });
});
