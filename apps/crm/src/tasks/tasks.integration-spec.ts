import { SUBJECTS } from '@app/contracts';
import { TestMesh } from '../../../../test/harness';

/** crm's tasks over request-reply: what the gateway cannot check for it. */
describe('crm tasks over NATS', () => {
  let mesh: TestMesh;
  const A = { workspace_id: 'ws_a', member_id: 'usr_member_a', owner_id: 'usr_owner_a' };

  beforeAll(async () => {
    mesh = await TestMesh.start(['crm']);
  });
  afterAll(() => mesh?.close());

  const create = (ctx: object, body: object) => mesh.rpc(SUBJECTS.crm.tasksCreate, ctx, body);

  it('assignee_id defaults to the workspace owner, not the member asking', async () => {
    const { response } = await create(A, { title: 'Default assignee' });
    expect(response).toMatchObject({ assignee_id: 'usr_owner_a', status: 'open', completed_at: null, lead_id: null });
  });

  it('a create retried with the same idempotency record returns the first task; another request with that key is a conflict', async () => {
    const idempotency = { key: 'retry-after-timeout', request_hash: 'hash-1' };
    const first = await create({ ...A, idempotency }, { title: 'Once' });
    const again = await create({ ...A, idempotency }, { title: 'Once' });
    expect(again.response).toEqual(first.response);
    expect(await mesh.query('crm', `SELECT count(*)::int AS n FROM tasks WHERE title = 'Once'`)).toEqual([{ n: 1 }]);
    const other = await create({ ...A, idempotency: { ...idempotency, request_hash: 'hash-2' } }, { title: 'Twice' });
    expect(other.err).toMatchObject({ code: 'conflict', param: 'Idempotency-Key' });
    // the same key in another workspace is another key
    const elsewhere = await create({ ...A, workspace_id: 'ws_b', idempotency }, { title: 'Once' });
    expect(elsewhere.response.id).not.toBe(first.response.id);
  });

  it('a create refused for its lead releases the idempotency record with it', async () => {
    const idempotency = { key: 'refused', request_hash: 'hash-r' };
    const refused = await create({ ...A, idempotency }, { title: 'No lead', lead_id: 'lead_0000000000aaaaaaaaaaaaaa' });
    expect(refused.err).toMatchObject({ code: 'not_found', param: 'lead_id' });
    expect(await mesh.query('crm', `SELECT 1 FROM task_create_keys WHERE key = 'refused'`)).toEqual([]);
  });

  it.each<[string, string, object]>([
    ['a list with a malformed due_before', SUBJECTS.crm.tasksList, { limit: 25, due_before: '2026-02-30T00:00:00Z' }],
    ['a create with a malformed due_at', SUBJECTS.crm.tasksCreate, { title: 'x', due_at: '2026-10-01T25:00:00Z' }],
    ['an update with a malformed due_at', SUBJECTS.crm.tasksUpdate, { id: 'task_x', changes: { due_at: 'soon' } }],
  ])('%s is invalid_request, never a database error', async (_label, subject, body) => {
    const { err } = await mesh.rpc(subject, A, body);
    expect(err).toMatchObject({ code: 'invalid_request', param: expect.stringMatching(/^due_/) });
  });

  it('an update of a task of another workspace is not_found on id and changes nothing', async () => {
    const { response: task } = await create(A, { title: 'Mine' });
    const { err } = await mesh.rpc(SUBJECTS.crm.tasksUpdate, { ...A, workspace_id: 'ws_b' }, { id: task.id, changes: { status: 'done' } });
    expect(err).toMatchObject({ code: 'not_found', param: 'id' });
    expect(await mesh.query('crm', 'SELECT status, completed_at FROM tasks WHERE id = $1', [task.id])).toEqual([{ status: 'open', completed_at: null }]);
  });

  it('status and completed_at never disagree in the table', async () => {
    await expect(mesh.query('crm', `INSERT INTO tasks (id, workspace_id, title, status) VALUES ('task_bad', 'ws_a', 'x', 'done')`))
      .rejects.toThrow(/check constraint/);
  });
});
