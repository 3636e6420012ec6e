import { TestMesh } from '../harness';
import { ISO_DATE_TIME } from './leads';

/** Helpers of the task end-to-end tests: the Task resource of the spec, create and list calls. */

/** The Task resource: exactly the spec's fields, each of its type. */
export function expectTask(task: any): void {
  expect(Object.keys(task).sort()).toEqual(
    ['assignee_id', 'completed_at', 'created_at', 'due_at', 'id', 'lead_id', 'object', 'status', 'title'],
  );
  expect(task.id).toMatch(/^task_/);
  expect(task.id.length).toBeLessThanOrEqual(255);
  expect(task.object).toBe('task');
  expect(task.title).toEqual(expect.stringMatching(/\S/));
  expect(task.lead_id === null || /^lead_/.test(task.lead_id)).toBe(true);
  expect(task.assignee_id === null || typeof task.assignee_id === 'string').toBe(true);
  expect(['open', 'done']).toContain(task.status);
  if (task.due_at !== null) expect(task.due_at).toMatch(ISO_DATE_TIME);
  if (task.status === 'done') expect(task.completed_at).toMatch(ISO_DATE_TIME);
  else expect(task.completed_at).toBeNull();
  expect(task.created_at).toMatch(ISO_DATE_TIME);
}

/** POST /tasks that must succeed: the 201 body, checked. */
export async function createTask(mesh: TestMesh, key: string, body: object): Promise<any> {
  const res = await mesh.request('POST', '/tasks', { key, body });
  expect({ status: res.status, text: res.text }).toEqual({ status: 201, text: expect.any(String) });
  expectTask(res.body);
  return res.body;
}

/** GET /tasks that must succeed: the list envelope, checked. */
export async function taskPage(mesh: TestMesh, key: string, query = ''): Promise<any> {
  const res = await mesh.request('GET', `/tasks${query ? `?${query}` : ''}`, { key });
  expect({ status: res.status, text: res.text }).toEqual({ status: 200, text: expect.any(String) });
  expect(Object.keys(res.body).sort()).toEqual(['data', 'has_more', 'next_cursor', 'object']);
  expect(res.body).toMatchObject({ object: 'list', data: expect.any(Array), has_more: expect.any(Boolean) });
  expect(res.body.has_more ? typeof res.body.next_cursor : res.body.next_cursor).toBe(res.body.has_more ? 'string' : null);
  for (const task of res.body.data) expectTask(task);
  return res.body;
}

/** Ids of the tasks a list query returns (one page of up to 100; the tests stay below that). */
export async function taskIds(mesh: TestMesh, key: string, query = ''): Promise<string[]> {
  const page = await taskPage(mesh, key, `limit=100${query ? `&${query}` : ''}`);
  expect(page.has_more).toBe(false);
  return page.data.map((t: any) => t.id);
}
