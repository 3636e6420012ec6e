export const TASK_STATUSES = ['open', 'done'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

/** The Task resource of the spec. */
export interface Task {
  id: string;
  object: 'task';
  title: string;
  lead_id: string | null;
  assignee_id: string | null;
  status: TaskStatus;
  due_at: string | null;
  /** Set when the task is marked done; cleared when it is opened again. */
  completed_at: string | null;
  created_at: string;
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
