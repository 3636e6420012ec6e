import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { SUBJECTS } from '@app/contracts/subjects';
import { meshHookTimeoutMs, TestMesh } from '../../harness';
import { PgPair } from '../../../tools/mesh/pg-pair';
import { freePort, waitFor } from '../../../tools/mesh/processes';
import { allowance } from '../../support/timing';

/**
 * Search past one server (issue 25): with SEARCH_READ_DATABASE_URL naming search's database on a
 * streaming standby, search pages are read there and reveals on the primary. The standby is a
 * real one, made by the test from the primary with `pg_basebackup -R` on ports of its own
 * (PgPair, behind the `rw` and `ro` endpoints CloudNativePG gives). The proof that a page comes
 * from the standby: with the standby's replay paused, an entity written on the primary is not on
 * any page (while a reveal of it, read on the primary, succeeds), and it is there once replay
 * resumes; and search holds connections on the standby's database.
 */
describe('search pages on a streaming standby (SEARCH_READ_DATABASE_URL), reveals on the primary', () => {
  const dir = join(tmpdir(), `search-replica-${process.pid}`);
  const DB = 'lim_replica_search';
  let pair: PgPair;
  let mesh: TestMesh;
  let key: string;

  const onDatabase = (url: string) => {
    const u = new URL(url);
    u.pathname = `/${DB}`;
    return u.toString();
  };
  /** A statement on one cluster of the pair, directly (not through an endpoint). */
  async function on<R = any>(port: number, sql: string, params: unknown[] = [], database = DB): Promise<R[]> {
    const client = new Client({ host: '127.0.0.1', port, user: 'postgres', database });
    await client.connect();
    try {
      return (await client.query(sql, params)).rows as R[];
    } finally {
      await client.end();
    }
  }
  const marker = (word: string) => ({
    ext_key: `test:replica-${word}`, lens: 'leads', name: `Replica ${word}`, person_name: `Replica ${word}`, first_name: 'Replica', last_name: word,
    organization: 'Replica Example', country: 'US', phone: '+14155550142', details: { industry: 'software' }, facets: [], rank_score: 2_000_000,
    sources: [{ field: 'name', value: `Replica ${word}`, provider: 'api', source_url: 'https://replica.example.com/team', fetched_at: '2026-11-01T00:00:00.000Z' }],
  });
  async function ingest(word: string): Promise<string> {
    const res = await mesh.rpc(SUBJECTS.search.ingest, { workspace_id: 'operator' }, { entities: [marker(word)] });
    expect(res.err).toBeUndefined();
    const rows = await on<{ id: string }>(pair.primary.port, 'SELECT id FROM entities WHERE ext_key = $1', [`test:replica-${word}`]);
    expect(rows).toHaveLength(1);
    return rows[0].id;
  }
  const search = (q: string) => mesh.request('GET', `/search?lens=leads&q=${encodeURIComponent(q)}`, { key });

  beforeAll(async () => {
    pair = await PgPair.start(dir, { primary: await freePort(), standby: await freePort(), rw: await freePort(), ro: await freePort() });
    mesh = await TestMesh.start(['billing', 'crm', 'search'], {
      SEARCH_DATABASE_URL: onDatabase(pair.rwUrl),
      SEARCH_READ_DATABASE_URL: onDatabase(pair.roUrl),
    });
    await mesh.startApp('gateway');
    expect(await mesh.admin('search:seed', '--count', '300')).toMatchObject({ inserted: 300 });
    const workspace = await mesh.createWorkspace({ name: 'replica', planCredits: 1000 });
    key = (await mesh.key(workspace.id, 'live')).key;
    await waitFor('credit account', async () => (await mesh.query('billing', 'SELECT 1 FROM credit_accounts WHERE workspace_id = $1', [workspace.id])).length === 1, allowance(10_000));
    const standby = pair.standby!.port;
    await waitFor('the seed on the standby', async () => Number((await on(standby, 'SELECT count(*) AS n FROM entities'))[0].n) === 300, allowance(30_000), 100);
  }, meshHookTimeoutMs(4)); // four services; the two PostgreSQL clusters (initdb, pg_basebackup) in the rest of the hook
  afterAll(async () => {
    await mesh?.close();
    await pair?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('pages come from the standby: with its replay paused, an entity written on the primary is on no page, and a reveal of it is read on the primary', async () => {
    const standby = pair.standby!.port;
    expect(Number((await on(standby, 'SELECT pg_is_in_recovery()::int AS r'))[0].r)).toBe(1);
    const first = await search('');
    expect(first.status).toBe(200);
    expect(first.body.data.length).toBeGreaterThan(0);
    // search's own connections to its database on the standby (the test's own session excluded)
    const sessions = await on(standby, 'SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [DB], 'postgres');
    expect(Number(sessions[0].n)).toBeGreaterThan(0);

    await on(standby, 'SELECT pg_wal_replay_pause()', [], 'postgres');
    const id = await ingest('replicamarkerone');
    // written and committed on the primary (synchronous: the standby has the WAL, not yet applied)
    const stale = await search('replicamarkerone');
    expect(stale.status).toBe(200);
    expect(stale.body.data).toEqual([]);
    // the same page again (the query's ranked ids are kept per process): still the standby's
    expect((await search('replicamarkerone')).body.data).toEqual([]);
    // a reveal is read and written on the primary: the entity is there
    const reveal = await mesh.request('POST', '/reveals', { key, body: { entity_id: id } });
    expect(reveal.status).toBe(201);
    expect(reveal.body).toMatchObject({ entity_id: id, status: 'revealed', phone: '+14155550142', credits_charged: 1 });

    await on(standby, 'SELECT pg_wal_replay_resume()', [], 'postgres');
    // replayed: the entity is on the page, and the reveal made on the primary shows on it
    await waitFor('the entity on a page read on the standby', async () => {
      const res = await search('replicamarkerone');
      return res.status === 200 && res.body.data.length === 1 && res.body.data[0].entity_id === id && res.body.data[0].revealed === true;
    }, allowance(15_000), 100);
  });

  it('a standby that is gone does not take search down: pages are read on the primary', async () => {
    await pair.stopStandby();
    const id = await ingest('replicamarkertwo');
    const res = await search('replicamarkertwo');
    expect(res.status).toBe(200);
    expect(res.body.data.map((hit: { entity_id: string }) => hit.entity_id)).toEqual([id]);
  });
});
