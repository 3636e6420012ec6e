import { RequestContext } from '@app/contracts';
import { IdempotentCreate, Tx, UnitOfWork } from '@app/platform';
import { LeadsRepository } from '../leads/leads.repository';
import { TaskEntity } from './task.entity';
import { TasksRepository } from './tasks.repository';
import { TasksService } from './tasks.service';

/** TasksService with fake repositories and a pass-through UnitOfWork (tasks.integration-spec.ts runs it on PostgreSQL). */
const ctx = { workspace_id: 'ws_1', livemode: true, api_version: '2026-09-28', member_id: 'mem_1', owner_id: 'mem_owner', request_id: 'req_1' } as RequestContext;

function setup() {
  const tx = { query: jest.fn(), client: {}, manager: {} } as unknown as Tx;
  const uow = { run: jest.fn((work: (tx: Tx) => Promise<unknown>) => work(tx)) } as unknown as UnitOfWork;
  const tasks = {
    createKeys: new IdempotentCreate({ table: 'task_create_keys', column: 'task_id', noun: 'task' }),
    insert: jest.fn(async (_manager: unknown, task: Partial<TaskEntity>) => ({ ...task, status: 'open', completed_at: null, created_at: new Date('2026-11-01T00:00:00Z') })),
    update: jest.fn(),
    findById: jest.fn(),
    list: jest.fn(),
  };
  const leads = { lockLead: jest.fn() };
  const service = new TasksService(tasks as unknown as TasksRepository, leads as unknown as LeadsRepository, uow);
  return { service, tasks, leads, tx };
}

describe('TasksService (fake repositories)', () => {
  it('a task of an unknown lead is not_found naming lead_id, and nothing is inserted', async () => {
    const { service, tasks, leads, tx } = setup();
    leads.lockLead.mockResolvedValue(false);
    await expect(service.create(ctx, { title: 'Call', lead_id: 'lead_x' })).rejects.toMatchObject({ code: 'not_found', param: 'lead_id' });
    expect(leads.lockLead).toHaveBeenCalledWith(tx.client, 'ws_1', 'lead_x');
    expect(tasks.insert).not.toHaveBeenCalled();
  });

  it('a title alone: trimmed, no lead, no due date, assigned to the workspace owner, inserted in the unit of work', async () => {
    const { service, tasks, leads, tx } = setup();
    const task = await service.create(ctx, { title: '  Call back  ' });
    expect(leads.lockLead).not.toHaveBeenCalled();
    expect(tasks.insert).toHaveBeenCalledWith(tx.manager, expect.objectContaining({ workspace_id: 'ws_1', title: 'Call back', lead_id: null, assignee_id: 'mem_owner', due_at: null }));
    expect(task).toMatchObject({ object: 'task', title: 'Call back', status: 'open', due_at: null, assignee_id: 'mem_owner' });
  });

  it('a malformed due_at is invalid_request naming due_at, before any unit of work', async () => {
    const { service, tasks } = setup();
    await expect(service.create(ctx, { title: 'Call', due_at: 'tomorrow' })).rejects.toMatchObject({ code: 'invalid_request', param: 'due_at' });
    expect(tasks.insert).not.toHaveBeenCalled();
  });

  it('an update of an unknown task is not_found naming id', async () => {
    const { service, tasks } = setup();
    tasks.update.mockResolvedValue(undefined);
    await expect(service.update(ctx, 'task_x', { status: 'done' })).rejects.toMatchObject({ code: 'not_found', param: 'id' });
    expect(tasks.update).toHaveBeenCalledWith('ws_1', 'task_x', { status: 'done' });
  });
});
