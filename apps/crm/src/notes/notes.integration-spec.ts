import { SUBJECTS } from '@app/contracts';
import { TestMesh } from '../../../../test/harness';

/** crm's notes (and the tasks that share their fate) over request-reply, against real PostgreSQL and NATS. */
describe('crm notes over NATS', () => {
  let mesh: TestMesh;
  const A = { workspace_id: 'ws_a', member_id: 'usr_author', owner_id: 'usr_owner_a' };
  const B = { workspace_id: 'ws_b', member_id: 'usr_other', owner_id: 'usr_owner_b' };

  beforeAll(async () => {
    mesh = await TestMesh.start(['crm']);
  });
  afterAll(() => mesh?.close());

  async function call(subject: string, ctx: object, body: object) {
    const { response, err } = await mesh.rpc(subject, ctx, body);
    if (err) throw new Error(`${subject} failed: ${JSON.stringify(err)}`);
    return response;
  }
  const lead = (ctx: object, name: string) => call(SUBJECTS.crm.leadsCreate, ctx, { full_name: name });
  const note = (ctx: object, body: object) => mesh.rpc(SUBJECTS.crm.notesCreate, ctx, body);

  it('stores a note on a lead of the workspace, written by the member of the request', async () => {
    const target = await lead(A, 'Noted Lead');
    const { response, err } = await note(A, { lead_id: target.id, body: '  Met at the fair.\nFollow up in May.  ' });
    expect(err).toBeUndefined();
    expect(response).toEqual({
      id: expect.stringMatching(/^note_/), object: 'note', lead_id: target.id, body: '  Met at the fair.\nFollow up in May.  ',
      author_id: 'usr_author', created_at: expect.any(String),
    });
    const rows = await mesh.query('crm', 'SELECT workspace_id, lead_id, body, author_id, created_at FROM notes WHERE id = $1', [response.id]);
    expect(rows).toEqual([{
      workspace_id: 'ws_a', lead_id: target.id, body: response.body, author_id: 'usr_author', created_at: new Date(response.created_at),
    }]);
  });

  it.each<[string, () => Promise<object>, string, string]>([
    ['an unknown lead', async () => ({ lead_id: 'lead_0000000000aaaaaaaaaaaaaa', body: 'x' }), 'not_found', 'lead_id'],
    ['a lead of another workspace', async () => ({ lead_id: (await lead(B, 'Theirs')).id, body: 'x' }), 'not_found', 'lead_id'],
    ['no lead_id', async () => ({ body: 'x' }), 'invalid_request', 'lead_id'],
    ['a lead_id that is not a string', async () => ({ lead_id: 5, body: 'x' }), 'invalid_request', 'lead_id'],
    ['no body', async () => ({ lead_id: (await lead(A, 'Empty')).id }), 'invalid_request', 'body'],
    ['a blank body', async () => ({ lead_id: (await lead(A, 'Blank')).id, body: ' \n ' }), 'invalid_request', 'body'],
    ['a body over 10,000 characters', async () => ({ lead_id: (await lead(A, 'Long')).id, body: 'x'.repeat(10_001) }), 'invalid_request', 'body'],
  ])('%s is refused (%s on %s) and stores nothing', async (_label, body, code, param) => {
    const before = (await mesh.query('crm', 'SELECT count(*)::int AS n FROM notes'))[0].n;
    const { response, err } = await note(A, await body());
    expect(response).toBeUndefined();
    expect(err).toMatchObject({ code, param });
    expect((await mesh.query('crm', 'SELECT count(*)::int AS n FROM notes'))[0].n).toBe(before);
  });

  it('a body of exactly 10,000 characters is stored', async () => {
    const target = await lead(A, 'Long Enough');
    const { response, err } = await note(A, { lead_id: target.id, body: 'y'.repeat(10_000) });
    expect(err).toBeUndefined();
    expect(response.body).toHaveLength(10_000);
  });

  it('deleting the lead deletes its notes and tasks in the transaction that records lead.deleted', async () => {
    const target = await lead(A, 'Doomed');
    const other = await lead(A, 'Survivor');
    for (const body of ['one', 'two']) await call(SUBJECTS.crm.notesCreate, A, { lead_id: target.id, body });
    await call(SUBJECTS.crm.notesCreate, A, { lead_id: other.id, body: 'stays' });
    await call(SUBJECTS.crm.tasksCreate, A, { title: 'Doomed task', lead_id: target.id });
    await call(SUBJECTS.crm.tasksCreate, A, { title: 'Surviving task', lead_id: other.id });

    expect(await call(SUBJECTS.crm.leadsDelete, A, { id: target.id })).toEqual({ id: target.id, object: 'lead', deleted: true });
    expect(await mesh.query('crm', 'SELECT id FROM notes WHERE lead_id = $1 UNION ALL SELECT id FROM tasks WHERE lead_id = $1', [target.id])).toEqual([]);
    expect(await mesh.query('crm', 'SELECT body FROM notes WHERE lead_id = $1', [other.id])).toEqual([{ body: 'stays' }]);
    expect(await mesh.query('crm', 'SELECT title FROM tasks WHERE lead_id = $1', [other.id])).toEqual([{ title: 'Surviving task' }]);
    const events = await mesh.query('crm', `SELECT type FROM outbox WHERE envelope->'data'->'object'->>'id' = $1 ORDER BY seq`, [target.id]);
    expect(events.map((e) => e.type)).toEqual(['lead.created', 'lead.deleted']);

    // the cascade is the foreign keys' own (part of the DELETE statement, so of its transaction), not a later clean-up
    const keys = await mesh.query('crm', `
      SELECT conrelid::regclass::text AS child, confdeltype AS on_delete FROM pg_constraint
       WHERE contype = 'f' AND confrelid = 'leads'::regclass AND conrelid IN ('notes'::regclass, 'tasks'::regclass) ORDER BY 1`);
    expect(keys).toEqual([{ child: 'notes', on_delete: 'c' }, { child: 'tasks', on_delete: 'c' }]);
  });

  it('a delete racing notes and tasks on the lead leaves no orphans: each write either lands before it (and goes with the lead) or is not_found', async () => {
    for (let round = 0; round < 5; round++) {
      const target = await lead(A, `Raced ${round}`);
      const writes = Array.from({ length: 20 }, (_, i) =>
        i % 2
          ? mesh.rpc(SUBJECTS.crm.notesCreate, A, { lead_id: target.id, body: `note ${i}` })
          : mesh.rpc(SUBJECTS.crm.tasksCreate, A, { title: `task ${i}`, lead_id: target.id }),
      );
      const deletion = mesh.rpc(SUBJECTS.crm.leadsDelete, A, { id: target.id });
      const outcomes = await Promise.all(writes);
      expect((await deletion).response).toEqual({ id: target.id, object: 'lead', deleted: true });
      for (const { response, err } of outcomes) {
        if (err) expect(err).toMatchObject({ code: 'not_found', param: 'lead_id' });
        else expect(response.lead_id).toBe(target.id);
      }
      expect(await mesh.query('crm', 'SELECT id FROM notes WHERE lead_id = $1 UNION ALL SELECT id FROM tasks WHERE lead_id = $1', [target.id])).toEqual([]);
    }
  });
});
