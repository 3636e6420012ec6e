import { Column, Entity, PrimaryColumn } from 'typeorm';
import { TaskStatus } from '@app/contracts';

/** A task (migration 0005_tasks_notes); a CHECK keeps `status = done` and a non-null `completed_at` together. */
@Entity({ name: 'tasks' })
export class TaskEntity {
  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ type: 'text' })
  workspace_id!: string;

  @Column({ type: 'text' })
  title!: string;

  @Column({ type: 'text', nullable: true })
  lead_id!: string | null;

  @Column({ type: 'text', nullable: true })
  assignee_id!: string | null;

  @Column({ type: 'text', default: 'open' })
  status!: TaskStatus;

  @Column({ type: 'timestamptz', nullable: true })
  due_at!: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  completed_at!: Date | null;

  @Column({ type: 'timestamptz', default: () => "date_trunc('milliseconds', now())" })
  created_at!: Date;
}
