import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A note on a lead (migration 0005_tasks_notes); it goes with its lead (ON DELETE CASCADE). */
@Entity({ name: 'notes' })
export class NoteEntity {
  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ type: 'text' })
  workspace_id!: string;

  @Column({ type: 'text' })
  lead_id!: string;

  @Column({ type: 'text' })
  body!: string;

  @Column({ type: 'text', nullable: true })
  author_id!: string | null;

  @Column({ type: 'timestamptz', default: () => "date_trunc('milliseconds', now())" })
  created_at!: Date;
}
