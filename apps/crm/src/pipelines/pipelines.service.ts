import { Injectable } from '@nestjs/common';
import { ListEnvelope, ListPipelinesRequest, Pipeline, RequestContext } from '@app/contracts';
import { toListPage } from '@app/platform';
import { PipelineEntity } from './pipeline.entity';
import { PipelinesRepository } from './pipelines.repository';
import { StageEntity } from './stage.entity';

function renderPipeline({ pipeline, stages }: { pipeline: PipelineEntity; stages: StageEntity[] }): Pipeline {
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

@Injectable()
export class PipelinesService {
  constructor(private readonly pipelines: PipelinesRepository) {}

  /** The workspace's pipelines with their stages; a workspace listing before its first lead gets the templates first. */
  async list(ctx: RequestContext, query: ListPipelinesRequest): Promise<ListEnvelope<Pipeline>> {
    await this.pipelines.ensureProvisioned(ctx.workspace_id);
    const rows = await this.pipelines.list(ctx.workspace_id, query);
    return toListPage(rows.map(({ pipeline, stages }) => ({ id: pipeline.id, pipeline, stages })), query.limit, renderPipeline);
  }
}
