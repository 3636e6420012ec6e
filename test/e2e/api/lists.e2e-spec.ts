import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../../tools/mesh/processes';
import { TestMesh } from '../../harness';
import { createLead } from '../../support/leads';
import { createExport, csvObjects, download, EXPORT_COLUMNS, parseCsv, waitForExport } from '../../support/exports';

type Workspace = Awaited<ReturnType<TestMesh['workspace']>>;

/**
 * Lists of leads: made and filled with the admin CLI (which asks crm over NATS), selected by
 * POST /exports' `filter.list_id` through the gateway; a deleted lead leaves its lists.
 */
describe('lists end to end', () => {
  let mesh: TestMesh;
  let storageDir: string;
  let ours: Workspace;
  let theirs: Workspace;
  const lead: Record<'ada' | 'bob' | 'cyd' | 'dan' | 'eve', any> = {} as any;
  let list: any;

  /** The admin CLI must fail: non-zero exit, nothing on stdout, the reason on stderr. */
  const adminFails = async (...args: string[]): Promise<string> => {
    const { code, stdout, stderr } = await mesh.adminRaw(args);
    expect({ code: code !== 0, stdout }).toEqual({ code: true, stdout: '' });
    return stderr;
  };

  /** Runs an export of `format` with `filter` to completion; the ids in the file, in file order. */
  const exportedIds = async (ws: Workspace, format: 'csv' | 'json', filter: object): Promise<string[]> => {
    const res = await createExport(mesh, ws.key, { format, filter });
    expect(res.body.filter).toEqual(filter);
    const done = await waitForExport(mesh, ws.key, res.body.id);
    expect(done.status).toBe('completed');
    const file = await download(done.download_url);
    expect(file.status).toBe(200);
    const ids = format === 'csv' ? csvObjects(file.text).map((row) => row.id) : (file.body as any[]).map((row) => row.id);
    expect(done.row_count).toBe(ids.length);
    return ids;
  };
  const bothFormats = async (ws: Workspace, filter: object) => {
    const [csv, json] = await Promise.all([exportedIds(ws, 'csv', filter), exportedIds(ws, 'json', filter)]);
    expect(json).toEqual(csv);
    return csv;
  };

  beforeAll(async () => {
    storageDir = mkdtempSync(join(tmpdir(), 'lists-e2e-'));
    const gatewayPort = await freePort();
    mesh = await TestMesh.start([], {
      EXPORT_SIGNING_SECRET: 'e2e-lists-signing-secret', PUBLIC_API_URL: `http://127.0.0.1:${gatewayPort}/api/v1`,
      EXPORT_STORAGE_DIR: storageDir, EXPORT_POLL_MS: '200',
    });
    await Promise.all([mesh.startApp('gateway', gatewayPort), mesh.startApp('crm')]);
    [ours, theirs] = await Promise.all([mesh.workspace(), mesh.workspace()]);
    // one at a time: ids sort by creation, so the export's order (oldest first) is known
    lead.ada = await createLead(mesh, ours.key, { full_name: 'Ada Listed', tags: ['vip'] });
    lead.bob = await createLead(mesh, ours.key, { full_name: 'Bob Listed' });
    lead.cyd = await createLead(mesh, ours.key, { full_name: 'Cyd Listed', tags: ['vip'] });
    lead.dan = await createLead(mesh, ours.key, { full_name: 'Dan Unlisted', tags: ['vip'] });
    lead.eve = await createLead(mesh, theirs.key, { full_name: 'Eve Elsewhere' });
  });
  afterAll(async () => {
    await mesh?.close();
    rmSync(storageDir, { recursive: true, force: true });
  });

  it('list:create prints the new, empty list; a second list of the same name in the workspace is refused', async () => {
    const before = Date.now();
    list = await mesh.admin('list:create', '--workspace', ours.workspace.id, '--name', '  Q3 prospects ');
    expect(list).toEqual({ id: expect.stringMatching(/^list_/), object: 'list', name: 'Q3 prospects', member_count: 0, created_at: expect.any(String) });
    expect(Date.parse(list.created_at)).toBeGreaterThanOrEqual(before - 5000);

    const stderr = await adminFails('list:create', '--workspace', ours.workspace.id, '--name', 'Q3 prospects');
    expect(stderr).toMatch(/conflict \(name\).*Q3 prospects/);
    // another workspace may use the name
    expect(await mesh.admin('list:create', '--workspace', theirs.workspace.id, '--name', 'Q3 prospects')).toMatchObject({ name: 'Q3 prospects', member_count: 0 });
    expect(await adminFails('list:create', '--workspace', ours.workspace.id, '--name', '   ')).toMatch(/invalid_request \(name\)/);
    expect(await adminFails('list:create', '--workspace', ours.workspace.id)).toMatch(/--name is required/);
  });

  it('list:add takes several leads (repeated --lead and comma lists); adding a member again changes nothing', async () => {
    const added = await mesh.admin('list:add', '--list', list.id, '--lead', lead.ada.id, '--lead', `${lead.cyd.id},${lead.bob.id}`);
    expect(added).toEqual({ ...list, member_count: 3, added: 3 });
    expect(await mesh.admin('list:add', '--list', list.id, '--lead', lead.ada.id, '--lead', lead.ada.id)).toEqual({ ...list, member_count: 3, added: 0 });
  });

  it('an export with filter.list_id holds exactly the list\'s members, in CSV and JSON, oldest first; it combines with the other fields', async () => {
    expect(await bothFormats(ours, { list_id: list.id })).toEqual([lead.ada.id, lead.bob.id, lead.cyd.id]);
    expect(await exportedIds(ours, 'csv', { list_id: list.id, tag: 'vip' })).toEqual([lead.ada.id, lead.cyd.id]);
    // the whole workspace still exports every lead, members or not
    expect(await exportedIds(ours, 'csv', {})).toEqual([lead.ada.id, lead.bob.id, lead.cyd.id, lead.dan.id]);
  });

  it('a lead of another workspace, or an unknown one, is refused and the list is left as it was (all or nothing)', async () => {
    const foreign = await adminFails('list:add', '--list', list.id, '--lead', lead.dan.id, '--lead', lead.eve.id);
    expect(foreign).toContain('not_found (lead_ids)');
    expect(foreign).toContain(lead.eve.id);
    expect(foreign).not.toContain(lead.dan.id);
    const unknown = await adminFails('list:remove', '--list', list.id, '--lead', `${lead.ada.id},lead_doesnotexist`);
    expect(unknown).toMatch(/not_found \(lead_ids\).*lead_doesnotexist/);
    expect(await bothFormats(ours, { list_id: list.id })).toEqual([lead.ada.id, lead.bob.id, lead.cyd.id]);

    expect(await adminFails('list:add', '--list', 'list_doesnotexist', '--lead', lead.ada.id)).toMatch(/not_found \(list_id\)/);
    // naming the workspace does not reach another workspace's list
    expect(await adminFails('list:add', '--list', list.id, '--workspace', theirs.workspace.id, '--lead', lead.eve.id)).toMatch(/not_found \(list_id\)/);
    expect(await adminFails('list:add', '--list', list.id)).toMatch(/--lead is required/);
    expect(await adminFails('list:add', '--list', list.id, '--lead', `${lead.ada.id},,${lead.bob.id}`)).toMatch(/--lead must not hold an empty item/);
  });

  it('list:remove takes leads out of the list, and the next export leaves them out', async () => {
    expect(await mesh.admin('list:remove', '--list', list.id, '--lead', lead.cyd.id, '--lead', lead.dan.id)).toEqual({ ...list, member_count: 2, removed: 1 });
    expect(await bothFormats(ours, { list_id: list.id })).toEqual([lead.ada.id, lead.bob.id]);
  });

  it('a deleted lead leaves its lists in the transaction that deletes it, and the next export of the list leaves it out', async () => {
    const deleted = await mesh.request('DELETE', `/leads/${lead.bob.id}`, { key: ours.key });
    expect({ status: deleted.status, body: deleted.body }).toEqual({ status: 200, body: { id: lead.bob.id, object: 'lead', deleted: true } });

    expect(await mesh.query('crm', 'SELECT list_id FROM list_members WHERE lead_id = $1', [lead.bob.id])).toEqual([]);
    expect(await mesh.admin('list:add', '--list', list.id, '--lead', lead.ada.id)).toEqual({ ...list, member_count: 1, added: 0 });
    expect(await bothFormats(ours, { list_id: list.id })).toEqual([lead.ada.id]);
    // the deleted lead is gone from the workspace: naming it is refused like any unknown lead
    expect(await adminFails('list:add', '--list', list.id, '--lead', lead.bob.id)).toContain(lead.bob.id);
    // membership goes with the lead through its foreign key: part of the lead's DELETE statement, not a later clean-up
    const keys = await mesh.query('crm', `
      SELECT confdeltype AS on_delete FROM pg_constraint WHERE contype = 'f' AND conrelid = 'list_members'::regclass AND confrelid = 'leads'::regclass`);
    expect(keys).toEqual([{ on_delete: 'c' }]);
  });

  it('a list_id of another workspace matches none of our leads: the export completes with no rows, as for an unknown list', async () => {
    const their = await mesh.admin('list:create', '--workspace', theirs.workspace.id, '--name', 'Elsewhere');
    // the list resolves its own workspace: no --workspace needed
    expect(await mesh.admin('list:add', '--list', their.id, '--lead', lead.eve.id)).toMatchObject({ id: their.id, member_count: 1, added: 1 });
    expect(await bothFormats(theirs, { list_id: their.id })).toEqual([lead.eve.id]);

    for (const listId of [their.id, 'list_doesnotexist']) {
      const csv = await createExport(mesh, ours.key, { format: 'csv', filter: { list_id: listId } });
      const csvDone = await waitForExport(mesh, ours.key, csv.body.id);
      expect(csvDone).toMatchObject({ status: 'completed', row_count: 0, filter: { list_id: listId } });
      expect(parseCsv((await download(csvDone.download_url)).text)).toEqual([EXPORT_COLUMNS]);
      const json = await createExport(mesh, ours.key, { format: 'json', filter: { list_id: listId } });
      const jsonDone = await waitForExport(mesh, ours.key, json.body.id);
      expect(jsonDone).toMatchObject({ status: 'completed', row_count: 0 });
      expect((await download(jsonDone.download_url)).body).toEqual([]);
    }
  });
});
