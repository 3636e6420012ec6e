import { isDeepStrictEqual } from 'node:util';
import { Pool } from 'pg';
import { TestMesh } from '../../../../test/harness';
import { migratedSearchDatabase, searchProcesses } from '../../../../test/support/search-database';
import { appEntry, waitFor } from '../../../../tools/mesh/processes';
import { SearchConfig } from '../search.config';
import { DIRECT_PAUSE, EntitiesRepository } from './entities.repository';
import { facetTerms, searchTextOf, termsOf } from './entity';
import { seedEntity } from './seed';
import { encodeSeedOnThread } from './seed-encoder';

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => seedEntity(from + k));

/**
 * Starts `write` while `entities` is locked in SHARE mode (every insert into it waits), kills the
 * backend of the statement that waits (`statement`: a condition on pg_stat_activity's `query`),
 * and gives what `write` ended with (an error, or 'written').
 */
async function killedWhileLocked(pool: Pool, write: () => Promise<unknown>, statement: string): Promise<unknown> {
  const holder = await pool.connect();
  try {
    await holder.query('BEGIN');
    await holder.query('LOCK TABLE entities IN SHARE MODE');
    const writing = write().then(() => 'written', (err: Error) => err);
    // asked outside the holder's transaction, whose view of pg_stat_activity stays as it first read it
    const waiting = async () => (await pool.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity
        WHERE datname = current_database() AND wait_event_type = 'Lock' AND (${statement})`)).rows;
    await waitFor('the batch waiting on the lock', async () => (await waiting()).length > 0, 20_000, 20);
    for (const { pid } of await waiting()) await holder.query('SELECT pg_terminate_backend($1)', [pid]);
    const outcome = await writing;
    await holder.query('COMMIT');
    return outcome;
  } finally {
    holder.release();
  }
}

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
    const outcome = await killedWhileLocked(pool, () => repository.upsertMany(range(10_000, 11_500), { regenerable: true }), `query LIKE '%INSERT INTO entities%' OR query LIKE 'COPY entities %'`);
    expect(outcome).toBeInstanceOf(Error);
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

/**
 * A batch of keys not stored yet whose terms search makes (entity.ts termsOf) is copied straight
 * into `entities` (EntitiesRepository.copyFresh): the rows, the count, the change log and the
 * writer's index must be what the INSERT path leaves, also when the COPY meets a stored key, when
 * its connection dies, and when it puts rows in free space before the blocks it appends.
 */
describe('EntitiesRepository.upsertMany copies a fresh batch straight into entities (real PostgreSQL)', () => {
  let mesh: TestMesh;
  let pool: Pool;
  const processes = searchProcesses(() => pool, { indexPollMs: 3_600_000, rankedCacheEntries: 0 } as SearchConfig);

  beforeAll(async () => {
    let url: string;
    ({ mesh, url } = await migratedSearchDatabase());
    pool = new Pool({ connectionString: url, max: 4 });
  });
  afterAll(async () => {
    processes.stop();
    await pool?.end();
    await mesh?.close();
  });

  const state = async () => (await pool.query(`SELECT
      (SELECT count(*)::int FROM entities) AS rows, (SELECT count(DISTINCT ext_key)::int FROM entities) AS keys,
      (SELECT n::int FROM entities_count) AS counted`)).rows[0];
  /** Each id's ctid now (text). */
  const ctids = async (ids: string[]) => (await pool.query<{ tid: string }>(
    `SELECT e.ctid::text AS tid FROM unnest($1::text[]) WITH ORDINALITY AS t(id, n) LEFT JOIN entities e ON e.id = t.id ORDER BY t.n`, [ids])).rows.map((r) => r.tid);
  /** A repository whose COPY into entities is watched: what each batch's copyFresh gave (undefined: the COPY met a stored key). */
  const watched = (repository: EntitiesRepository) => {
    const copies: unknown[] = [];
    const copyFresh = (repository as unknown as { copyFresh: (...args: unknown[]) => Promise<unknown> }).copyFresh.bind(repository);
    (repository as unknown as { copyFresh: unknown }).copyFresh = async (...args: unknown[]) => {
      const written = await copyFresh(...args);
      copies.push(written);
      return written;
    };
    return copies;
  };

  it('rows, count, change log and the writer\'s index as the INSERT path leaves them; a stored key sends the batch to the upsert', async () => {
    const { index, repository } = await processes.start();
    const copies = watched(repository);
    const generation = index.stats().generation;
    expect(await repository.upsertMany(range(0, 2000), { regenerable: true })).toEqual({ inserted: 2000, updated: 0 });
    expect(copies).toEqual([generation + 1n]);
    expect(await state()).toEqual({ rows: 2000, keys: 2000, counted: 2000 });
    const { rows: logged } = await pool.query<{ generation: string; ext_keys: string[] }>('SELECT generation::text, ext_keys FROM entities_changes ORDER BY generation');
    expect(logged).toEqual([{ generation: String(generation + 1n), ext_keys: range(0, 2000).map((e) => e.ext_key).sort() }]);
    // the writer's index holds every row at its address, with its words and facets
    const stored = (await pool.query<{ id: string }>('SELECT id FROM entities ORDER BY rank_score DESC, id COLLATE "C"')).rows.map((r) => r.id);
    const all = index.top(await index.queryOf('investors', '', []), 2000).ids;
    expect(index.tidsOf(stored)).toEqual(await ctids(stored));
    expect(all).toEqual((await pool.query<{ id: string }>(`SELECT id FROM entities WHERE lens = 'investors' ORDER BY rank_score DESC, id COLLATE "C"`)).rows.map((r) => r.id));
    const [one] = (await pool.query<{ id: string; ext_key: string }>(`SELECT id, ext_key FROM entities WHERE lens = 'investors' ORDER BY ext_key LIMIT 1`)).rows;
    const domain = range(0, 2000).find((e) => e.ext_key === one.ext_key)!.domain as string;
    expect(index.top(await index.queryOf('investors', domain, []), 10).ids).toContain(one.id);

    // the same chunk again: the COPY meets a stored key, the batch is upserted, nothing twice
    expect(await repository.upsertMany(range(0, 2000), { regenerable: true })).toEqual({ inserted: 0, updated: 2000 });
    expect(copies).toEqual([generation + 1n, undefined]);
    // the DIRECT_PAUSE batches after it go by the INSERT path: no COPY tried; the one after those is copied again
    for (let k = 0; k < DIRECT_PAUSE; k++) expect(await repository.upsertMany(range(2000 + k, 2001 + k))).toEqual({ inserted: 1, updated: 0 });
    expect(copies).toHaveLength(2);
    expect(await repository.upsertMany(range(2000 + DIRECT_PAUSE, 2100))).toEqual({ inserted: 100 - DIRECT_PAUSE, updated: 0 });
    expect(copies).toHaveLength(3);
    expect(await state()).toEqual({ rows: 2100, keys: 2100, counted: 2100 });
  });

  it('a text with a token termsOf does not know goes through the load table: its terms are PostgreSQL\'s', async () => {
    const { repository } = await processes.start();
    const copies = watched(repository);
    const odd = { ...seedEntity(5000), search_text: 'see https://example.com/a?b=1 or mail x@y.io' };
    expect(await repository.upsertMany([odd, ...range(5001, 5010)])).toEqual({ inserted: 10, updated: 0 });
    expect(copies).toEqual([]);
    expect((await pool.query(`SELECT terms @@ 'x@y.io'::tsquery AS mail, terms @@ 'example.com/a?b=1'::tsquery AS url FROM entities WHERE ext_key = $1`, [odd.ext_key])).rows)
      .toEqual([{ mail: true, url: true }]);
  });

  it('a query of a word of an entity\'s text finds it, whichever way its terms were made: 6E75I the parser\'s lexemes, 6E75x the word lowered', async () => {
    const { index, repository } = await processes.start();
    const copies = watched(repository);
    // a word with a capital I read as a number in scientific notation and a word after it: termsOf does not know it (load table, the parser's `6e75` and `i`)
    const parsed = { ...seedEntity(6000), search_text: 'quark 6E75I' };
    // without the I, a plain word: copied straight in, `6e75x`
    const plain = { ...seedEntity(6004), search_text: 'quark 6E75x' };
    await repository.upsertMany([parsed]);
    await repository.upsertMany([plain]);
    expect(copies).toHaveLength(1);
    const idOf = async (key: string) => (await pool.query<{ id: string }>('SELECT id FROM entities WHERE ext_key = $1', [key])).rows[0].id;
    const found = async (q: string) => index.top(await index.queryOf(parsed.lens, q, []), 10).ids;
    expect(parsed.lens).toBe(plain.lens);
    expect(await found('6E75I')).toEqual([await idOf(parsed.ext_key)]);
    expect(await found('quark 6e75I')).toEqual([await idOf(parsed.ext_key)]);
    expect(await found('6E75x')).toEqual([await idOf(plain.ext_key)]);
  });

  it('seed chunks encoded on the seed encoder\'s thread (the search bundle) are written as upsertMany writes them; a chunk seeded again is upserted', async () => {
    encodeSeedOnThread(appEntry('search'));
    const { index, repository } = await processes.start();
    try {
      const copies = watched(repository);
      // what the thread answered each chunk asked (undefined: none, written here instead)
      const encoder = (repository as unknown as { encoder: { encode: (start: number, count: number) => Promise<{ ids: string[] } | undefined> } }).encoder;
      const encode = encoder.encode.bind(encoder);
      const answered: (number | undefined)[] = [];
      encoder.encode = async (start, count) => {
        const chunk = await encode(start, count);
        answered.push(chunk?.ids.length);
        return chunk;
      };
      const before = await state();
      // a chunk by the thread and a batch written here at once
      const [threaded, inline] = await Promise.all([repository.seedRange(50_000, 2000), repository.upsertMany(range(52_000, 54_000), { regenerable: true })]);
      expect([threaded, inline]).toEqual([{ inserted: 2000, updated: 0 }, { inserted: 2000, updated: 0 }]);
      expect(copies).toHaveLength(2);
      expect(answered).toEqual([2000]);
      const n = before.rows + 4000;
      expect(await state()).toEqual({ rows: n, keys: n, counted: n });
      // every row of both is its seed entity, with the terms termsOf makes of it
      const { rows } = await pool.query<{ n: number; row: Record<string, unknown> }>(`SELECT substr(ext_key, 6)::int AS n,
          to_jsonb((SELECT x FROM (SELECT lens, name, person_name, first_name, last_name, title, organization, location, country, domain, email, phone,
            details, facets, num_min, num_max, rank_score, sources, search_text, tsvector_to_array(terms) AS terms) x)) AS row
        FROM entities WHERE ext_key = ANY($1::text[])`, [range(50_000, 54_000).map((e) => e.ext_key)]);
      expect(rows).toHaveLength(4000);
      const expected = (k: number) => {
        const e = seedEntity(k);
        const { ext_key: _key, search_text: _text, ...columns } = e;
        void _key;
        void _text;
        return {
          first_name: null, last_name: null, title: null, organization: null, location: null, country: null, domain: null, email: null, phone: null,
          num_min: null, num_max: null, ...columns, search_text: searchTextOf(e), terms: [...termsOf(searchTextOf(e), facetTerms(e.facets))!].sort(),
        };
      };
      const wrong = rows.filter(({ n: k, row }) => !isDeepStrictEqual({ ...row, terms: [...(row.terms as string[])].sort() }, expected(k)));
      expect(wrong.slice(0, 1).map(({ n: k, row }) => ({ k, row, expected: expected(k) }))).toEqual([]);
      // the writer's index holds every row at its address
      const ids = (await pool.query<{ id: string }>('SELECT id FROM entities WHERE ext_key = ANY($1::text[])', [range(50_000, 54_000).map((e) => e.ext_key)])).rows.map((r) => r.id);
      expect(index.tidsOf(ids)).toEqual(await ctids(ids));
      // the same chunk again: its keys are stored, the COPY fails, the chunk is upserted by the load table, nothing twice
      expect(await repository.seedRange(50_000, 2000)).toEqual({ inserted: 0, updated: 2000 });
      expect(copies).toHaveLength(3);
      expect(answered).toEqual([2000, 2000]);
      expect(await state()).toEqual({ rows: n, keys: n, counted: n });
      // the DIRECT_PAUSE chunks after it are written by the load table (the thread not asked); the one after those by the thread again
      for (let k = 0; k < DIRECT_PAUSE; k++) expect(await repository.seedRange(54_000 + k, 1)).toEqual({ inserted: 1, updated: 0 });
      expect([copies.length, answered.length]).toEqual([3, 2]);
      expect(await repository.seedRange(54_000 + DIRECT_PAUSE, 10)).toEqual({ inserted: 10, updated: 0 });
      expect([copies.length, answered]).toEqual([4, [2000, 2000, 10]]);
      const m = n + DIRECT_PAUSE + 10;
      expect(await state()).toEqual({ rows: m, keys: m, counted: m });
    } finally {
      encodeSeedOnThread(undefined);
      await repository.onApplicationShutdown();
    }
  });

  it('a batch whose connection dies mid-COPY leaves nothing; written again, every entity once', async () => {
    const { repository } = await processes.start();
    const copies = watched(repository);
    const before = await state();
    const outcome = await killedWhileLocked(pool, () => repository.upsertMany(range(20_000, 21_500), { regenerable: true }), `query LIKE 'COPY entities %'`);
    expect(outcome).toBeInstanceOf(Error);
    expect(await state()).toEqual(before);
    expect(await repository.upsertMany(range(20_000, 21_500), { regenerable: true })).toEqual({ inserted: 1500, updated: 0 });
    expect(copies).toHaveLength(1);
    const n = before.rows + 1500;
    expect(await state()).toEqual({ rows: n, keys: n, counted: n });
  });

  it('rows the COPY puts in free space before the blocks it appends are read back by id: the index has every address', async () => {
    const { index, repository } = await processes.start();
    const own = range(30_000, 32_000);
    await repository.upsertMany(own, { regenerable: true });
    // dead versions in the batch's first 8 blocks (every row of them updated elsewhere), then VACUUM: free space there, in the free space map
    // (the batch's own blocks: which earlier blocks still hold live rows depends on the rows' sizes and on autovacuum)
    const { rows: [{ block: from }] } = await pool.query<{ block: number }>(
      `SELECT min((ctid::text::point)[0])::int AS block FROM entities WHERE ext_key = ANY($1::text[])`, [own.map((e) => e.ext_key)]);
    const freed = `ctid >= '(${from},0)'::tid AND ctid < '(${from + 8},0)'::tid`;
    const { rows: first } = await pool.query<{ ext_key: string }>(`SELECT ext_key FROM entities WHERE ${freed}`);
    expect(first.length).toBeGreaterThan(0);
    await pool.query(`UPDATE entities SET name = name WHERE ${freed}`);
    await pool.query('VACUUM entities');
    const copies = watched(repository);
    const fresh = range(40_000, 42_000);
    expect(await repository.upsertMany(fresh, { regenerable: true })).toEqual({ inserted: 2000, updated: 0 });
    expect(copies).toHaveLength(1);
    const { rows } = await pool.query<{ id: string; block: number }>(
      `SELECT id, (ctid::text::point)[0]::int AS block FROM entities WHERE ext_key = ANY($1::text[])`, [fresh.map((e) => e.ext_key)]);
    // some of the batch went to the freed blocks, before the ones the COPY appended
    expect(rows.filter((r) => r.block < from + 8).length).toBeGreaterThan(0);
    const ids = rows.map((r) => r.id);
    expect(index.tidsOf(ids)).toEqual(await ctids(ids));
  });
});
