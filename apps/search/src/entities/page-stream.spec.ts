import { EventEmitter } from 'node:events';
import type { SearchReads } from '../search/search-reads.store';
import { EntitiesRepository, type Page } from './entities.repository';
import type { MemorySearchIndex } from './memory-search-index.store';

/**
 * Pages read together (one statement for the pages asked in one turn) are each answered as soon as
 * their rows have come, not when the statement ends. The statement's rows are played by hand on
 * the query the repository hands its connection (a fake SearchReads, a fake connection).
 */
describe('pages of one statement answered as their rows arrive', () => {
  /**
   * A repository over a fake index (each query's text is the comma-separated ids it ranks, at
   * generation 7) and a fake connection that keeps the queries it is handed: pages are asked
   * through search(), as the search service asks them.
   */
  function setUp() {
    const queries: EventEmitter[] = [];
    const client = { query: (q: EventEmitter) => (queries.push(q), q) };
    const reads = { run: <T>(read: (c: unknown) => Promise<T>) => read(client) } as unknown as SearchReads;
    const index = {
      queryOf: async (_lens: string, q: string) => q,
      top: (q: string) => ({ generation: 7n, ids: q.split(','), tids: q.split(',').map(() => null) }),
      learnTid: () => undefined,
      catchUp: async () => undefined,
    } as unknown as MemorySearchIndex;
    const repository = new EntitiesRepository({} as ConstructorParameters<typeof EntitiesRepository>[0], reads, index);
    const load = (ask: { workspaceId: string; ids: string[] }) =>
      repository.search(ask.workspaceId, 'leads', ask.ids.join(','), [], 0, ask.ids.length);
    return { queries, load };
  }
  const head = { k: '1', page: 0, generation: '7', profiles: null, id: null, same: false, v: null, moved: null, revealed: false, revealed_email_status: null };
  const row = (k: number, page: number, id: string) => ({
    k: String(k), page, generation: null, profiles: null, id, name: `name of ${id}`, same: false, v: '100', moved: null, revealed: false, revealed_email_status: null,
  });
  /** Two turns of the event loop: search() asks its pages after the index's query, and the batch is read at the end of that turn. */
  async function batchRead(): Promise<void> {
    for (let turn = 0; turn < 2; turn++) await new Promise((r) => setImmediate(r));
  }
  /** Whether `p` has settled, after the callbacks due now ran. */
  async function settled(p: Promise<unknown>): Promise<boolean> {
    let done = false;
    p.then(() => (done = true), () => (done = true));
    await batchRead();
    return done;
  }

  it('answers each page once its rows have come, in the order they were asked, while the statement still runs', async () => {
    const { queries, load } = setUp();
    const first = load({ workspaceId: 'ws_1', ids: ['ent_a', 'ent_b'] });
    const second = load({ workspaceId: 'ws_2', ids: ['ent_c'] });
    await batchRead(); // one statement
    expect(queries).toHaveLength(1);
    const query = queries[0];

    query.emit('row', head);
    query.emit('row', row(3, 1, 'ent_b')); // a page's rows may come in any order
    expect(await settled(first)).toBe(false);
    query.emit('row', row(2, 1, 'ent_a'));
    expect(await settled(first)).toBe(true);
    expect(await settled(second)).toBe(false);
    const page = await first;
    expect((page as Page & { generation?: string }).generation).toBe('7'); // the head slot's, carried with the page
    expect(page.rows.map((r) => r.id)).toEqual(['ent_a', 'ent_b']);

    query.emit('row', row(4, 2, 'ent_c'));
    expect(await settled(second)).toBe(true);
    expect((await second).rows.map((r) => [r.id, r.name])).toEqual([['ent_c', 'name of ent_c']]);
    query.emit('end');
  });

  it('a page whose id has no row (deleted) is answered without it; rows before the head slot wait for it', async () => {
    const { queries, load } = setUp();
    const first = load({ workspaceId: 'ws_1', ids: ['ent_a'] });
    const second = load({ workspaceId: 'ws_1', ids: ['ent_gone', 'ent_b'] });
    await batchRead();
    const query = queries[0];
    query.emit('row', row(2, 1, 'ent_a')); // before the generation came: held
    expect(await settled(first)).toBe(false);
    query.emit('row', head);
    expect(await settled(first)).toBe(true);
    query.emit('row', { ...row(3, 2, 'ent_gone'), id: null });
    query.emit('row', row(4, 2, 'ent_b'));
    expect((await second).rows.map((r) => r.id)).toEqual(['ent_b']);
    query.emit('end');
  });

  it('a statement that fails fails the pages not answered yet; the answered ones stay answered', async () => {
    const { queries, load } = setUp();
    const first = load({ workspaceId: 'ws_1', ids: ['ent_a'] });
    const second = load({ workspaceId: 'ws_1', ids: ['ent_b'] });
    await batchRead();
    const query = queries[0];
    query.emit('row', head);
    query.emit('row', row(2, 1, 'ent_a'));
    query.emit('error', new Error('connection terminated'));
    await expect(second).rejects.toThrow('connection terminated');
    expect((await first).rows.map((r) => r.id)).toEqual(['ent_a']);
  });

  it('a page reads its own rows only: whether a match follows it (has_more) is the index\'s, not a row more read', async () => {
    const { queries } = setUp();
    const reads = { run: <T>(read: (c: unknown) => Promise<T>) => read({ query: (q: EventEmitter) => (queries.push(q), q) }) } as unknown as SearchReads;
    const asked: number[] = [];
    const ranked = ['ent_a', 'ent_b', 'ent_c'];
    const index = {
      queryOf: async () => 'q',
      // the ids ranked offset .. need - 1, as MemorySearchIndex.top gives them
      top: (_q: string, need: number, offset = 0) => (asked.push(need), { generation: 7n, ids: ranked.slice(offset, need), tids: ranked.slice(offset, need).map(() => null) }),
      learnTid: () => undefined,
      catchUp: async () => undefined,
    } as unknown as MemorySearchIndex;
    const repository = new EntitiesRepository({} as ConstructorParameters<typeof EntitiesRepository>[0], reads, index);
    const first = repository.search('ws_1', 'leads', '', [], 0, 2);
    await batchRead();
    expect(asked).toEqual([3]); // one id past the page is asked of the index
    const [, ids] = (queries[0] as unknown as { values: unknown[] }).values;
    expect(ids).toBe('{NULL,ent_a,ent_b}'); // the head slot, then the page's two ids (as the array literal sent): the third is not read
    queries[0].emit('row', head);
    queries[0].emit('row', row(2, 1, 'ent_a'));
    queries[0].emit('row', row(3, 1, 'ent_b'));
    queries[0].emit('end');
    expect(await first).toMatchObject({ more: true, rows: [{ id: 'ent_a' }, { id: 'ent_b' }] });

    const last = repository.search('ws_1', 'leads', '', [], 2, 2);
    await batchRead();
    expect(asked).toEqual([3, 5]);
    expect((queries[1] as unknown as { values: unknown[] }).values[1]).toBe('{NULL,ent_c}');
    queries[1].emit('row', head);
    queries[1].emit('row', row(2, 1, 'ent_c'));
    queries[1].emit('end');
    expect(await last).toMatchObject({ more: false, rows: [{ id: 'ent_c' }] });
  });

  it('a statement that ends without the head slot fails every page', async () => {
    const { queries, load } = setUp();
    const first = load({ workspaceId: 'ws_1', ids: ['ent_a'] });
    const second = load({ workspaceId: 'ws_1', ids: ['ent_b'] });
    await batchRead();
    queries[0].emit('row', row(2, 1, 'ent_a'));
    queries[0].emit('end');
    await expect(first).rejects.toThrow('a page read brought no generation');
    await expect(second).rejects.toThrow('a page read brought no generation');
  });
});
