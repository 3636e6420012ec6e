import { Column, Entity, PrimaryColumn } from 'typeorm';
import { Lens } from '@app/contracts';

/** A pipeline of a workspace (migration 0004_companies_pipelines); one per workspace is the default. */
@Entity({ name: 'pipelines' })
export class PipelineEntity {
  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ type: 'text' })
  workspace_id!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'text', nullable: true })
  lens!: Lens | null;

  @Column({ type: 'boolean', default: false })
  is_default!: boolean;

  @Column({ type: 'timestamptz', default: () => "date_trunc('milliseconds', now())" })
  created_at!: Date;
}
