import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Pool } from 'pg';
import { ListTasksRequest, TaskStatus } from '@app/contracts';
import { IdempotentCreate, ListFilter, PG_POOL, Queryable } from '@app/platform';
import { TASK_COLUMNS, TaskRow } from './task.row';

export type NewTaskRow = Pick<TaskRow, 'id' | 'workspace_id' | 'title' | 'lead_id' | 'assignee_id' | 'due_at'>;

/** What a PATCH writes; `status` also sets or clears `completed_at`. */
export interface TaskChanges {
  title?: string;
  status?: TaskStatus;
  due_at?: Date | null;
  assignee_id?: string | null;
}

/** A list query with its date-time already read. */
export type TaskListQuery = Omit<ListTasksRequest, 'due_before'> & { due_before?: Date };

/** Every query is scoped by workspace: a task of another workspace does not exist here. */
@Injectable()
export class TasksRepository implements OnApplicationBootstrap, OnApplicationShutdown {
  readonly createKeys = new IdempotentCreate({ table: 'task_create_keys', column: 'task_id', noun: 'task' });
  private stopSweeping?: () => void;

  constructor(@Inject(PG_POOL) readonly pool: Pool) {}

  onApplicationBootstrap(): void {
    this.stopSweeping = this.createKeys.sweepPeriodically(this.pool);
  }

  onApplicationShutdown(): void {
    this.stopSweeping?.();
  }

  async findById(db: Queryable, workspaceId: string, id: string, forUpdate = false): Promise<TaskRow | undefined> {
    const { rows } = await db.query<TaskRow>(
      `SELECT ${TASK_COLUMNS} FROM tasks WHERE workspace_id = $1 AND id = $2${forUpdate ? ' FOR UPDATE' : ''}`,
      [workspaceId, id],
    );
    return rows[0];
  }

  /**
   * Whether the lead exists in the workspace; inside a transaction it also stays so until the
   * transaction ends (KEY SHARE makes a concurrent DELETE of the lead wait).
   */
  async lockLead(db: Queryable, workspaceId: string, leadId: string): Promise<boolean> {
    const { rowCount } = await db.query('SELECT 1 FROM leads WHERE workspace_id = $1 AND id = $2 FOR KEY SHARE', [workspaceId, leadId]);
    return rowCount === 1;
  }

  async insert(db: Queryable, task: NewTaskRow): Promise<TaskRow> {
    const { rows } = await db.query<TaskRow>(
      `INSERT INTO tasks (id, workspace_id, title, lead_id, assignee_id, due_at) VALUES ($1, $2, $3, $4, $5, $6)
       RETURNING ${TASK_COLUMNS}`,
      [task.id, task.workspace_id, task.title, task.lead_id, task.assignee_id, task.due_at],
    );
    return rows[0];
  }

  /**
   * Writes the given fields. Marking a task done stamps `completed_at` (kept when it was done
   * already); opening it again clears it.
   */
  async update(db: Queryable, workspaceId: string, id: string, changes: TaskChanges): Promise<TaskRow | undefined> {
    const params: unknown[] = [workspaceId, id];
    const set: string[] = [];
    const assign = (column: keyof TaskChanges, value: unknown) => {
      params.push(value);
      set.push(`${column} = $${params.length}`);
      return `$${params.length}`;
    };
    if (changes.title !== undefined) assign('title', changes.title);
    if (changes.due_at !== undefined) assign('due_at', changes.due_at);
    if (changes.assignee_id !== undefined) assign('assignee_id', changes.assignee_id);
    if (changes.status !== undefined) {
      const status = assign('status', changes.status);
      set.push(`completed_at = CASE WHEN ${status} = 'done' THEN coalesce(completed_at, date_trunc('milliseconds', now())) END`);
    }
    if (set.length === 0) return this.findById(db, workspaceId, id);
    const { rows } = await db.query<TaskRow>(
      `UPDATE tasks SET ${set.join(', ')} WHERE workspace_id = $1 AND id = $2 RETURNING ${TASK_COLUMNS}`,
      params,
    );
    return rows[0];
  }

  /** Newest first, keyset on the time-ordered id; fetches one extra row to learn `has_more`. */
  async list(workspaceId: string, query: TaskListQuery): Promise<TaskRow[]> {
    const filter = new ListFilter(workspaceId, query.starting_after)
      .add((p) => `status = ${p}`, query.status)
      .add((p) => `lead_id = ${p}`, query.lead_id)
      .add((p) => `assignee_id = ${p}`, query.assignee_id)
      .add((p) => `due_at < ${p}`, query.due_before);
    const { rows } = await this.pool.query<TaskRow>(`SELECT ${TASK_COLUMNS} FROM tasks ${filter.page(query.limit)}`, filter.params);
    return rows;
  }

}
