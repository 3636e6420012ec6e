import { ApiProperty } from '../api-docs';
import { LENSES, Lens } from '../enums';
import { ConstProperty, DateTimeProperty, IdProperty } from './api-property';

import { StageRef } from './lead';

export const STAGE_KINDS = ['open', 'won', 'lost'] as const;
export type StageKind = (typeof STAGE_KINDS)[number];

export class Stage {
  @IdProperty('st_')
  id!: string;

  @ApiProperty({ type: 'string' })
  name!: string;

  @ApiProperty({ type: 'integer', description: 'Zero-based.', minimum: 0 })
  position!: number;

  @ApiProperty({ enum: STAGE_KINDS, description: '`won` and `lost` close the deal.' })
  kind!: StageKind;
}

export class Pipeline {
  @IdProperty('pl_')
  id!: string;

  @ConstProperty('pipeline')
  object!: 'pipeline';

  @ApiProperty({ type: 'string' })
  name!: string;

  @ApiProperty({ enum: LENSES, description: 'Lens the template was made for.', nullable: true, required: false })
  lens!: Lens | null;

  @ApiProperty({ type: 'boolean', description: 'Whether new leads land here.' })
  is_default!: boolean;

  @ApiProperty({ type: Stage, isArray: true, description: 'In order.' })
  stages!: Stage[];

  @DateTimeProperty()
  created_at!: string;
}

/** `data.object` of `lead.stage_changed`. */
export interface LeadStageChange {
  object: 'lead_stage_change';
  lead_id: string;
  pipeline_id: string;
  from_stage: StageRef | null;
  to_stage: StageRef | null;
  changed_at: string;
}
