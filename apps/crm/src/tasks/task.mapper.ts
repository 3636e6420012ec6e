import { Task } from '@app/contracts';
import { TaskEntity } from './task.entity';

export function renderTask(row: TaskEntity): Task {
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
