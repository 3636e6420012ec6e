import { EventEmitter } from 'node:events';
import type { SearchReads } from '../search/search-reads.store';
import { EntitiesRepository } from './entities.repository';

/**
 * Pages read together (one statement for the pages asked in one turn) are each answered as soon as
 * their rows have come, not when the statement ends. The statement's rows are played by hand on
 * the query the repository hands its connection (a fake SearchReads, a fake connection).
 */
describe('pages of one statement answered as their rows arrive', () => {
  type Ask = { workspaceId: string; ids: string[]; tids: (string | null)[] };
  type Answer = { generation: string; rows: { id: string; name: string }[] };

  function setUp() {
    const queries: EventEmitter[] = [];
    const client = { query: (q: EventEmitter) => (queries.push(q), q) };
    const reads = { run: <T>(read: (c: unknown) => Promise<T>) => read(client) } as unknown as SearchReads;
    const repository = new EntitiesRepository({} as ConstructorParameters<typeof EntitiesRepository>[0], reads);
    const pages = (repository as unknown as { pages: { load(ask: Ask): Promise<Answer> } }).pages;
    return { queries, load: (ask: Ask) => pages.load(ask) };
  }
  const head = { k: '1', page: 0, generation: '7', profiles: null, id: null, same: false, v: null, moved: null, revealed: false, revealed_email_status: null };
  const row = (k: number, page: number, id: string) => ({
    k: String(k), page, generation: null, profiles: null, id, name: `name of ${id}`, same: false, v: '100', moved: null, revealed: false, revealed_email_status: null,
  });
  /** Whether `p` has settled, after the callbacks due now ran. */
  async function settled(p: Promise<unknown>): Promise<boolean> {
    let done = false;
    p.then(() => (done = true), () => (done = true));
    await new Promise((r) => setImmediate(r));
    return done;
  }

  it('answers each page once its rows have come, in the order they were asked, while the statement still runs', async () => {
    const { queries, load } = setUp();
    const first = load({ workspaceId: 'ws_1', ids: ['ent_a', 'ent_b'], tids: [null, null] });
    const second = load({ workspaceId: 'ws_2', ids: ['ent_c'], tids: [null] });
    await new Promise((r) => setImmediate(r)); // the batch is read at the end of the turn: one statement
    expect(queries).toHaveLength(1);
    const query = queries[0];

    query.emit('row', head);
    query.emit('row', row(3, 1, 'ent_b')); // a page's rows may come in any order
    expect(await settled(first)).toBe(false);
    query.emit('row', row(2, 1, 'ent_a'));
    expect(await settled(first)).toBe(true);
    expect(await settled(second)).toBe(false);
    const page = await first;
    expect(page.generation).toBe('7');
    expect(page.rows.map((r) => r.id)).toEqual(['ent_a', 'ent_b']);

    query.emit('row', row(4, 2, 'ent_c'));
    expect(await settled(second)).toBe(true);
    expect((await second).rows.map((r) => [r.id, r.name])).toEqual([['ent_c', 'name of ent_c']]);
    query.emit('end');
  });

  it('a page whose id has no row (deleted) is answered without it; rows before the head slot wait for it', async () => {
    const { queries, load } = setUp();
    const first = load({ workspaceId: 'ws_1', ids: ['ent_a'], tids: [null] });
    const second = load({ workspaceId: 'ws_1', ids: ['ent_gone', 'ent_b'], tids: [null, null] });
    await new Promise((r) => setImmediate(r));
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
    const first = load({ workspaceId: 'ws_1', ids: ['ent_a'], tids: [null] });
    const second = load({ workspaceId: 'ws_1', ids: ['ent_b'], tids: [null] });
    await new Promise((r) => setImmediate(r));
    const query = queries[0];
    query.emit('row', head);
    query.emit('row', row(2, 1, 'ent_a'));
    query.emit('error', new Error('connection terminated'));
    await expect(second).rejects.toThrow('connection terminated');
    expect((await first).rows.map((r) => r.id)).toEqual(['ent_a']);
  });

  it('a statement that ends without the head slot fails every page', async () => {
    const { queries, load } = setUp();
    const first = load({ workspaceId: 'ws_1', ids: ['ent_a'], tids: [null] });
    const second = load({ workspaceId: 'ws_1', ids: ['ent_b'], tids: [null] });
    await new Promise((r) => setImmediate(r));
    queries[0].emit('row', row(2, 1, 'ent_a'));
    queries[0].emit('end');
    await expect(first).rejects.toThrow('a page read brought no generation');
    await expect(second).rejects.toThrow('a page read brought no generation');
  });
});
