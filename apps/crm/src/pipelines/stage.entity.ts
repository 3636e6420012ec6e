import { Column, Entity, PrimaryColumn } from 'typeorm';
import { StageKind } from '@app/contracts';

/** A stage of a pipeline (migration 0004_companies_pipelines), at a position unique in its pipeline. */
@Entity({ name: 'stages' })
export class StageEntity {
  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ type: 'text' })
  pipeline_id!: string;

  @Column({ type: 'text' })
  workspace_id!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'int' })
  position!: number;

  @Column({ type: 'text' })
  kind!: StageKind;
}
