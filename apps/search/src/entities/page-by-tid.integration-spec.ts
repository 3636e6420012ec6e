import { Pool } from 'pg';
import { Lens } from '@app/contracts';
import { TestMesh } from '../../../../test/harness';
import { migratedSearchDatabase, searchProcesses } from '../../../../test/support/search-database';
import { SearchConfig } from '../search.config';
import { PageEntity, RowVersions } from './entities.repository';
import { MemorySearchIndex } from './memory-search-index.store';
import { seedEntity } from './seed';

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => seedEntity(from + k));
const WS = 'ws_tid';
const OTHER_WS = 'ws_tid_other';

/**
 * A page's rows are read where the in-memory index last saw them (their ctid, a TID scan) with
 * each row's id checked, and by primary key when a row moved or its address is not known
 * (entities.repository.ts ROW_AT_TID_OR_KEY_SQL). Real PostgreSQL: the pages must equal what the
 * read by primary key gives (the oracle below: the statement pages were read with before) after
 * updates, VACUUM, VACUUM FULL and deletes, in order, with the workspace's reveals and profile.
 */
describe('search pages read by TID with the id checked (real PostgreSQL)', () => {
  let mesh: TestMesh;
  let pool: Pool;
  const config = { indexPollMs: 3_600_000, rankedCacheEntries: 0 } as SearchConfig;
  const processes = searchProcesses(() => pool, config);
  const start = () => processes.start();
  let writer: Awaited<ReturnType<typeof start>>;

  beforeAll(async () => {
    let url: string;
    ({ mesh, url } = await migratedSearchDatabase());
    pool = new Pool({ connectionString: url, max: 4 });
    writer = await start();
    await writer.repository.upsertMany(range(0, 4000));
    await pool.query(`INSERT INTO opportunity_profiles (workspace_id, profile) VALUES ($1, $2)`, [WS, { sectors: ['fintech'] }]);
  });
  afterAll(async () => {
    processes.stop();
    await pool?.end();
    await mesh?.close();
  });

  /**
   * The page of these ids read by primary key, as pages were read before: rows in the ids' order, missing ids left out
   * (details and sources as their jsonb text, as a page carries them: PageEntity).
   */
  const byKey = async (workspaceId: string, ids: string[]): Promise<PageEntity[]> => (await pool.query<PageEntity>(
    `SELECT e.id, e.lens, e.name, e.person_name, e.first_name, e.last_name, e.title, e.organization, e.location, e.country, e.domain, e.email, e.phone,
            e.details::text AS details_json, e.sources::text AS sources_json, (r.id IS NOT NULL) AS revealed, r.email_status AS revealed_email_status
       FROM unnest($2::text[]) WITH ORDINALITY AS t(id, n) JOIN entities e ON e.id = t.id
       LEFT JOIN reveals r ON r.workspace_id = $1 AND r.entity_id = e.id
      ORDER BY t.n`, [workspaceId, ids])).rows;
  /** Each id's ctid now (text), null for an id with no row. */
  const ctids = async (ids: string[]): Promise<(string | null)[]> => (await pool.query<{ tid: string | null }>(
    `SELECT e.ctid::text AS tid FROM unnest($1::text[]) WITH ORDINALITY AS t(id, n) LEFT JOIN entities e ON e.id = t.id ORDER BY t.n`, [ids])).rows.map((r) => r.tid);
  /** The ids of a page as the index ranks them (what search() reads). */
  const idsOf = async (index: MemorySearchIndex, lens: Lens, q: string, offset = 0) => index.top(await index.queryOf(lens, q, []), offset + 25, offset).ids;

  it('a page read by TID equals the page read by key, with reveals and profile; a rebuilt index has every address from its build', async () => {
    const ids = await idsOf(writer.index, 'investors', '');
    expect(ids).toHaveLength(25);
    // the writer's index has every address from its upsert's RETURNING
    expect(writer.index.tidsOf(ids)).toEqual(await ctids(ids));
    await pool.query(`INSERT INTO reveals (id, workspace_id, entity_id, status, credits_charged, email_status) VALUES ('rv_tid_1', $1, $2, 'completed', 1, 'valid'), ('rv_tid_2', $3, $4, 'completed', 1, 'valid')`,
      [WS, ids[3], OTHER_WS, ids[4]]);
    const page = await writer.repository.search(WS, 'investors', '', [], 0, 25);
    expect(page.rows).toEqual(await byKey(WS, ids));
    expect(page.rows.map((r) => r.id)).toEqual(ids);
    expect(page.rows[3]).toMatchObject({ revealed: true, revealed_email_status: 'valid' });
    expect(page.rows[4]).toMatchObject({ revealed: false, revealed_email_status: null });
    expect(page.profile).toEqual({ sectors: ['fintech'] });
    expect((await writer.repository.search(OTHER_WS, 'investors', '', [], 0, 25)).rows).toEqual(await byKey(OTHER_WS, ids));

    // a process that builds its index reads every row's address with it: its pages are read by TID from the first
    const rebuilt = await start();
    expect(rebuilt.index.tidsOf(ids)).toEqual(await ctids(ids));
    expect(await rebuilt.repository.search(WS, 'investors', '', [], 0, 25)).toEqual(page);
    expect(rebuilt.index.tidsOf(ids)).toEqual(await ctids(ids));
    const later = await idsOf(rebuilt.index, 'investors', '', 10);
    expect(rebuilt.index.tidsOf(later)).toEqual(await ctids(later));
    expect((await rebuilt.repository.search(WS, 'investors', '', [], 10, 25)).rows).toEqual(await byKey(WS, later));
  });

  it('a kept page (the ranked ids of a query, SEARCH_RANKED_CACHE) has the addresses of the build, and keeps those its read found when a row moved', async () => {
    const { index, repository } = await processes.start({ rankedCacheEntries: 16 });
    const query = await index.queryOf('researchers', '', []);
    const ids = index.top(query, 26).ids;
    expect(index.top(query, 26).tids).toEqual(await ctids(ids));
    // a row moved behind the index (an UPDATE no index hears of): the address kept for it holds its old version
    const [old] = await ctids([ids[3]]);
    await pool.query('UPDATE entities SET name = name WHERE id = $1', [ids[3]]);
    expect(await ctids([ids[3]])).not.toEqual([old]);
    expect(index.top(query, 26).tids[3]).toBe(old);
    // a page of 25 rows asks the index for 26 ids (the 26th tells has_more): the kept entry's
    const page = await repository.search(WS, 'researchers', '', [], 0, 25);
    expect(page.rows).toEqual(await byKey(WS, ids.slice(0, 25)));
    expect(page.more).toBe(true);
    // the entry read again (no change of the index since) has the address the read found, as the index has
    expect(index.top(query, 26).tids).toEqual(await ctids(ids));
    expect(index.tidsOf(ids)).toEqual(await ctids(ids));
    expect(await repository.search(WS, 'researchers', '', [], 0, 25)).toEqual(page);
  });

  it('a page read again is written from the versions kept: PostgreSQL writes only the rows that are another version', async () => {
    const reader = await start();
    const keep = jest.spyOn(RowVersions.prototype, 'keep');
    try {
      const ids = await idsOf(reader.index, 'researchers', '', 50);
      const first = await reader.repository.search(WS, 'researchers', '', [], 50, 25);
      expect(first.rows).toEqual(await byKey(WS, ids));
      expect(keep).toHaveBeenCalledTimes(25);
      keep.mockClear();
      // every row the version kept: none written again, the page the same
      expect(await reader.repository.search(WS, 'researchers', '', [], 50, 25)).toEqual(first);
      expect(keep).not.toHaveBeenCalled();
      // a reveal is the workspace's, not the row's: it shows on a kept row
      await pool.query(`INSERT INTO reveals (id, workspace_id, entity_id, status, credits_charged, email_status) VALUES ('rv_kept', $1, $2, 'completed', 1, 'valid')`, [WS, ids[2]]);
      // an UPDATE no index hears of: that row (a new version, a new xmin) is written again, the others are not
      await pool.query(`UPDATE entities SET title = 'Changed by hand', details = (details::jsonb || '{"by": "hand"}')::json WHERE id = $1`, [ids[7]]);
      const again = await reader.repository.search(WS, 'researchers', '', [], 50, 25);
      expect(again.rows).toEqual(await byKey(WS, ids));
      expect(again.rows[7].title).toBe('Changed by hand');
      expect(again.rows[2]).toMatchObject({ revealed: true, revealed_email_status: 'valid' });
      expect(keep.mock.calls.map(([id]) => id)).toEqual([ids[7]]);
      // the other workspace reads the same kept rows with its own reveals (none)
      expect((await reader.repository.search(OTHER_WS, 'researchers', '', [], 50, 25)).rows).toEqual(await byKey(OTHER_WS, ids));
    } finally {
      keep.mockRestore();
    }
  });

  it('pages read together (one statement for several) equal their pages read by key', async () => {
    // the first two: the same rows for two workspaces, each with its own reveals and profile
    const first = await idsOf(writer.index, 'investors', '');
    await pool.query(`INSERT INTO reveals (id, workspace_id, entity_id, status, credits_charged, email_status) VALUES ('rv_batch_1', $1, $2, 'completed', 1, 'valid'), ('rv_batch_2', $3, $4, 'completed', 1, 'risky')
                      ON CONFLICT DO NOTHING`, [WS, first[5], OTHER_WS, first[6]]);
    const asks: [string, Lens, string, number][] = [[WS, 'investors', '', 0], [OTHER_WS, 'investors', '', 0], [WS, 'investors', '', 25], [OTHER_WS, 'leads', '', 0],
      [WS, 'grants', '', 50], [WS, 'investors', 'zzznothing', 0]];
    const pages = await Promise.all(asks.map(([ws, lens, q, offset]) => writer.repository.search(ws, lens, q, [], offset, 25)));
    for (const [k, [ws, lens, q, offset]] of asks.entries()) {
      const ids = await idsOf(writer.index, lens, q, offset);
      expect(pages[k].rows).toEqual(await byKey(ws, ids));
      expect(pages[k].profile).toEqual(ws === WS ? { sectors: ['fintech'] } : undefined);
    }
    expect(pages[0].rows[5]).toMatchObject({ revealed: true, revealed_email_status: 'valid' });
    expect(pages[1].rows[5]).toMatchObject({ revealed: false, revealed_email_status: null });
    expect(pages[1].rows[6]).toMatchObject({ revealed: true, revealed_email_status: 'risky' });
    expect(pages[5].rows).toEqual([]);
    // pages of no ids at all, read together: the generation still comes (a page newer than the index would be asked again)
    const empty = await Promise.all([writer.repository.search(WS, 'investors', 'zzznothing', [], 0, 25), writer.repository.search(OTHER_WS, 'leads', 'zzznothing', [], 0, 25)]);
    expect(empty).toEqual([{ rows: [], profile: { sectors: ['fintech'] }, generation: expect.stringMatching(/^\d+$/), more: false }, { rows: [], profile: undefined, generation: expect.stringMatching(/^\d+$/), more: false }]);
  });

  it('rows updated behind the index (new ctids) and vacuumed: the page is right, in order, with current values, and the new addresses are kept', async () => {
    const reader = await start();
    const ids = await idsOf(reader.index, 'leads', '');
    await reader.repository.search(WS, 'leads', '', [], 0, 25); // every address known
    const before = await ctids(ids);
    expect(reader.index.tidsOf(ids)).toEqual(before);
    // an UPDATE no index hears of (no generation moves): every other row of the page gets a new version elsewhere
    const changed = ids.filter((_, k) => k % 2 === 0);
    await pool.query(`UPDATE entities SET name = name || ' (renamed)', details = (details::jsonb || '{"v": 2}')::json WHERE id = ANY($1)`, [changed]);
    await pool.query('VACUUM entities');
    // rows written since may take the slots the old versions left: a TID then holds another row, whose id differs
    // (of the other lenses: the page's ranking stays as it was)
    await writer.repository.upsertMany(range(4000, 4400).filter((e) => e.lens !== 'leads'));
    await reader.index.catchUp();
    expect(await idsOf(reader.index, 'leads', '')).toEqual(ids);
    const after = await ctids(ids);
    expect(after.filter((tid, k) => tid !== before[k]).length).toBe(changed.length);
    const page = await reader.repository.search(WS, 'leads', '', [], 0, 25);
    expect(page.rows).toEqual(await byKey(WS, ids));
    expect(page.rows.map((r) => r.id)).toEqual(ids);
    for (const row of page.rows) if (changed.includes(row.id)) expect(row.name).toMatch(/ \(renamed\)$/);
    expect(reader.index.tidsOf(ids)).toEqual(after);

    // an upsert by another process: the reader's catch-up reads the rows' new ctids with them
    const updated = await pool.query<{ ext_key: string }>(`SELECT ext_key FROM entities WHERE id = ANY($1)`, [ids.slice(0, 5)]);
    const n = (key: string) => Number(key.slice('seed:'.length));
    await writer.repository.upsertMany(updated.rows.map((r) => ({ ...seedEntity(n(r.ext_key)), title: 'Upserted' })));
    await reader.index.catchUp();
    const upserted = await ctids(ids);
    expect(reader.index.tidsOf(ids)).toEqual(upserted);
    // and the writer's from its upsert's RETURNING (the rows the UPDATE above moved it has not read since)
    expect(writer.index.tidsOf(ids.slice(0, 5))).toEqual(upserted.slice(0, 5));
    const again = await reader.repository.search(WS, 'leads', '', [], 0, 25);
    expect(again.rows).toEqual(await byKey(WS, ids));
    expect(again.rows.slice(0, 5).map((r) => r.title)).toEqual(Array(5).fill('Upserted'));

    // VACUUM FULL writes every row elsewhere: the pages stay right
    await pool.query('VACUUM FULL entities');
    expect(await reader.repository.search(WS, 'leads', '', [], 0, 25)).toEqual({ ...again, rows: await byKey(WS, ids) });
    expect(reader.index.tidsOf(ids)).toEqual(await ctids(ids));
  });

  it("an address that holds another row: that row's id differs, the page reads its own row by key", async () => {
    const ids = await idsOf(writer.index, 'researchers', '');
    const [first, second] = await ctids([ids[0], ids[1]]);
    // the index told the address of the second row for the first (as a slot reused after a VACUUM would)
    writer.index.learnTid(ids[0], second as string);
    expect(writer.index.tidsOf([ids[0]])).toEqual([second]);
    const page = await writer.repository.search(WS, 'researchers', '', [], 0, 25);
    expect(page.rows).toEqual(await byKey(WS, ids));
    expect(page.rows[0].id).toBe(ids[0]);
    expect(writer.index.tidsOf([ids[0], ids[1]])).toEqual([first, second]);
  });

  it('a row deleted behind the index is left out of its page, as a read by key leaves it', async () => {
    const reader = await start();
    const ids = await idsOf(reader.index, 'grants', '');
    await reader.repository.search(WS, 'grants', '', [], 0, 25);
    const gone = [ids[2], ids[10]];
    await pool.query('DELETE FROM entities WHERE id = ANY($1)', [gone]);
    await pool.query('VACUUM entities');
    // the index still ranks them (no generation moved): the page is the others, in order
    expect(await idsOf(reader.index, 'grants', '')).toEqual(ids);
    const page = await reader.repository.search(WS, 'grants', '', [], 0, 25);
    expect(page.rows.map((r) => r.id)).toEqual(ids.filter((id) => !gone.includes(id)));
    expect(page.rows).toEqual(await byKey(WS, ids));
  });
});
