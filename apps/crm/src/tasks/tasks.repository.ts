import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Pool } from 'pg';
import { EntityManager, FindOptionsWhere, LessThan, QueryDeepPartialEntity, Repository } from 'typeorm';
import { ListTasksRequest, TaskStatus } from '@app/contracts';
import { IdempotentCreate, keysetPage, PG_POOL } from '@app/platform';
import { TaskEntity } from './task.entity';

export type NewTask = Pick<TaskEntity, 'id' | 'workspace_id' | 'title' | 'lead_id' | 'assignee_id' | 'due_at'>;

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

  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @InjectRepository(TaskEntity) private readonly tasks: Repository<TaskEntity>,
  ) {}

  onApplicationBootstrap(): void {
    this.stopSweeping = this.createKeys.sweepPeriodically(this.pool);
  }

  onApplicationShutdown(): void {
    this.stopSweeping?.();
  }

  async findById(workspaceId: string, id: string, manager: EntityManager = this.tasks.manager): Promise<TaskEntity | undefined> {
    return (await manager.findOneBy(TaskEntity, { workspace_id: workspaceId, id })) ?? undefined;
  }

  /** A new open task; the database stamps `created_at`. */
  async insert(manager: EntityManager, task: NewTask): Promise<TaskEntity> {
    const entity = manager.create(TaskEntity, { ...task, completed_at: null });
    await manager.insert(TaskEntity, entity);
    return entity;
  }

  /**
   * Writes the given fields in one statement. Marking a task done stamps `completed_at` (kept
   * when it was done already); opening it again clears it.
   */
  async update(workspaceId: string, id: string, changes: TaskChanges): Promise<TaskEntity | undefined> {
    if (Object.values(changes).every((value) => value === undefined)) return this.findById(workspaceId, id);
    const set: QueryDeepPartialEntity<TaskEntity> = {};
    if (changes.title !== undefined) set.title = changes.title;
    if (changes.due_at !== undefined) set.due_at = changes.due_at;
    if (changes.assignee_id !== undefined) set.assignee_id = changes.assignee_id;
    if (changes.status !== undefined) {
      set.status = changes.status;
      set.completed_at = () => (changes.status === 'done' ? "coalesce(completed_at, date_trunc('milliseconds', now()))" : 'NULL');
    }
    const { raw } = await this.tasks
      .createQueryBuilder()
      .update(TaskEntity)
      .set(set)
      .where('workspace_id = :workspaceId AND id = :id', { workspaceId, id })
      .returning('*')
      .execute();
    const [row] = raw as Record<string, unknown>[];
    return row ? this.tasks.create(row as Partial<TaskEntity>) : undefined;
  }

  /** Newest first, keyset on the time-ordered id; fetches one extra row to learn `has_more`. */
  async list(workspaceId: string, query: TaskListQuery): Promise<TaskEntity[]> {
    const where: FindOptionsWhere<TaskEntity> = { workspace_id: workspaceId };
    if (query.status !== undefined) where.status = query.status;
    if (query.lead_id !== undefined) where.lead_id = query.lead_id;
    if (query.assignee_id !== undefined) where.assignee_id = query.assignee_id;
    if (query.due_before !== undefined) where.due_at = LessThan(query.due_before);
    return this.tasks.find(keysetPage(where, query.starting_after, query.limit));
  }
}
