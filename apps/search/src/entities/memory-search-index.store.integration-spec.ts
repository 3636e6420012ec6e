import { Pool } from 'pg';
import { loadServiceConfig, runMigrations } from '@app/platform';
import { TestMesh } from '../../../../test/harness';
import { MIGRATIONS } from '../migrations';
import { SearchConfig } from '../search.config';
import { SearchReads } from '../search/search-reads.store';
import { conditionsFor } from '../search/search.service';
import { EntitiesRepository } from './entities.repository';
import { MemorySearchIndex } from './memory-search-index.store';
import { seedEntity } from './seed';

/**
 * SEARCH_INDEX=memory against real PostgreSQL: two search processes (two MemorySearchIndex over one
 * database), one writing. Each query's ids are compared with PostgreSQL's own answer over the
 * table (the conditions' SQL, ORDER BY rank_score DESC, id), the oracle.
 */
describe('MemorySearchIndex (real PostgreSQL)', () => {
  let mesh: TestMesh;
  let pool: Pool;
  const config = { index: 'memory', indexPollMs: 3_600_000, rankedCacheEntries: 16, rankConcurrency: 2 } as SearchConfig;
  const processes: MemorySearchIndex[] = [];
  const start = async () => {
    const reads = new SearchReads(pool, config, undefined as never);
    const index = new MemorySearchIndex(pool, config, reads);
    await index.onModuleInit();
    processes.push(index);
    return { index, repository: new EntitiesRepository(pool, config, reads, index) };
  };

  beforeAll(async () => {
    mesh = await TestMesh.start([]);
    const service = loadServiceConfig('search', mesh.env);
    await runMigrations(service.databaseUrl, MIGRATIONS);
    pool = new Pool({ connectionString: service.databaseUrl, max: 4 });
  });
  afterAll(async () => {
    for (const p of processes) p.onApplicationShutdown();
    await pool?.end();
    await mesh?.close();
  });

  const QUERIES: [string, string, Record<string, string[]>][] = [
    ['leads', '', {}],
    ['leads', 'fintech', {}],
    ['leads', 'fintech ceo', { country: ['US', 'DE'] }],
    ['investors', 'fintech', { stage: ['seed'], type: ['vc'] }],
    ['investors', '', { sector: ['climate'], check_min: ['500000'] }],
    ['researchers', 'genomics', { min_works: ['50'] }],
    ['grants', '', { agency: ['NIH'], deadline_before: ['2027-06-01'] }],
    ['grants', 'Machine-Learning!', {}],
    ['leads', '!!!', {}],
  ];

  /** PostgreSQL's ids of a query: the conditions' SQL over entities, in (rank_score DESC, id) order. */
  async function oracle(lens: string, q: string, filters: Record<string, string[]>): Promise<string[]> {
    const { conditions, params } = conditionsFor(lens as never, filters);
    let n = 0;
    const next = () => `$${++n}`;
    const where = [...conditions.map((c) => c.sql(next, 'e.terms')), ...(q.trim() ? [`e.terms @@ plainto_tsquery('simple', ${next()})`] : [])];
    const values = [...params, ...(q.trim() ? [q] : []), lens];
    const { rows } = await pool.query<{ id: string }>(
      `SELECT e.id FROM entities e WHERE ${[...where, `e.lens = ${next()}`].join(' AND ')} ORDER BY e.rank_score DESC, e.id LIMIT 1001`, values);
    return rows.map((r) => r.id);
  }

  async function expectOracle(index: MemorySearchIndex) {
    for (const [lens, q, filters] of QUERIES) {
      const query = await index.queryOf(lens, q, conditionsFor(lens as never, filters).conditions);
      expect({ lens, q, filters, ids: index.top(query, 1001).ids }).toEqual({ lens, q, filters, ids: await oracle(lens, q, filters) });
    }
  }

  it('builds from the table at start, follows the batches its own process writes and, at the next catch-up, those of another', async () => {
    const writer = await start();
    await writer.repository.upsertMany(Array.from({ length: 3000 }, (_, n) => seedEntity(n)), { regenerable: true });
    // a process started now builds its index from the table, at the table's generation
    const reader = await start();
    const [{ generation }] = (await pool.query<{ generation: string }>('SELECT generation::text AS generation FROM entities_count')).rows;
    expect(reader.index.stats()).toMatchObject({ entities: 3000, segments: 1, generation: BigInt(generation) });
    expect(writer.index.stats()).toMatchObject({ entities: 3000, generation: BigInt(generation) });
    await expectOracle(reader.index);
    await expectOracle(writer.index);

    // a batch of new entities and of known ones whose rank, terms and numbers change (the same ext_key)
    const moved = Array.from({ length: 200 }, (_, k) => {
      const e = seedEntity(k * 7);
      return { ...e, rank_score: 2_000_000 - k, search_text: `${e.search_text ?? ''} fintech`, num_min: 10, num_max: 900_000, facets: [...(e.facets ?? []), 'sector:climate'] };
    });
    const added = Array.from({ length: 300 }, (_, k) => seedEntity(50_000 + k));
    expect(await writer.repository.upsertMany([...moved, ...added])).toEqual({ inserted: 300, updated: 200 });
    // the writing process has the batch when upsertMany returns; the other when it catches up
    expect(writer.index.stats().entities).toBe(3300);
    await expectOracle(writer.index);
    expect(reader.index.stats().generation).toBeLessThan(writer.index.stats().generation);
    await reader.index.catchUp();
    expect(reader.index.stats()).toMatchObject({ entities: 3300, generation: writer.index.stats().generation });
    await expectOracle(reader.index);
    const top = await reader.index.queryOf('leads', 'fintech', []);
    expect(reader.index.top(top, 1).ids).toEqual(await oracle('leads', 'fintech', {}).then((ids) => ids.slice(0, 1)));

    // a page read of the other process finds the generation moved and asks its index to catch up first
    await writer.repository.upsertMany([{ ...seedEntity(1), rank_score: 5_000_000 }]);
    const page = await reader.repository.search('ws_x', 'investors', '', [], [], 0, 26);
    expect(page.rows[0].id).toBe((await oracle('investors', '', {}))[0]);
    expect(reader.index.stats().generation).toBe(writer.index.stats().generation);

    // batches the log no longer has (pruned): the process builds its index again from the table
    const late = await start();
    await writer.repository.upsertMany(Array.from({ length: 50 }, (_, k) => ({ ...seedEntity(k), rank_score: k })));
    await pool.query('DELETE FROM entities_changes');
    await late.index.catchUp();
    expect(late.index.stats()).toMatchObject({ segments: 1, generation: writer.index.stats().generation, entities: 3300 });
    await expectOracle(late.index);
  });

  it('the lexemes of a text are PostgreSQL\'s, for plain ASCII words as for any other text', async () => {
    const { index } = await start();
    for (const text of ['Fintech', 'fintech  CEO seed', '1e5 007 abc123 X', 'Machine-Learning', 'bluenorth12.example', "it's a\\b", 'Zürich Straße', 'ÉCOLE', 'x@y.com 3.5', '']) {
      const { rows } = await pool.query<{ lexemes: string[] }>(`SELECT tsvector_to_array(to_tsvector('simple', $1)) AS lexemes`, [text]);
      expect({ text, lexemes: (await index.lexemes(text)).sort() }).toEqual({ text, lexemes: rows[0].lexemes.sort() });
    }
  });
});
