import { Lens } from '../enums';
import { StageRef } from './lead';

export const STAGE_KINDS = ['open', 'won', 'lost'] as const;
export type StageKind = (typeof STAGE_KINDS)[number];

export interface Stage {
  id: string;
  name: string;
  position: number;
  kind: StageKind;
}

export interface Pipeline {
  id: string;
  object: 'pipeline';
  name: string;
  lens: Lens | null;
  is_default: boolean;
  stages: Stage[];
  created_at: string;
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
