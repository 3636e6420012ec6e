import { Column, Entity, PrimaryColumn } from 'typeorm';
import { ExportFilter, ExportFormat, ExportStatus } from '@app/contracts';

/** An export job (migration 0006_exports): the table is the job queue the worker claims from. */
@Entity({ name: 'exports' })
export class ExportEntity {
  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ type: 'text' })
  workspace_id!: string;

  @Column({ type: 'boolean' })
  livemode!: boolean;

  @Column({ type: 'text', default: 'queued' })
  status!: ExportStatus;

  @Column({ type: 'text' })
  format!: ExportFormat;

  @Column({ type: 'jsonb', default: () => "'{}'" })
  filter!: ExportFilter;

  @Column({ type: 'int', nullable: true })
  row_count!: number | null;

  @Column({ type: 'text', nullable: true })
  file_key!: string | null;

  @Column({ type: 'text', nullable: true })
  error!: string | null;

  @Column({ type: 'int', default: 0 })
  attempts!: number;

  @Column({ type: 'text', nullable: true })
  locked_by!: string | null;

  @Column({ type: 'timestamptz', nullable: true })
  locked_until!: Date | null;

  @Column({ type: 'text', nullable: true })
  request_id!: string | null;

  @Column({ type: 'text', nullable: true })
  idempotency_key!: string | null;

  @Column({ type: 'text', nullable: true })
  request_hash!: string | null;

  @Column({ type: 'timestamptz', default: () => "date_trunc('milliseconds', now())" })
  created_at!: Date;

  @Column({ type: 'timestamptz', nullable: true })
  started_at!: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  completed_at!: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  expires_at!: Date | null;
}
