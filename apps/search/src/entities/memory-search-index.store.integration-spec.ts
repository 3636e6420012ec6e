import { Pool } from 'pg';
import { TestMesh } from '../../../../test/harness';
import { migratedSearchDatabase, searchProcesses } from '../../../../test/support/search-database';
import { SearchConfig } from '../search.config';
import { conditionsFor } from '../search/search.service';
import { to as copyTo } from 'pg-copy-streams';
import { SegmentBuilder } from './memory-index';
import { CopyBinaryDocs, MemorySearchIndex } from './memory-search-index.store';
import { seedEntity } from './seed';

/**
 * The lexemes of a tsvector's text output (`'a' 'b''c' 'd\\e'`, with `:positions` after a lexeme
 * where it has any): quotes doubled and backslashes escaped inside each.
 */
function parseTsvector(text: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < text.length) {
    if (text.charCodeAt(i) !== 39) {
      i++;
      continue;
    }
    i++;
    let lexeme = '';
    let from = i;
    for (;;) {
      const c = text.charCodeAt(i);
      if (Number.isNaN(c)) throw new Error(`unterminated lexeme in a tsvector: ${text.slice(0, 200)}`);
      if (c === 39) {
        lexeme += text.slice(from, i);
        if (text.charCodeAt(i + 1) === 39) {
          lexeme += "'";
          i += 2;
          from = i;
          continue;
        }
        i++;
        break;
      }
      if (c === 92) {
        lexeme += text.slice(from, i) + text[i + 1];
        i += 2;
        from = i;
        continue;
      }
      i++;
    }
    out.push(lexeme);
    while (i < text.length && text.charCodeAt(i) !== 32) i++; // positions, if any
  }
  return out;
}

/**
 * The in-memory index against real PostgreSQL: two search processes (two MemorySearchIndex over one
 * database), one writing. Each query's ids are compared with PostgreSQL's own answer over the
 * table (the conditions as SQL, ORDER BY rank_score DESC, id), the oracle.
 */
describe('MemorySearchIndex (real PostgreSQL)', () => {
  let mesh: TestMesh;
  let pool: Pool;
  const config = { indexPollMs: 3_600_000, rankedCacheEntries: 16 } as SearchConfig;
  const processes = searchProcesses(() => pool, config);
  const start = () => processes.start();

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

  /**
   * PostgreSQL's ids of a query, in (rank_score DESC, id) order: the conditions as SQL over entities
   * (a facet condition over the `facets` column, words through PostgreSQL's own plainto_tsquery).
   */
  async function oracle(lens: string, q: string, filters: Record<string, string[]>): Promise<string[]> {
    const values: unknown[] = [];
    const next = (value: unknown) => `$${values.push(value)}`;
    const where = conditionsFor(filters).map((c) => ('facets' in c ? `e.facets && ${next(c.facets)}::text[]`
      : 'words' in c ? `e.terms @@ plainto_tsquery('simple', ${next(c.words)})` : `e.${c.column} ${c.op} ${next(c.value)}::bigint`));
    if (q.trim()) where.push(`e.terms @@ plainto_tsquery('simple', ${next(q)})`);
    const { rows } = await pool.query<{ id: string }>(
      `SELECT e.id FROM entities e WHERE ${[...where, `e.lens = ${next(lens)}`].join(' AND ')} ORDER BY e.rank_score DESC, e.id LIMIT 1001`, values);
    return rows.map((r) => r.id);
  }

  async function expectOracle(index: MemorySearchIndex) {
    for (const [lens, q, filters] of QUERIES) {
      const query = await index.queryOf(lens, q, conditionsFor(filters));
      const want = await oracle(lens, q, filters);
      expect({ lens, q, filters, ids: index.top(query, 1001).ids }).toEqual({ lens, q, filters, ids: want });
      // a page from its offset: only its ids
      expect({ lens, q, filters, page: index.top(query, 50, 25).ids }).toEqual({ lens, q, filters, page: want.slice(25, 50) });
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
    const page = await reader.repository.search('ws_x', 'investors', '', [], 0, 26);
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

  it('a batch of its own being committed is not read back: the periodic look leaves it to its writer, a catch-up to it waits for its segment; abandoned or late (past 2 s), it is read from the table', async () => {
    const other = await start();
    const reader = await start();
    const generationNow = async () => BigInt((await pool.query<{ generation: string }>('SELECT generation::text AS generation FROM entities_count')).rows[0].generation);
    /** A batch written (by the other process), and the segment its writer would hand over: its rows as the table holds them. */
    const batch = async (from: number) => {
      const entities = Array.from({ length: 40 }, (_, k) => seedEntity(from + k));
      await other.repository.upsertMany(entities, { regenerable: true });
      const { rows } = await pool.query<{ id: string; lens: string; rank: number; num_min: number | null; num_max: number | null; terms: string[] }>(
        'SELECT id, lens, rank_score AS rank, num_min::float8 AS num_min, num_max::float8 AS num_max, tsvector_to_array(terms) AS terms FROM entities WHERE ext_key = ANY($1)',
        [entities.map((e) => e.ext_key)]);
      const builder = new SegmentBuilder();
      for (const r of rows) builder.add({ id: r.id, lens: r.lens, rank: r.rank, numMin: r.num_min, numMax: r.num_max, terms: r.terms });
      return { generation: await generationNow(), segment: builder.build() };
    };
    const before = reader.index.stats().generation;

    // its writer is committing it (expect): the periodic look reads nothing, a catch-up to it waits
    const first = await batch(70_000);
    expect(first.generation).toBe(before + 1n);
    reader.index.expect(first.generation);
    await reader.index.catchUp();
    expect(reader.index.stats().generation).toBe(before);
    let caught = false;
    const catching = reader.index.catchUp(first.generation).then(() => { caught = true; });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect({ caught, generation: reader.index.stats().generation }).toEqual({ caught: false, generation: before });
    reader.index.written(first.generation, first.segment);
    await catching;
    expect(reader.index.stats().generation).toBe(first.generation);
    await expectOracle(reader.index);

    // abandoned (its transaction did not commit, or its segment will not come): read from the table
    const second = await batch(71_000);
    reader.index.expect(second.generation);
    const waiting = reader.index.catchUp(second.generation);
    reader.index.abandoned(second.generation);
    await waiting;
    expect(reader.index.stats().generation).toBe(second.generation);
    await expectOracle(reader.index);

    // never handed over: the catch-up reads it from the table after COMING_WAIT_MS (2 s)
    const third = await batch(72_000);
    reader.index.expect(third.generation);
    const started = Date.now();
    await reader.index.catchUp(third.generation);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
    expect(reader.index.stats().generation).toBe(third.generation);
    await expectOracle(reader.index);
    // a segment that comes after the index read its generation is not applied again
    reader.index.written(third.generation, third.segment);
    await reader.index.catchUp();
    expect(reader.index.stats()).toMatchObject({ generation: third.generation, entities: other.index.stats().entities });

    // a commit that hangs does not stop the periodic look for longer than COMING_WAIT_MS
    const fourth = await batch(73_000);
    reader.index.expect(fourth.generation);
    await reader.index.catchUp();
    expect(reader.index.stats().generation).toBe(third.generation);
    await new Promise((resolve) => setTimeout(resolve, 2100));
    await reader.index.catchUp();
    expect(reader.index.stats()).toMatchObject({ generation: fourth.generation, entities: other.index.stats().entities });
    await expectOracle(reader.index);
  });

  it('a build reads PostgreSQL\'s binary COPY as its text output says, however the stream is cut: ids, lexemes (quotes, backslashes, UTF-8), positions, NULLs', async () => {
    const rows = `VALUES ('ent_ä1', 'leads', 7, NULL::float8, 2.5::float8, to_tsvector('simple', 'Zürich Straße it''s a\\b x@y.com bluenorth12.example 3.5') || array_to_tsvector(ARRAY['F:country:DE', 'F:x y'])),
                          ('ent_b', 'grants', -3, -1e12::float8, NULL::float8, strip(to_tsvector('simple', 'Machine-Learning ÉCOLE 日本'))),
                          ('ent_c', 'investors', 2147483647, 0::float8, 0::float8, ''::tsvector)`;
    const client = await pool.connect();
    let binary: Buffer;
    let text: { id: string; lens: string; rank: number; num_min: number | null; num_max: number | null; terms: string }[];
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of client.query(copyTo(`COPY (SELECT * FROM (${rows}) v) TO STDOUT (FORMAT binary)`))) chunks.push(chunk as Buffer);
      binary = Buffer.concat(chunks);
      text = (await client.query(`SELECT column1 AS id, column2 AS lens, column3 AS rank, column4 AS num_min, column5 AS num_max, column6::text AS terms FROM (${rows}) v`)).rows;
    } finally {
      client.release();
    }
    const expected = new SegmentBuilder();
    for (const r of text) expected.add({ id: r.id, lens: r.lens, rank: r.rank, numMin: r.num_min, numMax: r.num_max, terms: parseTsvector(r.terms) });
    const want = expected.build();
    for (const cut of [1, 2, 3, 5, 7, 64, binary.length]) {
      const builder = new SegmentBuilder();
      const docs = new CopyBinaryDocs(builder);
      for (let at = 0; at < binary.length; at += cut) docs.push(binary.subarray(at, at + cut));
      docs.end();
      const got = builder.build();
      const view = (s: typeof want) => Array.from({ length: s.size }, (_, d) => ({
        id: s.id(d), rank: s.ranks[d], numMin: s.numMin[d], numMax: s.numMax[d],
        terms: Array.from({ length: s.dict.size }, (_, t) => t).filter((t) => s.listAt(t).includes(d)).map((t) => s.dict.text(t)).sort(),
      }));
      expect({ cut, docs: view(got) }).toEqual({ cut, docs: view(want) });
    }
    // numbered by lens (grants, investors, leads), then rank
    expect([0, 1, 2].map((d) => want.id(d))).toEqual(['ent_b', 'ent_c', 'ent_ä1']);
    expect(want.find('ent_ä1')).toBe(2);
    expect(want.dict.size).toBeGreaterThan(10);
    for (let t = 0; t < want.dict.size; t++) expect(want.list(want.dict.text(t))).toEqual(want.listAt(t));
  });

  it('the lexemes of a text are PostgreSQL\'s, for plain ASCII words as for any other text', async () => {
    const { index } = await start();
    for (const text of ['Fintech', 'fintech  CEO seed', '1e5 007 abc123 X', '6E75I Ivan', 'Machine-Learning', 'bluenorth12.example', "it's a\\b", 'Zürich Straße', 'ÉCOLE', 'x@y.com 3.5', '']) {
      const { rows } = await pool.query<{ lexemes: string[] }>(`SELECT tsvector_to_array(to_tsvector('simple', $1)) AS lexemes`, [text]);
      expect({ text, lexemes: (await index.lexemes(text)).sort() }).toEqual({ text, lexemes: rows[0].lexemes.sort() });
    }
  });
});
