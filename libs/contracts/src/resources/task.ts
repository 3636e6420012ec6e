import { ApiProperty } from '../api-docs';
import { ConstProperty, DateTimeProperty, IdProperty } from './api-property';

export const TASK_STATUSES = ['open', 'done'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

/** The Task resource of the spec. */
export class Task {
  @IdProperty('task_')
  id!: string;

  @ConstProperty('task')
  object!: 'task';

  @ApiProperty({ type: 'string', maxLength: 300 })
  title!: string;

  @ApiProperty({ type: 'string', nullable: true })
  lead_id!: string | null;

  @ApiProperty({ type: 'string', nullable: true })
  assignee_id!: string | null;

  @ApiProperty({ enum: TASK_STATUSES })
  status!: TaskStatus;

  @DateTimeProperty(undefined, { nullable: true })
  due_at!: string | null;

  /** Set when the task is marked done; cleared when it is opened again. */
  @DateTimeProperty('When marked done.', { nullable: true })
  completed_at!: string | null;

  @DateTimeProperty()
  created_at!: string;
}

/**
 * A note on a lead. The public API shows no notes endpoint ("not shown"); notes are written by
 * the application side (the admin CLI) over NATS and deleted with their lead.
 */
export interface Note {
  id: string;
  object: 'note';
  lead_id: string;
  body: string;
  author_id: string | null;
  created_at: string;
}
