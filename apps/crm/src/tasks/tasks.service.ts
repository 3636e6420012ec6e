import { Injectable } from '@nestjs/common';
import {
  CreateTaskDto, ID_PREFIX, ListEnvelope, ListTasksRequest, parseDateTime, RequestContext, Task, UpdateTaskDto,
} from '@app/contracts';
import { DomainError, newId, toListPage, UnitOfWork } from '@app/platform';
import { renderTask } from './task.mapper';
import { LeadsRepository } from '../leads/leads.repository';
import { TaskChanges, TasksRepository } from './tasks.repository';

const FOREIGN_KEY_VIOLATION = '23503';

/** The instant of a date-time the gateway validated; a malformed one is still 400, never a database error. */
function dateTimeOf(value: string, param: string): Date {
  const date = parseDateTime(value);
  if (!date) throw DomainError.invalid(param, `${param} must be an ISO 8601 date-time with a time zone`);
  return date;
}

@Injectable()
export class TasksService {
  constructor(
    private readonly tasks: TasksRepository,
    private readonly leads: LeadsRepository,
    private readonly uow: UnitOfWork,
  ) {}

  async list(ctx: RequestContext, query: ListTasksRequest): Promise<ListEnvelope<Task>> {
    const rows = await this.tasks.list(ctx.workspace_id, {
      ...query,
      due_before: query.due_before !== undefined ? dateTimeOf(query.due_before, 'due_before') : undefined,
    });
    return toListPage(rows, query.limit, renderTask);
  }

  /**
   * A new open task. `lead_id` must name a lead of the workspace (404 on lead_id); the
   * assignee defaults to the workspace owner (the gateway checked a given one is a member).
   */
  async create(ctx: RequestContext, body: CreateTaskDto): Promise<Task> {
    const dueAt = body.due_at !== undefined && body.due_at !== null ? dateTimeOf(body.due_at, 'due_at') : null;
    const id = newId(ID_PREFIX.task);
    try {
      return await this.uow.run(({ manager, client }) => {
        const earlier = async (earlierId: string) => {
          const row = await this.tasks.findById(ctx.workspace_id, earlierId, manager);
          return row && renderTask(row);
        };
        return this.tasks.createKeys.run(client, ctx, id, async () => {
          if (body.lead_id !== undefined && !(await this.leads.lockLead(client, ctx.workspace_id, body.lead_id))) {
            throw DomainError.notFound('lead', body.lead_id, 'lead_id');
          }
          const row = await this.tasks.insert(manager, {
            id,
            workspace_id: ctx.workspace_id,
            title: body.title.trim(),
            lead_id: body.lead_id ?? null,
            assignee_id: body.assignee_id ?? ctx.owner_id,
            due_at: dueAt,
          });
          return renderTask(row);
        }, earlier);
      });
    } catch (err) {
      // the lead was deleted between the check and the insert (cannot happen under KEY SHARE; kept as a net)
      if ((err as { code?: string }).code === FOREIGN_KEY_VIOLATION && body.lead_id) {
        throw DomainError.notFound('lead', body.lead_id, 'lead_id');
      }
      throw err;
    }
  }

  /**
   * Changes only the fields sent. `done` stamps `completed_at` (a task already done keeps its
   * stamp), `open` clears it; null clears `due_at` and unassigns.
   */
  async update(ctx: RequestContext, id: string, body: UpdateTaskDto): Promise<Task> {
    const changes: TaskChanges = {};
    if (body.title !== undefined) changes.title = body.title.trim();
    if (body.status !== undefined) changes.status = body.status;
    if (body.due_at !== undefined) changes.due_at = body.due_at === null ? null : dateTimeOf(body.due_at, 'due_at');
    if (body.assignee_id !== undefined) changes.assignee_id = body.assignee_id;
    const row = await this.tasks.update(ctx.workspace_id, id, changes);
    if (!row) throw DomainError.notFound('task', id, 'id');
    return renderTask(row);
  }
}
