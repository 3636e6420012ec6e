import { TestMesh } from '../../harness';
import { createLead } from '../../support/leads';
import { createTask, expectTask, taskIds, taskPage } from '../../support/tasks';
import { expectApiError, leadEvent } from '../../support/gateway-assertions';

type Workspace = Awaited<ReturnType<TestMesh['workspace']>>;

const UNKNOWN_TASK = 'task_0000000000aaaaaaaaaaaaaa';
const UNKNOWN_LEAD = 'lead_0000000000aaaaaaaaaaaaaa';
const UNKNOWN_MEMBER = 'usr_0000000000nobodynobodyno';

/** GET /tasks, POST /tasks and PATCH /tasks/{id} through the gateway, and what deleting a lead does to its tasks and notes. */
describe('tasks end to end', () => {
  let mesh: TestMesh;
  // one workspace (and so one key and rate-limit budget) per area, made in parallel
  const ws: Record<'create' | 'list' | 'pages' | 'update' | 'cascade' | 'stranger', Workspace> = {} as any;
  let member: string; // a second member of ws.create
  let foreignMember: string; // a member of ws.stranger

  beforeAll(async () => {
    mesh = await TestMesh.shared(['gateway', 'crm']);
    await Promise.all((['create', 'list', 'pages', 'update', 'cascade', 'stranger'] as const).map(async (name) => {
      ws[name] = await mesh.workspace();
    }));
    const [own, foreign] = await Promise.all([
      mesh.admin('member:add', '--workspace', ws.create.workspace.id, '--role', 'member'),
      mesh.admin('member:add', '--workspace', ws.stranger.workspace.id, '--role', 'member'),
    ]);
    member = own.id;
    foreignMember = foreign.id;
  });
  afterAll(() => mesh?.close());

  const storedTasks = async (workspaceId: string) =>
    (await mesh.query('crm', 'SELECT count(*)::int AS n FROM tasks WHERE workspace_id = $1', [workspaceId]))[0].n as number;

  describe('POST /tasks', () => {
    let key: string;
    let workspaceId: string;
    let ownerId: string;
    let lead: any;
    let strangerLead: any;
    beforeAll(async () => {
      ({ key } = ws.create);
      workspaceId = ws.create.workspace.id;
      ownerId = ws.create.workspace.owner_id;
      lead = await createLead(mesh, key, { full_name: 'Task Target' });
      strangerLead = await createLead(mesh, ws.stranger.key, { full_name: 'Not Yours' });
    });

    it('a title alone: 201 open Task, no lead, no due date, assigned to the workspace owner', async () => {
      const before = Date.now();
      const res = await mesh.request('POST', '/tasks', { key, body: { title: 'Call back' } });
      expect(res.status).toBe(201);
      expectTask(res.body);
      expect(res.body).toMatchObject({
        object: 'task', title: 'Call back', lead_id: null, assignee_id: ownerId, status: 'open', due_at: null, completed_at: null,
      });
      expect(Date.parse(res.body.created_at)).toBeGreaterThanOrEqual(before - 5000);
      expect(Date.parse(res.body.created_at)).toBeLessThanOrEqual(Date.now() + 5000);
    });

    it('every field: lead_id, assignee_id of a member and due_at (stored as the same instant in UTC)', async () => {
      const task = await createTask(mesh, key, {
        title: 'Send the deck', lead_id: lead.id, assignee_id: member, due_at: '2026-10-01T09:30:00.250+02:00',
      });
      expect(task).toMatchObject({
        title: 'Send the deck', lead_id: lead.id, assignee_id: member, status: 'open', due_at: '2026-10-01T07:30:00.250Z', completed_at: null,
      });
      expect(await taskIds(mesh, key, `lead_id=${lead.id}`)).toContain(task.id);
    });

    it('a title of 300 characters is accepted', async () => {
      const task = await createTask(mesh, key, { title: 't'.repeat(300) });
      expect(task.title).toBe('t'.repeat(300));
    });

    it.each<[string, () => object, string]>([
      ['no title', () => ({}), 'title'],
      ['title empty', () => ({ title: '' }), 'title'],
      ['title blank', () => ({ title: '   ' }), 'title'],
      ['title of 301 characters', () => ({ title: 't'.repeat(301) }), 'title'],
      ['title not a string', () => ({ title: 42 }), 'title'],
      ['title null', () => ({ title: null }), 'title'],
      ['lead_id not a string', () => ({ title: 'x', lead_id: 7 }), 'lead_id'],
      ['lead_id null', () => ({ title: 'x', lead_id: null }), 'lead_id'],
      ['assignee_id not a string', () => ({ title: 'x', assignee_id: true }), 'assignee_id'],
      ['assignee_id null', () => ({ title: 'x', assignee_id: null }), 'assignee_id'],
      ['due_at not a date-time', () => ({ title: 'x', due_at: 'tomorrow' }), 'due_at'],
      ['due_at a date without time', () => ({ title: 'x', due_at: '2026-10-01' }), 'due_at'],
      ['due_at without time zone', () => ({ title: 'x', due_at: '2026-10-01T09:00:00' }), 'due_at'],
      ['due_at 30 February', () => ({ title: 'x', due_at: '2026-02-30T09:00:00Z' }), 'due_at'],
      ['due_at hour 24', () => ({ title: 'x', due_at: '2026-10-01T24:00:00Z' }), 'due_at'],
      ['due_at a number', () => ({ title: 'x', due_at: 1790000000000 }), 'due_at'],
      ['due_at null', () => ({ title: 'x', due_at: null }), 'due_at'],
      ['status (not a create field)', () => ({ title: 'x', status: 'done' }), 'status'],
      ['completed_at (read-only)', () => ({ title: 'x', completed_at: '2026-10-01T09:00:00Z' }), 'completed_at'],
      ['an unknown field', () => ({ title: 'x', priority: 'high' }), 'priority'],
    ])('%s -> 400 param %p, nothing created', async (_label, body, param) => {
      const before = await storedTasks(workspaceId);
      expectApiError(await mesh.request('POST', '/tasks', { key, body: body() }), 400, 'invalid_request', param);
      expect(await storedTasks(workspaceId)).toBe(before);
    });

    it.each<[string, () => object, string]>([
      ['an unknown lead_id', () => ({ title: 'x', lead_id: UNKNOWN_LEAD }), 'lead_id'],
      ['a lead_id that is no lead id', () => ({ title: 'x', lead_id: 'nonsense' }), 'lead_id'],
      ['a lead of another workspace', () => ({ title: 'x', lead_id: strangerLead.id }), 'lead_id'],
      ['an unknown assignee_id', () => ({ title: 'x', assignee_id: UNKNOWN_MEMBER }), 'assignee_id'],
      ['an assignee of another workspace', () => ({ title: 'x', assignee_id: foreignMember }), 'assignee_id'],
    ])('%s -> 404 not_found param %p, nothing created', async (_label, body, param) => {
      const before = await storedTasks(workspaceId);
      expectApiError(await mesh.request('POST', '/tasks', { key, body: body() }), 404, 'not_found', param);
      expect(await storedTasks(workspaceId)).toBe(before);
    });
    it('a body that is not an object is 400', async () => {
      expectApiError(await mesh.request('POST', '/tasks', { key, body: ['title'] }), 400, 'invalid_request');
      expectApiError(await mesh.request('POST', '/tasks', { key, rawBody: '{"title":', headers: { 'content-type': 'application/json' } }), 400, 'invalid_request');
    });

    it('Idempotency-Key: a retry returns the original task (replayed) and creates nothing', async () => {
      const headers = { 'idempotency-key': `task-${Date.now()}` };
      const first = await mesh.request('POST', '/tasks', { key, body: { title: 'Once only' }, headers });
      expect(first.status).toBe(201);
      const before = await storedTasks(workspaceId);
      const again = await mesh.request('POST', '/tasks', { key, body: { title: 'Once only' }, headers });
      expect(again.status).toBe(201);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body).toEqual(first.body);
      expect(await storedTasks(workspaceId)).toBe(before);
      expectApiError(await mesh.request('POST', '/tasks', { key, body: { title: 'Another' }, headers }), 409, 'conflict', 'Idempotency-Key');
    });
  });

  describe('GET /tasks', () => {
    let key: string;
    let ownerId: string;
    let leads: any[];
    // index -> task, created in this order (so listed in reverse)
    let t: any[];
    beforeAll(async () => {
      ({ key } = ws.list);
      ownerId = ws.list.workspace.owner_id;
      const second = await mesh.admin('member:add', '--workspace', ws.list.workspace.id, '--role', 'admin');
      leads = [await createLead(mesh, key, { full_name: 'Lead A' }), await createLead(mesh, key, { full_name: 'Lead B' })];
      t = [];
      for (const body of [
        { title: 't0 A, due Oct 1', lead_id: leads[0].id, due_at: '2026-10-01T09:00:00Z' },
        { title: 't1 A, due Oct 3, second member', lead_id: leads[0].id, due_at: '2026-10-03T09:00:00Z', assignee_id: second.id },
        { title: 't2 B, no due date', lead_id: leads[1].id },
        { title: 't3 no lead, due Oct 2', due_at: '2026-10-02T09:00:00Z', assignee_id: second.id },
        { title: 't4 no lead, no due date' },
      ]) {
        t.push(await createTask(mesh, key, body));
      }
      // t1 and t3 are done, t4 unassigned
      for (const [i, changes] of [[1, { status: 'done' }], [3, { status: 'done' }], [4, { assignee_id: null }]] as const) {
        const res = await mesh.request('PATCH', `/tasks/${t[i].id}`, { key, body: changes });
        expect(res.status).toBe(200);
        t[i] = res.body;
      }
      t.push(second.id); // t[5]: the second member's id
    });
    const ids = (...indexes: number[]) => indexes.map((i) => t[i].id);

    it('lists newest first in the list envelope, each entry a Task as last written', async () => {
      const page = await taskPage(mesh, key);
      expect(page.has_more).toBe(false);
      expect(page.next_cursor).toBeNull();
      expect(page.data).toEqual([t[4], t[3], t[2], t[1], t[0]]);
    });

    it.each<[string, () => string, number[]]>([
      ['status=open', () => 'status=open', [4, 2, 0]],
      ['status=done', () => 'status=done', [3, 1]],
      ['lead_id', () => `lead_id=${leads[0].id}`, [1, 0]],
      ['lead_id of the other lead', () => `lead_id=${leads[1].id}`, [2]],
      ['lead_id unknown (an empty list, not 404)', () => `lead_id=${UNKNOWN_LEAD}`, []],
      ['assignee_id of the owner', () => `assignee_id=${ownerId}`, [2, 0]],
      ['assignee_id of the second member', () => `assignee_id=${t[5]}`, [3, 1]],
      ['assignee_id unknown', () => `assignee_id=${UNKNOWN_MEMBER}`, []],
      ['due_before: strictly before, tasks without due date never match', () => 'due_before=2026-10-03T09:00:00Z', [3, 0]],
      ['due_before with an offset', () => `due_before=${encodeURIComponent('2026-10-02T11:00:01+02:00')}`, [3, 0]],
      ['due_before the earliest due date', () => 'due_before=2026-10-01T09:00:00Z', []],
      ['due_before with a +16:00 offset (beyond what PostgreSQL parses)', () => `due_before=${encodeURIComponent('2026-10-03T01:00:00+16:00')}`, [0]],
      ['due_before far ahead', () => 'due_before=2100-01-01T00:00:00Z', [3, 1, 0]],
      ['status and lead_id', () => `status=open&lead_id=${leads[0].id}`, [0]],
      ['status, assignee_id and due_before', () => `status=done&assignee_id=${t[5]}&due_before=2026-10-03T00:00:00Z`, [3]],
    ])('filter %s', async (_label, query, expected) => {
      expect(await taskIds(mesh, key, query())).toEqual(ids(...expected));
    });

    it('tasks of another workspace are never listed, whatever the filter', async () => {
      expect(await taskIds(mesh, ws.stranger.key, `lead_id=${leads[0].id}`)).toEqual([]);
      expect(await taskIds(mesh, ws.stranger.key, `assignee_id=${ownerId}`)).toEqual([]);
    });

    it.each([
      ['status=closed', 'status'],
      ['status=OPEN', 'status'],
      ['status=open&status=done', 'status'],
      ['lead_id=a&lead_id=b', 'lead_id'],
      ['due_before=tomorrow', 'due_before'],
      ['due_before=2026-10-01', 'due_before'],
      ['due_before=2026-13-01T00:00:00Z', 'due_before'],
      ['due_before=2026-02-30T00:00:00Z', 'due_before'],
      ['due_before=0000-01-01T00:00:00Z', 'due_before'],
      ['due_before=1790000000000', 'due_before'],
      [`assignee_id=${'u'.repeat(256)}`, 'assignee_id'],
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=abc', 'limit'],
      ['starting_after=garbage', 'starting_after'],
      ['sort=asc', 'sort'],
      ['tag=vip', 'tag'],
    ])('bad query %s -> 400 param %p', async (query, param) => {
      expectApiError(await mesh.request('GET', `/tasks?${query}`, { key }), 400, 'invalid_request', param);
    });
  });

  describe('pagination', () => {
    let key: string;
    let created: any[];
    beforeAll(async () => {
      ({ key } = ws.pages);
      created = [];
      for (let i = 0; i < 26; i++) created.push(await createTask(mesh, key, { title: `Paged ${i}`, ...(i % 2 ? {} : { due_at: '2026-10-01T00:00:00Z' }) }));
    });
    const newestFirst = () => created.map((x) => x.id).reverse();

    it('default limit is 25; next_cursor leads to the last page, which has has_more false and next_cursor null', async () => {
      const first = await taskPage(mesh, key);
      expect(first.data).toHaveLength(25);
      expect(first.has_more).toBe(true);
      const second = await taskPage(mesh, key, `starting_after=${encodeURIComponent(first.next_cursor)}`);
      expect(second.data).toHaveLength(1);
      expect(second.has_more).toBe(false);
      expect(second.next_cursor).toBeNull();
      expect([...first.data, ...second.data].map((x: any) => x.id)).toEqual(newestFirst());
    });

    it('walking limit=10 with a filter visits every match once, newest first; a task created meanwhile does not shift pages', async () => {
      const due = newestFirst().filter((id) => created.find((x) => x.id === id).due_at !== null);
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const page: any = await taskPage(mesh, key, `limit=10&due_before=2026-10-02T00:00:00Z${cursor ? `&starting_after=${encodeURIComponent(cursor)}` : ''}`);
        seen.push(...page.data.map((x: any) => x.id));
        if (pages++ === 0) await createTask(mesh, key, { title: 'Arrived meanwhile', due_at: '2026-10-01T00:00:00Z' });
        cursor = page.next_cursor;
      } while (cursor);
      expect(seen).toEqual(due);
      expect(pages).toBe(2);
    });

    it('limit=1 and limit=100 are accepted', async () => {
      expect((await taskPage(mesh, key, 'limit=1')).data).toHaveLength(1);
      expect((await taskPage(mesh, key, 'limit=100')).data).toHaveLength(27);
    });
  });

  describe('PATCH /tasks/{id}', () => {
    let key: string;
    let workspaceId: string;
    let task: any;
    let colleague: string;
    beforeAll(async () => {
      ({ key } = ws.update);
      workspaceId = ws.update.workspace.id;
      colleague = (await mesh.admin('member:add', '--workspace', workspaceId, '--role', 'member')).id;
      const lead = await createLead(mesh, key, { full_name: 'Patched Lead' });
      task = await createTask(mesh, key, { title: 'Original', lead_id: lead.id, due_at: '2026-11-01T10:00:00Z' });
    });
    const patch = (body: unknown, id = task.id, as = key) => mesh.request('PATCH', `/tasks/${id}`, { key: as, body });
    const current = async () => {
      const found = (await taskPage(mesh, key, 'limit=100')).data.find((x: any) => x.id === task.id);
      expect(found).toBeDefined();
      return found;
    };

    it('changes only the fields sent', async () => {
      const res = await patch({ title: 'Renamed' });
      expect(res.status).toBe(200);
      expectTask(res.body);
      expect(res.body).toEqual({ ...task, title: 'Renamed' });
      expect(await current()).toEqual(res.body);
    });

    it('an empty body changes nothing and returns the task', async () => {
      const before = await current();
      const res = await patch({});
      expect(res.status).toBe(200);
      expect(res.body).toEqual(before);
    });

    it('status done sets completed_at; done again keeps it; open clears it; done again sets a new one', async () => {
      const start = Date.now();
      const done = await patch({ status: 'done' });
      expect(done.status).toBe(200);
      expect(done.body.status).toBe('done');
      const completedAt = Date.parse(done.body.completed_at);
      expect(completedAt).toBeGreaterThanOrEqual(start - 1000);
      expect(completedAt).toBeLessThanOrEqual(Date.now() + 1000);
      expect(await current()).toEqual(done.body);
      expect(await taskIds(mesh, key, 'status=done')).toEqual([task.id]);

      const again = await patch({ status: 'done', title: 'Renamed again' });
      expect(again.status).toBe(200);
      expect(again.body).toMatchObject({ status: 'done', completed_at: done.body.completed_at, title: 'Renamed again' });

      const reopened = await patch({ status: 'open' });
      expect(reopened.status).toBe(200);
      expect(reopened.body).toMatchObject({ status: 'open', completed_at: null });
      expect(await current()).toEqual(reopened.body);
      expect(await taskIds(mesh, key, 'status=done')).toEqual([]);

      await new Promise((r) => setTimeout(r, 5));
      const redone = await patch({ status: 'done' });
      expect(redone.body.status).toBe('done');
      expect(Date.parse(redone.body.completed_at)).toBeGreaterThan(completedAt);
      expect((await patch({ status: 'open' })).body.completed_at).toBeNull();
    });

    it('due_at: a new date-time is set (in UTC); null clears it', async () => {
      const moved = await patch({ due_at: '2026-12-24T18:00:00-05:00' });
      expect(moved.status).toBe(200);
      expect(moved.body.due_at).toBe('2026-12-24T23:00:00.000Z');
      const cleared = await patch({ due_at: null });
      expect(cleared.status).toBe(200);
      expect(cleared.body.due_at).toBeNull();
      expect(await current()).toEqual(cleared.body);
      expect(await taskIds(mesh, key, 'due_before=2100-01-01T00:00:00Z')).not.toContain(task.id);
    });

    it('assignee_id: a member of the workspace is assigned; null unassigns', async () => {
      const assigned = await patch({ assignee_id: colleague });
      expect(assigned.status).toBe(200);
      expect(assigned.body.assignee_id).toBe(colleague);
      expect(await taskIds(mesh, key, `assignee_id=${colleague}`)).toEqual([task.id]);
      const unassigned = await patch({ assignee_id: null });
      expect(unassigned.status).toBe(200);
      expect(unassigned.body.assignee_id).toBeNull();
      expect(await current()).toEqual(unassigned.body);
      expect(await taskIds(mesh, key, `assignee_id=${colleague}`)).toEqual([]);
    });

    it.each<[string, unknown, string]>([
      ['title null', { title: null }, 'title'],
      ['title empty', { title: '' }, 'title'],
      ['title of 301 characters', { title: 'x'.repeat(301) }, 'title'],
      ['title not a string', { title: ['x'] }, 'title'],
      ['status not in the enum', { status: 'closed' }, 'status'],
      ['status null', { status: null }, 'status'],
      ['status not a string', { status: 1 }, 'status'],
      ['due_at not a date-time', { due_at: 'soon' }, 'due_at'],
      ['due_at 31 April', { due_at: '2026-04-31T10:00:00Z' }, 'due_at'],
      ['due_at a number', { due_at: 0 }, 'due_at'],
      ['assignee_id not a string', { assignee_id: 12 }, 'assignee_id'],
      ['lead_id (not a PATCH field)', { lead_id: UNKNOWN_LEAD }, 'lead_id'],
      ['completed_at (read-only)', { completed_at: null }, 'completed_at'],
      ['a valid field next to an unknown one', { title: 'Should not stick', colour: 'red' }, 'colour'],
    ])('%s -> 400 param %p, nothing changed', async (_label, body, param) => {
      const before = await current();
      expectApiError(await patch(body), 400, 'invalid_request', param);
      expect(await current()).toEqual(before);
    });

    it.each<[string, () => string]>([
      ['an unknown member', () => UNKNOWN_MEMBER],
      ['a member of another workspace', () => foreignMember],
    ])('assignee_id of %s -> 404 param assignee_id, nothing changed', async (_label, assignee) => {
      const before = await current();
      expectApiError(await patch({ assignee_id: assignee(), title: 'Should not stick' }), 404, 'not_found', 'assignee_id');
      expect(await current()).toEqual(before);
    });

    it('an unknown task, or one of another workspace, is 404 param id and stays unchanged', async () => {
      expectApiError(await patch({ title: 'x' }, UNKNOWN_TASK), 404, 'not_found', 'id');
      expectApiError(await patch({ title: 'x' }, 'x'.repeat(256)), 404, 'not_found', 'id');
      const before = await current();
      expectApiError(await patch({ title: 'Hijacked', status: 'done' }, task.id, ws.stranger.key), 404, 'not_found', 'id');
      expect(await current()).toEqual(before);
      const [row] = await mesh.query('crm', 'SELECT workspace_id, title FROM tasks WHERE id = $1', [task.id]);
      expect(row).toEqual({ workspace_id: workspaceId, title: before.title });
    });
  });

  describe('deleting a lead', () => {
    it('deletes its tasks and notes with it (other tasks stay) and records lead.deleted', async () => {
      const { key } = ws.cascade;
      const workspaceId = ws.cascade.workspace.id;
      const [doomed, kept] = [await createLead(mesh, key, { full_name: 'Doomed' }), await createLead(mesh, key, { full_name: 'Kept' })];
      const doomedTasks = [
        await createTask(mesh, key, { title: 'Doomed 1', lead_id: doomed.id }),
        await createTask(mesh, key, { title: 'Doomed 2', lead_id: doomed.id, due_at: '2026-10-01T00:00:00Z' }),
      ];
      const keptTask = await createTask(mesh, key, { title: 'Kept', lead_id: kept.id });
      const freeTask = await createTask(mesh, key, { title: 'No lead' });
      const note = await mesh.admin('note:add', '--workspace', workspaceId, '--lead', doomed.id, '--body', 'Met at the fair');
      expect(note).toMatchObject({ object: 'note', lead_id: doomed.id, body: 'Met at the fair', author_id: ws.cascade.workspace.owner_id });
      await mesh.admin('note:add', '--workspace', workspaceId, '--lead', kept.id, '--body', 'Keep this one');

      expect(await taskIds(mesh, key, `lead_id=${doomed.id}`)).toEqual(doomedTasks.map((x) => x.id).reverse());
      const deleted = await mesh.request('DELETE', `/leads/${doomed.id}`, { key });
      expect(deleted.status).toBe(200);
      expect(deleted.body).toEqual({ id: doomed.id, object: 'lead', deleted: true });

      expect(await taskIds(mesh, key, `lead_id=${doomed.id}`)).toEqual([]);
      expect(await taskIds(mesh, key)).toEqual([freeTask.id, keptTask.id]);
      for (const t of doomedTasks) expectApiError(await mesh.request('PATCH', `/tasks/${t.id}`, { key, body: { status: 'done' } }), 404, 'not_found', 'id');
      expect(await mesh.query('crm', 'SELECT id FROM notes WHERE lead_id = $1', [doomed.id])).toEqual([]);
      expect(await mesh.query('crm', 'SELECT id FROM tasks WHERE lead_id = $1', [doomed.id])).toEqual([]);
      expect(await mesh.query('crm', 'SELECT body FROM notes WHERE workspace_id = $1', [workspaceId])).toEqual([{ body: 'Keep this one' }]);
      expect((await leadEvent(mesh, 'lead.deleted', doomed.id)).workspace_id).toBe(workspaceId);

      // a deleted lead takes no new tasks or notes
      expectApiError(await mesh.request('POST', '/tasks', { key, body: { title: 'Too late', lead_id: doomed.id } }), 404, 'not_found', 'lead_id');
      const late = await mesh.adminRaw(['note:add', '--workspace', workspaceId, '--lead', doomed.id, '--body', 'Too late']);
      expect(late.code).toBe(1);
      expect(late.stderr).toContain('not_found (lead_id)');
    });
  });

  describe('admin note:add', () => {
    it('fails clearly on a lead of another workspace, an unknown workspace or author, a blank body and missing flags', async () => {
      const strangerLead = await createLead(mesh, ws.stranger.key, { full_name: 'Their Lead' });
      const own = ws.cascade.workspace.id;
      const run = (...args: string[]) => mesh.adminRaw(['note:add', ...args]);

      const foreign = await run('--workspace', own, '--lead', strangerLead.id, '--body', 'nope');
      expect(foreign).toMatchObject({ code: 1, stdout: '' });
      expect(foreign.stderr).toContain('not_found (lead_id)');

      const noWorkspace = await run('--workspace', 'ws_0000000000nonenonenonenone', '--lead', strangerLead.id, '--body', 'x');
      expect(noWorkspace.code).toBe(1);
      expect(noWorkspace.stderr).toContain('no workspace');

      const foreignAuthor = await run('--workspace', ws.stranger.workspace.id, '--lead', strangerLead.id, '--body', 'x', '--author', member);
      expect(foreignAuthor.code).toBe(1);
      expect(foreignAuthor.stderr).toContain('no member');

      const blank = await run('--workspace', ws.stranger.workspace.id, '--lead', strangerLead.id, '--body', '   ');
      expect(blank.code).toBe(1);
      expect(blank.stderr).toContain('invalid_request (body)');

      const missing = await run('--workspace', own, '--lead', strangerLead.id);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain('--body is required');

      expect(await mesh.query('crm', 'SELECT 1 FROM notes WHERE lead_id = $1', [strangerLead.id])).toEqual([]);

      // the owner of that workspace may write it, as another author too
      const written = await mesh.admin('note:add', '--workspace', ws.stranger.workspace.id, '--lead', strangerLead.id, '--body', 'Line one\nLine two', '--author', foreignMember);
      expect(written).toEqual({
        id: expect.stringMatching(/^note_/), object: 'note', lead_id: strangerLead.id, body: 'Line one\nLine two', author_id: foreignMember,
        created_at: expect.any(String),
      });
    });
  });
});
