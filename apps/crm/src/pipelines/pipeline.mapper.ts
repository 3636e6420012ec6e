import { Pipeline } from '@app/contracts';
import { PipelineEntity } from './pipeline.entity';
import { StageEntity } from './stage.entity';

export function renderPipeline({ pipeline, stages }: { pipeline: PipelineEntity; stages: StageEntity[] }): Pipeline {
  return {
    id: pipeline.id,
    object: 'pipeline',
    name: pipeline.name,
    lens: pipeline.lens,
    is_default: pipeline.is_default,
    stages: stages.map((s) => ({ id: s.id, name: s.name, position: s.position, kind: s.kind })),
    created_at: pipeline.created_at.toISOString(),
  };
}
