import { Task } from '@app/contracts';

/** A tasks row: the Task's own fields, with timestamps as the driver returns them. */
export interface TaskRow extends Omit<Task, 'object' | 'due_at' | 'completed_at' | 'created_at'> {
  workspace_id: string;
  due_at: Date | null;
  completed_at: Date | null;
  created_at: Date;
}

export const TASK_COLUMNS = 'id, workspace_id, title, lead_id, assignee_id, status, due_at, completed_at, created_at';

export function renderTask(row: TaskRow): Task {
  return {
    id: row.id,
    object: 'task',
    title: row.title,
    lead_id: row.lead_id,
    assignee_id: row.assignee_id,
    status: row.status,
    due_at: row.due_at ? row.due_at.toISOString() : null,
    completed_at: row.completed_at ? row.completed_at.toISOString() : null,
    created_at: row.created_at.toISOString(),
  };
}
