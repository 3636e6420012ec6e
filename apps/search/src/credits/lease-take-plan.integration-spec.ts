import { Client } from 'pg';
import { TestMesh } from '../../../../test/harness';
import { migratedSearchDatabase } from '../../../../test/support/search-database';

/**
 * search_lease_take reads credit_lease_pages by its key however small the table was when a
 * connection first called it (migration 1764000021000: generic plans, made without sequential
 * scans, kept for the connection's life): the plans of its statements, as
 * PostgreSQL's auto_explain reports them, on one connection that took pages while the table was
 * empty and again once it held 20,000.
 */
describe('search_lease_take plans (real PostgreSQL)', () => {
  let mesh: TestMesh;
  let client: Client;

  beforeAll(async () => {
    let url: string;
    ({ mesh, url } = await migratedSearchDatabase());
    client = new Client({ connectionString: url });
    await client.connect();
  });
  afterAll(async () => {
    await client?.end();
    await mesh?.close();
  });

  it('a connection that took pages while the table was empty reads it by key once it has grown (no sequential scan of credit_lease_pages)', async () => {
    await client.query(`INSERT INTO credit_leases (id, workspace_id, state, pool, size, used, ctx, expires_at)
                        VALUES ('lse_plan', 'ws_plan', 'open', 'plan', 1000000, 0, '{}', now() + interval '1 hour')`);
    // the empty table analyzed, as a VACUUM (ANALYZE) after a deploy or the bench's after its seed
    // leaves it: planned on those statistics, the look-up once read every page of the workspace
    await client.query('ANALYZE credit_lease_pages');
    // more calls than PostgreSQL makes custom plans for before it may keep a generic one
    for (let i = 0; i < 12; i++) {
      const { rows } = await client.query(`SELECT out_status FROM search_lease_take('ws_plan', ARRAY['early_${i}'])`);
      expect(rows).toEqual([{ out_status: 'taken' }]);
    }
    // pages of another workspace, and of this one (what its takes of the last hour left)
    await client.query(`INSERT INTO credit_lease_pages (workspace_id, ref, lease_id) SELECT 'ws_other', 'bulk_' || g, 'lse_x' FROM generate_series(1, 20000) g`);
    await client.query(`INSERT INTO credit_lease_pages (workspace_id, ref, lease_id) SELECT 'ws_plan', 'mine_' || g, 'lse_plan' FROM generate_series(1, 20000) g`);
    const plans: string[] = [];
    client.on('notice', (msg) => plans.push(msg.message ?? ''));
    await client.query(`LOAD 'auto_explain'`);
    await client.query(`SET auto_explain.log_min_duration = 0; SET auto_explain.log_nested_statements = on; SET auto_explain.log_analyze = on; SET auto_explain.log_level = 'notice'; SET client_min_messages = notice`);
    const { rows } = await client.query(`SELECT out_status FROM search_lease_take('ws_plan', ARRAY['late', 'early_3'])`);
    await client.query('SET auto_explain.log_min_duration = -1');
    expect(rows).toEqual([{ out_status: 'taken' }, { out_status: 'already' }]);
    const lookup = plans.find((p) => p.includes('FROM credit_lease_pages p WHERE'));
    expect(lookup).toBeDefined();
    expect(lookup).toMatch(/Index (Only )?Scan using credit_lease_pages_pkey/);
    // by both key columns: not the workspace's pages read and their refs filtered
    expect(lookup).toMatch(/Index Cond: \(\(workspace_id = \$\d+\) AND \(ref = /);
    expect(lookup).not.toMatch(/Filter: \(ref/);
    expect(lookup).not.toMatch(/Rows Removed by Filter/);
    expect(plans.filter((p) => /Seq Scan on credit_lease(s|_pages)\b/.test(p))).toEqual([]);
    // the open leases are read by an index too, and the charge's UPDATE finds its lease by key
    expect(plans.find((p) => p.includes('FROM credit_leases c') && p.includes('FOR UPDATE'))).toMatch(/Index (Only )?Scan (using|on) credit_leases_/);
    expect(plans.find((p) => p.includes('UPDATE credit_leases c SET used'))).toMatch(/Index Scan using credit_leases_pkey/);
  });

  it('answers the room the open leases have left after the take, on every row: what search asks the next lease ahead by', async () => {
    await client.query(`INSERT INTO credit_leases (id, workspace_id, state, pool, size, used, ctx, expires_at) VALUES
      ('lse_room_a', 'ws_room', 'open', 'plan', 3, 1, '{}', now() + interval '1 hour'),
      ('lse_room_b', 'ws_room', 'open', 'pack', 2, 0, '{}', now() + interval '1 hour'),
      ('lse_room_c', 'ws_room', 'closing', 'plan', 50, 0, '{}', now() + interval '1 hour'),
      ('lse_room_d', 'ws_room', 'open', 'plan', 50, 0, '{}', now() - interval '1 second'),
      ('lse_room_e', 'ws_room_other', 'open', 'plan', 50, 0, '{}', now() + interval '1 hour')`);
    const take = async (refs: string[]) => (await client.query(`SELECT out_status, out_room FROM search_lease_take('ws_room', $1)`, [refs])).rows;
    // open, not expired, of this workspace: 2 + 2 credits of room; three pages take three
    expect(await take(['r1', 'r2', 'r3'])).toEqual([
      { out_status: 'taken', out_room: 1 }, { out_status: 'taken', out_room: 1 }, { out_status: 'taken', out_room: 1 },
    ]);
    // a page charged before takes no room
    expect(await take(['r1', 'r4'])).toEqual([{ out_status: 'already', out_room: 0 }, { out_status: 'taken', out_room: 0 }]);
    expect(await take(['r5'])).toEqual([{ out_status: 'none', out_room: 0 }]);
    // the books: every lease's used is the pages charged against it
    const { rows } = await client.query(`SELECT c.id, c.used, (SELECT count(*)::int FROM credit_lease_pages p WHERE p.lease_id = c.id) AS pages
                                           FROM credit_leases c WHERE c.workspace_id = 'ws_room' ORDER BY c.id`);
    expect(rows).toEqual([
      { id: 'lse_room_a', used: 3, pages: 2 }, { id: 'lse_room_b', used: 2, pages: 2 },
      { id: 'lse_room_c', used: 0, pages: 0 }, { id: 'lse_room_d', used: 0, pages: 0 },
    ]);
  });
});
